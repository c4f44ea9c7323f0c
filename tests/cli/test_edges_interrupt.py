"""Ctrl-C (issue 28): a real SIGINT to the real command, at start-up (while it imports) and while it
writes, gives "interrupted", exit 130 and no traceback, and leaves no empty or half-written output."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.signals import interrupt_when
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
@pytest.mark.parametrize("moment", ["page 3]", "page 7]", "Table 2]"])
def test_ctrl_c_while_extracting_leaves_nothing_half_done(env, tmp_path, moment):
    """Interrupted while it reads pages and while it writes the crops (the moment its own progress line
    names, so the run cannot have finished), extract leaves no output: no empty figures/ folder, no crops
    without their document.json, no temporary files."""
    out = tmp_path / "out"
    process = subprocess.Popen([str(MMDOCSUM), "extract", str(PAPER), "-o", str(out)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    received, rest = interrupt_when(process, lambda streamed: moment in streamed)
    assert moment in received, received[-2000:]
    assert process.returncode == 130, (process.returncode, rest[-2000:])
    assert "Traceback" not in rest and "interrupted" in rest
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == []
