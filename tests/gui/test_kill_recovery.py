"""SIGKILL in the middle of editing: the real app, in its own process, edits a project through its
widgets (``tests/gui/kill_driver.py``) and is killed at random moments and in the middle of an autosave
write. After each kill the recovery the app offers at its next start brings back every edit made more
than the autosave interval (plus a margin) before the kill, and nothing on disk is corrupt."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

from mmdocsum_desktop.app import project as proj
from mmdocsum_desktop.document.reader import read_document
from mmdocsum_desktop.gui.project_files import AUTOSAVE_DELAY_MS
from mmdocsum_desktop.schemas.summary import ROLES, Summary, SummaryParagraph
from tests.conftest import REPO_ROOT

# An edit older than this at the moment of the kill must have been recovered: the autosave interval,
# plus time for the event loop to run the timer and for the worker to write and fsync project.json.
MARGIN_S = 1.0
DEADLINE_S = AUTOSAVE_DELAY_MS / 1000 + MARGIN_S
PARAGRAPHS = [
    "Documents mix text and figures; readers want both in a summary.",
    "We classify pictures with a small model and place them next to the text.",
    "The classifier is right for most pictures in the sample.",
    "Figures make summaries easier to follow.",
]


def _make_project(paper: Path, target: Path) -> Path:
    """A real project file: a PDF imported with its figure crops, and a four-paragraph summary."""
    document = read_document(paper)
    workspace = proj.Workspace.create()
    workspace.import_document(document)
    workspace.project.summary = Summary(paragraphs=[SummaryParagraph(role=role, text=text)
                                                    for role, text in zip(ROLES, PARAGRAPHS, strict=True)])
    workspace.project.authoring = "My notes on the paper."
    saved = workspace.save_as(target)
    workspace.discard()
    return saved


class Journal:
    """The driver's journal, read as it grows."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.events: list[dict] = []
        self._offset = 0
        self._rest = b""

    def poll(self) -> list[dict]:
        try:
            with self.path.open("rb") as handle:
                handle.seek(self._offset)
                data = handle.read()
        except FileNotFoundError:
            return []
        self._offset += len(data)
        lines = (self._rest + data).split(b"\n")
        self._rest = lines.pop()
        fresh = [json.loads(line) for line in lines if line]
        self.events += fresh
        return fresh

    def count(self, event: str) -> int:
        return sum(1 for e in self.events if e["event"] == event)


def _run_and_kill(project_file: Path, journal_path: Path, seed: int, how: tuple[str, float]) -> tuple[Journal, float]:
    """Start the driver, let it edit, SIGKILL it; return the journal and the time of the kill."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO_ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.gui.kill_driver", str(project_file), str(journal_path), str(seed)],
        cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    journal = Journal(journal_path)
    try:
        deadline = time.monotonic() + 60
        while not any(e["event"] in ("ready", "error") for e in journal.events):
            journal.poll()
            assert process.poll() is None, f"the app exited: {process.stderr.read().decode()[-2000:]}"
            assert time.monotonic() < deadline, "the app did not open the project within 60 s"
            time.sleep(0.02)
        assert journal.count("ready") == 1, journal.events
        kind, value = how
        if kind == "after":  # a random moment
            time.sleep(value)
        else:  # the moment the value-th autosave write starts: in the middle of writing project.json
            deadline = time.monotonic() + 30
            while journal.count("write-start") < value:
                journal.poll()
                assert time.monotonic() < deadline, "no autosave while the user typed"
                time.sleep(0.0005)
        killed_at = time.time()
        os.kill(process.pid, signal.SIGKILL)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(10)
        process.stderr.close()
    assert process.returncode == -signal.SIGKILL
    journal.poll()
    return journal, killed_at


def test_sigkill_while_editing_loses_no_edit_older_than_the_autosave_interval(qtbot, make_window, tmp_path,
                                                                             two_figure_pdf):
    project_file = _make_project(two_figure_pdf, tmp_path / "paper.mdsproj")
    original = project_file.read_bytes()
    rng = random.Random(int(os.environ.get("MMDOCSUM_KILL_SEED", "7")))
    # random moments, and the moments the 2nd and 3rd autosave writes start
    plan = [("after", rng.uniform(2.5, 4.0)), ("write", 2), ("after", rng.uniform(4.0, 6.0)), ("write", 3)]
    checked = 0
    for round_number, how in enumerate(plan):
        journal, killed_at = _run_and_kill(project_file, tmp_path / f"journal{round_number}.jsonl",
                                           seed=rng.randrange(1 << 30), how=how)
        root = Path(next(e for e in journal.events if e["event"] == "ready")["root"])
        edits = [e for e in journal.events if e["event"] == "edit"]
        assert edits, "the app made no edit before it was killed"

        # on disk: project.json parses and validates (an atomic write is whole or absent), the
        # project file the user opened is untouched
        proj.Project.model_validate(json.loads((root / "project.json").read_text(encoding="utf-8")))
        unfinished = sorted(p.name for p in root.glob(".*.tmp"))  # a write the kill interrupted
        assert project_file.read_bytes() == original
        with zipfile.ZipFile(project_file) as archive:
            assert archive.testzip() is None

        # the next start offers the killed session's work; take it through the real recovery
        offered = proj.recoverable_workspaces()
        assert [item.root for item in offered] == [str(root)]
        window = make_window()
        window.ask_recover = lambda found: found[0]
        assert window.offer_recovery(), window.banner.text
        assert not list(root.glob(".*.tmp"))  # the recovery clears what the killed writes left
        project = window.workspace.project
        assert project.summary is not None and len(project.summary.paragraphs) == len(PARAGRAPHS)
        authoring = window.authoring_view.editor.toPlainText()
        assert authoring == project.authoring and authoring.startswith("My notes on the paper.")
        window.summary_view.flush()

        due = [e for e in edits if e["t"] < killed_at - DEADLINE_S]
        lost = []
        for edit in due:
            text = authoring if edit["kind"] == "authoring" else project.summary.paragraphs[edit["index"]].text
            if edit["marker"] not in text:
                lost.append(f"{edit['kind']} {edit['index']} {edit['marker']} typed "
                            f"{killed_at - edit['t']:.2f} s before the kill")
        assert not lost, f"round {round_number} ({how}): edits lost:\n" + "\n".join(lost)
        # what the window shows is what was recovered
        for card, paragraph in zip(window.summary_view.cards, project.summary.paragraphs, strict=True):
            assert card.paragraph is paragraph
        checked += len(due)
        mid_write = journal.count("write-start") > journal.count("write-end")
        print(f"round {round_number} {how}: {len(edits)} edits, {len(due)} old enough, all recovered; "
              f"{journal.count('write-end')} autosaves{', killed while writing' if mid_write else ''}; "
              f"unfinished writes left: {unfinished}")

        window.dirty = False
        window.close()  # a clean close discards the recovered copy: the next round starts afresh
        assert not root.exists() and proj.recoverable_workspaces() == []
    assert checked >= 20, f"only {checked} edits were old enough to check"


def test_an_autosave_that_runs_late_never_puts_older_work_back():
    """Autosaves are written by worker threads (two at a time): the snapshot taken last wins, whichever
    write runs last."""
    workspace = proj.Workspace.create()
    try:
        workspace.project.authoring = "older"
        older = workspace.snapshot()
        workspace.project.authoring = "newer"
        newer = workspace.snapshot()
        workspace.write_snapshot(newer)
        workspace.write_snapshot(older)  # the worker that took the older snapshot ran late
        saved = json.loads((workspace.root / "project.json").read_text(encoding="utf-8"))
        assert saved["authoring"] == "newer"
        workspace.project.authoring = "newest"
        workspace.autosave()
        assert json.loads((workspace.root / "project.json").read_text(encoding="utf-8"))["authoring"] == "newest"
    finally:
        workspace.discard()
