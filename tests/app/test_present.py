"""app/present.py: what the desktop app's views get from the application. A real PDF read through a real
Session (the extractive one of tests/app/conftest.py), its figure crops written where the gallery finds
them, with one progress bar over the two steps."""

from __future__ import annotations

import pytest

from mmdocsum_desktop.app import present
from mmdocsum_desktop.errors import JobCancelled
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.schemas.summary import Summary
from tests.conftest import DATA_PAPERS

PAPER = DATA_PAPERS / "PMC2803133.pdf"  # 8 pages, 3 captioned figures and 4 tables


def test_open_document_reads_the_file_and_writes_its_figure_crops(extractive_session, tmp_path):
    seen: list[tuple[int, int, str]] = []
    document = present.open_document(extractive_session, PAPER, tmp_path,
                                     control=JobControl(on_progress=lambda d, t, w: seen.append((d, t, w))))
    assert document.kind == "pdf" and document.page_count and document.figures
    for figure in document.visuals:
        assert figure.image and (tmp_path / figure.image).is_file()  # the gallery's thumbnails come from here
    assert {total for _, total, _ in seen} == {100}
    done = [d for d, _, _ in seen]
    assert done == sorted(done) and done[-1] == 100 and seen[-1][2] == "done"
    assert done[0] < 80  # reading reports within its part of the bar, before the figures


def test_span_control_fills_its_part_of_the_bar_and_shares_the_cancel():
    seen: list[tuple[int, int, str]] = []
    parent = JobControl(on_progress=lambda d, t, w: seen.append((d, t, w)))
    child = present.span_control(parent, 80, 100, "figures")
    child.report(0, 4)
    child.report(2, 4, "fig2")
    child.report(4, 4)
    assert seen == [(80, 100, "figures"), (90, 100, "fig2"), (100, 100, "figures")]
    parent.cancel()
    with pytest.raises(JobCancelled):
        child.check()


def test_summary_json_is_the_summary_as_the_command_line_writes_it():
    summary = Summary.model_validate({"paragraphs": [
        {"role": "background", "text": "Ducks.", "figure": {"index": 1, "id": "fig1", "label": "Figure 1",
                                                            "image": "figures/fig1.png"}}]})
    data = present.summary_json(summary)
    assert data["paragraphs"][0]["text"] == "Ducks."
    assert data["paragraphs"][0]["figure"]["image"] == "figures/fig1.png"  # relative to the workspace
    assert Summary.model_validate(data) == summary
