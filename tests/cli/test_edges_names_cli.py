"""Issue 48, item 6: file names the command cannot carry are the user's errors, one line and exit 2 —
never a traceback (exit 70): a document whose name is not UTF-8 (its name goes into document.json and
the summary, which are UTF-8), and an output name so long that the app's companions derived from it
(``NAME_images/``, ``NAME_files/``, the temporary ``.NAME.XXXXXXXX.tmp`` of an atomic write) pass the
file system's 255-byte limit on one name. Through the real command, as the user runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ARTICLE = """# Sourdough rises faster in a warm kitchen

## Abstract

We baked twelve loaves at three kitchen temperatures and measured how fast the dough rose.

## Results

Dough at 26 degrees doubled in four hours; at 18 degrees it took nine hours.
"""
LATIN1_NAME = b"caf\xe9.md"  # "café.md" in Latin-1: not UTF-8


def _run(env: dict, cwd: Path, *args: str | bytes) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mmdocsum_desktop", *args], capture_output=True, text=True,
                          errors="replace", env=env, cwd=cwd, timeout=180, check=False)


def _one_clear_line(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    for word in words:
        assert word in lines[0], lines[0]


@pytest.mark.parametrize("command", ["summarize", "extract"])
def test_a_document_whose_name_is_not_utf8_is_one_line(env, tmp_path, command):
    name = os.fsdecode(LATIN1_NAME)
    (tmp_path / name).write_text(ARTICLE, encoding="utf-8")
    out = ["-o", "s.json", "--engine", "extractive"] if command == "summarize" else ["-o", "out"]
    result = _run(env, tmp_path, command, name, *out, "--quiet")
    _one_clear_line(result, "UTF-8", "rename")
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # nothing written


def test_an_output_whose_name_is_not_utf8_is_one_line(env, tmp_path):
    (tmp_path / "notes.md").write_text(ARTICLE, encoding="utf-8")
    result = _run(env, tmp_path, "summarize", "notes.md", "-o", os.fsdecode(b"r\xe9sum\xe9.md"), "--quiet",
                  "--engine", "extractive")
    _one_clear_line(result, "UTF-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.md"]


@pytest.mark.parametrize("length", [243, 250, 255])
@pytest.mark.parametrize("suffix", [".md", ".json"])
def test_an_output_name_near_the_255_byte_limit_is_one_line(env, tmp_path, length, suffix):
    (tmp_path / "notes.md").write_text(ARTICLE, encoding="utf-8")
    name = "n" * (length - len(suffix)) + suffix
    result = _run(env, tmp_path, "summarize", "notes.md", "-o", name, "--quiet", "--engine", "extractive")
    _one_clear_line(result, "bytes", "shorter")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.md"]


def test_a_long_name_with_room_for_its_companions_is_written(env, tmp_path):
    (tmp_path / "notes.md").write_text(ARTICLE, encoding="utf-8")
    name = "n" * 231 + ".md"  # 234 bytes: its staging folder ".{stem}_images.<12 hex>" is 252
    result = _run(env, tmp_path, "summarize", "notes.md", "-o", name, "--quiet", "--engine", "extractive")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / name).is_file()


def test_an_extract_folder_name_over_the_limit_is_one_line(env, tmp_path):
    (tmp_path / "notes.md").write_text(ARTICLE, encoding="utf-8")
    result = _run(env, tmp_path, "extract", "notes.md", "-o", "d" * 256, "--quiet")
    _one_clear_line(result, "bytes", "shorter")
