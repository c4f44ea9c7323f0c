"""Issue 29, authoring, driven through the real window (offscreen) with real placement on a real paper:
the Why column says why each image was proposed, an accepted image comes with its caption (which is not
taken for a paragraph of the user's), the preview fits images to its width, and the status line says
what happened (cancelled, another document) instead of staying at "Placing…"."""

from __future__ import annotations

import re

import pytest

from mmdocsum_desktop.text.paragraphs import split_paragraphs
from tests.gui.conftest import wait_job
from tests.gui.test_main_window import PAPER, SHORT, open_document

# PAPER: PMC2803133, 8 pages, 3 figures (Fig. 2 liver, Fig. 3 heart), 4 tables
TEXT = ("Essential oils of holy basil leaves were given to rats fed a high-cholesterol diet.\n\n"
        "Fig. 2 shows that the liver cells of the treated rats looked close to those of normal rats.\n\n"
        "The myocardial cells of the treated rats are shown in Fig. 3.\n")


def test_split_paragraphs_leaves_out_an_images_caption_line_but_not_the_users_italics():
    text = ("First paragraph.\n\n![Figure 2](images/figure-2.png)\n\n*Figure 2: Flicker in disparity maps.*\n\n"
            "*An italic sentence of mine.*\n\nLast paragraph.")
    assert split_paragraphs(text) == ["First paragraph.", "*An italic sentence of mine.*", "Last paragraph."]


@pytest.mark.slow  # real placement (embeddings and OCR of the paper's figures): about a minute here
def test_why_column_captions_preview_and_status(qtbot, make_window):
    window = make_window()
    window.resize(1280, 820)
    open_document(qtbot, window, PAPER)
    view = window.authoring_view
    window.tabs.setCurrentWidget(view)
    view.editor.setPlainText(TEXT)

    # Cancel: the status says so, not "Placing…"
    job = view.place_images()
    assert view.status.text() == "Placing…"
    window.job_bar.cancel()
    wait_job(qtbot, job, 60_000)
    assert job.state == "cancelled" and "cancelled" in view.status.text().lower()
    assert view.editor.toPlainText() == TEXT

    job = view.place_images()
    wait_job(qtbot, job, 240_000)
    assert job.state == "succeeded", job.error
    suggestions = window.workspace.project.placements
    rows = [row for row, s in enumerate(suggestions) if s.image]
    assert rows and re.match(r"\d+ suggestions? for 3 paragraphs\.", view.status.text())
    why_column = [view.table.horizontalHeaderItem(c).text() for c in range(view.table.columnCount())].index("Why")
    for row in rows:  # every proposal says why (a citation of the figure, or how well the caption matches)
        assert view.table.item(row, why_column).text().strip(), suggestions[row]
        assert view.table.item(row, why_column).toolTip().strip()
    cited = [row for row in rows if "cites" in view.table.item(row, why_column).text()]
    assert cited  # the paragraphs cite Fig. 2 and Fig. 3

    row = cited[0]
    suggestion = suggestions[row]
    figure = window.workspace.figure(suggestion.figure)
    view.accept(row)
    text = view.editor.toPlainText()
    image_line = re.search(r"^!\[[^\]]*\]\(([^)]+)\)$", text, flags=re.MULTILINE)
    assert image_line is not None
    after = text[image_line.end():].lstrip("\n").splitlines()[0]
    assert after.startswith("*") and after.endswith("*")
    caption_words = " ".join(figure.caption.split()).split()[2:6]  # words of the caption after its label
    assert all(word.strip(".,:") in after for word in caption_words), (after, figure.caption)
    # the caption is not a paragraph of the user's: the other suggestions still fit the text
    assert split_paragraphs(text) == split_paragraphs(TEXT)
    assert any(s.status == "pending" for s in window.workspace.project.placements)

    # the preview shows the image no wider than the preview (no horizontal scroll bar)
    view.refresh_preview()
    qtbot.waitUntil(lambda: "<img" in view.preview.toHtml(), timeout=5_000)
    widths = [int(w) for w in re.findall(r'<img[^>]*width="(\d+)"', view.preview.toHtml())]
    assert widths and max(widths) <= view.preview.viewport().width()
    assert view.preview.horizontalScrollBar().maximum() == 0

    # taking the accept back removes the image and its caption
    view.take_back(row)
    assert view.editor.toPlainText().strip() == TEXT.strip()

    # another document: the suggestions' status line was about the first one
    open_document(qtbot, window, SHORT)
    assert "suggestion" not in view.status.text()
