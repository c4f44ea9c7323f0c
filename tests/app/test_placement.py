"""Placing a document's figures after the user's paragraphs (what `mmdocsum place` and the Authoring
view run)."""

from __future__ import annotations

import pytest

from mmdocsum_desktop.app.placement import image_pool, place
from mmdocsum_desktop.errors import MmdocsumError
from mmdocsum_desktop.schemas.settings import PlacementSettings
from tests.conftest import SAMPLE_PDF

PAPER = SAMPLE_PDF.name  # the package's sample: 5 captioned figures and a table


def test_place_puts_each_figure_at_most_once_after_the_paragraph_about_it(extractive_session, exported):
    document, folder = exported(PAPER)
    pool = image_pool(document=document, root=folder)
    assert len(pool) >= 2
    captions = [c.caption for c in pool[:2]]
    paragraphs = ["An introduction that mentions no picture at all, only the weather in spring.",
                  *captions, captions[0]]  # the first caption twice: only one of those gets its image

    run = place(extractive_session, paragraphs, pool, placement=PlacementSettings(ocr=False))

    assert len(run.placements) == len(paragraphs)
    chosen = [p.candidate for p in run.placements if p.candidate is not None]
    assert len(chosen) == len(set(chosen))
    assert run.placements[1].candidate == 0 and run.placements[2].candidate == 1
    assert run.placements[3].candidate is None
    assert "text embeddings" in run.models
    assert "OCR" not in run.models and "CLIP" not in run.models  # OCR off in the placement settings; no CLIP


def test_an_empty_pool_says_what_to_do(tmp_path):
    with pytest.raises(MmdocsumError, match="no images to place"):
        image_pool(folder=tmp_path)
    with pytest.raises(MmdocsumError, match="open a document or choose a folder"):
        image_pool()
