"""Habits of a PDF reader (issue 37, point 7), in the real window offscreen: Ctrl+F reaches the search
box from anywhere in the window; dark mode is chosen in Settings ▸ Appearance (system, light, dark) and
"As the system" follows the system's colour scheme as it changes, with the reader's pages optionally
inverted; "Copy with citation" names the paper, its authors and year where the PDF says them, the page,
and the figure the words lie in."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from mmdocsum_desktop.bench.splits import SPLITS_ROOT
from mmdocsum_desktop.gui import theme
from mmdocsum_desktop.gui.prefs import load_prefs
from mmdocsum_desktop.gui.settings_dialog import SettingsDialog

PAPER = SPLITS_ROOT / "pmc-test" / "papers" / "PMC5745208.pdf"  # metadata: author, "…, 2017, doi:…"


@pytest.fixture(autouse=True)
def _light_again():
    yield
    theme.apply("light")  # the next test's window starts as a fresh one would


def _open(qtbot, window, path):
    with qtbot.waitSignal(window.documentOpened, timeout=120_000):
        assert window.open_path(path) is not None


def _dark() -> bool:
    return QApplication.instance().palette().color(QPalette.ColorRole.Window).lightness() < 128


def _settings(qtbot, window, scheme: str, invert: bool) -> None:
    """Settings ▸ Appearance as a user sets it: the dialog opened from the window, saved with Save."""
    def answer():
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, SettingsDialog)
        dialog.tabs.setCurrentIndex(dialog.tabs.indexOf(dialog.theme.parentWidget()))
        dialog.theme.setCurrentIndex(dialog.theme.findData(scheme))
        dialog.invert_pages.setChecked(invert)
        assert dialog.save()

    QTimer.singleShot(0, answer)
    window.open_settings()


def _corner_lightness(window) -> int:
    image = window.document_view.page_image(1)
    assert image is not None
    return image.pixelColor(3, 3).lightness()  # the page's white margin


def _thumbnail_lightness(window) -> int:
    item = window.document_view.thumbs.item(0)
    return item.icon().pixmap(window.document_view.thumbs.iconSize()).toImage().pixelColor(2, 2).lightness()


def test_ctrl_f_reaches_the_search_box(qtbot, make_window, two_figure_pdf):
    window = make_window()
    _open(qtbot, window, two_figure_pdf)
    window.document_view.search_box.setText("liver")
    window.tabs.setCurrentWidget(window.authoring_view)
    window.authoring_view.editor.setFocus()
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5_000)
    QTest.keyClick(window.authoring_view.editor, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    box = window.document_view.search_box
    assert box.hasFocus() and box.selectedText() == "liver"  # typing replaces the last search
    assert window.authoring_view.editor.toPlainText() == ""  # the key did not type into the editor
    assert window.document_view.find_action in window.view_menu.actions()


def test_dark_mode_is_chosen_in_settings_and_follows_the_system(qtbot, make_window, two_figure_pdf):
    window = make_window()
    _open(qtbot, window, two_figure_pdf)
    qtbot.waitUntil(lambda: window.document_view.page_image(1) is not None, timeout=60_000)
    assert not _dark() and _corner_lightness(window) > 200  # a fresh install: the system's (light here)
    window.document_view.show_thumbnails(True)
    qtbot.waitUntil(lambda: window.document_view.thumbs.item(0).data(Qt.ItemDataRole.UserRole), timeout=60_000)
    assert _thumbnail_lightness(window) > 200

    _settings(qtbot, window, "dark", invert=True)
    assert _dark() and load_prefs().theme == "dark" and load_prefs().invert_pages
    qtbot.waitUntil(lambda: window.document_view.page_image(1) is not None, timeout=60_000)
    assert _corner_lightness(window) < 50  # the page inverted: white text on black
    assert _thumbnail_lightness(window) < 50  # and its thumbnail

    _settings(qtbot, window, "dark", invert=False)
    qtbot.waitUntil(lambda: window.document_view.page_image(1) is not None, timeout=60_000)
    assert _dark() and _corner_lightness(window) > 200  # dark window, the page as printed
    assert _thumbnail_lightness(window) > 200

    _settings(qtbot, window, "light", invert=True)
    assert not _dark() and not window.document_view.inverted  # inverted only in dark mode

    _settings(qtbot, window, "system", invert=True)
    hints = QGuiApplication.styleHints()
    assert _dark() == (hints.colorScheme() == Qt.ColorScheme.Dark)
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Dark)  # the user turns the desktop dark
    assert _dark() and window.document_view.inverted
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Light)  # and light again
    assert not _dark() and not window.document_view.inverted


def test_copy_with_citation_names_the_paper_the_page_and_the_figure(qtbot, make_window):
    window = make_window()
    _open(qtbot, window, PAPER)
    view = window.document_view
    document = window.workspace.document
    figure = next(v for v in document.figures if v.bbox is not None and v.label)
    page = figure.page
    words = view._renderer.words(page - 1, wait=True)
    x0, y0, x1, y1 = figure.bbox
    inside = [i for i, w in enumerate(words) if x0 <= (w.x0 + w.x1) / 2 <= x1 and y0 <= (w.y0 + w.y1) / 2 <= y1]
    assert inside, "the figure has words of its own to select"
    view.select_words(page, inside[0], inside[0])
    text = view.copy_selection(citation=True)
    assert QGuiApplication.clipboard().text() == text
    assert text.startswith(f"“{words[inside[0]].text}” — ")
    assert document.title and document.title.rstrip(".") in text
    # author-year as the first page prints them (four authors: the first's family name, et al.), the DOI
    assert "Din et al. (2017). " in text
    assert f"p. {page}, {figure.label}." in text and "doi:10.1186/s11671-017-" in text

    # words of the body text: the page, no figure
    body = next(i for i, w in enumerate(words) if i not in inside and len(w.text) > 4)
    view.select_words(page, body, body)
    text = view.copy_selection(citation=True)
    assert f"p. {page}." in text and figure.label not in text.split("—", 1)[1]
