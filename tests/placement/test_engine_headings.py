"""An image never goes after a heading or the title line, whatever the strategy; the Why shows the words
that matched and the position prior (real MiniLM embedder, shipped model)."""

from __future__ import annotations

import pytest

from mmdocsum_desktop.placement.engine import PlacementEngine
from mmdocsum_desktop.schemas.placement import ImageCandidate, PlacementError

CAPTION = "Figure 1. Apoptosis of HEK293 cells after TNF treatment for 24h, measured by annexin V staining."
PARAGRAPHS = [
    "Apoptosis of HEK293 cells after TNF treatment",  # the title line: the caption's own words
    "Cells die in many ways, and the ways differ between tissues and between species.",
    "Results",
    "Apoptosis of HEK293 cells after TNF",  # a heading that matches the caption best of all
    "TNF treatment for 24h raised apoptosis of HEK293 cells threefold, as annexin V staining showed.",
    "The effect was smaller in other cell lines, which we discuss below.",
]


@pytest.fixture()
def pool():
    return [ImageCandidate(label="Figure 1", figure="Figure 1", caption=CAPTION, order=0)]


@pytest.mark.parametrize("strategy", ["sequence", "global", "greedy"])
def test_no_image_after_a_heading_or_the_title(embedder, pool, strategy):
    engine = PlacementEngine(embedder, use_ocr=False, threshold=0.01)  # low: anything above it is placed
    placements = engine.place(PARAGRAPHS, pool, strategy=strategy)
    chosen = [p.paragraph for p in placements if p.candidate is not None]
    assert not {0, 2, 3} & set(chosen)
    if strategy != "greedy":  # greedy places after the window that first reaches the threshold
        assert chosen == [4]


def test_the_why_names_the_matched_words_and_the_position_prior(embedder, pool):
    engine = PlacementEngine(embedder, use_ocr=False)
    placements = engine.place(PARAGRAPHS, pool)
    why = placements[4].why
    assert why is not None and placements[4].candidate == 0
    assert {"HEK293", "TNF", "24h"} <= set(why.caption_words)
    assert {"HEK293", "TNF", "24h", "apoptosis"} <= set(why.paragraph_words)  # as the paragraph writes them
    assert why.position_prior is not None
    assert "Words shared with the caption" in why.tooltip() and "Position prior" in why.tooltip()


def test_sections_given_by_the_caller_must_match_the_paragraphs(embedder, pool):
    engine = PlacementEngine(embedder, use_ocr=False)
    with pytest.raises(PlacementError, match="sections"):
        engine.place(PARAGRAPHS, pool, sections=[("Results",)])
    placed = engine.place(PARAGRAPHS, pool, sections=[None, ("Introduction",), None, ("Results",), ("Results",), ("Results",)])
    assert len(placed) == len(PARAGRAPHS)
