"""An answer's sentence shown where the paper prints it (issue 46, item 5): each answer sentence resting
on a passage links to itself; a click marks its printed lines on its page. Real window, real ask use case
(MiniLM, the cross-encoder), a committed PDF."""

from __future__ import annotations

from PySide6.QtCore import QUrl

from tests.conftest import DATA_PAPERS
from tests.gui.test_ask_history import _ask, _open


def test_a_click_on_an_answer_sentence_marks_it_on_its_page(qtbot, make_window):
    window = make_window()
    _open(qtbot, window, DATA_PAPERS / "PMC2803133.pdf")
    view = window.ask_view
    window.tabs.setCurrentWidget(view)
    answer = _ask(qtbot, view, "How did the essential oils change the serum lipids?")
    cited = [(k, s) for k, s in enumerate(answer.sentences) if s.blocks]
    assert cited, "the extractive answer quotes the paper's passages"
    reader = window.document_view
    for k, sentence in cited:
        assert f"cite:sentence:0.{k}" in view.browser.toHtml()
        block = window.workspace.document.block(sentence.blocks[0])
        reader.show_page(1 if block.page != 1 else 2)
        view.browser.anchorClicked.emit(QUrl(f"cite:sentence:0.{k}"))
        assert reader.current_page == block.page
        assert reader.sentence is not None and reader.sentence[0] == block.page and reader.sentence[1]
