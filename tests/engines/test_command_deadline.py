"""The command's one deadline (mmdocsum_desktop/deadline.py) in the engines, on the real SmolLM2 model
process and a real silent server on 127.0.0.1 (issue 38, point 9): a frozen (SIGSTOP'ed) model process
is stopped at the command's deadline, or after a few seconds of silence once it generates, instead of
after the 300 s stall timeout; listing a silent server's models ends at the command's deadline instead of
its own 30 s."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from mmdocsum_desktop.deadline import TimeLimitError, capped, command_deadline, time_left
from mmdocsum_desktop.engines.base import GenerationOptions, Message
from mmdocsum_desktop.engines.llama import LlamaConfig
from mmdocsum_desktop.engines.llama_process import GENERATION_STALL_S, TIME_LIMIT_GRACE_S, LlamaProcessEngine
from mmdocsum_desktop.engines.openai import OpenAIConfig, OpenAIEngine
from mmdocsum_desktop.errors import EndpointError, ModelProcessError
from tests.engines.conftest import THREADS, model_children, require_llama
from tests.security.silent_server import SilentServer

PROMPT = [Message("user", "List five colours, one per line, and say something about each.")]
# what the engines were allowed before: a frozen child waited for this long (the stall timeout)
STALL_S = 60.0


@pytest.fixture()
def child_engine(smollm):
    require_llama()
    engine = LlamaProcessEngine(LlamaConfig(model=smollm, n_ctx=1024, n_threads=THREADS), stall_timeout_s=STALL_S)
    yield engine
    engine.close()


def test_the_deadline_nests_and_caps():
    assert time_left() is None and capped(7.0) == 7.0 and capped(None) is None
    with command_deadline(10):
        with command_deadline(60):  # an inner, later end does not extend the command
            assert 9 < time_left() <= 10
        assert capped(3.0) == 3.0 and 9 < capped(100.0) <= 10 and 9 < capped(None) <= 10
    assert time_left() is None


def test_a_frozen_model_process_ends_at_the_commands_deadline(child_engine):
    pid = child_engine.pid
    os.kill(pid, signal.SIGSTOP)  # frozen before it reads the prompt: the 300 s stall phase
    started = time.monotonic()
    with command_deadline(3):
        generation = child_engine.generate(PROMPT, GenerationOptions(max_tokens=64))
    seconds = time.monotonic() - started
    assert generation.finish_reason == "timeout" and generation.text == ""
    assert seconds < 3 + TIME_LIMIT_GRACE_S + 3, seconds
    assert child_engine.pid is None  # the frozen process was stopped, not left behind
    assert child_engine.generate(PROMPT, GenerationOptions(max_tokens=4)).text  # the next call starts a new one


def test_a_model_frozen_while_loading_ends_at_the_commands_deadline(smollm):
    require_llama()
    frozen: list[int] = []

    def freeze() -> None:  # the child, as soon as it exists: its load never ends
        while not frozen:
            for pid in model_children(os.getpid()):
                os.kill(pid, signal.SIGSTOP)
                frozen.append(pid)

    watcher = threading.Thread(target=freeze, daemon=True)
    watcher.start()
    started = time.monotonic()
    with command_deadline(1), pytest.raises(TimeLimitError, match="time limit ran out while loading"):
        LlamaProcessEngine(LlamaConfig(model=smollm, n_ctx=1024, n_threads=THREADS), stall_timeout_s=STALL_S)
    assert time.monotonic() - started < 1 + TIME_LIMIT_GRACE_S + 3
    watcher.join(timeout=5)
    assert frozen and not model_children(os.getpid())


def test_silence_while_generating_is_a_stall_after_a_few_seconds(child_engine):
    pid = child_engine.pid
    pieces: list[str] = []

    def on_text(piece: str) -> None:
        pieces.append(piece)
        if len(pieces) == 3:
            os.kill(pid, signal.SIGSTOP)  # frozen mid-generation, no time limit at all

    started = time.monotonic()
    with pytest.raises(ModelProcessError, match="stopped responding while generating"):
        child_engine.generate(PROMPT, GenerationOptions(max_tokens=200, temperature=0.0), on_text=on_text)
    assert time.monotonic() - started < GENERATION_STALL_S + 8
    assert child_engine.pid is None


def test_listing_a_silent_servers_models_ends_at_the_commands_deadline():
    with SilentServer() as server:
        started = time.monotonic()
        with command_deadline(2), pytest.raises(EndpointError, match="the command's time limit"):
            OpenAIEngine(OpenAIConfig(base_url=server.url))  # no model named: the engine lists them
        assert time.monotonic() - started < 4
