"""Nothing lost, nothing leaked through the files around an output (issue 38, items 1–4), through the real
commands: a summary's ``NAME_images/`` and ``NAME_files/`` and ``place -o`` hold the user's files too, and
only what the app wrote there is replaced or removed; a document that is not a regular file is refused in
one line before it is opened."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mmdocsum_desktop.fileio import record_file, recorded_files
from tests.conftest import DATA_PAPERS, REPO_ROOT
from tests.security.conftest import tiny_document

FIGURES_PDF = DATA_PAPERS / "PMC2803133.pdf"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


def test_a_summary_beside_its_input_in_name_images_keeps_the_input(cli, tmp_path):
    """`summarize notes_images/paper.pdf -o notes.md` once deleted the input with the folder."""
    folder = tmp_path / "notes_images"
    folder.mkdir()
    paper = folder / "paper.pdf"
    shutil.copy(FIGURES_PDF, paper)
    (folder / "mine.txt").write_text("the user's own notes")
    kept = _digest(paper)
    for _ in range(2):  # the second run replaces the first one's images, and only those
        code, _, err = cli("summarize", paper, "-o", tmp_path / "notes.md", "--quiet")
        assert code == 0, err
    assert _digest(paper) == kept and (folder / "mine.txt").read_text() == "the user's own notes"
    text = (tmp_path / "notes.md").read_text(encoding="utf-8")
    shown = sorted(p.name for p in folder.iterdir() if p.suffix == ".png")
    assert shown and all(f"notes_images/{name}" in text for name in shown)
    assert recorded_files(folder)["images"] == shown


def test_a_forged_manifest_in_name_images_removes_nothing(cli, tmp_path):
    """What the app wrote is in its own data dir: a manifest found inside NAME_images/ (forged, or an
    earlier version's, listing the user's files) neither removes nor replaces what it lists."""
    paper = tmp_path / "paper.pdf"
    shutil.copy(FIGURES_PDF, paper)
    folder = tmp_path / "notes_images"
    folder.mkdir()
    (folder / "mine.txt").write_text("the user's own notes")
    (folder / ".mmdocsum-files.json").write_text(json.dumps(
        {"written_by": "mmdocsum-desktop", "groups": {"images": ["mine.txt"]}}))
    for _ in range(2):
        code, _, err = cli("summarize", paper, "-o", tmp_path / "notes.md", "--quiet")
        assert code == 0, err
    assert (folder / "mine.txt").read_text() == "the user's own notes"
    assert "mine.txt" not in recorded_files(folder)["images"]


def test_an_articles_own_images_survive_its_summary(cli, tmp_path):
    """An article ``art.md`` with ``art_images/duck.png``, summarised as Markdown into ``art.txt``."""
    article = tiny_document(tmp_path)
    folder = tmp_path / "tiny_images"
    folder.mkdir()
    (tmp_path / "bread_rise.png").rename(folder / "bread_rise.png")
    article.write_text(article.read_text().replace("(bread_rise.png)", "(tiny_images/bread_rise.png)"))
    shutil.copy(folder / "bread_rise.png", folder / "figure-1.png")  # the user's, named as the app names its own
    before = {p.name: _digest(p) for p in folder.iterdir()}
    code, _, err = cli("summarize", article, "-o", tmp_path / "tiny.txt", "--format", "md", "--quiet")
    assert code == 0, err
    assert {name: _digest(folder / name) for name in before} == before
    written = recorded_files(folder)["images"]
    assert "figure-1.png" not in written and "bread_rise.png" not in written


def test_a_users_document_json_in_name_files_is_refused_untouched(cli, tmp_path):
    article = tiny_document(tmp_path)
    files = tmp_path / "page_files"
    files.mkdir()
    (files / "document.json").write_text('{"mine": true}\n')
    code, _, err = cli("summarize", article, "-o", tmp_path / "page.md", "--quiet")
    assert code == 2
    assert "document.json is not a file mmdocsum wrote" in _one_line(err)
    assert (files / "document.json").read_text() == '{"mine": true}\n'
    assert not (tmp_path / "page.md").exists()


def test_an_earlier_versions_files_folder_is_still_replaced(cli, tmp_path):
    """A NAME_files/ written before the app recorded its files: its own document.json says it is the app's."""
    article = tiny_document(tmp_path)
    code, _, err = cli("summarize", article, "-o", tmp_path / "page.md", "--quiet")
    assert code == 0, err
    record_file(tmp_path / "page_files").unlink()
    code, _, err = cli("summarize", article, "-o", tmp_path / "page.md", "--quiet")
    assert code == 0, err


@pytest.mark.parametrize("name", ["placement.md", "placement.json"])
def test_place_into_the_folder_of_its_paragraphs_keeps_them(cli, tmp_path, monkeypatch, name):
    article = tiny_document(tmp_path)
    paragraphs = tmp_path / name
    text = (json.dumps(["Dough rose faster when warm.", "Figure 1 shows the height over time."]) if name.endswith(".json")
            else "Dough rose faster when warm.\n\nFigure 1 shows the height over time.\n")
    paragraphs.write_text(text)
    monkeypatch.chdir(tmp_path)
    code, _, err = cli("place", "--paragraphs", name, "--images", article, "-o", ".", "--quiet")
    assert code == 2
    assert f"input document {name}" in _one_line(err)
    assert paragraphs.read_text() == text
    assert not (tmp_path / "document.json").exists()  # refused before anything was extracted


def test_place_replaces_its_own_results_but_not_a_users_file(cli, tmp_path):
    article = tiny_document(tmp_path)
    paragraphs = tmp_path / "mine.md"
    paragraphs.write_text("Dough rose faster when warm.\n\nFigure 1 shows the height over time.\n")
    out = tmp_path / "out"
    for _ in range(2):
        code, _, err = cli("place", "--paragraphs", paragraphs, "--images", article, "-o", out, "--quiet")
        assert code == 0, err
    record_file(out).unlink()
    (out / "placement.md").write_text("the user's own placement notes\n")
    later = (out / "placement.json").stat().st_mtime + 3600  # edited an hour after the app wrote its files
    os.utime(out / "placement.md", (later, later))
    code, _, err = cli("place", "--paragraphs", paragraphs, "--images", article, "-o", out, "--quiet")
    assert code == 2 and "placement.md is not a file mmdocsum wrote" in _one_line(err)
    assert (out / "placement.md").read_text() == "the user's own placement notes\n"
    (out / "placement.md").unlink()  # an earlier version's results alone (no record): replaced
    code, _, err = cli("place", "--paragraphs", paragraphs, "--images", article, "-o", out, "--quiet")
    assert code == 0, err


def test_a_document_linked_to_proc_environ_is_refused(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("MMDOCSUM_TEST_SECRET", "environment-value-that-must-not-leak")
    (tmp_path / "paper.md").symlink_to("/proc/self/environ")
    for command in (["summarize", tmp_path / "paper.md", "-o", tmp_path / "s.json"],
                    ["extract", tmp_path / "paper.md", "-o", tmp_path / "out"],
                    ["place", "--paragraphs", tmp_path / "paper.md", "--images", tmp_path / "paper.md", "-o", tmp_path / "p"]):
        code, out, err = cli(*command, "--quiet")
        assert code == 2, err
        assert "system file under /proc" in _one_line(err)
    left = [p for p in tmp_path.rglob("*") if p.is_file() and not p.is_symlink()]
    assert all("environment-value-that-must-not-leak" not in p.read_text(errors="replace") for p in left)
    assert not (tmp_path / "s.json").exists() and not (tmp_path / "out").exists()


def test_a_fifo_document_is_refused_at_once(env, tmp_path):
    os.mkfifo(tmp_path / "paper.md")
    result = subprocess.run([sys.executable, "-m", "mmdocsum_desktop", "summarize", str(tmp_path / "paper.md"),
                             "-o", str(tmp_path / "s.json"), "--quiet"], env={**env, "PYTHONPATH": str(REPO_ROOT)},
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert "named pipe (FIFO), not a regular file" in _one_line(result.stderr)
