"""`mmdocsum-desktop`, the launcher (gui/app.py), started as a user starts it."""

from __future__ import annotations

import os
import subprocess
import sys

from PIL import Image

from mmdocsum_desktop.gui.app import main
from tests.conftest import SAMPLE_PDF


def test_sample_opens_the_shipped_paper_and_summarises_it(tmp_path):
    # --screenshot refuses to run without a document: a picture means --sample gave it the shipped paper
    # and the window finished its summary
    shot = tmp_path / "window.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen",
           "MMDOCSUM_DATA_DIR": str(tmp_path / "data"), "MMDOCSUM_CACHE_DIR": str(tmp_path / "cache")}
    result = subprocess.run(
        [sys.executable, "-m", "mmdocsum_desktop.gui.app", "--sample", "--screenshot", str(shot), "--size", "900x600"],
        capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    with Image.open(shot) as image:
        assert image.size == (900, 600)


def test_sample_and_a_file_together_is_a_usage_error(capsys):
    assert main(["--sample", str(SAMPLE_PDF)]) == 2
    assert "give a FILE or --sample, not both" in capsys.readouterr().err
