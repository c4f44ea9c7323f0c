"""Token progress from the real SmolLM2 GGUF: the prompt is reported batch by batch (tokens read of the
prompt's length), then each generated token (of max_tokens); both only move forward; the generation
part reaches max_tokens or stops at the end of text; cancelling from the progress callback mid-generation
stops the model."""

from __future__ import annotations

import pytest

from mmdocsum_desktop.engines.base import MODEL_CALL_PHASES, GenerationOptions, Message
from mmdocsum_desktop.engines.llama import LlamaConfig, LlamaEngine
from mmdocsum_desktop.errors import SummaryCancelled
from mmdocsum_desktop.jobs import JobControl, nested_control
from tests.engines.conftest import THREADS, require_llama

# runs a real language model (SmolLM2 or a tiny random GGUF): left out of `pytest -m "not slow"`
pytestmark = pytest.mark.slow

N_BATCH = 32
PROMPT = [Message("user", "Write a long story about a river town. " + " ".join(
    f"Sentence {i} describes the market of river town number {i}." for i in range(30)))]


@pytest.fixture(scope="module")
def engine(smollm):
    require_llama()
    engine = LlamaEngine(LlamaConfig(model=smollm, n_ctx=2048, n_threads=THREADS, n_batch=N_BATCH))
    yield engine
    engine.close()


def _recording() -> tuple[JobControl, list[tuple[int, int, str]]]:
    events: list[tuple[int, int, str]] = []
    return JobControl(on_progress=lambda done, total, what: events.append((done, total, what))), events


def _split(events):
    prompt = [(d, t) for d, t, w in events if w.startswith("reading the prompt")]
    tokens = [(d, t) for d, t, w in events if w.startswith("generating")]
    return prompt, tokens


def test_prompt_reading_is_reported_per_batch_and_generation_reaches_max(engine):
    control, events = _recording()
    result = engine.generate(PROMPT, GenerationOptions(max_tokens=12, temperature=0), control=control)
    prompt, tokens = _split(events)
    total = prompt[-1][1]
    assert total == result.prompt_tokens  # what llama.cpp read, as its own counters say
    assert total > 3 * N_BATCH
    assert [d for d, _ in prompt] == sorted(d for d, _ in prompt)
    assert prompt[-1][0] == total
    assert len({d for d, t in prompt if t == total}) >= total // N_BATCH  # one report per batch
    # all prompt reports come before the first generated token
    assert max(i for i, e in enumerate(events) if e[2].startswith("reading")) < min(
        i for i, e in enumerate(events) if e[2].startswith("generating"))
    assert {t for _, t in tokens} == {12}
    assert [d for d, _ in tokens] == sorted(d for d, _ in tokens)
    assert result.finish_reason == "length" and tokens[-1][0] == 12
    assert "eval" not in vars(engine.llm)  # the counting wrapper is removed after the call


def test_generation_stops_at_the_end_of_text_below_max(engine):
    control, events = _recording()
    result = engine.generate([Message("user", "Reply with the single word: yes")],
                             GenerationOptions(max_tokens=200, temperature=0), control=control)
    _, tokens = _split(events)
    assert result.finish_reason == "stop"
    assert [d for d, _ in tokens] == sorted(d for d, _ in tokens)
    assert tokens[-1][0] == result.completion_tokens < 200


def test_nested_progress_through_a_model_call_is_monotone(engine):
    overall: list[float] = []
    parent = JobControl(on_progress=lambda done, total, what: overall.append(done / total))
    engine.generate(PROMPT, GenerationOptions(max_tokens=8, temperature=0),
                    control=nested_control(parent, 1, 2, phases=MODEL_CALL_PHASES))
    # the prompt fills the first quarter of the step, the generation the rest; the bar never goes back
    assert overall == sorted(overall)
    assert overall[0] == pytest.approx(0.5) and overall[-1] == pytest.approx(1.0)
    assert any(0.5 < f < 0.5 + MODEL_CALL_PHASES[0] / 2 + 1e-9 for f in overall)  # moved while reading


def test_cancel_from_progress_mid_generation_stops_the_model(engine):
    control = JobControl()

    def on_progress(done: int, total: int, what: str) -> None:
        if what.startswith("generating") and done >= 5:
            control.cancel()

    control.on_progress = on_progress
    with pytest.raises(SummaryCancelled) as raised:
        engine.generate(PROMPT, GenerationOptions(max_tokens=200, temperature=0), control=control)
    assert raised.value.partial["text"]  # what was written before the cancel
    assert "eval" not in vars(engine.llm)
    again = engine.generate([Message("user", "Say hi.")], GenerationOptions(max_tokens=4, temperature=0))
    assert again.completion_tokens >= 1  # the engine is still usable
