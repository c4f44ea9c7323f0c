"""The reference-free judge: reading scores, choosing source excerpts, rules for missing text or images,
retries and missing answers, and real judging with SmolLM2 (llama.cpp) and a tiny vision model."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mmdocsum_desktop.bench.suites.judge import record_from_mdocsum
from mmdocsum_desktop.document.reader import read_document
from mmdocsum_desktop.engines.base import Generation, ImagePart
from mmdocsum_desktop.engines.llama import LlamaConfig, LlamaEngine
from mmdocsum_desktop.errors import BenchError, JobCancelled
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.judge.summary import (
    ASPECTS,
    SummaryJudge,
    load_aspects,
    parse_score,
    prompt_parts,
    source_excerpt,
)
from tests.bench.conftest import DEMO_DOCS, summary_record
from tests.engines.conftest import require_llama


@pytest.fixture(scope="module")
def birds(tmp_path_factory):
    folder = tmp_path_factory.mktemp("birds")
    return read_document(DEMO_DOCS / "birds.md"), summary_record("birds.md", folder), folder


@pytest.fixture(scope="module")
def smollm_judge_engine(smollm):
    require_llama()

    engine = LlamaEngine(LlamaConfig(model=smollm, n_ctx=4096, n_threads=1))
    yield engine
    engine.close()


# ------------------------------------------------------------------------------------------ reading


@pytest.mark.parametrize(
    ("reply", "score"),
    [
        ('{"explanation": "Clear and fluent.", "score": 4}', 4),
        ('```json\n{"score": 5, "explanation": "ok"}\n```', 5),
        ('{"rating": "3", "reason": "some errors"}', 3),
        ("Score: 2/5. The text repeats itself.", 2),
        ("I would give it 1 out of 5 because it is off topic.", 1),
        ('{"explanation": "none", "score": 0}', 0),
        ('{"score": 3, "explanation": "The text is clear but it was cut off at the tok', 3),
    ],
)
def test_scores_are_read_from_json_and_free_text(reply, score):
    value, explanation, problem = parse_score(reply)
    assert value == score and problem is None and explanation


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ('{"explanation": "great", "score": 7}', "outside 0-5"),
        ('{"explanation": "meh", "score": 3.5}', "whole number"),
        ('{"explanation": "x", "score": true}', "not a number"),
        ('{"explanation": "x", "score": "high"}', "not a number"),
        ("The summary is fine.", "no score"),
        ("", "empty"),
        ("Score: -1", "outside 0-5"),
    ],
)
def test_unusable_replies_give_no_score_and_say_why(reply, problem):
    value, _, why = parse_score(reply)
    assert value is None and problem in why


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_any_reply_gives_a_score_in_range_or_a_reason(reply):
    value, explanation, problem = parse_score(reply)
    assert (value is None) == (problem is not None)
    assert value is None or 0 <= value <= 5
    assert isinstance(explanation, str) and len(explanation) <= 320


# ---------------------------------------------------------------------------------------- the input


def test_excerpts_hold_the_sentences_the_summary_draws_on(birds):
    document, record, _ = birds
    excerpt = source_excerpt(document, record, max_chars=4000)
    assert len(excerpt) <= 4000
    first = record["paragraphs"][0]["text"].split(". ")[0]
    assert first[:60] in excerpt  # extracted sentences find themselves
    small = source_excerpt(document, record, max_chars=600)
    assert len(small) <= 600 and len(small) < len(excerpt)


def test_a_text_judge_reads_figures_as_words_a_vision_judge_also_sees_them(birds):
    document, record, folder = birds
    aspect = load_aspects()["text_image_coherence"]
    excerpt = source_excerpt(document, record)
    text_only = prompt_parts(aspect, excerpt, record, record["figures"], sees_images=False, base_dir=folder)
    with_images = prompt_parts(aspect, excerpt, record, record["figures"], sees_images=True, base_dir=folder)
    shown = [p for p in record["paragraphs"] if p.get("figure")]
    assert not any(isinstance(p, ImagePart) for p in text_only)
    images = [p for p in with_images if isinstance(p, ImagePart)]
    assert len(images) == len(shown) and all(i.path.is_file() for i in images)
    joined = "".join(p for p in text_only if isinstance(p, str))
    for figure in record["figures"]:
        assert f"[Image {figure['index']}]" in joined
    assert joined.rstrip().endswith('"explanation": "<one short sentence>"}')  # the question comes last


# ------------------------------------------------------------------------------- rules and protocol


class ScriptedJudge:
    """A stand-in for a misbehaving judge server (not a model under test): it answers the scripted
    replies in turn, or raises the scripted exceptions, and records what it was asked."""

    name = "scripted"
    model_name = "scripted"

    def __init__(self, replies):
        self.replies = list(replies)
        self.asked = []

    def generate(self, messages, options, *, control=None, on_text=None):
        self.asked.append((messages, options))
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        text, finish = reply if isinstance(reply, tuple) else (reply, "stop")
        return Generation(text=text, prompt_tokens=10, completion_tokens=5, finish_reason=finish)


def _ok(score):
    return f'{{"explanation": "reason {score}", "score": {score}}}'


def test_bad_answers_are_retried_once_then_missing_never_zero(birds):
    document, record, folder = birds
    engine = ScriptedJudge(
        [
            _ok(4),  # text quality
            "I cannot judge this.", _ok(3),  # coherence: retried, then fine
            '{"score": 9}', "still no",  # image choice: out of range twice -> missing
            RuntimeError("server went away"), ("", "timeout"),  # faithfulness: error, then timeout -> missing
            _ok(5),  # helpfulness
        ]
    )
    result = SummaryJudge(engine, time_limit_s=30).judge(document, record, base_dir=folder)
    aspects = result.aspects
    assert [aspects[a].score for a in ASPECTS] == [4, 3, None, None, 5]
    assert aspects["image_choice"].status == "missing" and "outside 0-5" in aspects["image_choice"].error
    assert "server went away" in aspects["faithfulness"].error and "time limit" in aspects["faithfulness"].error
    assert result.missing == ["image_choice", "faithfulness"]
    assert result.overall == pytest.approx(4.0)  # missing answers are left out, not counted as 0
    assert result.calls == 8 and not engine.replies
    retry = engine.asked[2][0][1].content
    assert "could not be used" in (retry if isinstance(retry, str) else retry[-1])
    options = engine.asked[0][1]
    assert options.temperature == 0.0 and options.time_limit_s == 30 and options.json_schema["required"] == ["score", "explanation"]


def test_self_consistency_averages_samples_with_different_seeds(birds):
    document, record, folder = birds
    engine = ScriptedJudge([_ok(2), _ok(4), _ok(3)])
    result = SummaryJudge(engine, self_consistency=3).judge(document, record, base_dir=folder, aspects=["helpfulness"])
    assert result.aspects["helpfulness"].score == pytest.approx(3.0)
    assert [o.seed for _, o in engine.asked] == [0, 1, 2]
    assert all(o.temperature == 0.7 for _, o in engine.asked)
    with pytest.raises(BenchError):
        SummaryJudge(engine, self_consistency=0)


def test_rules_for_missing_text_and_images(birds):
    document, record, folder = birds
    empty = copy.deepcopy(record)
    for paragraph in empty["paragraphs"]:
        paragraph["text"] = ""
        paragraph["figure"] = None
    engine = ScriptedJudge([])
    result = SummaryJudge(engine).judge(document, empty, base_dir=folder)
    assert engine.asked == []  # nothing to ask: every aspect is decided by rule
    assert all(result.aspects[a].score == 0 and result.aspects[a].status == "rule" for a in ASPECTS)

    no_figures = copy.deepcopy(record)
    no_figures["figures"] = []
    for paragraph in no_figures["paragraphs"]:
        paragraph["figure"] = None
    engine = ScriptedJudge([_ok(3), _ok(3), _ok(3)])
    document_without_figures = document.model_copy(update={"figures": [], "tables": []})
    result = SummaryJudge(engine).judge(document_without_figures, no_figures)
    assert result.aspects["image_choice"].status == "not_applicable" and result.aspects["image_choice"].score is None
    assert result.aspects["text_image_coherence"].status == "not_applicable"
    assert result.overall == 3 and result.missing == []


def test_cancel_stops_between_aspects(birds):
    document, record, folder = birds
    control = JobControl()
    engine = ScriptedJudge([_ok(4), _ok(4)])
    control.on_progress = lambda done, total, what: control.cancel() if done == 1 else None
    with pytest.raises(JobCancelled):
        SummaryJudge(engine).judge(document, record, base_dir=folder, control=control)
    assert len(engine.asked) == 1


def test_unknown_aspects_and_malformed_summaries_are_refused(birds):
    document, record, _ = birds
    judge = SummaryJudge(ScriptedJudge([]))
    with pytest.raises(BenchError, match="unknown aspect"):
        judge.judge(document, record, aspects=["beauty"])
    with pytest.raises(BenchError, match="not a summary"):
        judge.judge(document, {"paragraphs": "nope"})


# ------------------------------------------------------------------------------------- real judges


def test_smollm2_judges_every_aspect_and_reuses_the_shared_prompt(birds, smollm_judge_engine):
    document, record, folder = birds
    judge = SummaryJudge(smollm_judge_engine, max_tokens=40)
    result = judge.judge(document, record, base_dir=folder)
    assert set(result.aspects) == set(ASPECTS)
    assert all(aspect.status in ("ok", "missing") for aspect in result.aspects.values())
    scored = {name: aspect for name, aspect in result.aspects.items() if aspect.status == "ok"}
    assert scored, "the model scores some aspect"
    assert all(0 <= aspect.score <= 5 and aspect.explanation.strip() for aspect in scored.values())
    assert result.figures_as_text and 5 <= result.calls <= 10
    aspect = judge.aspects[ASPECTS[0]]
    parts = prompt_parts(aspect, source_excerpt(document, record), record, record["figures"], sees_images=False, base_dir=folder)
    whole_prompt = smollm_judge_engine.count_tokens("".join(parts))
    # the source, figures and summary are evaluated once; later calls add little more than their question
    assert whole_prompt > 400 and result.prompt_tokens < whole_prompt + (result.calls - 1) * whole_prompt / 3
    name = next(iter(scored))
    again = judge.judge(document, record, base_dir=folder, aspects=[name])
    assert again.aspects[name].score == scored[name].score  # temperature 0


def test_a_vision_gguf_judge_is_shown_the_figures(birds, tiny_vlm_files):
    require_llama()

    document, record, folder = birds
    model, mmproj = tiny_vlm_files
    engine = LlamaEngine(LlamaConfig(model=model, mmproj=mmproj, n_ctx=4096, n_threads=1))
    try:
        judge = SummaryJudge(engine, max_tokens=24)
        assert judge.sees_images and not judge.describe()["figures_as_text"]
        result = judge.judge(document, record, base_dir=folder, aspects=["text_image_coherence"])
    finally:
        engine.close()
    aspect = result.aspects["text_image_coherence"]
    # random weights: whatever it says is read or recorded as missing, never guessed
    assert aspect.status in ("ok", "missing") and (aspect.score is None or 0 <= aspect.score <= 5)
    assert not result.figures_as_text and result.prompt_tokens > 0


def test_an_mdocsum_answer_becomes_a_summary_whose_images_a_vision_judge_can_see(tmp_path):

    document = read_document(DEMO_DOCS / "bikes.html")
    answer = [{"summary": f"Paragraph {k}.", "image": {"imageRef": ref, "imageCaption": ""}}
              for k, ref in enumerate(["2", "None", "1", "7"])]
    record = record_from_mdocsum(answer, document, tmp_path / "assets")
    shown = [p["figure"]["index"] if p["figure"] else None for p in record["paragraphs"]]
    assert shown == [2, None, 1, None]  # "7" is out of range: no image, as M-DocSum's scorer counts it
    parts = prompt_parts(load_aspects()["image_choice"], "excerpt", record, record["figures"], sees_images=True,
                         base_dir=tmp_path / "assets")
    assert [p.label for p in parts if isinstance(p, ImagePart)] == ["Image 2", "Image 1"]
