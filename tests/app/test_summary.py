"""Summaries through the application layer: summarize, regenerate one paragraph, swap a figure."""

from __future__ import annotations

import pytest

from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.app.summary import regenerate_paragraph, summarize, swap_figure
from mmdocsum_desktop.errors import MmdocsumError
from tests.app.conftest import llama_settings
from tests.conftest import SAMPLE_PDF

PAPER = SAMPLE_PDF.name  # the package's sample: 5 figures and a table to swap


@pytest.fixture(scope="module")
def extractive_summary(extractive_session, exported):
    document, folder = exported(PAPER)
    return summarize(extractive_session, document, folder)


def test_summarize_writes_four_paragraphs_with_figures_at_most_once(extractive_summary):
    summary = extractive_summary
    assert [p.role for p in summary.paragraphs] == ["background", "method", "results", "conclusion"]
    assert all(p.text.strip() for p in summary.paragraphs)
    shown = [p.figure_id for p in summary.paragraphs if p.figure is not None]
    assert shown and len(shown) == len(set(shown))
    assert summary.engine.engine == "extractive"


def test_regenerate_changes_only_that_paragraph_extractive(extractive_session, exported, extractive_summary):
    document, _ = exported(PAPER)
    edited = extractive_summary.model_copy(deep=True)
    edited.paragraphs[0].text = "A paragraph the user rewrote by hand."
    edited.paragraphs[2].text = "The user's own words about the results."
    before = edited.model_dump()

    fresh = regenerate_paragraph(extractive_session, document, edited, 2)

    assert edited.model_dump() == before  # the summary given is not changed
    # the extractive engine's paragraph for the role comes back; the user's edit elsewhere is kept
    assert fresh.paragraphs[2].text == extractive_summary.paragraphs[2].text
    assert fresh.paragraphs[2].source == "extracted"
    for i in (0, 1, 3):
        assert fresh.paragraphs[i].model_dump() == edited.paragraphs[i].model_dump()
    assert fresh.paragraphs[2].figure == edited.paragraphs[2].figure  # its figure stays
    assert fresh.paragraphs[2].sentences and " ".join(s.text for s in fresh.paragraphs[2].sentences)


def test_regenerate_with_smollm2_rewrites_one_paragraph(smollm, exported, extractive_summary):
    document, _ = exported(PAPER)
    with Session(llama_settings(smollm, max_tokens=64)) as session:
        fresh = regenerate_paragraph(session, document, extractive_summary, 1, attempt=1)
    assert fresh.paragraphs[1].text.strip()
    assert fresh.paragraphs[1].text != extractive_summary.paragraphs[1].text
    assert fresh.paragraphs[1].source == "model"
    assert fresh.paragraphs[1].role == "method"
    for i in (0, 2, 3):
        assert fresh.paragraphs[i].model_dump() == extractive_summary.paragraphs[i].model_dump()


def test_regenerate_rejects_a_paragraph_that_is_not_there(extractive_session, exported, extractive_summary):
    document, _ = exported(PAPER)
    with pytest.raises(MmdocsumError, match="no paragraph 5"):
        regenerate_paragraph(extractive_session, document, extractive_summary, 4)


def test_swap_figure_moves_a_figure_and_shows_each_once(exported, extractive_summary):
    document, _ = exported(PAPER)
    summary = extractive_summary.model_copy(deep=True)
    holder = next(i for i, p in enumerate(summary.paragraphs) if p.figure is not None)
    figure_id = summary.paragraphs[holder].figure_id
    target = (holder + 1) % 4

    swap = swap_figure(summary, target, figure_id, document=document)

    assert swap.taken_from == holder
    assert summary.paragraphs[target].figure_id == figure_id
    assert summary.paragraphs[target].figure.chosen_by == "user"
    assert summary.paragraphs[target].image_caption
    assert summary.paragraphs[holder].figure is None and summary.paragraphs[holder].image_caption == ""
    shown = [p.figure_id for p in summary.paragraphs if p.figure is not None]
    assert len(shown) == len(set(shown))
    # only a paragraph without a figure says why: the giver is "shown with another paragraph", the taker none
    assert summary.paragraphs[target].no_figure is None
    assert summary.paragraphs[holder].no_figure.kind == "shown_elsewhere"
    assert "another paragraph" in summary.paragraphs[holder].no_figure.message


def test_swap_figure_to_none_and_unknown_figure(exported, extractive_summary):
    document, _ = exported(PAPER)
    summary = extractive_summary.model_copy(deep=True)
    holder = next(i for i, p in enumerate(summary.paragraphs) if p.figure is not None)
    swap = swap_figure(summary, holder, None)
    assert swap.figure is None and swap.taken_from is None
    assert summary.paragraphs[holder].figure is None
    assert summary.paragraphs[holder].no_figure.message == "You removed its figure."
    with pytest.raises(MmdocsumError, match="no figure nope"):
        swap_figure(summary, 0, "nope", document=document)
    with pytest.raises(MmdocsumError, match="no paragraph 9"):
        swap_figure(summary, 8, None)


def test_swap_figure_takes_a_figure_the_pipeline_did_not_offer(exported, extractive_summary):
    document, _ = exported(PAPER)
    summary = extractive_summary.model_copy(deep=True)
    offered = {f.id for f in summary.figures}
    missing = [v for v in document.visuals if v.id not in offered]
    visual = missing[0] if missing else document.visuals[0]
    swap_figure(summary, 3, visual.id, document=document)
    assert summary.paragraphs[3].figure_id == visual.id
    assert summary.figure_entry(visual.id) is not None
