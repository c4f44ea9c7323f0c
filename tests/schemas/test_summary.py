"""Summary's records are typed (engine, parse, repairs, generations, long_document, grounding), and the
summary files written while they were plain dicts still load and write back the same JSON."""

from __future__ import annotations

import copy
import json

import pytest

from mmdocsum_desktop.schemas.engine import EngineInfo, GenerationRecord
from mmdocsum_desktop.schemas.repair import Repair
from mmdocsum_desktop.schemas.summary import (
    GroundingRecord,
    LongDocumentRecord,
    ParseRecord,
    Summary,
)


def written_before() -> dict:
    """Parts of two files `mmdocsum summarize --format json` wrote before the records were typed (SmolLM2
    on PMC2803133: the grounded writer's run, and the full-document run's parse and long-document
    records), trimmed to one or two entries of each list."""
    paragraph = {"role": "background", "text": "OS leaves are rich in essential oils.", "source": "model",
                 "figure": None, "no_figure": {"kind": "not_cited", "labels": []}, "image_caption": "",
                 "proposed_image": None,
                 "sentences": [{"text": "OS leaves are rich in essential oils.", "pages": [2], "figures": [],
                                "tables": [], "blocks": ["b16"],
                                "evidence": [{"block": "b16", "page": 2, "score": 0.9983, "how": "support",
                                              "ocr": False}]}],
                 "title": "Research background", "words": 7}
    return {
        "format": "mmdocsum-summary", "version": 2, "source": "PMC2803133.pdf", "title": "Essential oils",
        "engine": {"engine": "llama", "model": "Smollm2 135M 8k Lc100K Mix1 Ep2", "model_file": "SmolLM2.gguf",
                   "mmproj": None, "architecture": "llama", "n_ctx": 8192, "n_threads": 1, "n_gpu_layers": 0,
                   "gpu_layers_requested": "auto", "gpu_layers_reason": "this llama.cpp build runs on the CPU only",
                   "gpu_offload_supported": False, "device": "cpu", "vision": False, "constrained": True,
                   "llama_cpp_python": "0.3.36", "process": "child", "restarts": 0},
        "options": {"figure_mode": "hybrid", "include_abstract": True, "shuffle_seed": None, "max_tokens": 1024,
                    "temperature": 0.2, "seed": 0, "ocr": False, "citations": True, "note_words": 150,
                    "repeat_penalty": 1.1, "placement_threshold": None, "time_limit_s": None,
                    "llm_mode": "grounded"},
        "paragraphs": [paragraph],
        "figures": [{"index": 1, "id": "fig1", "label": "Figure 1", "kind": "figure",
                     "caption": "Fig. 1. Chromatogram", "image": "figures/fig1.png", "ocr_text": "100%"}],
        "parse": {"parsed": True, "instruction_following": False, "format_issues": ["code fence"],
                  "rule_breaks": ["image 7 does not exist"], "parser_repairs": ["paragraph 4 is missing"]},
        "repairs": [
            {"paragraph": 2, "kind": "unsupported sentence replaced by evidence",
             "reason": "numbers not in the evidence: 35", "text": "Mice gained 35% less weight.",
             "by": "the closest evidence sentence", "evidence": 3, "replacement": "Enzymes were determined."},
            {"paragraph": 3, "kind": "rule break", "reason": "image 7 does not exist", "chosen": None,
             "by": "global placement assignment"},
            {"paragraph": 1, "kind": "figure reassigned", "reason": "the placement scorer ranked another higher",
             "proposed": 2, "chosen": 1, "by": "hybrid global assignment"},
        ],
        "long_document": {"strategy": "notes on parts, then notes of notes, then the summary",
                          "document_tokens": 9120, "context": 4096, "parts": 3, "levels": 2, "notes_cut": True},
        "generations": [
            {"stage": "paragraph 1 (background)", "calls": 3, "prompt_tokens": 274, "completion_tokens": 112,
             "prompt_seconds": 1.82, "generation_seconds": 1.613, "finish_reason": "stop",
             "finish_reasons": ["stop", "stop", "stop"], "counted": "engine"},
            {"stage": "summary", "prompt_tokens": 2900, "completion_tokens": 300, "finish_reason": "length",
             "prompt_seconds": 20.5, "generation_seconds": 9.25, "prompt_tokens_per_s": 141.46,
             "generation_tokens_per_s": 32.32, "counted": "engine"},
        ],
        "timings": {"text_s": 13.09, "total_s": 29.3, "wall_s": 31.0},
        "warnings": [],
        "raw_answer": None,
        "grounding": {"writer": "grounded", "support": "MiniLM cosine", "support_threshold": 0.6, "written": 14,
                      "supported": 10, "dropped": 4, "replaced": 3,
                      "evidence": [{"role": "background", "items": [
                          {"n": 1, "page": 2, "block": "b16", "cites": ["Figure 1"],
                           "text": "OS leaves are rich in essential oils."}]}]},
        "instruction_following": False,
        "mdocsum": [{"summary": "OS leaves are rich in essential oils.",
                     "image": {"imageRef": "None", "imageCaption": ""}}],
    }


def test_a_file_written_before_loads_typed():
    summary = Summary.model_validate(written_before())
    assert isinstance(summary.engine, EngineInfo) and summary.engine.n_ctx == 8192
    assert summary.engine.gpu_layers_requested == "auto" and summary.engine.process == "child"
    assert summary.engine_label == "llama (Smollm2 135M 8k Lc100K Mix1 Ep2)"
    assert isinstance(summary.parse, ParseRecord) and summary.parse.format_issues == ["code fence"]
    assert summary.instruction_following is False
    assert all(isinstance(r, Repair) for r in summary.repairs)
    assert [r.kind for r in summary.repairs] == ["unsupported sentence replaced by evidence", "rule break",
                                                 "figure reassigned"]
    assert summary.repairs[0].evidence == 3 and summary.repairs[2].proposed == 2
    assert isinstance(summary.long_document, LongDocumentRecord) and summary.long_document.parts == 3
    assert summary.long_document.notes_cut is True
    assert all(isinstance(g, GenerationRecord) for g in summary.generations)
    assert summary.generations[0].calls == 3 and summary.generations[1].prompt_tokens_per_s == pytest.approx(141.46)
    assert isinstance(summary.grounding, GroundingRecord) and summary.grounding.evidence[0].items[0].n == 1
    assert summary.notes() == [
        "paragraph 2: unsupported sentence replaced by evidence (numbers not in the evidence: 35)",
        "paragraph 3: rule break (image 7 does not exist)",
        "paragraph 1: figure reassigned (the placement scorer ranked another higher)",
    ]


def test_it_writes_back_the_json_it_was_read_from():
    """Optional fields a record did not have are not written as null: the file keeps its shape."""
    before = written_before()
    written = json.loads(Summary.model_validate(before).model_dump_json())
    assert written == before
    again = Summary.model_validate(written)
    assert again == Summary.model_validate(before)


def test_records_written_as_dicts_by_the_pipeline_are_validated():
    """Producers that still build plain dicts get the typed records (and the same JSON)."""
    data = written_before()
    summary = Summary(engine=data["engine"], repairs=data["repairs"], generations=data["generations"],
                      parse=data["parse"], long_document=data["long_document"], grounding=data["grounding"])
    dumped = summary.model_dump(mode="json")
    for key in ("engine", "repairs", "generations", "parse", "long_document", "grounding"):
        assert dumped[key] == data[key], key


def test_old_shapes_of_the_engine_still_name_it():
    data = copy.deepcopy(written_before())
    data["engine"] = "extractive"  # the app's copy in project files of format 1
    assert Summary.model_validate(data).engine_label == "extractive"
    data["engine"] = {"name": "openai", "model": "qwen2.5"}  # early files said "name"
    assert Summary.model_validate(data).engine_label == "openai (qwen2.5)"
    assert Summary().engine_label == "" and Summary().instruction_following is None
