"""The engine on a real paper with the real models: mentions decide, captions and OCR text place the rest,
every model is optional."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mmdocsum_desktop.errors import JobCancelled
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.placement.candidates import candidates_from_document
from mmdocsum_desktop.placement.engine import PlacementEngine
from mmdocsum_desktop.placement.text import mentioned_labels, strip_mentions
from mmdocsum_desktop.schemas.placement import ImageCandidate, Placement, PlacementError
from tests.placement.conftest import build_tiny_clip

# pymupdf_test_3780 cites Figures 1, 2 and 3 in its body paragraphs; the test takes the first paragraph
# citing each (found by content: block ids move whenever ingestion splits or merges a block).
CITED = ("figure 1", "figure 2", "figure 3")


def first_citing(document, label: str) -> str:
    for block in document.blocks:
        if block.type == "paragraph" and len(block.text.split()) > 30 and label in mentioned_labels(block.text):
            return block.text
    raise AssertionError(f"no body paragraph of the paper cites {label}")


@pytest.fixture(scope="module")
def paper(paper_3780):
    document, folder = paper_3780
    citing = [first_citing(document, label) for label in CITED]
    others = [b.text for b in document.blocks if b.type == "paragraph" and len(b.text.split()) > 30][5:8]
    return document, folder, citing, others


@pytest.fixture()
def candidates(paper):
    document, folder, _, _ = paper
    return candidates_from_document(document, folder)


def test_candidates_of_a_document(candidates):
    # the journal's banner over page 1 is no figure of the paper (issue 37), so no candidate
    assert [c.figure for c in candidates] == ["Figure 1", "Figure 2", "Figure 3"]
    assert all(Path(c.image).is_file() for c in candidates)
    assert [c.order for c in candidates] == [0, 1, 2]
    assert candidates[0].caption.startswith("Figure 1 | Crystal structure")
    assert len(candidates[0].context) == 2 and all("Fig. 1" in s for s in candidates[0].context)


def test_explicit_mentions_decide(paper, candidates, embedder):
    _, _, citing, others = paper
    engine = PlacementEngine(embedder, use_ocr=False)
    placements = engine.place(citing + others, candidates)
    assert [p.figure for p in placements[:3]] == ["Figure 1", "Figure 2", "Figure 3"]
    assert all(p.signals.get("mention") == 1.0 for p in placements[:3])
    # issue 39's calibrated model scores a mentioned pair near certainty
    scored = engine.place(citing + others, candidates, strategy="sequence")
    assert all(p.score > 0.9 for p in scored[:3])
    used = [p.candidate for p in placements if p.candidate is not None]
    assert len(used) == len(set(used))
    assert all(isinstance(p, Placement) and p.paragraph == i for i, p in enumerate(placements))


@pytest.mark.parametrize("strategy", ["global", "greedy"])
def test_captions_place_figures_when_the_citations_are_gone(paper, candidates, embedder, strategy):
    _, _, citing, others = paper
    paragraphs = [strip_mentions(p) for p in citing] + others
    engine = PlacementEngine(embedder, use_ocr=False)
    placements = engine.place(paragraphs, candidates, strategy=strategy)
    assert [p.figure for p in placements[:3]] == ["Figure 1", "Figure 2", "Figure 3"]
    best = placements[0].signals
    assert {"caption", "caption_sent", "caption_lex"} <= set(best) and "mention" not in best
    assert placements[0].image == candidates[0].image and placements[0].candidate == 0
    for placement in placements:
        assert 0.0 <= placement.score <= 1.0


def test_without_an_embedder_words_still_place_them(paper, candidates):
    _, _, citing, others = paper
    engine = PlacementEngine(use_ocr=False)
    placements = engine.place([strip_mentions(p) for p in citing] + others, candidates)
    assert [p.figure for p in placements[:3]] == ["Figure 1", "Figure 2", "Figure 3"]
    word_signals = {"caption_lex", "ocr_lex", "context_lex", "caption_rare", "caption_num", "caption_abbr"}
    assert set(placements[0].signals) <= word_signals | {"best_candidate"}


def test_ocr_text_is_read_lazily_and_becomes_a_signal(paper, ocr):
    document, folder, citing, _ = paper
    figure_1 = [c for c in candidates_from_document(document, folder) if c.label == "Figure 1"]
    figure_1[0].caption = ""  # only what OCR reads in the image can match
    engine = PlacementEngine(ocr=ocr)
    placements = engine.place([strip_mentions(citing[0])], figure_1)
    assert figure_1[0].ocr_text  # filled by the engine: axis labels and panel letters of the plot
    assert "ocr_lex" in placements[0].signals
    runs = ocr.runs
    engine.place([strip_mentions(citing[0])], figure_1)  # already read: OCR does not run again
    assert ocr.runs == runs


def test_a_proposal_raises_its_figure(paper, candidates, embedder):
    _, _, citing, others = paper
    paragraphs = [strip_mentions(p) for p in citing] + others
    engine = PlacementEngine(embedder, use_ocr=False)
    plain = engine.prepare(paragraphs, candidates).probabilities()
    proposed = engine.prepare(paragraphs, candidates, proposals={3: 2}).probabilities()
    assert proposed[3, 2] > plain[3, 2]
    placements = engine.place(paragraphs, candidates, proposals={0: 0, 99: 0, 1: 42})
    assert placements[0].signals.get("proposal") == 1.0
    assert sum("ignored the proposal" in w for w in engine.warnings) == 2


def test_progress_and_cancellation(paper, candidates, embedder):
    _, _, citing, _ = paper
    seen = []
    control = JobControl(on_progress=lambda done, total, what: seen.append(what))
    PlacementEngine(embedder, use_ocr=False).place(citing, candidates, control=control)
    assert "placing" in seen
    control = JobControl()
    control.cancel()
    with pytest.raises(JobCancelled):
        PlacementEngine(embedder, use_ocr=False).place(citing, candidates, strategy="greedy", control=control)


def test_clip_adds_a_signal(paper, candidates, embedder, tmp_path):
    from mmdocsum_desktop.models.clip import ClipOnnx

    _, _, citing, _ = paper
    clip = ClipOnnx(build_tiny_clip(tmp_path / "clip"))
    engine = PlacementEngine(embedder, clip=clip, use_ocr=False)
    placements = engine.place([strip_mentions(p) for p in citing], candidates)
    assert "clip" in placements[0].signals and engine.clip is clip and not engine.warnings
    assert [p.figure for p in placements] == ["Figure 1", "Figure 2", "Figure 3"]


def test_clip_alone_still_places(tmp_path, candidates):
    from mmdocsum_desktop.models.clip import ClipOnnx

    clip = ClipOnnx(build_tiny_clip(tmp_path / "clip"))
    bare = [ImageCandidate(image=c.image, order=c.order) for c in candidates]  # no caption, no context
    placements = PlacementEngine(clip=clip, use_ocr=False).place(["a crystal of ions", "laser gate"], bare)
    assert len(placements) == 2 and all(np.isfinite(p.score) for p in placements)


def test_wrong_arguments_are_refused_clearly(candidates):
    with pytest.raises(PlacementError, match="threshold"):
        PlacementEngine(threshold=1.5)
    with pytest.raises(PlacementError, match="strategy"):
        PlacementEngine().place(["text"], candidates, strategy="best")
    with pytest.raises(TypeError):
        PlacementEngine().place("one string", candidates)
