"""Nothing lost (issue 28): the output-path guard of every command, and output-side failures as the user's
errors — one line, exit 2, the input untouched and nothing half-written left behind.

The read-only folder and the full disk are real: a tmpfs mounted read-only, or with a few kilobytes of
room, inside a user and mount namespace (``unshare -rm``: the test runs as root on CI, and root writes
through ``chmod``). Where the kernel has no user namespaces the tests fall back to what still binds root:
an immutable folder (``chattr +i``) for read-only and a file-size limit (``RLIMIT_FSIZE``, the same
failed write) for the full disk.
"""

from __future__ import annotations

import hashlib
import os
import resource
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from mmdocsum_desktop.document.reader import read_document
from mmdocsum_desktop.fileio import OutputError, write_text_atomic
from tests.conftest import DATA_PAPERS

ARTICLE = """# Sourdough rises faster in a warm kitchen

## Abstract

We baked twelve loaves at three kitchen temperatures and measured how fast the dough rose.

## Results

Dough at 26 degrees doubled in four hours; at 18 degrees it took nine hours.
"""
FIGURES_PDF = DATA_PAPERS / "PMC2803133.pdf"  # 3 figures and 4 tables: crops of several hundred KB


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


@pytest.fixture()
def notes(tmp_path) -> Path:
    path = tmp_path / "notes.md"
    path.write_text(ARTICLE, encoding="utf-8")
    return path


@pytest.mark.parametrize("command", ["summarize", "extract"])
def test_the_output_is_never_the_input(cli, tmp_path, notes, command):
    kept = _digest(notes)
    (tmp_path / "link.md").symlink_to(notes)
    os.link(notes, tmp_path / "hard.md")
    for target in (notes, tmp_path / "link.md", tmp_path / "hard.md"):
        code, _, err = cli(command, notes, "-o", target, "--quiet")
        assert code == 2, err
        line = _one_line(err)
        assert "input" in line or "is a file" in line, line
    assert _digest(notes) == kept
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hard.md", "link.md", "notes.md"]


def test_a_pdf_summary_onto_its_pdf_is_refused(cli, tmp_path):
    paper = tmp_path / "paper.pdf"
    shutil.copy(FIGURES_PDF, paper)
    kept = _digest(paper)
    code, _, err = cli("summarize", paper, "-o", paper, "--format", "md", "--quiet")
    assert code == 2 and "the input document paper.pdf" in _one_line(err)
    assert _digest(paper) == kept


def test_extract_into_an_existing_file_is_refused(cli, tmp_path, notes):
    taken = tmp_path / "taken"
    taken.write_text("a file the user keeps\n")
    code, _, err = cli("extract", notes, "-o", taken, "--quiet")
    assert code == 2 and "is a file; -o takes the folder" in _one_line(err)
    assert taken.read_text() == "a file the user keeps\n"


@pytest.mark.parametrize("target", ["/proc/self/summary.json", "/sys/kernel/summary.json", "/dev/null"])
def test_system_folders_are_refused(cli, notes, target):
    code, _, err = cli("summarize", notes, "-o", target, "--quiet")
    assert code == 2, err
    assert "system folder" in _one_line(err)


def test_the_guard_holds_for_every_atomic_write(tmp_path, notes):
    """The desktop app's exports write through fileio too: a document this process read is protected
    even where no front end named it."""
    read_document(notes)
    with pytest.raises(OutputError, match="input document notes.md"):
        write_text_atomic(notes, "a summary")
    assert notes.read_text(encoding="utf-8") == ARTICLE


# ------------------------------------------------------------------- read-only folder and full disk


def _user_namespaces() -> bool:
    if not shutil.which("unshare"):
        return False
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=16k tmpfs /mnt 2>/dev/null || "
                            "mount -t tmpfs -o size=16k tmpfs \"$TMPDIR\""], capture_output=True,
                           env={**os.environ, "TMPDIR": "/tmp"})
    return probe.returncode == 0


USERNS = _user_namespaces()


def run_on_mount(env: dict, folder: Path, options: str, *args: str, size_limit: int | None = None):
    """``mmdocsum ARGS`` with a fresh tmpfs (``options``: ro, or size=) mounted on ``folder``, in a mount
    namespace of its own (gone when the command ends), or with the fallbacks of the module docstring.
    Returns the finished process and the paths under ``folder`` when the command ended."""
    folder.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "mmdocsum_desktop", *args]
    if USERNS:
        listing = folder.parent / f"{folder.name}.left.txt"  # outside the mount: read after it is gone
        script = (f"mount -t tmpfs -o {options} tmpfs {shlex.quote(str(folder))} || exit 99; "
                  f"{shlex.join(command)}; code=$?; find {shlex.quote(str(folder))} -mindepth 1 "
                  f"> {shlex.quote(str(listing))}; exit $code")
        result = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, env=env,
                                timeout=240)
        assert result.returncode != 99, result.stderr
        return result, listing.read_text().split()

    def limit_writes() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size_limit, size_limit))

    if options == "ro":
        if os.geteuid() != 0:
            folder.chmod(0o500)
        else:
            subprocess.run(["chattr", "+i", str(folder)], check=True)
        try:
            result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=240)
        finally:
            if os.geteuid() == 0:
                subprocess.run(["chattr", "-i", str(folder)], check=True)
            folder.chmod(0o700)
    else:
        result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=240,
                                preexec_fn=limit_writes)
    return result, [str(p) for p in folder.rglob("*")]


@pytest.mark.slow
def test_a_read_only_folder_is_the_users_error(env, tmp_path, notes):
    locked = tmp_path / "locked"
    for command, target in (("summarize", locked / "summary.json"), ("extract", locked / "out")):
        extra = ["--engine", "extractive"] if command == "summarize" else []
        result, left = run_on_mount(env, locked, "ro", command, str(notes), "-o", str(target), "--quiet", *extra)
        assert result.returncode == 2, result.stderr
        line = _one_line(result.stderr)
        assert "cannot write" in line and ("read-only" in line or "permission denied" in line), line
        assert left == []


@pytest.mark.slow
def test_a_full_disk_leaves_no_figures_behind(env, tmp_path):
    """A PDF with figures (more than 100 KB of crops) extracted onto a disk with 48 KB of room: one line,
    exit 2, and the crops that fitted are removed again, with the folders made for them."""
    disk = tmp_path / "small-disk"
    result, left = run_on_mount(env, disk, "size=48k", "extract", str(FIGURES_PDF), "-o", str(disk / "out"),
                                "--quiet", size_limit=48 * 1024)
    assert result.returncode == 2, result.stderr
    line = _one_line(result.stderr)
    assert "cannot write" in line and ("no space left" in line or "too large" in line), line
    assert left == [], left
