"""EngineInfo and GenerationRecord: typed, and written with the fields each engine gave."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from mmdocsum_desktop.schemas.engine import EngineInfo, GenerationRecord, RetrievalInfo


def test_engine_info_writes_the_fields_the_engine_gave_and_keeps_others():
    info = EngineInfo.model_validate({"engine": "openai", "model": "qwen2.5-7b", "base_url": "http://h:8080/v1",
                                      "api_key": None, "timeout_s": 120, "figures_as_text": True})
    assert info.timeout_s == 120.0 and info.n_threads is None
    assert info.model_dump(mode="json") == {"engine": "openai", "model": "qwen2.5-7b",
                                            "base_url": "http://h:8080/v1", "api_key": None, "timeout_s": 120.0,
                                            "figures_as_text": True}
    info.retrieval = RetrievalInfo(reranker=False, passages=7)
    assert info.model_dump(mode="json")["retrieval"] == {"reranker": False, "passages": 7}


@pytest.mark.parametrize(("engine", "model", "label"), [
    ("extractive", "extractive (MMR over MiniLM sentence embeddings)", "extractive (MMR over MiniLM sentence embeddings)"),
    ("llama", "SmolLM2", "llama (SmolLM2)"),
    ("", "SmolLM2", "SmolLM2"),
    ("llama", "", "llama"),
])
def test_the_label_a_person_reads(engine, model, label):
    assert EngineInfo(engine=engine, model=model).label == label


def test_gpu_layers_requested_is_a_count_or_auto():
    assert EngineInfo(gpu_layers_requested="auto").gpu_layers_requested == "auto"
    assert EngineInfo.model_validate({"gpu_layers_requested": 12}).gpu_layers_requested == 12
    with pytest.raises(ValidationError):
        EngineInfo.model_validate({"gpu_layers_requested": "all"})


def test_a_generation_record_defaults_what_a_cut_call_did_not_report():
    """The grounded writer records a call it had no time for with three fields only."""
    record = GenerationRecord.model_validate({"finish_reason": "timeout", "prompt_tokens": 0, "completion_tokens": 0})
    assert record.counted == "engine" and record.prompt_seconds == 0.0 and record.stage is None
    assert record.model_dump() == {"prompt_tokens": 0, "completion_tokens": 0, "finish_reason": "timeout"}
