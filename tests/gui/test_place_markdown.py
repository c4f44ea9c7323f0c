"""Issue 47, item 6: one writer for placed images. The same paper and the same paragraphs give the same
Markdown from `mmdocsum place` (placement.md) and from the window's Place images with every suggestion
accepted; each front end links the image where it keeps it (the command's output folder, the project's
images/), so the links are compared by the bytes of the file they name."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from mmdocsum_desktop.cli import main
from tests.gui.conftest import wait_job
from tests.gui.test_authoring_view import TEXT
from tests.gui.test_main_window import PAPER, open_document

_IMAGE = re.compile(r"^!\[([^\]]*)\]\(([^)]+)\)$", re.MULTILINE)


def by_content(markdown: str, root: Path) -> str:
    """The Markdown with each image link replaced by the SHA-256 of the file it names (under ``root``)."""

    def replace(match: re.Match[str]) -> str:
        target = root / match.group(2)
        assert target.is_file(), match.group(0)
        return f"![{match.group(1)}](sha256:{hashlib.sha256(target.read_bytes()).hexdigest()})"

    return _IMAGE.sub(replace, markdown)


@pytest.mark.slow  # real placement twice (the command, then the window) on a real paper
def test_the_window_writes_the_markdown_mmdocsum_place_writes(qtbot, make_window, tmp_path):
    notes = tmp_path / "notes.md"
    notes.write_text(TEXT, encoding="utf-8")
    out = tmp_path / "out"
    assert main(["place", "--paragraphs", str(notes), "--images", str(PAPER), "-o", str(out), "--quiet"]) == 0
    written = (out / "placement.md").read_bytes().decode("utf-8")
    rows = json.loads((out / "placement.json").read_text(encoding="utf-8"))
    assert any(row["image"] for row in rows)

    window = make_window()
    open_document(qtbot, window, PAPER)
    view = window.authoring_view
    window.tabs.setCurrentWidget(view)
    view.editor.setPlainText(TEXT)
    job = view.place_images()
    wait_job(qtbot, job, 240_000)
    assert job.state == "succeeded", job.error
    suggestions = window.workspace.project.placements
    # the same placements: the window and the command run the same use case with the same settings
    assert [(s.paragraph, s.label) for s in suggestions] == [(r["paragraph"], r["figure"]) for r in rows if r["image"]]
    for row, suggestion in enumerate(suggestions):
        view.accept(row)
        assert suggestion.status == "accepted"
    accepted = view.editor.toPlainText()

    assert accepted.count("![") == written.count("![") == len(suggestions)
    assert "\n\n*" in written  # the figures' captions, one italic line under each image (the crops show none)
    assert by_content(accepted, window.workspace.root).encode("utf-8") == by_content(written, out).encode("utf-8")
