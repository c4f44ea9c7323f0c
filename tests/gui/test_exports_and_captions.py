"""Exports and inserted images (issue 37, point 9), in the real window: an HTML export given a .pdf name
is written as .html (and said so); the exported PDF carries the summary's title in its metadata; the
status line counts every image a Markdown export wrote; an image accepted into the user's text does not
repeat the caption its crop already shows (and keeps it when the crop does not)."""

from __future__ import annotations

import re

import pymupdf
import pytest

from mmdocsum_desktop.app.placement_render import caption_in_crop
from mmdocsum_desktop.bench.splits import SPLITS_ROOT
from tests.conftest import DATA_PAPERS
from tests.gui.conftest import save_pages, wait_job


def _open(qtbot, window, path):
    with qtbot.waitSignal(window.documentOpened, timeout=60_000):
        assert window.open_path(path) is not None


@pytest.fixture(scope="module")
def caption_inside_pdf(tmp_path_factory):
    """Page 6 of PMC5745208 (Nanoscale Res. Lett., CC BY): Fig. 1, whose region holds its caption."""
    return save_pages(SPLITS_ROOT / "pmc-test" / "papers" / "PMC5745208.pdf", [5],
                      tmp_path_factory.mktemp("caption-inside") / "caption-inside.pdf")


def test_exports_names_titles_and_counts(qtbot, make_window, tmp_path):
    window = make_window()
    _open(qtbot, window, DATA_PAPERS / "PMC2803133.pdf")  # 3 figures, 4 tables: several images to export
    with qtbot.waitSignal(window.summaryReady, timeout=120_000):
        assert window.summarize() is not None
    summary = window.workspace.project.summary
    assert len(summary.paragraphs) >= 3

    job = window.export("html", tmp_path / "summary.pdf")  # a .pdf name typed for HTML
    wait_job(qtbot, job)
    assert job.state == "succeeded", job.error
    assert not (tmp_path / "summary.pdf").exists()
    html = (tmp_path / "summary.html").read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    assert "summary.html" in window.banner.text and "summary.html" in window.status_label.text()

    job = window.export("pdf", tmp_path / "summary-print.pdf")
    wait_job(qtbot, job, 60_000)
    assert job.state == "succeeded", job.error
    with pymupdf.open(tmp_path / "summary-print.pdf") as pdf:
        title = pdf.metadata["title"]
    assert title and title == re.search(r"<title>(.*?)</title>", html).group(1)
    assert summary.title is None or title == summary.title

    visuals = window.workspace.document.visuals
    for index in range(len(summary.paragraphs)):  # a figure or table picked by hand for each paragraph
        window.choose_figure(index, visuals[index].id)
    job = window.export("markdown", tmp_path / "notes.md")
    wait_job(qtbot, job)
    assert job.state == "succeeded", job.error
    images = sorted(p for p in (tmp_path / "notes_images").iterdir() if not p.name.startswith("."))
    assert len(images) == len(job.result) - 1 == len(summary.paragraphs) >= 3  # more than the status line named
    assert window.status_label.text() == f"Exported notes.md and {len(images)} images (in notes_images/)."


@pytest.mark.slow  # real placement on a one-page paper
def test_an_inserted_image_does_not_repeat_a_caption_its_crop_shows(qtbot, make_window, caption_inside_pdf):
    window = make_window()
    _open(qtbot, window, caption_inside_pdf)
    document = window.workspace.document
    figure = next(v for v in document.figures if v.label == "Figure 1")
    assert caption_in_crop(document, figure)  # the crop shows "Fig. 1 Parts of the plant …"
    view = window.authoring_view
    window.tabs.setCurrentWidget(view)
    view.editor.setPlainText("Plants give the extracts.\n\nThe effect on absorption spectra of different values of pH "
                             "is represented in Fig. 1: the parts of the plant used for the preparation of "
                             "plant extract.\n")
    job = view.place_images()
    wait_job(qtbot, job, 120_000)
    assert job.state == "succeeded", job.error
    row = next(r for r, s in enumerate(window.workspace.project.placements) if s.figure == figure.id)
    view.accept(row)
    text = view.editor.toPlainText()
    image_line = re.search(r"^!\[[^\]]*\]\(([^)]+)\)$", text, flags=re.MULTILINE)
    assert image_line is not None
    assert "Parts of the plant used" not in text  # once in the image, not again under it
    assert not re.search(r"^\*.*\*$", text, flags=re.MULTILINE)


def test_a_crop_without_its_caption_gets_the_caption_line(qtbot, make_window, two_figure_pdf):
    window = make_window()
    _open(qtbot, window, two_figure_pdf)
    document = window.workspace.document
    # PMC2803133's figures are cropped above their captions: the inserted image keeps its caption line
    assert document.figures and not any(caption_in_crop(document, f) for f in document.figures)
