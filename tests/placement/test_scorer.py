"""Word evidence between a caption and a paragraph: rare words, numbers and abbreviations both use."""

from __future__ import annotations

import math

import numpy as np

from mmdocsum_desktop.placement.scorer import (
    SimilarityModel,
    TextViews,
    abbreviations,
    rare_weights,
    word_evidence,
)
from mmdocsum_desktop.placement.text import tokens


def test_abbreviations_keep_their_case_and_need_two_capitals_or_a_digit():
    found = abbreviations("TNF and IL-6 rose in HEK293 cells; mRNA of Cat, not CAT, in the Results.")
    assert {"TNF", "IL-6", "HEK293", "mRNA", "CAT"} <= found
    assert not {"Cat", "Results", "and"} & found


def test_rare_words_are_those_few_paragraphs_use():
    paragraphs = [{"cell", "growth"}, {"cell", "apoptosis"}, {"cell", "growth"}] + [{"cell"}] * 40
    rare = rare_weights(paragraphs)
    assert "apoptosis" in rare and "growth" in rare
    assert "cell" not in rare  # every paragraph uses it
    assert rare["apoptosis"] > rare["growth"]  # one paragraph rarer than two


def test_word_evidence_counts_shared_rare_words_numbers_and_abbreviations():
    rare = {"apoptosis": 3.0}
    values = word_evidence({"apoptosis", "37", "24h", "3", "cell"}, {"apoptosis", "37", "24h", "3"},
                           {"TNF"}, {"TNF", "DNA"}, rare)
    assert math.isclose(values["caption_rare"], math.log1p(3.0))
    assert math.isclose(values["caption_num"], math.log1p(2))  # "37" and "24h"; a single digit is not evidence
    assert math.isclose(values["caption_abbr"], math.log1p(1))
    nothing = word_evidence({"apoptosis"}, {"growth"}, set(), set(), rare)
    assert nothing == {"caption_rare": 0.0, "caption_num": 0.0, "caption_abbr": 0.0}


def test_the_similarity_model_scores_the_paragraph_that_shares_the_evidence_highest():
    paragraphs = [
        "We cultured the cells for a week and counted them.",
        "TNF treatment for 24h raised apoptosis of HEK293 cells threefold.",
        "The cells were counted again after the treatment.",
        "",
    ]
    views = TextViews(caption=["Apoptosis of HEK293 cells after TNF for 24h."], ocr=[""], context=[[]])
    sims = SimilarityModel(paragraphs, views).similarities([[i] for i in range(len(paragraphs))])
    for name in ("caption_rare", "caption_num", "caption_abbr"):
        assert int(np.nanargmax(sims[name][:, 0])) == 1, name
        assert np.isnan(sims[name][3, 0])  # an empty paragraph matches nothing
    model = SimilarityModel(paragraphs, views)
    shared = model.shared_words(1, 0)
    assert set(shared) >= set(tokens("HEK293 TNF 24h apoptosis"))  # word stems, as the index holds them
    assert shared.index(tokens("apoptosis")[0]) < shared.index("cell")  # rarest in the paper first
