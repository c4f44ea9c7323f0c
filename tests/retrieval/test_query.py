"""Reading a question with the paper's vocabulary: the figure or table it names, abbreviations."""

from __future__ import annotations

import pytest

from mmdocsum_desktop.retrieval.query import expand_tokens, find_abbreviations, named_visuals, roman_to_int
from mmdocsum_desktop.retrieval.search import tokens

HYDROLOGY_LABELS = [f"Figure {n}" for n in range(1, 6)] + [f"Table {n}" for n in range(1, 6)]
IEEE_LABELS = ["Figure 1", "Figure 2", "Table I", "Table II"]


@pytest.mark.parametrize(
    ("question", "labels", "expected"),
    [
        ("What does Figure 5 show?", HYDROLOGY_LABELS, ["Figure 5"]),
        ("What is shown in Fig. 3?", HYDROLOGY_LABELS, ["Figure 3"]),
        ("what is in fig 2b", HYDROLOGY_LABELS, ["Figure 2"]),
        ("Compare table 4 with Figure 1", HYDROLOGY_LABELS, ["Figure 1", "Table 4"]),
        ("What does the second table list?", HYDROLOGY_LABELS, ["Table 2"]),
        ("What does the last figure show?", HYDROLOGY_LABELS, ["Figure 5"]),
        ("What does Table II report?", HYDROLOGY_LABELS, ["Table 2"]),  # roman asked, arabic printed
        ("What does Table 2 report?", IEEE_LABELS, ["Table II"]),  # and the other way round
        ("What does table ii report?", IEEE_LABELS, ["Table II"]),
        ("What does Figure 9 show?", HYDROLOGY_LABELS, []),  # the paper has no Figure 9
        ("How did flows change after planting?", HYDROLOGY_LABELS, []),
        ("Three figures 12.5 cm apart?", HYDROLOGY_LABELS, []),
    ],
)
def test_named_visuals(question, labels, expected):
    assert named_visuals(question, labels) == expected


def test_roman_numerals():
    assert [roman_to_int(t) for t in ("I", "iv", "IX", "XII", "L")] == [1, 4, 9, 12, 50]
    assert roman_to_int("ok") is None and roman_to_int("") is None


def test_abbreviations_defined_in_the_text_are_found():
    found = find_abbreviations([
        "The Ocimum sanctum essential oil (OSEO) was distilled from fresh leaves.",
        "Flow duration curves (FDCs) were fitted for each catchment.",
        "Samples were kept at 4 °C (n = 3) before analysis (see Methods).",
    ])
    assert found["OSEO"] == "Ocimum sanctum essential oil"
    assert found["FDCs"] == "Flow duration curves"
    assert "n" not in found and "see" not in found


def test_a_question_gets_the_papers_other_spelling():
    abbreviations = {"oseo": tokens("Ocimum sanctum essential oil")}
    spelled_out = expand_tokens(tokens("Did the Ocimum sanctum oil slow migration?"), abbreviations)
    assert "oseo" in spelled_out
    short = expand_tokens(tokens("Did OSEO slow migration?"), abbreviations)
    assert set(tokens("Ocimum sanctum essential oil")) <= set(short)
    unrelated = tokens("Did the extract slow migration?")
    assert expand_tokens(unrelated, abbreviations) == unrelated
