"""`mmdocsum bench judge` with a judge model labelled unfit to judge (SmolLM2-135M): refused before any
model loads, in one line that says why and names the flag that runs it anyway (issue 37, point 4)."""

from __future__ import annotations

import os
import subprocess
import sys

from mmdocsum_desktop.bench.splits import DEMO_ROOT


def test_an_unfit_judge_is_refused_unless_the_user_insists(tmp_path, smollm):
    env = {**os.environ, "MMDOCSUM_CONFIG_DIR": str(tmp_path / "config"),
           "MMDOCSUM_CACHE_DIR": str(tmp_path / "cache"), "MMDOCSUM_DATA_DIR": str(tmp_path / "data")}
    out = tmp_path / "run"
    result = subprocess.run(
        [sys.executable, "-m", "mmdocsum_desktop", "bench", "judge", "--docs", str(DEMO_ROOT / "docs" / "birds.md"),
         "--judge", "llama", "--judge-model", str(smollm), "--quiet", "-o", str(out)],
        capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr
    assert "SmolLM2-135M" in lines[0] and "too small to judge" in lines[0]  # which model, and why
    assert "--allow-unfit-judge" in lines[0]  # how to insist
    assert not out.exists()  # nothing was judged or written
    help_text = subprocess.run([sys.executable, "-m", "mmdocsum_desktop", "bench", "judge", "--help"],
                               capture_output=True, text=True, timeout=120, env=env).stdout
    assert "--allow-unfit-judge" in help_text
