"""Figure detection must not regress against the Docling ground truth of the evaluation corpus (the two
tests that read it are marked ``corpus``); the scoring itself is checked on figures made here."""

from __future__ import annotations

import pytest

from benchmarks._figure_groundtruth import (
    GroundTruthFigure,
    iou,
    load_groundtruth,
    score_file,
    summarise,
)
from mmdocsum_desktop.schemas.document import Document, Figure
from tests.conftest import CORPUS, read_paper

# What the detector reached when this test was written (see benchmarks/bench_figures_groundtruth.py).
RECALL_REACHED = 1.0
PRECISION_REACHED = 12 / 14
CAPTION_ACCURACY_REACHED = 1.0


@pytest.mark.corpus
def test_recall_precision_and_captions_do_not_drop():
    scores = []
    for truth_file in sorted((CORPUS / "docling_groundtruth").glob("*.json")):
        document = read_paper(f"docling_{truth_file.stem}.pdf")
        scores.append(score_file(truth_file.stem, document, load_groundtruth(truth_file)))
    overall = summarise(scores)
    assert overall["ground_truth"] == 12
    assert overall["recall"] >= RECALL_REACHED
    assert overall["precision"] >= PRECISION_REACHED - 1e-9
    assert overall["caption_accuracy"] >= CAPTION_ACCURACY_REACHED


@pytest.mark.corpus
def test_groundtruth_boxes_are_converted_to_top_left_origin():
    truth = load_groundtruth(CORPUS / "docling_groundtruth" / "picture_classification.json")
    assert len(truth) == 2
    first = truth[0]
    # Docling stores l=135, t=488, b=282 with a bottom-left origin on a 792 pt page.
    assert first.page == 1
    assert round(first.bbox[1]) == 792 - 488 and round(first.bbox[3]) == 792 - 282


def test_scoring_counts_iou_threshold_and_caption_text():
    truth = [GroundTruthFigure(1, (0, 0, 100, 100), "Figure 1: A cat.")]
    good = Figure(id="fig1", index=1, label="Figure 1", caption="Figure 1:  A cat.", page=1, bbox=(0, 0, 100, 90))
    off = Figure(id="fig2", index=2, label="Figure 2", caption="x", page=1, bbox=(60, 60, 160, 160))
    document = Document(source="x.pdf", kind="pdf", figures=[good, off])
    score = score_file("x", document, truth)
    assert (score.matched, score.predicted, score.caption_matches) == (1, 2, 1)
    assert abs(iou((0, 0, 100, 100), (0, 0, 100, 90)) - 0.9) < 1e-9
    assert iou((0, 0, 1, 1), (2, 2, 3, 3)) == 0.0
