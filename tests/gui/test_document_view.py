"""Issue 29, the reader, driven through the real window (offscreen) on a real paper: select text by
dragging and copy it, the page's context menu, search over the normalised text (ligatures), fit width on
open, rotating a page, and a window whose size and splitter stay the user's."""

from __future__ import annotations

import pymupdf
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QGraphicsRectItem

from mmdocsum_desktop.bench import splits
from mmdocsum_desktop.gui import document_view
from mmdocsum_desktop.gui.main_window import MainWindow
from mmdocsum_desktop.gui.prefs import GuiPrefs
from tests.gui.test_main_window import OPEN_TIMEOUT, PAPER, open_document, wait_for

# MDPI Atoms 2016, 4, 9 (CC BY, in the bundled pmc-test split): 10 pages, 7 figures, the journal's logo at the
# top of page 1, and "ﬁ" printed with a ligature glyph: "conﬁguration space" 10 times on pages 1, 2, 5, 7, 8
LIGATURE_PAPER = splits.bundled("pmc-test").folder / "papers" / "atoms4010009.pdf"
PHRASE = "configuration space"


@pytest.fixture(scope="module")
def opened(qapp, tmp_path_factory):
    """One window with the paper open, shared by the tests of this module (opening it is the slow part);
    each test starts from page 1, nothing selected, no search, no page turned."""
    import os


    root = tmp_path_factory.mktemp("reader")
    keys = ("MMDOCSUM_WORKSPACES_DIR", "MMDOCSUM_CONFIG_DIR", "MMDOCSUM_DATA_DIR")
    saved = {k: os.environ.get(k) for k in keys}
    for key in keys:
        os.environ[key] = str(root / key.lower())
    window = MainWindow(prefs=GuiPrefs())
    window.ask_save_changes = lambda: "discard"
    window.resize(1280, 820)
    window.show()
    window.open_path(LIGATURE_PAPER)
    wait_for(window.documentOpened, OPEN_TIMEOUT)
    yield window
    window.dirty = False
    window.close()
    window.deleteLater()
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture
def reader(qtbot, opened):
    window, view = opened, opened.document_view
    window.resize(1280, 820)
    view._rotation.clear()
    view.set_fit("width")
    view._layout()
    view._selection = None
    view._draw_selection()
    view._hits, view._hit_boxes, view._hits_for = [], [], None
    view._draw_hits()
    view.search_box.clear()
    view.search_label.clear()
    view.show_page(1)
    window.banner.hide()
    qtbot.waitUntil(lambda: view.rendered_page == 1, timeout=15_000)
    return window, view


def viewport_point(view, page: int, x: float, y: float) -> QPoint:
    """Where the point (x, y) of a page (in PDF points) is on the screen now."""
    scene = view._page_items[page].mapToScene(QPointF(x * view.scale, y * view.scale))
    return view.view.mapFromScene(scene)


def words_on(view, page: int, phrase: str) -> tuple[int, int]:
    """The indexes of the first and last word of the first place on ``page`` whose words, on one line and
    with ligatures as letters, read ``phrase``."""
    words = view._renderer.words(page - 1)
    count = len(phrase.split())
    start = next(i for i, w in enumerate(words) if i + count <= len(words) and words[i + count - 1].line == w.line
                 and document_view.words_text(words[i:i + count]) == phrase)
    return start, start + count - 1


def drag_select(qtbot, view, page: int, first: int, last: int) -> None:
    words = view._renderer.words(page - 1)
    start = viewport_point(view, page, words[first].x0 + 1, (words[first].y0 + words[first].y1) / 2)
    end = viewport_point(view, page, words[last].x1 - 1, (words[last].y0 + words[last].y1) / 2)
    viewport = view.view.viewport()
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(viewport, pos=(start + end) / 2)
    qtbot.mouseMove(viewport, pos=end)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=end)


def test_a_new_document_opens_fitted_to_the_pane_width(reader):
    window, view = reader
    width = view.view.viewport().width()
    page_width = view._page_items[1].rect().width()
    assert view.fit == "width" and view.fit_width_button.isChecked()
    assert width - 2 * document_view.MARGIN - 2 <= page_width <= width  # not cut off on the right


def test_dragging_over_words_selects_them_and_ctrl_c_copies_them(qtbot, reader):
    window, view = reader
    page = 1
    first, last = words_on(view, page, PHRASE)
    assert "ﬁ" in view._renderer.words(page - 1)[first].text  # the page prints a ligature glyph there
    drag_select(qtbot, view, page, first, last)
    assert view.selected_text == PHRASE  # the ligature glyph of the page is copied as letters
    # the selection is drawn on the page
    assert view._selection_items and all(item.scene() is view.scene for item in view._selection_items)
    QGuiApplication.clipboard().clear()
    view.view.setFocus()
    qtbot.keyClick(view.view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QGuiApplication.clipboard().text() == view.selected_text
    # a drag is a selection, not a pan: the page did not move
    assert view.current_page == page


def test_the_context_menu_copies_with_citation_finds_and_asks(qtbot, reader):
    window, view = reader
    page = 5
    view.show_page(page)
    qtbot.waitUntil(lambda: view.rendered_page == page, timeout=15_000)
    first, last = words_on(view, page, PHRASE)
    drag_select(qtbot, view, page, first, last)
    selected = view.selected_text
    assert selected == PHRASE

    menu = view.context_menu()
    texts = [action.text().replace("&", "") for action in menu.actions()]
    assert texts[0] == "Copy" and texts[1] == f"Copy with citation (p. {page})"
    assert texts[2] == "Ask about this" and texts[3] == f"Find “{PHRASE}”"
    menu.actions()[1].trigger()
    copied = QGuiApplication.clipboard().text()  # the full citation: test_reader_habits.py
    assert copied.startswith(f"“{selected}” — ") and f"p. {page}" in copied

    with qtbot.waitSignal(view.askRequested, timeout=2_000) as asked:
        menu.actions()[2].trigger()
    assert asked.args == [selected]
    assert selected in window.ask_view.question.text() and window.tabs.currentWidget() is window.ask_view

    menu.actions()[3].trigger()  # Find: the selection becomes the search
    qtbot.waitUntil(lambda: "matches" in view.search_label.text(), timeout=20_000)
    assert view.search_box.text() == " ".join(selected.split()).rstrip(".,") and len(view.search_hits) >= 1

    # a right click on the page opens the menu there; over a word outside the selection it selects it
    words = view._renderer.words(page - 1)
    other = next(i for i, w in enumerate(words) if i > last + 5 and len(w.text) > 4)
    at = viewport_point(view, page, (words[other].x0 + words[other].x1) / 2, (words[other].y0 + words[other].y1) / 2)
    view._context_menu(view.view.mapToScene(at), view.view.viewport().mapToGlobal(at))
    assert view.last_menu is not None and view.selected_words == [words[other]]
    view.last_menu.close()


def test_search_finds_words_printed_with_ligatures_and_marks_every_hit(qtbot, reader):
    window, view = reader
    pdf = pymupdf.open(LIGATURE_PAPER)
    raw = sum(len(page.search_for(PHRASE)) for page in pdf)  # what the reader used to find
    # how often the pages print the phrase, ligature glyphs read as letters
    printed = " ".join(" ".join(page.get_text().replace("\ufb01", "fi") for page in pdf).split()).lower().count(PHRASE)
    page_one = pdf[0].get_text().lower().count("conﬁguration")
    pdf.close()
    view.search_box.setText(PHRASE)
    qtbot.keyClick(view.search_box, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "matches" in view.search_label.text() or view.search_label.text() == "not found",
                    timeout=20_000)
    hits = view.search_hits
    assert raw == 0 and len(hits) == printed >= 10  # the phrase runs through the paper (the old search found none)
    assert view.search_label.text() == f"1 of {len(hits)} matches"
    marks = [item for item in view.scene.items()
             if isinstance(item, QGraphicsRectItem) and item.brush().color() == document_view._HIT]
    assert len(marks) >= len(hits)  # every hit is marked on its page, not only the current one
    # Enter goes to the next hit
    qtbot.keyClick(view.search_box, Qt.Key.Key_Return)
    assert view.search_label.text() == f"2 of {len(hits)} matches"
    assert view.current_page == hits[1][0]
    # case and ligatures aside, a word inside the text is found as often as the page prints it
    one_word = document_view.find_in_words(view._renderer.words(0), "CONFIGURATION")
    assert len(one_word) == page_one >= 2


def test_a_page_turned_sideways_is_laid_out_and_fitted_turned(qtbot, reader):
    window, view = reader
    page = 3
    view.show_page(page)
    width, height = view._renderer.sizes[page - 1]
    view.rotate_action.trigger()
    assert view.rotation(page) == 90 and view.current_page == page
    sheet = view._page_items[page].sceneBoundingRect()
    assert abs(sheet.width() - height * view.scale) < 1 and abs(sheet.height() - width * view.scale) < 1
    # still fitted to the pane's width, now with the page's height across it
    assert sheet.width() <= view.view.viewport().width()
    assert sheet.left() >= -1 and sheet.top() >= view._tops[page - 1] - 1  # inside its own slot
    qtbot.waitUntil(lambda: view.rendered_page == page, timeout=15_000)
    # the turn goes with the project, and turning back four times is upright again
    assert window.workspace.project.extra["reader"]["rotation"] == {str(page): 90}
    for _ in range(3):
        view.rotate_action.trigger()
    assert view.rotation(page) == 0


def test_long_messages_wrap_and_never_resize_the_window_or_lock_the_splitter(qtbot, reader):
    window, view = reader
    qtbot.waitExposed(window)
    size = window.size()
    long = "Placement note: " + "a long explanation without a line break " * 30
    window.show_error(long, "warning")
    window.authoring_view.status.setText(long)
    window.ask_view.status.setText(long)
    window.summary_view.status.setText(long)
    window.bench_view.status.setText(long)
    window.show_status(long)
    window.tabs.setCurrentWidget(window.authoring_view)
    qtbot.wait(50)
    assert window.size() == size
    assert window.banner.label.wordWrap() and window.banner.isVisible()
    # the user drags the splitter: the reader takes most of the window, and then almost none of it
    total = sum(window.splitter.sizes())
    window.splitter.setSizes([total - 380, 380])
    assert window.splitter.sizes()[1] <= 400, window.splitter.sizes()
    window.splitter.setSizes([360, total - 360])
    assert window.splitter.sizes()[0] <= 380, window.splitter.sizes()
    assert window.size() == size


def test_journal_logos_on_the_first_page_are_not_listed_as_figures(qtbot, reader):
    window, view = reader
    document = window.workspace.document
    # the MDPI masthead prints the journal's logo (two images) above the title, with no caption
    with pymupdf.open(LIGATURE_PAPER) as pdf:
        assert len(pdf[0].get_images()) == 2
    assert not [f for f in document.figures if f.page == 1 and not f.label]
    names = [window.gallery.list.item(row).text() for row in range(window.gallery.list.count())]
    assert "Figure on p. 1" not in names
    # another document: the search of this one is not shown as if it were about the new one
    view.search_box.setText(PHRASE)
    qtbot.keyClick(view.search_box, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "matches" in view.search_label.text(), timeout=20_000)
    open_document(qtbot, window, PAPER)
    assert view.search_label.text() == "" and not view.search_hits
    assert sum(name.startswith("Figure ") and name[7:].isdigit() for name in names) == 7  # the paper's 7
