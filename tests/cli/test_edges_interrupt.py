"""Ctrl-C (issue 28): a real SIGINT to the real command, at start-up (while it imports) and while it
writes, gives "interrupted", exit 130 and no traceback, and leaves no empty or half-written output."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import DATA_PAPERS

MMDOCSUM = Path(sys.executable).parent / "mmdocsum"  # the console script, as the user starts it
PAPER = DATA_PAPERS / "PMC2803133.pdf"


def interrupt(command: list[str], after_s: float, env: dict) -> subprocess.CompletedProcess:
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(after_s)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=120)
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


@pytest.mark.slow
@pytest.mark.parametrize("after_s", [0.3, 1.0])
@pytest.mark.parametrize("started", ["script", "module"])
def test_ctrl_c_at_start_up(env, tmp_path, after_s, started):
    assert MMDOCSUM.is_file(), "the mmdocsum console script is not installed in this environment"
    launcher = [str(MMDOCSUM)] if started == "script" else [sys.executable, "-m", "mmdocsum_desktop"]
    result = interrupt([*launcher, "extract", str(PAPER), "-o", str(tmp_path / "out"), "--quiet"], after_s, env)
    assert result.returncode == 130, (result.returncode, result.stderr[-2000:])
    assert "Traceback" not in result.stderr
    assert [line for line in result.stderr.splitlines() if line.strip()] == ["mmdocsum: interrupted"]
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_ctrl_c_while_extracting_leaves_nothing_half_done(env, tmp_path):
    """Interrupted at several moments of its work, extract leaves either its whole output or none: no
    empty figures/ folder, no crops without their document.json, no temporary files."""
    for after_s in (2.5, 5.0, 8.0):
        out = tmp_path / f"out-{after_s}"
        result = interrupt([str(MMDOCSUM), "extract", str(PAPER), "-o", str(out), "--quiet"], after_s, env)
        assert "Traceback" not in result.stderr, result.stderr[-2000:]
        if result.returncode == 0:  # it finished before the signal
            assert (out / "document.json").is_file()
            continue
        assert result.returncode == 130, (result.returncode, result.stderr[-2000:])
        assert "interrupted" in result.stderr
        left = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_relative_to(out))
        assert left == [], left
