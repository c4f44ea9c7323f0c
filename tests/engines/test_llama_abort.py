"""A cancel or a time limit stops llama.cpp while it is still reading a long prompt (through its abort
callback), and the engine stays usable afterwards."""

from __future__ import annotations

import threading
import time

import pytest

from mmdocsum_desktop.engines.base import GenerationOptions, Message
from mmdocsum_desktop.engines.llama import LlamaConfig, LlamaEngine
from mmdocsum_desktop.errors import JobCancelled
from mmdocsum_desktop.jobs import JobControl
from tests.engines.conftest import require_llama

# runs a real language model (SmolLM2 or a tiny random GGUF): left out of `pytest -m "not slow"`
pytestmark = pytest.mark.slow

LONG = [Message("user", " ".join(f"Sentence {i} describes the river town number {i} in detail." for i in range(120)))]


@pytest.fixture(scope="module")
def engine(smollm):
    require_llama()
    engine = LlamaEngine(LlamaConfig(model=smollm, n_ctx=4096, n_threads=1, n_batch=32))
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def full(engine) -> float:
    """Seconds to read the whole prompt (the reference the aborted reads are compared with)."""
    started = time.perf_counter()
    engine.generate(LONG, GenerationOptions(max_tokens=1, temperature=0))
    return time.perf_counter() - started


def test_cancel_stops_the_reading_of_a_long_prompt(engine, full):
    control = JobControl()
    timer = threading.Timer(full / 10, control.cancel)
    timer.start()
    started = time.perf_counter()
    with pytest.raises(JobCancelled):
        engine.generate(LONG, GenerationOptions(max_tokens=1, temperature=0), control=control)
    assert time.perf_counter() - started < full * 0.6
    reply = engine.generate([Message("user", "Say hi.")], GenerationOptions(max_tokens=4, temperature=0))
    assert reply.completion_tokens >= 1  # still usable


def test_a_time_limit_ends_the_reading_with_a_timeout(engine, full):
    started = time.perf_counter()
    result = engine.generate(LONG, GenerationOptions(max_tokens=1, temperature=0, time_limit_s=full / 10))
    assert result.finish_reason == "timeout" and result.text == ""
    assert time.perf_counter() - started < full * 0.6
