"""tools/make_test_data.py: the generated test data (the HTML and Markdown articles with their figure crops,
the scanned page) is what the tool writes from the committed originals, with nothing outside the
repository; refreshing the originals from a folder that is not the corpus changes nothing."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import DATA, REPO_ROOT

TOOL = REPO_ROOT / "tools" / "make_test_data.py"


def test_the_generated_test_data_is_what_the_tool_writes_from_the_committed_papers():
    result = subprocess.run([sys.executable, str(TOOL), "--check"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr


def test_copying_originals_from_a_folder_without_them_fails_in_one_line_and_copies_nothing(tmp_path):
    before = {path: path.stat().st_mtime_ns for path in DATA.rglob("*") if path.is_file()}
    result = subprocess.run([sys.executable, str(TOOL), "--copy-originals", "--corpus", str(tmp_path)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "originals not found" in result.stderr
    assert {path: path.stat().st_mtime_ns for path in DATA.rglob("*") if path.is_file()} == before
