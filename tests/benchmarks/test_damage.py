"""The damaged copies the judge benchmark compares against: each changes only what it says it changes."""

from __future__ import annotations

import copy
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks._damage import change_numbers, damaged_versions, foreign_paragraph, shuffle_figures
from tests.bench.conftest import summary_record


@pytest.fixture(scope="module")
def birds(tmp_path_factory):
    return summary_record("birds.md", tmp_path_factory.mktemp("birds"))


@pytest.fixture(scope="module")
def bikes(tmp_path_factory):
    return summary_record("bikes.html", tmp_path_factory.mktemp("bikes"))


def _figures(record):
    return [p["figure"]["index"] if p.get("figure") else None for p in record["paragraphs"]]


def test_shuffled_figures_move_every_figure_and_keep_the_text(birds):
    before = copy.deepcopy(birds)
    shown = [f for f in _figures(birds) if f is not None]
    assert shown, "the demo summary shows figures"
    damaged = shuffle_figures(birds, seed=3)
    assert birds == before  # the original is never touched
    after = _figures(damaged)
    assert sorted(f for f in after if f is not None) == sorted(shown)  # each still shown once
    for i, figure in enumerate(_figures(birds)):
        if figure is not None:
            assert after[i] != figure  # no figure stays in its paragraph
    assert [p["text"] for p in damaged["paragraphs"]] == [p["text"] for p in birds["paragraphs"]]
    assert [a["image"]["imageRef"] for a in damaged["mdocsum"]] == [str(f) if f else "None" for f in after]
    assert damaged["damage"]["kind"] == "shuffled_figures"


def test_a_summary_without_figures_cannot_have_them_shuffled(birds):
    bare = copy.deepcopy(birds)
    for paragraph in bare["paragraphs"]:
        paragraph["figure"] = None
    assert shuffle_figures(bare) is None


def test_foreign_paragraph_replaces_one_text_by_the_same_role_of_another_summary(birds, bikes):
    damaged = foreign_paragraph(birds, bikes, seed=1)
    changed = [i for i, (a, b) in enumerate(zip(birds["paragraphs"], damaged["paragraphs"])) if a["text"] != b["text"]]
    assert len(changed) == 1
    k = changed[0]
    role = birds["paragraphs"][k]["role"]
    donor_text = next(p["text"] for p in bikes["paragraphs"] if p["role"] == role)
    assert damaged["paragraphs"][k]["text"] == donor_text
    assert _figures(damaged) == _figures(birds)  # the figure stays: now it illustrates the wrong text
    assert damaged["mdocsum"][k]["summary"] == donor_text
    assert damaged["damage"] == {"kind": "foreign_paragraph", "paragraph": k + 1, "role": role, "from": bikes["source"]}


def test_numbers_change_but_labels_and_pages_do_not():
    record = {
        "paragraphs": [
            {"role": "results", "text": "Figure 3 shows a 12.5% gain over 40 runs (p. 4) in 2021, see Table 2.",
             "figure": None}
        ]
    }
    damaged = change_numbers(record, seed=0)
    text = damaged["paragraphs"][0]["text"]
    assert text.startswith("Figure 3 shows a ") and "(p. 4)" in text and text.endswith("see Table 2.")
    numbers = re.findall(r"\d+(?:\.\d+)?", text)
    assert numbers[0] == "3" and numbers[-1] == "2"
    assert numbers[1] != "12.5" and re.fullmatch(r"\d\d\.\d", numbers[1])
    assert numbers[2] != "40" and numbers[4] != "2021"
    assert [c["was"] for c in damaged["damage"]["changes"]] == ["12.5", "40", "2021"]


def test_text_without_numbers_cannot_have_them_changed():
    assert change_numbers({"paragraphs": [{"role": "background", "text": "No digits here.", "figure": None}]}) is None


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.from_regex(r"[xyz ,;()%]{1,12}", fullmatch=True),
                          st.from_regex(r"\d{1,5}(\.\d{1,3})?", fullmatch=True)), min_size=1, max_size=12))
def test_changed_numbers_keep_the_shape_of_the_text(pieces):
    text = " ".join(pieces)
    damaged = change_numbers({"paragraphs": [{"role": "results", "text": text, "figure": None}]}, seed=7)
    if damaged is None:
        assert not re.search(r"\d", text)
        return
    new = damaged["paragraphs"][0]["text"]
    assert len(new) == len(text) and new != text
    assert re.sub(r"\d", "0", new) == re.sub(r"\d", "0", text)  # only digits differ


def test_damaged_versions_of_a_real_paper_summary(tmp_path):
    record = summary_record("pymupdf_test_3780.pdf", tmp_path, paper=True)
    donor = summary_record("birds.md", tmp_path / "donor")
    versions = damaged_versions(record, donor)
    assert set(versions) == {"shuffled_figures", "foreign_paragraph", "changed_numbers"}
    assert all(v is not None and v != record for v in versions.values())
