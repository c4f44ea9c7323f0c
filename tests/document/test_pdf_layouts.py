"""Layouts built by the test with known geometry: spanning figures, side captions, continuations."""

from __future__ import annotations

import pymupdf
import pytest

from benchmarks._figure_groundtruth import iou
from mmdocsum_desktop.document.reader import read_document

PROSE = (
    "Running text of the paper describes the method in plain words so that the reader can follow it. "
    "Each sentence adds a detail about the data, the model or the evaluation protocol used here. "
)


def _column_text(page: pymupdf.Page, rect: pymupdf.Rect, tag: str) -> None:
    assert page.insert_textbox(rect, f"{tag} " + PROSE * 3, fontsize=10, fontname="tiro") >= 0


def _plot(page: pymupdf.Page, rect: pymupdf.Rect) -> None:
    """A chart-like drawing: a frame, axes and a polyline, as vector graphics."""
    page.draw_rect(rect, color=(0, 0, 0), width=0.8)
    steps = 12
    points = [
        pymupdf.Point(rect.x0 + rect.width * i / steps, rect.y1 - rect.height * ((i * 7) % 10) / 10)
        for i in range(steps + 1)
    ]
    page.draw_polyline(points, color=(0.1, 0.2, 0.8), width=1.2)
    for i in range(1, 5):
        y = rect.y0 + rect.height * i / 5
        page.draw_line((rect.x0, y), (rect.x0 + 4, y), color=(0, 0, 0), width=0.5)


@pytest.fixture(scope="module")
def layout_pdf(tmp_path_factory) -> tuple[str, dict[str, tuple[int, pymupdf.Rect]]]:
    pdf = pymupdf.open()
    truth: dict[str, tuple[int, pymupdf.Rect]] = {}
    # Page 1: two columns, a figure spanning both with a spanning caption under it.
    page = pdf.new_page(width=612, height=792)
    page.insert_text((72, 70), "A Synthetic Study of Layouts", fontsize=18, fontname="tibo")
    _column_text(page, pymupdf.Rect(72, 90, 296, 300), "LEFTTOP")
    _column_text(page, pymupdf.Rect(316, 90, 540, 300), "RIGHTTOP")
    wide = pymupdf.Rect(90, 320, 520, 470)
    _plot(page, wide)
    truth["Figure 1"] = (1, wide)
    page.insert_textbox(pymupdf.Rect(72, 480, 540, 510), "Figure 1: A wide figure across both columns.", fontsize=9)
    _column_text(page, pymupdf.Rect(72, 520, 296, 740), "LEFTBOTTOM")
    _column_text(page, pymupdf.Rect(316, 520, 540, 740), "RIGHTBOTTOM")
    # Page 2: a one-column figure in the left column, and a caption set beside its figure.
    page = pdf.new_page(width=612, height=792)
    left = pymupdf.Rect(80, 80, 290, 230)
    _plot(page, left)
    truth["Figure 2"] = (2, left)
    page.insert_textbox(pymupdf.Rect(72, 238, 296, 270), "Figure 2. Results of the first test.", fontsize=9)
    _column_text(page, pymupdf.Rect(72, 280, 296, 480), "PAGETWOLEFT")
    _column_text(page, pymupdf.Rect(316, 80, 540, 480), "PAGETWORIGHT")
    beside = pymupdf.Rect(80, 520, 300, 700)
    _plot(page, beside)
    truth["Figure 3"] = (2, beside)
    page.insert_textbox(pymupdf.Rect(320, 590, 540, 640), "Figure 3: A caption set beside its figure.", fontsize=9)
    # Page 3: the rest of Figure 2, captioned as a continuation.
    page = pdf.new_page(width=612, height=792)
    rest = pymupdf.Rect(80, 80, 290, 230)
    _plot(page, rest)
    page.insert_textbox(pymupdf.Rect(72, 238, 296, 270), "Figure 2. Cont.", fontsize=9)
    _column_text(page, pymupdf.Rect(72, 280, 296, 480), "PAGETHREE")
    _column_text(page, pymupdf.Rect(316, 80, 540, 480), "PAGETHREERIGHT")
    path = tmp_path_factory.mktemp("layouts") / "layouts.pdf"
    pdf.save(path)
    return str(path), truth


def test_figures_are_found_where_they_were_drawn(layout_pdf):
    path, truth = layout_pdf
    document = read_document(path)
    found = {f.label: f for f in document.figures if f.label and not f.continues}
    assert set(found) == set(truth)
    for label, (page, rect) in truth.items():
        figure = found[label]
        assert figure.page == page
        assert iou(tuple(rect), figure.bbox) >= 0.8, (label, figure.bbox, rect)


def test_continuation_is_linked_to_the_figure_it_continues(layout_pdf):
    path, _ = layout_pdf
    document = read_document(path)
    parts = [f for f in document.figures if f.label == "Figure 2"]
    assert len(parts) == 2
    first, cont = parts
    assert first.continues is None and cont.continues == first.id and cont.page == 3


def test_columns_are_read_left_then_right_within_each_band(layout_pdf):
    path, _ = layout_pdf
    document = read_document(path)
    order = [b.text.split()[0] for b in document.blocks if b.page == 1 and b.type == "paragraph"]
    assert order == ["LEFTTOP", "RIGHTTOP", "LEFTBOTTOM", "RIGHTBOTTOM"]
    assert document.title == "A Synthetic Study of Layouts"
