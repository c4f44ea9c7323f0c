"""The model process's idle timeout, on the real SmolLM2 GGUF (issue 37, point 4): a child left unused
for ``idle_timeout_s`` exits and gives its memory back; the next call loads the model again (not counted
as a crash restart) and answers as before; a call under way is never cut; the settings carry the
timeout to the engine the factory builds."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from mmdocsum_desktop.engines.base import GenerationOptions, Message
from mmdocsum_desktop.engines.factory import build_engine
from mmdocsum_desktop.engines.llama import LlamaConfig
from mmdocsum_desktop.engines.llama_process import DEFAULT_IDLE_TIMEOUT_S, LlamaProcessEngine
from mmdocsum_desktop.schemas.settings import EngineChoice, EngineSettings, LlamaSettings
from tests.engines.conftest import THREADS, require_llama

pytestmark = pytest.mark.slow

PROMPT = [Message("user", "Name three colours.")]
OPTIONS = GenerationOptions(max_tokens=8, temperature=0.0, seed=0)


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # the engine reaps its child: an exited one is no process at all
    except ProcessLookupError:
        return True
    return False


def _resident_bytes(pid: int) -> int:
    """The process's resident memory (Linux /proc, where the tests run)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmRSS for {pid}")


def test_an_idle_model_process_exits_and_the_next_call_loads_it_again(smollm):
    require_llama()
    engine = LlamaProcessEngine(LlamaConfig(model=smollm, n_ctx=512, n_threads=THREADS), idle_timeout_s=1.5)
    try:
        first = engine.generate(PROMPT, OPTIONS)
        pid = engine.pid
        assert pid is not None and pid != os.getpid()
        held = _resident_bytes(pid)
        assert held > 50 * 2**20  # the loaded model: what the timeout gives back
        deadline = time.monotonic() + 30
        while engine.pid is not None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert engine.pid is None and _gone(pid)  # exited on its own, unused
        assert engine.idle_stops == 1 and engine.restarts == 0  # not a crash
        again = engine.generate(PROMPT, OPTIONS)  # loaded again, same answer
        assert again.text == first.text
        assert engine.pid is not None and engine.pid != pid and engine.restarts == 0
    finally:
        engine.close()


def test_a_long_call_is_not_cut_by_the_idle_timeout(smollm):
    require_llama()
    engine = LlamaProcessEngine(LlamaConfig(model=smollm, n_ctx=512, n_threads=THREADS), idle_timeout_s=0.3)
    try:
        deadline = time.monotonic() + 30
        while engine.pid is not None and time.monotonic() < deadline:  # idle since it loaded: it closes
            time.sleep(0.05)
        assert engine.pid is None
        # a generation longer than the timeout runs to its end in one child
        long = engine.generate(PROMPT, GenerationOptions(max_tokens=48, temperature=0.0, seed=0))
        assert long.completion_tokens > 0 and long.finish_reason != "cancelled"
        assert engine.idle_stops == 1 and engine.restarts == 0
    finally:
        engine.close()


def test_the_settings_give_the_timeout_to_the_engine(smollm):
    require_llama()
    assert LlamaSettings().idle_timeout_s == DEFAULT_IDLE_TIMEOUT_S == 120.0
    settings = EngineSettings(engine="llama", llama=LlamaSettings(model=str(smollm), n_ctx=512, n_threads=THREADS,
                                                                  idle_timeout_s=7.0))
    engine = build_engine(EngineChoice(engine="llama"), settings)
    try:
        assert isinstance(engine, LlamaProcessEngine) and engine.idle_timeout_s == 7.0
    finally:
        engine.close()
    kept = EngineSettings.model_validate({"engine": "llama", "llama": {"model": str(smollm), "idle_timeout_s": None}})
    assert kept.llama.idle_timeout_s is None
