"""`mmdocsum-desktop paper.pdf --screenshot paper.pdf` once replaced the PDF with a PNG (issue 38, item 2):
the screenshot goes through the output guard, refused in one line with exit code 2 before any work."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys

from tests.conftest import DATA_PAPERS, REPO_ROOT


def test_a_screenshot_onto_its_document_is_refused(tmp_path):
    paper = tmp_path / "paper.pdf"
    shutil.copy(DATA_PAPERS / "PMC2803133.pdf", paper)
    (tmp_path / "link.png").symlink_to(paper)
    kept = hashlib.sha256(paper.read_bytes()).hexdigest()
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO_ROOT),
           "MMDOCSUM_CONFIG_DIR": str(tmp_path / "config"), "MMDOCSUM_WORKSPACES_DIR": str(tmp_path / "ws")}
    for target in (paper, tmp_path / "link.png"):
        result = subprocess.run([sys.executable, "-m", "mmdocsum_desktop.gui.app", str(paper), "--screenshot", str(target)],
                                env=env, capture_output=True, text=True, timeout=120)
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert result.returncode == 2, result.stderr[-2000:]
        assert len(lines) == 1 and "the input document paper.pdf" in lines[0], result.stderr
    assert hashlib.sha256(paper.read_bytes()).hexdigest() == kept
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.png", "paper.pdf"]
