"""M-DocEval by hand: every expected number below is worked out in the comment next to it."""

from __future__ import annotations

import json

import pytest

from mmdocsum_desktop.bench.metrics.mdocsum import (
    aggregate,
    breakdown,
    decline_rate,
    decline_rates,
    image_bucket,
    length_bucket,
    normalise_ref,
    parse_answer,
    parse_gold,
    per_paragraph,
    score_answer,
)
from mmdocsum_desktop.schemas.bench import INVALID, MISSING, JudgeScore


def answer(*refs, summaries=None) -> list[dict]:
    summaries = summaries or [f"Paragraph {i} text." for i in range(1, len(refs) + 1)]
    return [
        {"summary": s, "image": {"imageRef": "None" if r is None else str(r), "imageCaption": ""}}
        for s, r in zip(summaries, refs)
    ]


def test_all_none_bias():
    # Two documents, 8 slots; gold images in 3 slots, None in 5. Predicting None everywhere:
    # OMatch = 5/8 (the share of gold None slots), ImgAcc = 0/3, NonAcc = 5/5, IF = 1,
    # JacSim: doc A {} vs {1,2} -> 0, doc B {} vs {3} -> 0 => 0; IS = (0.625 + 0) / 2.
    scores = [
        score_answer("A", [1, None, 2, None], answer(None, None, None, None), 3),
        score_answer("B", [None, 3, None, None], answer(None, None, None, None), 3),
    ]
    result = aggregate(scores)
    assert result["omatch"] == pytest.approx(5 / 8)
    assert result["imgacc"] == 0.0
    assert result["nonacc"] == 1.0
    assert result["if"] == 1.0
    assert result["jacsim"] == 0.0
    assert result["is"] == pytest.approx(0.3125)
    assert result["n_docs"] == 2 and result["n_slots"] == 8


def test_both_sets_empty_is_jaccard_one():
    score = score_answer("C", [None] * 4, answer(None, None, None, None), 2)
    assert score.jaccard == 1.0 and all(score.correct)


def test_perfect_answer():
    score = score_answer("A", [1, None, 2, None], answer(1, None, 2, None), 2)
    assert score.if_score == 1 and all(score.correct) and score.jaccard == 1.0


def test_micro_average_over_slots_and_macro_jaccard():
    # doc A: gold [1,2,3,4], predicted [1,2,3,None]: 3 of 4 image slots right; Jaccard {1,2,3}/{1,2,3,4} = 3/4
    # doc B: gold [1,None,None,None], predicted [None,None,None,None]: 0 of 1 image slot, 3 of 3 None slots; J = 0
    # ImgAcc micro = (3 + 0) / (4 + 1) = 0.6 (the macro mean of 3/4 and 0 would be 0.375)
    # NonAcc = 3/3; OMatch = (3 + 3) / 8 = 0.75; JacSim = (0.75 + 0) / 2 = 0.375; IS = (0.75 + 0.375) / 2
    scores = [
        score_answer("A", [1, 2, 3, 4], answer(1, 2, 3, None), 4),
        score_answer("B", [1, None, None, None], answer(None, None, None, None), 4),
    ]
    result = aggregate(scores)
    assert result["imgacc"] == pytest.approx(0.6)
    assert result["nonacc"] == 1.0
    assert result["omatch"] == pytest.approx(0.75)
    assert result["jacsim"] == pytest.approx(0.375)
    assert result["is"] == pytest.approx(0.5625)


def test_unparseable_answer_scores_zero_everywhere():
    # IF 0, all four slots wrong (the None slots too), Jaccard 0 even though both sets would be empty
    score = score_answer("X", [None, None, None, None], "Sorry, I cannot help with that.", 3)
    assert not score.parsed and score.if_score == 0
    assert score.correct == [False] * 4
    assert score.predicted == [MISSING] * 4
    assert score.jaccard == 0.0
    result = aggregate([score])
    assert result["omatch"] == 0.0 and result["nonacc"] == 0.0 and result["if"] == 0.0


def test_five_paragraphs_break_the_rule_and_the_fifth_is_ignored():
    # IF 0; slots scored on the first four; image 3 (in the fifth) is not in the predicted set:
    # Jaccard {1} vs {1} = 1
    score = score_answer("A", [1, None, None, None], answer(1, None, None, None, 3), 3)
    assert score.if_score == 0 and score.parsed
    assert score.correct == [True, True, True, True]
    assert score.jaccard == 1.0
    assert any("5 paragraphs" in p for p in score.problems)


def test_three_paragraphs_missing_one_is_wrong():
    # gold None in slot 4 but the answer has no fourth paragraph: slot 4 wrong
    score = score_answer("A", [1, None, 2, None], answer(1, None, 2), 2)
    assert score.if_score == 0
    assert score.correct == [True, True, True, False]
    assert score.predicted[3] == MISSING
    assert score.jaccard == 1.0


def test_out_of_range_index_is_wrong_and_counts_in_jaccard():
    # image 7 of a 3-image document: slot 3 wrong; predicted set {1, 7} vs gold {1, 2}: 1/3
    score = score_answer("A", [1, None, 2, None], answer(1, None, 7, None), 3)
    assert score.if_score == 0
    assert score.correct == [True, True, False, True]
    assert score.jaccard == pytest.approx(1 / 3)
    # even when the gold of that slot is the same out-of-range number it is never right
    score = score_answer("B", [None, None, None, None], answer(None, 0, None, None), 3)
    assert score.correct == [True, False, True, True]


def test_image_used_twice_breaks_the_rule_but_is_scored_as_given():
    # gold [1, 2, None, None], answer [1, 1, None, None]: slot 2 wrong; IF 0; J {1} vs {1,2} = 1/2
    score = score_answer("A", [1, 2, None, None], answer(1, 1, None, None), 3)
    assert score.if_score == 0
    assert score.correct == [True, False, True, True]
    assert score.jaccard == 0.5
    assert any("used twice" in p for p in score.problems)


def test_non_numeric_reference_is_wrong():
    score = score_answer("A", [1, None, None, None], answer("the chart", None, None, None), 3)
    assert score.predicted[0] == INVALID and score.correct[0] is False and score.if_score == 0


def test_code_fenced_json_follows_the_format_but_single_quotes_do_not():
    fenced = "Here it is:\n```json\n" + json.dumps(answer(1, None, None, None)) + "\n```"
    score = score_answer("A", [1, None, None, None], fenced, 2)
    assert score.if_score == 1 and all(score.correct)
    assert score.strict_if is False  # the summaries parser's strict flag forgives nothing
    quoted = str(answer(1, None, None, None))  # Python repr: single quotes
    score = score_answer("A", [1, None, None, None], quoted, 2)
    assert score.parsed and score.if_score == 0 and all(score.correct)


def test_missing_image_field_scores_as_none_and_breaks_the_rule():
    given = [{"summary": "a"}, *answer(None, None, None)]
    score = score_answer("A", [None, None, None, None], given, 2)
    assert score.if_score == 0 and all(score.correct)


def test_normalise_ref_forms():
    assert normalise_ref("3") == 3
    assert normalise_ref(3) == 3
    assert normalise_ref("Image 2") == 2
    assert normalise_ref("<image2>") == 2
    assert normalise_ref("None") is None
    assert normalise_ref(None) is None
    assert normalise_ref("") is None
    assert normalise_ref("1.5") == INVALID
    assert normalise_ref(True) == INVALID


def test_parse_gold_refuses_bad_gold():
    parse_gold(answer(1, None, 2, None))
    with pytest.raises(ValueError):
        parse_gold(answer(1, None, 2))
    with pytest.raises(ValueError):
        parse_gold(answer(1, 1, None, None))
    with pytest.raises(ValueError):
        parse_gold(answer("x", None, None, None))


def test_ts_and_total_come_from_the_overall_means():
    # IS: both documents perfect -> OMatch 1, JacSim 1, IS 1; IF 1
    # Com mean = (1.0 + 0.0) / 2 = 0.5; Acc mean = (0.5 + 1.0) / 2 = 0.75
    # TS = 2 * 0.5 * 0.75 / 1.25 = 0.6 (the mean of per-document F1s would be 0.333)
    # Total = 0.1 * 1 + 0.45 * 0.6 + 0.45 * 1 = 0.82
    scores = [
        score_answer("A", [1, None, None, None], answer(1, None, None, None), 1),
        score_answer("B", [None, None, None, None], answer(None, None, None, None), 1),
    ]
    judged = {"A": JudgeScore(com=1.0, acc=0.5), "B": JudgeScore(com=0.0, acc=1.0)}
    result = aggregate(scores, judged)
    assert result["com"] == 0.5 and result["acc"] == 0.75
    assert result["ts"] == pytest.approx(0.6)
    assert result["total"] == pytest.approx(0.82)
    assert result["n_judged"] == 2


def test_without_a_judge_ts_and_total_are_absent():
    result = aggregate([score_answer("A", [1, None, None, None], answer(1, None, None, None), 1)])
    assert result["com"] is None and result["acc"] is None
    assert result["ts"] is None and result["total"] is None


def test_judge_failure_excludes_the_document_from_com_and_acc():
    scores = [
        score_answer("A", [None] * 4, answer(None, None, None, None), 1),
        score_answer("B", [None] * 4, answer(None, None, None, None), 1),
    ]
    judged = {"A": JudgeScore(com=0.5, acc=1.0), "B": JudgeScore(com=None, acc=None, failures=["garbage"])}
    result = aggregate(scores, judged)
    assert result["com"] == 0.5 and result["acc"] == 1.0 and result["n_judged"] == 1


def test_per_paragraph_breakdown():
    # paragraph 1: gold images 1, 1 -> predicted 1 (right), None (wrong): OMatch 1/2, ImgAcc 1/2
    # paragraph 2: gold None, None -> both None: OMatch 1, NonAcc 1, ImgAcc absent
    scores = [
        score_answer("A", [1, None, None, None], answer(1, None, None, None), 2),
        score_answer("B", [1, None, None, 2], answer(None, None, None, 2), 2),
    ]
    rows = per_paragraph(scores)
    assert rows[0]["omatch"] == 0.5 and rows[0]["imgacc"] == 0.5 and rows[0]["nonacc"] is None
    assert rows[1]["omatch"] == 1.0 and rows[1]["imgacc"] is None and rows[1]["nonacc"] == 1.0
    assert rows[3]["imgacc"] == 1.0 and rows[3]["nonacc"] == 1.0


def test_buckets_and_breakdown():
    assert length_bucket(0) == "0–5k"
    assert length_bucket(4999) == "0–5k"
    assert length_bucket(5000) == "5–10k"
    assert length_bucket(12345) == "10–15k"
    assert length_bucket(None) == "unknown"
    assert image_bucket(1) == "1–3" and image_bucket(3) == "1–3" and image_bucket(4) == "4–6"
    assert image_bucket(0) == "0" and image_bucket(None) == "unknown"
    scores = [
        score_answer("A", [1, None, None, None], answer(1, None, None, None), 1),
        score_answer("B", [1, None, None, None], "garbage", 5),
    ]
    rows = breakdown(scores, {"A": "1–3", "B": "4–6"})
    assert [r["bucket"] for r in rows] == ["1–3", "4–6"]
    assert rows[0]["omatch"] == 1.0 and rows[1]["omatch"] == 0.0


def test_decline_rate():
    assert decline_rate(0.8, 0.6) == pytest.approx(0.25)
    assert decline_rate(0.5, 0.6) == pytest.approx(-0.2)
    assert decline_rate(0.0, 0.1) is None and decline_rate(None, 0.1) is None
    rates = decline_rates({"omatch": 0.8, "ts": None}, {"omatch": 0.4, "ts": None})
    assert rates["omatch"] == 0.5 and rates["ts"] is None


def test_parse_answer_keeps_raw_paragraphs():
    parsed = parse_answer("```json\n" + json.dumps(answer(2, None, 1, None, 3)) + "\n```", 3)
    assert parsed.parsed and len(parsed.paragraphs) == 5
    assert [p.image for p in parsed.paragraphs] == [2, None, 1, None, 3]
