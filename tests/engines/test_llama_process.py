"""The llama engine in a child process, on the real SmolLM2 GGUF: the same text and counts as in the
process, progress and streaming across the pipe, and a crash, a hang or a cancel of the child becoming
a message while the parent (pytest here, the window or the CLI for users) lives on."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from mmdocsum_desktop.engines.base import GenerationOptions, Message
from mmdocsum_desktop.engines.llama import LlamaConfig
from mmdocsum_desktop.engines.llama_process import LlamaProcessEngine, likely_cause, signal_name, try_model
from mmdocsum_desktop.errors import EngineError, ModelFormatError, ModelProcessError, SummaryCancelled
from mmdocsum_desktop.jobs import JobControl
from tests.engines.conftest import THREADS, require_llama

pytestmark = pytest.mark.slow

PROMPT = [Message("user", "List five colours, one per line, and say something about each.")]


@pytest.fixture(scope="module")
def child_engine(smollm):
    require_llama()
    engine = LlamaProcessEngine(LlamaConfig(model=smollm, n_ctx=1024, n_threads=THREADS))
    yield engine
    engine.close()


def test_the_child_writes_what_the_in_process_engine_writes(child_engine, smollm_engine):
    options = GenerationOptions(max_tokens=24, temperature=0.0, seed=0)
    across = child_engine.generate(PROMPT, options)
    here = smollm_engine.generate(PROMPT, options)
    assert across.text and across.text == here.text
    assert across.prompt_tokens == here.prompt_tokens
    assert across.completion_tokens == here.completion_tokens
    assert child_engine.count_tokens("a figure caption") == smollm_engine.count_tokens("a figure caption")
    assert child_engine.describe().process == "child"
    assert child_engine.pid is not None and child_engine.pid != os.getpid()


def test_progress_and_pieces_cross_the_process_boundary(child_engine):
    seen: list[tuple[int, int, str]] = []
    pieces: list[str] = []
    control = JobControl(on_progress=lambda done, total, what: seen.append((done, total, what)))
    generation = child_engine.generate(PROMPT, GenerationOptions(max_tokens=12, temperature=0.0),
                                       control=control, on_text=pieces.append)
    assert "".join(pieces) == generation.text
    assert any(what.startswith("reading the prompt") for _, _, what in seen)
    assert any(what.startswith("generating") for _, _, what in seen)
    assert generation.prompt_tokens_per_s is not None


def test_prompt_prefix_reuse_keeps_working_in_the_child(child_engine):
    options = GenerationOptions(max_tokens=4, temperature=0.0, reuse_prompt_prefix=True)
    long_prompt = [Message("user", "The summary says: " + "the flow fell in dry years. " * 40 + "Is it clear?")]
    first = child_engine.generate(long_prompt, options)
    second = child_engine.generate(long_prompt, options)
    # the second call evaluates only what differs from the kept prompt
    assert second.prompt_tokens < first.prompt_tokens


def _kill_when(engine: LlamaProcessEngine, phase: str, sig: int, seen: list[str]):
    def progress(done: int, total: int, what: str) -> None:
        seen.append(what)
        if what.startswith(phase) and len([w for w in seen if w.startswith(phase)]) == 2:
            os.kill(engine.pid, sig)

    return JobControl(on_progress=progress)


def test_a_segfault_while_generating_is_a_message_and_the_next_call_works(child_engine):
    seen: list[str] = []
    control = _kill_when(child_engine, "generating", signal.SIGSEGV, seen)
    with pytest.raises(ModelProcessError) as raised:
        child_engine.generate(PROMPT, GenerationOptions(max_tokens=200, temperature=0.0), control=control)
    message = str(raised.value)
    assert "crashed (signal 11, SIGSEGV)" in message and "while generating" in message
    assert "nothing was changed" in message and "portable" in message
    assert raised.value.exit_code == 5
    restarts = child_engine.restarts
    again = child_engine.generate(PROMPT, GenerationOptions(max_tokens=6, temperature=0.0))
    assert again.text and child_engine.restarts == restarts + 1


def test_a_kill_while_reading_the_prompt_names_the_phase(smollm):
    require_llama()
    engine = LlamaProcessEngine(LlamaConfig(model=smollm, n_ctx=2048, n_threads=THREADS, n_batch=16))
    try:
        seen: list[str] = []
        control = _kill_when(engine, "reading the prompt", signal.SIGKILL, seen)
        long_prompt = [Message("user", "Summarise: " + "rivers carry water to the sea. " * 60)]
        with pytest.raises(ModelProcessError, match=r"was killed \(signal 9, SIGKILL\) while reading the prompt"):
            engine.generate(long_prompt, GenerationOptions(max_tokens=8), control=control)
    finally:
        engine.close()


def test_cancel_kills_the_child_at_once_and_keeps_the_partial_text(child_engine):
    control = JobControl()
    pieces: list[str] = []

    def on_text(piece: str) -> None:
        pieces.append(piece)
        if len(pieces) == 3:
            control.cancel()

    pid = child_engine.pid
    started = time.perf_counter()
    with pytest.raises(SummaryCancelled) as raised:
        child_engine.generate(PROMPT, GenerationOptions(max_tokens=300, temperature=0.0), control=control,
                              on_text=on_text)
    assert time.perf_counter() - started < 30
    assert raised.value.partial.get("text") == "".join(pieces[:3])
    assert pid is not None and not _alive(pid)


def test_a_child_that_stops_answering_is_stopped(child_engine):
    child_engine.count_tokens("wake")  # a live child (an earlier test may have ended it)
    pid = child_engine.pid
    child_engine.stall_timeout_s = 1.0
    try:
        os.kill(pid, signal.SIGSTOP)  # a hang: alive, silent
        with pytest.raises(ModelProcessError, match="stopped responding"):
            child_engine.generate(PROMPT, GenerationOptions(max_tokens=8))
    finally:
        child_engine.stall_timeout_s = 300.0
    assert not _alive(pid)
    assert child_engine.generate(PROMPT, GenerationOptions(max_tokens=4)).text


def test_a_bad_file_fails_in_the_constructor_with_the_same_message(tmp_path):
    require_llama()
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"GGUF" + b"\x00" * 64)
    with pytest.raises(ModelFormatError):
        LlamaProcessEngine(LlamaConfig(model=bad))


def test_try_model_reports_speed_and_a_crash_without_raising(smollm, monkeypatch):
    require_llama()
    good = try_model(LlamaConfig(model=smollm, n_ctx=512, n_threads=THREADS), max_tokens=8)
    assert good.ok and good.completion_tokens > 0 and good.prompt_tokens > 0
    assert "tokens/s" in good.summary()


def test_signal_names_and_causes():
    assert signal_name(-11) == "signal 11, SIGSEGV"
    assert signal_name(1) == "exit code 1"
    assert "memory" in likely_cause(-9)
    assert "portable" in likely_cause(-4)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead for our purpose
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def test_threads_are_not_left_behind(child_engine):
    before = threading.active_count()
    child_engine.generate(PROMPT, GenerationOptions(max_tokens=2))
    assert threading.active_count() <= before


def test_an_error_the_child_reports_keeps_the_model_loaded(child_engine):
    child_engine.count_tokens("wake")
    pid = child_engine.pid
    too_long = [Message("user", "flow " * 3000)]  # over the 1024-token context
    with pytest.raises(EngineError, match="context"):
        child_engine.generate(too_long, GenerationOptions(max_tokens=4))
    assert child_engine.pid == pid  # the same process answers the next call: no reload
    assert child_engine.generate(PROMPT, GenerationOptions(max_tokens=3)).text
