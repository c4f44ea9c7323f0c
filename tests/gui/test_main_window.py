"""The main window end to end on real papers: open → summarize → change a figure → export; cancel; a
citation click moves the document pane; bad input leaves the window usable with nothing typed lost."""

from __future__ import annotations

import json
from pathlib import Path

import pymupdf
import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from mmdocsum_desktop.gui.main_window import MainWindow
from mmdocsum_desktop.gui.prefs import GuiPrefs
from mmdocsum_desktop.gui.widgets.gallery import FIGURE_MIME
from mmdocsum_desktop.schemas.settings import Settings, save_settings
from mmdocsum_desktop.summarize.render import label_file_name
from tests.conftest import DATA, DATA_PAPERS, SAMPLE_PDF
from tests.gui.conftest import smollm2_settings, wait_job

PAPER = DATA_PAPERS / "PMC2803133.pdf"  # J. Clin. Biochem. Nutr.: 8 pages, 3 figures, 4 tables
SHORT = DATA_PAPERS / "PMC4736972.pdf"  # a review: 6 pages, 1 figure
ARTICLE = DATA / "articles" / "PMC4521097.html"  # PMC4521097 as a saved web page, its figures beside it
OPEN_TIMEOUT = 60_000
SUMMARY_TIMEOUT = 120_000


def open_document(qtbot, window, path: Path):
    with qtbot.waitSignal(window.documentOpened, timeout=OPEN_TIMEOUT):
        job = window.open_path(path)
        assert job is not None
    return window.workspace.document


def summarize(qtbot, window):
    with qtbot.waitSignal(window.summaryReady, timeout=SUMMARY_TIMEOUT) as blocker:
        job = window.summarize()
        assert job is not None
        job.signals.failed.connect(lambda message: pytest.fail(f"summary failed: {message}"))
    qtbot.waitUntil(lambda: window.summary_view.filled, timeout=5_000)
    return blocker.args[0]


def wait_for(signal, timeout_ms: int):
    """Run the event loop until ``signal`` fires (for the module fixture, which has no qtbot)."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    fired: list = []
    signal.connect(lambda *args: (fired.append(args), loop.quit()))
    QTimer.singleShot(timeout_ms, loop.quit)
    loop.exec()
    assert fired, f"timed out after {timeout_ms} ms"
    return fired[0]


@pytest.fixture(scope="module")
def summarized(qapp, tmp_path_factory):
    """One window with PAPER opened and summarized, shared by the tests that only look at it."""
    import os


    root = tmp_path_factory.mktemp("summarized")
    keys = ("MMDOCSUM_WORKSPACES_DIR", "MMDOCSUM_CONFIG_DIR", "MMDOCSUM_DATA_DIR")
    saved = {k: os.environ.get(k) for k in keys}
    for key in keys:
        os.environ[key] = str(root / key.lower())
    window = MainWindow(prefs=GuiPrefs())
    window.show()
    window.open_path(PAPER)
    wait_for(window.documentOpened, OPEN_TIMEOUT)
    window.summarize()
    wait_for(window.summaryReady, SUMMARY_TIMEOUT)
    window.summary_view.flush()
    yield window
    window.dirty = False
    window.close()
    window.deleteLater()
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def test_open_summarize_change_figure_export(qtbot, make_window, tmp_path):
    window = make_window()
    document = open_document(qtbot, window, PAPER)
    assert window.gallery.list.count() == len(document.visuals) == 7
    assert window.document_view.page_count == 8
    qtbot.waitUntil(lambda: window.document_view.rendered_page == 1, timeout=10_000)

    summary = summarize(qtbot, window)
    assert [p.role for p in summary.paragraphs] == ["background", "method", "results", "conclusion"]
    # whole paragraphs of a few sentences each (their lengths per role are the engine's, tested there:
    # the method paragraph is the shortest, as in an abstract)
    assert all(30 <= len(p.text.split()) <= 140 for p in summary.paragraphs)
    assert len(window.summary_view.cards) == 4
    assert any(p.sentences for p in summary.paragraphs)
    qtbot.waitUntil(lambda: window.last_autosave > 0, timeout=5_000)

    # pick another figure from the menu for paragraph 1, and drag one from the gallery onto paragraph 2
    card = window.summary_view.cards[0]
    assert card.paragraph is summary.paragraphs[0]
    card._fill_menu()
    used = {p.figure_id for p in summary.paragraphs}
    choice = next(v for v in document.visuals if v.id not in used and v.image)
    action = next(a for a in card.figure_menu.actions() if a.text().startswith(choice.label or choice.id))
    action.trigger()
    assert window.workspace.project.summary.paragraphs[0].figure_id == choice.id
    assert window.workspace.project.summary.paragraphs[0].figure.chosen_by == "user"

    dragged = next(v for v in document.visuals if v.id != choice.id and v.image)
    drop_on(window.summary_view.cards[1], dragged.id)
    paragraphs = window.workspace.project.summary.paragraphs
    assert paragraphs[1].figure_id == dragged.id
    assert [p.figure_id for p in paragraphs].count(dragged.id) == 1  # each figure used once
    window.summary_view.cards[3].none_button.click()
    assert paragraphs[3].figure is None
    window.summary_view.flush()
    assert "Figure" in card.browser.toHtml() or "Table" in card.browser.toHtml()

    # export the four formats and look at the files
    out = tmp_path / "export"
    out.mkdir()
    for fmt, name in (("markdown", "s.md"), ("html", "s.html"), ("pdf", "s.pdf"), ("mdocsum", "s.json")):
        assert wait_job(qtbot, window.export(fmt, out / name)).state == "succeeded"
    markdown = (out / "s.md").read_text(encoding="utf-8")
    named = label_file_name(choice.label, choice.id, ".png")  # "Figure 2" -> figure-2.png (issue 29)
    assert markdown.count("## ") == 4 and f"](<s_images/{named}>)" in markdown
    assert (out / "s_images" / named).stat().st_size > 1000
    assert (out / "s_images" / label_file_name(dragged.label, dragged.id, ".png")).exists()
    page = (out / "s.html").read_text(encoding="utf-8")
    assert page.count("data:image/png;base64,") == sum(1 for p in paragraphs if p.figure) and "<script" not in page
    assert paragraphs[0].text[:40] in page.replace("&quot;", '"').replace("&#x27;", "'")
    with pymupdf.open(out / "s.pdf") as pdf:
        text = "".join(p.get_text() for p in pdf)
        assert "Method" in text and len(pdf) >= 1
        assert sum(len(p.get_images()) for p in pdf) == sum(1 for p in paragraphs if p.figure)
    answer = json.loads((out / "s.json").read_text(encoding="utf-8"))
    assert len(answer) == 4 and answer[3]["image"]["imageRef"] == "None"
    order = [f.id for f in window.workspace.project.summary.figures]
    assert answer[0]["image"]["imageRef"] == str(order.index(choice.id) + 1)


def drop_on(card, figure_id: str) -> None:
    data = QMimeData()
    data.setData(FIGURE_MIME, figure_id.encode())
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    card.dropEvent(event)


def test_citation_click_moves_document_pane(qtbot, summarized):
    window = summarized
    view = window.document_view
    card = next(c for c in window.summary_view.cards if any(s.pages for s in c.paragraph.sentences))
    page = next(pg for s in card.paragraph.sentences for pg in s.pages)
    view.show_page(1 if page != 1 else 2)
    assert "cite:page:" in card.browser.toHtml()
    card.browser.anchorClicked.emit(QUrl(f"cite:page:{page}"))
    assert view.current_page == page
    qtbot.waitUntil(lambda: view.rendered_page == page, timeout=10_000)

    figure = next(v for v in window.workspace.document.visuals if v.page and v.page != page)
    card.browser.anchorClicked.emit(QUrl(f"cite:figure:{figure.id}"))
    assert view.current_page == figure.page and view.highlighted == figure.id
    qtbot.waitUntil(lambda: view.rendered_page == figure.page, timeout=10_000)
    assert window.gallery.list.currentItem().data(Qt.ItemDataRole.UserRole) == figure.id


def test_search_and_zoom(qtbot, summarized):
    view = summarized.document_view
    view.show_page(1)
    wait_job(qtbot, view.search("cholesterol"))
    assert view.search_hits and view.current_page == view.search_hits[0][0]
    before = view.zoom
    view.zoom_in_button.click()
    assert view.zoom > before
    qtbot.waitUntil(lambda: view.scene.sceneRect().width() > 0, timeout=10_000)


def test_cancel_a_running_summary(qtbot, make_window):
    window = make_window()
    open_document(qtbot, window, SHORT)
    job = window.summarize()
    assert window.job_bar.isVisible() and window.job_bar.cancel_button.isEnabled()
    window.job_bar.cancel_button.click()
    assert wait_job(qtbot, job, 60_000).state == "cancelled"
    qtbot.waitUntil(lambda: not window.job_bar.isVisible(), timeout=5_000)
    assert window.workspace.project.summary is None
    assert window.summarize_action.isEnabled()  # the window is usable again
    assert "cancelled" in window.status_label.text().lower()


def test_cancel_opening_a_document(qtbot, make_window):
    window = make_window()
    job = window.open_path(SAMPLE_PDF)  # 14 pages
    window.job_bar.cancel()
    wait_job(qtbot, job)
    assert window.workspace is None and job.state == "cancelled"


def test_bad_input_keeps_the_window_usable_and_the_text(qtbot, make_window, tmp_path):
    window = make_window()
    editor = window.authoring_view.editor
    editor.setPlainText("My notes on the paper.\n\nSecond paragraph I typed.")
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7\n" + b"\x00garbage" * 200)
    assert wait_job(qtbot, window.open_path(broken)).state == "failed"
    assert "broken.pdf" in window.banner.text and "Traceback" not in window.banner.text
    assert editor.toPlainText().startswith("My notes on the paper.")
    window.open_path(tmp_path / "missing.pdf")
    assert "no such file" in window.banner.text
    odd = tmp_path / "data.bin"
    odd.write_bytes(b"\x01\x02\x03 not a document")
    assert wait_job(qtbot, window.open_path(odd)).state == "failed"
    assert "unsupported" in window.banner.text.lower()
    assert window.export_dialog("markdown") is None and "no summary" in window.banner.text.lower()
    assert editor.toPlainText().endswith("Second paragraph I typed.")
    assert window.isVisible() and window.open_action.isEnabled()


def test_drop_a_file_on_the_window_opens_it(qtbot, make_window):
    window = make_window()
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(SHORT))])
    event = QDropEvent(QPoint(5, 5), Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    with qtbot.waitSignal(window.documentOpened, timeout=OPEN_TIMEOUT):
        window.dropEvent(event)
    assert window.workspace.document.source.endswith("PMC4736972.pdf")
    assert window.prefs.recent_files[0].endswith("PMC4736972.pdf")


def test_regenerating_a_paragraph_keeps_the_other_three(qtbot, make_window):
    window = make_window()
    open_document(qtbot, window, PAPER)
    first = summarize(qtbot, window)
    extracted = first.paragraphs[2].text
    window.edit_paragraph(0, "Words the user wrote about the background.")
    window.edit_paragraph(2, "A results paragraph the user wants written again.")
    before = [p.model_dump() for p in window.workspace.project.summary.paragraphs]
    with qtbot.waitSignal(window.summaryReady, timeout=SUMMARY_TIMEOUT):
        window.regenerate_paragraph(2)
    after = window.workspace.project.summary.paragraphs
    assert after[2].text == extracted  # the extractive engine's paragraph for the role, again
    shown_before = before[2]["figure"]["id"] if before[2]["figure"] else None
    assert after[2].figure_id == shown_before  # its figure stays
    for i in (0, 1, 3):
        assert after[i].model_dump() == before[i]


# ------------------------------------------------------------------------------ issue 29: words that are right


def test_a_file_that_fails_to_open_is_named_once_in_the_readers_words(qtbot, make_window, tmp_path):
    window = make_window()
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4 not really a PDF")
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    for path in (broken, empty):
        job = window.open_path(path)
        wait_job(qtbot, job)
        text = window.banner.text
        assert text.startswith(f"Could not open {path.name}: ") and text.count(path.name) == 1, text
        assert "filename=" not in text and "Failed to open" not in text and str(tmp_path) not in text, text
    assert window.banner.text == "Could not open empty.pdf: the file is empty."


def test_counts_pages_and_ask_say_what_is_open(qtbot, make_window, one_table_pdf):
    window = make_window()
    assert window.ask_view.status.text() == "Open a document, then ask it a question."
    open_document(qtbot, window, one_table_pdf)  # one table, no figures
    assert "1 table." in window.status_label.text() and "1 tables" not in window.status_label.text()
    assert "no figures" in window.status_label.text()
    assert window.ask_view.status.text() == "Ask the paper a question."  # not "Open a document…"
    # an article has no pages: no "5 / 0" page box
    qtbot.waitUntil(lambda: not window.runner.running("open"))
    open_document(qtbot, window, ARTICLE)
    view = window.document_view
    assert not view.page_box.isVisible() and not view.page_count_label.isVisible()
    # search in an article: every hit marked, a count, Enter goes on to the next
    view.search_box.setText("oxytocin")
    qtbot.keyClick(view.search_box, Qt.Key.Key_Return)
    hits = view.text_search_hits
    plain = view.text.toPlainText().lower()
    assert hits == plain.count("oxytocin") and hits >= 2
    assert view.search_label.text() == f"1 of {hits} matches" and len(view.text.extraSelections()) == hits
    qtbot.keyClick(view.search_box, Qt.Key.Key_Return)
    assert view.search_label.text() == f"2 of {hits} matches"
    assert view.text.textCursor().selectedText().lower() == "oxytocin"
    qtbot.waitUntil(lambda: not window.runner.running("open"))
    open_document(qtbot, window, PAPER)
    assert view.page_box.isVisible() and view.page_count_label.text() == "/ 8"


def test_the_small_model_warning_goes_when_another_engine_is_chosen(qtbot, make_window):
    window = make_window()
    open_document(qtbot, window, SHORT)
    smollm2_settings()
    job = window.summarize()  # the warning is said before the model runs
    assert "too small" in window.banner.text
    window.job_bar.cancel()
    wait_job(qtbot, job, 120_000)
    save_settings(Settings())  # the user picks the extractive engine in Settings
    window._settings_changed()  # what closing the Settings dialog runs
    assert window.banner.text == ""


def test_each_window_owns_its_session_and_takes_new_settings_on_the_gui_thread(qtbot, make_window):
    """No process-wide session: a window's jobs run in the Session it made, and settings saved meanwhile
    (by the Settings dialog, here by save_settings) are handed to it on the GUI thread, never by a job."""
    import threading


    first, second = make_window(), make_window()
    assert first.session is not second.session and first.session.models is not second.session.models
    handed_on: list[threading.Thread] = []
    real = first.session.use_settings

    def recording(settings):  # the real method; only the thread it is called on is noted
        handed_on.append(threading.current_thread())
        real(settings)

    first.session.use_settings = recording
    save_settings(Settings.model_validate({"engines": {"engine": "extractive", "seed": 7}}))
    open_document(qtbot, first, SHORT)
    summarize(qtbot, first)
    assert first.session.settings.engines.seed == 7 and first.session.engine_name() == "extractive"
    assert handed_on and all(thread is threading.main_thread() for thread in handed_on)
    assert second.session.settings.engines.seed == 0  # the other window's session was not touched


def test_a_click_on_a_summary_sentence_marks_that_sentence_on_its_page(qtbot, summarized):
    """Issue 46, item 5: each cited sentence of the summary ends with its own citation; a click on it
    marks the sentence's printed lines on its page (a highlighter's marks, kept until the next citation),
    and the words under the marks are the sentence's."""
    window = summarized
    view = window.document_view
    marked = 0
    for card in window.summary_view.cards:
        html = card.browser.toHtml()
        for k, sentence in enumerate(card.paragraph.sentences):
            assert f"cite:sentence:{k}" in html
            block = window.workspace.document.block(sentence.blocks[0])
            view.show_page(1 if block.page != 1 else 2)
            card.browser.anchorClicked.emit(QUrl(f"cite:sentence:{k}"))
            assert view.current_page == block.page and view.sentence is not None
            page, lines = view.sentence
            assert page == block.page and lines
            assert all(item.isVisible() for item in view._sentence_items) and len(view._sentence_items) == len(lines)
            words = view._renderer.words(page - 1, wait=True)
            under = [w.text for w in words if any(b[0] - 1 <= (w.x0 + w.x1) / 2 <= b[2] + 1
                                                  and b[1] - 1 <= (w.y0 + w.y1) / 2 <= b[3] + 1 for b in lines)]
            said = sentence.text.split()

            def key(word: str) -> str:
                return "".join(ch for ch in word.casefold() if ch.isalnum())

            # the sentence as the summary quotes it (its first letter capitalised, an opening "Therefore,"
            # left out) is what the marks cover
            assert key(under[0]) == key(said[0]) and key(under[-1]) == key(said[-1]), (under, said)
            marked += 1
    assert marked >= 4
    card = window.summary_view.cards[0]
    card.browser.anchorClicked.emit(QUrl("cite:page:1"))
    assert view.sentence is None and view._sentence_items == []  # the next citation clears the marks
