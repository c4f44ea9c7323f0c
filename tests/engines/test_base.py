"""Generation.record: the counts and timings a summary or an answer keeps of one model call."""

from __future__ import annotations

from mmdocsum_desktop.engines.base import Generation
from mmdocsum_desktop.schemas.engine import GenerationRecord


def test_a_generation_is_recorded_rounded_and_named():
    generation = Generation(text="Rhine, Danube.", prompt_tokens=40, completion_tokens=11, finish_reason="length",
                            prompt_seconds=0.123456, generation_seconds=0.5, counted="estimate")
    record = generation.record("notes 1/3")
    assert isinstance(record, GenerationRecord)
    assert record.model_dump(mode="json") == {
        "stage": "notes 1/3", "prompt_tokens": 40, "completion_tokens": 11, "finish_reason": "length",
        "prompt_seconds": 0.123, "generation_seconds": 0.5, "prompt_tokens_per_s": 324.0,
        "generation_tokens_per_s": 20.0, "counted": "estimate",
    }
    assert "stage" not in generation.record().model_dump()


def test_rates_are_none_when_they_cannot_be_measured():
    record = Generation(text="", prompt_tokens=5, completion_tokens=1, finish_reason="timeout").record()
    assert record.prompt_tokens_per_s is None and record.generation_tokens_per_s is None
    assert record.model_dump()["prompt_tokens_per_s"] is None  # measured as absent, and written so
