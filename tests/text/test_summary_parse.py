"""The tolerant answer parser, on every malformed form the issue lists, with generated answers."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mmdocsum_desktop.bench.metrics.mdocsum import normalise_ref as score_ref
from mmdocsum_desktop.schemas.bench import INVALID
from mmdocsum_desktop.text.summary_parse import normalise_ref, parse_answer
from tests.fuzzing import answer_inputs, check_answer

FEW = settings(max_examples=40, deadline=None)

WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=9)
SENTENCE = st.lists(WORDS, min_size=3, max_size=14).map(lambda ws: " ".join(ws).capitalize() + ".")
# text a model may write inside a summary: quotes, apostrophes, brackets, unicode
RICH_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\x00"), min_size=1, max_size=80
).filter(lambda s: s.strip() != "")


@st.composite
def answers(draw, text=SENTENCE):
    """A valid answer: (list of 4 paragraphs, number of images)."""
    n_images = draw(st.integers(min_value=0, max_value=8))
    refs = draw(st.lists(st.one_of(st.none(), st.integers(1, max(n_images, 1))), min_size=4, max_size=4))
    used: set[int] = set()
    items = []
    for ref in refs:
        if ref is not None and (n_images == 0 or ref in used):
            ref = None
        if ref is not None:
            used.add(ref)
        items.append({
            "summary": draw(text),
            "image": {"imageRef": str(ref) if ref is not None else "None", "imageCaption": draw(SENTENCE) if ref else ""},
        })
    return items, n_images


def _texts(parsed):
    return [p.summary for p in parsed.paragraphs]


def _refs(items):
    return [None if it["image"]["imageRef"] == "None" else int(it["image"]["imageRef"]) for it in items]


@FEW
@given(answers(text=RICH_TEXT))
def test_valid_json_follows_instructions(case):
    items, n = case
    parsed = parse_answer(json.dumps(items, ensure_ascii=False), n)
    assert parsed.ok and parsed.instruction_following
    assert _texts(parsed) == [it["summary"].strip() for it in items]
    assert [p.image for p in parsed.paragraphs] == _refs(items)
    assert parsed.raw == items


@FEW
@given(answers(), st.sampled_from(["json", "JSON", ""]), st.sampled_from(["", "Here is the summary:\n", "Sure!\n\n"]),
       st.sampled_from(["", "\nI hope this helps.", "\n\nLet me know."]))
def test_code_fences_and_surrounding_text(case, lang, before, after):
    items, n = case
    text = f"{before}```{lang}\n{json.dumps(items, indent=2)}\n```{after}"
    parsed = parse_answer(text, n)
    assert parsed.ok and not parsed.instruction_following
    assert "code fence" in parsed.format_issues
    assert _texts(parsed) == [it["summary"] for it in items]
    assert [p.image for p in parsed.paragraphs] == _refs(items)


@FEW
@given(answers(), st.sampled_from([" That is all.", "\n\nNote: the images were chosen by relevance.", " ]"]))
def test_trailing_text(case, tail):
    items, n = case
    parsed = parse_answer(json.dumps(items) + tail, n)
    assert parsed.ok
    assert "text after the JSON" in parsed.format_issues
    assert not parsed.instruction_following
    assert _texts(parsed) == [it["summary"] for it in items]


@FEW
@given(answers(text=RICH_TEXT))
def test_single_quotes_python_style(case):
    items, n = case
    text = repr(items)  # single-quoted keys and strings, escapes as Python writes them
    parsed = parse_answer(text, n)
    assert parsed.ok and not parsed.instruction_following
    assert _texts(parsed) == [it["summary"].strip() for it in items]
    assert [p.image for p in parsed.paragraphs] == _refs(items)


def test_single_quotes_with_bare_apostrophes():
    text = ("[{'summary': 'The model's errors fall.', 'image': {'imageRef': '1', 'imageCaption': 'It's the curve.'}},"
            " {'summary': 'B.', 'image': {'imageRef': 'None', 'imageCaption': ''}},"
            " {'summary': 'C.', 'image': {'imageRef': 'None', 'imageCaption': ''}},"
            " {'summary': 'D.', 'image': {'imageRef': 'None', 'imageCaption': ''}}]")
    parsed = parse_answer(text, 2)
    assert parsed.ok
    assert parsed.paragraphs[0].summary == "The model's errors fall."
    assert parsed.paragraphs[0].caption == "It's the curve."
    assert "single quotes" in parsed.format_issues


@FEW
@given(answers(), st.integers(0, 3), st.sampled_from(["image", "summary"]))
def test_missing_field(case, position, missing):
    items, n = case
    del items[position][missing]
    parsed = parse_answer(json.dumps(items), n)
    assert parsed.ok and not parsed.instruction_following
    if missing == "image":
        assert parsed.paragraphs[position].image_status == "missing"
        assert parsed.paragraphs[position].rule_broken
        assert any("no image field" in b for b in parsed.rule_breaks)
    else:
        assert parsed.paragraphs[position].summary == ""
        assert any("no summary field" in b for b in parsed.rule_breaks)


@FEW
@given(answers(), SENTENCE)
def test_five_paragraphs_are_merged_into_the_last(case, extra):
    items, n = case
    items.append({"summary": extra, "image": {"imageRef": "None", "imageCaption": ""}})
    parsed = parse_answer(json.dumps(items), n)
    assert parsed.ok and not parsed.instruction_following
    assert len(parsed.paragraphs) == 4
    assert "5 paragraphs instead of 4" in parsed.rule_breaks
    assert parsed.paragraphs[3].summary == items[3]["summary"] + " " + extra
    assert parsed.raw is not None and len(parsed.raw) == 5  # the benchmark sees the answer as given
    assert any("merged" in r for r in parsed.repairs)


@FEW
@given(answers(), st.integers(0, 3))
def test_three_paragraphs_are_padded(case, drop):
    items, n = case
    del items[drop]
    parsed = parse_answer(json.dumps(items), n)
    assert parsed.ok and not parsed.instruction_following
    assert len(parsed.paragraphs) == 4 and parsed.paragraphs[3].summary == ""
    assert "3 paragraphs instead of 4" in parsed.rule_breaks


@FEW
@given(answers(), st.integers(0, 3), st.integers(1, 50))
def test_index_out_of_range(case, position, beyond):
    items, n = case
    bad = n + beyond
    items[position]["image"]["imageRef"] = str(bad)
    parsed = parse_answer(json.dumps(items), n)
    assert parsed.ok and not parsed.instruction_following
    assert parsed.paragraphs[position].image_status == "out_of_range"
    assert parsed.paragraphs[position].image is None
    assert any("out of range" in b for b in parsed.rule_breaks)


@FEW
@given(answers(), st.sampled_from(["0", "-1", 0]))
def test_index_zero_or_negative(case, bad):
    items, n = case
    items[2]["image"]["imageRef"] = bad
    parsed = parse_answer(json.dumps(items), n)
    assert parsed.paragraphs[2].image_status == "out_of_range"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(answers().filter(lambda c: c[1] >= 1), st.integers(0, 3), st.integers(0, 3))
def test_same_image_twice(case, first, second):
    items, n = case
    if first == second:
        second = (first + 1) % 4
    items[first]["image"]["imageRef"] = "1"
    items[second]["image"]["imageRef"] = "1"
    for k in range(4):  # no other paragraph may hold image 1
        if k not in (first, second) and items[k]["image"]["imageRef"] == "1":
            items[k]["image"]["imageRef"] = "None"
    parsed = parse_answer(json.dumps(items), n)
    later = max(first, second)
    assert parsed.paragraphs[min(first, second)].image == 1
    assert parsed.paragraphs[later].image_status == "duplicate"
    assert parsed.paragraphs[later].image is None
    assert any("used twice" in b for b in parsed.rule_breaks)


@FEW
@given(answers(), st.integers(10, 400))
def test_truncated_answer_keeps_whole_paragraphs(case, cut):
    items, n = case
    text = json.dumps(items)
    cut = min(cut, len(text) - 2)
    parsed = parse_answer(text[:cut], n)
    # never raises, says the answer was cut; a summary the cut left whole is read whole, the one it cut
    # is read as far as it went (its words are plain ASCII), the ones after it are empty
    assert len(parsed.paragraphs) == 4
    assert parsed.ok and "truncated answer" in parsed.format_issues
    kept = text[:cut]
    for got, item in zip(parsed.paragraphs, items):
        whole = json.dumps(item["summary"])
        ends = text.find(whole) + len(whole)
        text = text[ends:]
        assert got.summary == item["summary"] if ends <= len(kept) else item["summary"].startswith(got.summary.rstrip())
        kept = kept[ends:]


@FEW
@given(st.text(max_size=300))
def test_never_raises_on_arbitrary_text(text):
    parsed = parse_answer(text, 3)
    assert len(parsed.paragraphs) == 4
    assert isinstance(parsed.instruction_following, bool)


def test_flat_and_variant_shapes():
    flat = [{"summary": "A.", "imageRef": "2", "imageCaption": "c"}, {"summary": "B.", "image": "None"},
            {"text": "C.", "image": 1}, {"summary": "D.", "image": {"imageRef": "Image 3", "imageCaption": ""}}]
    parsed = parse_answer(json.dumps(flat), 3)
    assert [p.image for p in parsed.paragraphs] == [2, None, 1, 3]
    assert parsed.paragraphs[2].summary == "C."
    wrapped = {"paragraphs": flat}
    assert parse_answer(json.dumps(wrapped), 3).format_issues == ["answer wrapped in an object"]
    by_role = {"background": "A.", "method": "B.", "results": "C.", "conclusion": "D."}
    parsed = parse_answer(json.dumps(by_role), 3)
    assert _texts(parsed) == ["A.", "B.", "C.", "D."]


def test_plain_text_answer():
    text = ("Background: The study asks why flows drop. [Image 2]\n\nMethod: A model of daily flows was fitted.\n\n"
            "Results: Flows fell by 30 percent.\n\nConclusion: Forests reduce low flows.")
    parsed = parse_answer(text, 3)
    assert parsed.ok and not parsed.instruction_following
    assert parsed.paragraphs[0].image == 2
    assert parsed.paragraphs[2].summary == "Flows fell by 30 percent."


def test_trailing_commas_and_python_literals():
    text = '[{"summary": "A.", "image": {"imageRef": None, "imageCaption": ""},}, ]'
    parsed = parse_answer(text, 1)
    assert parsed.ok and parsed.paragraphs[0].image is None and parsed.paragraphs[0].image_status == "none"


def test_normalise_ref_forms():
    assert normalise_ref("3") == (3, "ok")
    assert normalise_ref("[Image 4]") == (4, "ok")
    assert normalise_ref("<image_2>") == (2, "ok")
    assert normalise_ref(5.0) == (5, "ok")
    assert normalise_ref("None") == (None, "none")
    assert normalise_ref(None) == (None, "none")
    assert normalise_ref("the second one")[1] == "invalid"
    assert normalise_ref(True)[1] == "invalid"


def test_benchmark_adapter_contract():
    """bench/mdocsum.py reads ``ok``, ``raw`` and ``instruction_following`` from parse_answer(text)."""
    parsed = parse_answer('```json\n[{"summary": "A.", "image": {"imageRef": "1", "imageCaption": ""}}]\n```')
    assert parsed.ok and parsed.raw == [{"summary": "A.", "image": {"imageRef": "1", "imageCaption": ""}}]
    assert parsed.instruction_following is False


# ------------------------------------------------------------------------------ hostile model output

FUZZ = settings(max_examples=80, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FUZZ
@given(answer_inputs())
def test_fuzzed_answers_always_give_four_well_formed_paragraphs(case):
    """Arbitrary text, mutated and truncated valid answers, JSON fragments, huge and deeply nested inputs
    (tests/fuzzing.py); the benchmark's scorer reads the same text without raising either."""
    text, n_images = case
    check_answer(text, n_images, seconds=20)


@pytest.mark.parametrize("text", [
    "[" * 100_000,
    "[" * 100_000 + "]" * 100_000,
    '{"a":' * 50_000 + "1" + "}" * 50_000,
    '[{"summary": "ok", "image": ' + "[" * 5_000 + "]" * 5_000 + "}]",
])
def test_deeply_nested_json_is_unparsed_not_a_crash(text):
    # json.loads raises RecursionError here, which is not a ValueError
    parsed = parse_answer(text, 3)
    assert len(parsed.paragraphs) == 4


def test_python_escape_beyond_unicode_is_replaced():
    text = "[{'summary': 'The curve \\U99999999 rises', 'image': {'imageRef': '1', 'imageCaption': 'a \\U0011ffff'}}]"
    parsed = parse_answer(text, 2)
    assert parsed.ok and parsed.paragraphs[0].summary == "The curve \ufffd rises"
    assert parsed.paragraphs[0].image == 1


def test_image_reference_of_thousands_of_digits_is_invalid():
    huge = "9" * 5000
    assert normalise_ref(huge) == (None, "invalid")
    assert normalise_ref(f"[Image {huge}]") == (None, "invalid")
    assert normalise_ref("123456789") == (123456789, "ok")
    parsed = parse_answer(json.dumps([{"summary": "A b c.", "image": {"imageRef": huge, "imageCaption": ""}}]), 3)
    assert parsed.paragraphs[0].image_status == "invalid" and parsed.paragraphs[0].image is None
    plain = f"Background: the first part of the text [Image {huge}]\n\nMethod: the second part of the text"
    assert parse_answer(plain, 3).paragraphs[0].image is None


def test_benchmark_scorer_reads_hostile_references():

    assert score_ref("9" * 5000) == INVALID
    assert score_ref("Image 7") == 7
