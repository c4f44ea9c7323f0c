"""Issue 17, driven through the real window (offscreen): each scenario a user hit.

The reader (continuous pages, fit width, thumbnails, position kept with the project), one undo stack,
model fitness said before a run and shown on results, the user's text never written to without an
accept, images in the user's text copied into the project under label names and linked relatively,
stale messages cleared, regeneration that keeps a removed figure removed, exports people use, Help.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pymupdf
import pytest

from mmdocsum_desktop.gui import render_process
from mmdocsum_desktop.gui.settings_dialog import SettingsDialog, gguf_refusal
from mmdocsum_desktop.gui.workers import JobRunner
from mmdocsum_desktop.models import registry
from mmdocsum_desktop.schemas.settings import (
    EngineSettings,
    LlamaSettings,
    Settings,
    load_settings,
    save_settings,
)
from mmdocsum_desktop.schemas.summary import Summary
from tests.gui.conftest import smollm2_settings, wait_job
from tests.gui.test_authoring_view import TEXT
from tests.gui.test_main_window import ARTICLE, PAPER, open_document, summarize

# ------------------------------------------------------------------------------------------ reader


def test_the_reader_scrolls_through_all_pages_fits_the_width_and_keeps_its_place(qtbot, make_window, tmp_path):
    window = make_window()
    open_document(qtbot, window, PAPER)
    view = window.document_view
    assert view.page_count == 8 and len(view._page_items) == 8  # every page is in the one scroll
    qtbot.waitUntil(lambda: view.rendered_page == 1, timeout=10_000)

    view.fit_width_action.trigger()
    width = view.view.viewport().width()
    page_width = view._page_items[1].rect().width()
    assert view.fit == "width" and width - 60 <= page_width <= width  # the page fills the pane's width

    # scrolling down (as the wheel does) moves the current page: continuous, not page by page
    bar = view.view.verticalScrollBar()
    bar.setValue(int(view._page_items[4].pos().y()) + 5)
    assert view.current_page == 4 and window.document_view.page_box.value() == 4
    qtbot.waitUntil(lambda: view.rendered_page == 4, timeout=10_000)

    view.thumbs_action.trigger()
    assert view.thumbs.isVisible() and view.thumbs.count() == 8
    qtbot.waitUntil(lambda: view.thumbnails_rendered == 8, timeout=20_000)
    view.thumbs.setCurrentRow(1)  # a click on page 2's thumbnail
    assert view.current_page == 2

    # the page and zoom go with the project
    view.show_page(5)
    qtbot.waitUntil(lambda: window.workspace.project.extra.get("reader", {}).get("page") == 5, timeout=5_000)
    saved = tmp_path / "reading.mdsproj"
    window.ask_save_path = lambda *args: str(saved)
    assert window.save_project(ask=True)
    window.workspace.discard()
    window.workspace = None
    window.document_view.set_document(None)
    window.open_project(saved)
    assert window.document_view.current_page == 5 and window.document_view.fit == "width"


def test_help_and_edit_menus(qtbot, make_window):
    from PySide6.QtWidgets import QTextBrowser

    window = make_window()
    menus = [action.text().replace("&", "") for action in window.menuBar().actions()]
    assert {"Edit", "View", "Help"} <= set(menus)
    # nothing to place or export before a document is open
    assert not window.place_action.isEnabled() and not any(a.isEnabled() for a in window.export_actions.values())
    guide = window.show_help("guide").findChild(QTextBrowser, "helpText").toPlainText()
    assert "Place images" in guide and "Accept" in guide
    shortcuts = window.show_help("shortcuts").findChild(QTextBrowser, "helpText").toPlainText()
    for keys in ("Ctrl+O", "Ctrl+R", "Ctrl+Z", "Ctrl+1", "F1"):
        assert keys in shortcuts, keys


# ------------------------------------------------------------------------------------------ fitness


def test_a_model_unfit_to_write_is_named_before_the_run_and_on_its_summary(qtbot, make_window):
    smollm2_settings()
    window = make_window()
    open_document(qtbot, window, PAPER)
    job = window.summarize()
    assert job is not None
    # said before any text is written, with the model and the reason
    assert window.banner.isVisible() and window.banner.kind == "warning"
    assert "SmolLM2-135M-Instruct is too small to write summaries reliably" in window.banner.text
    window.job_bar.cancel()
    wait_job(qtbot, job, 60_000)

    # a summary that model wrote is marked where it is shown, and in its exports
    summary = Summary(source=str(PAPER), engine={"engine": "llama", "model_file": str(registry.get_model(
        "smollm2-135m").path())}, paragraphs=[{"role": "background", "text": "Ducks are a test.", "source": "model"}])
    window.workspace.project.summary = summary
    window.state.set_summary(summary)
    assert window.summary_view.fitness_label.isVisible()
    assert "too small to write summaries" in window.summary_view.fitness_label.text()


# ------------------------------------------------------------------------------------------ the user's text


def test_a_cancelled_run_writes_nothing_into_the_users_text(qtbot, make_window):
    smollm2_settings()
    window = make_window()
    open_document(qtbot, window, PAPER)
    window.authoring_view.editor.setPlainText(TEXT)
    job = window.summarize()
    window.summary_view.append_stream("Duck tests are a form of animal testing.")  # tokens so far
    window.job_bar.cancel()
    wait_job(qtbot, job, 60_000)
    assert job.state == "cancelled"
    assert window.authoring_view.editor.toPlainText() == TEXT
    assert window.workspace.project.authoring == TEXT
    assert "Summarizing with" not in window.summary_view.status.text()  # not left saying it still runs
    assert "cancelled" in window.summary_view.status.text().lower()


def test_accepted_images_are_copied_under_label_names_and_undo_takes_back_an_accept(qtbot, make_window, tmp_path):
    window = make_window()
    open_document(qtbot, window, PAPER)
    view = window.authoring_view
    window.tabs.setCurrentWidget(view)
    view.editor.setPlainText(TEXT)
    job = view.place_images()
    wait_job(qtbot, job, 180_000)
    assert job.state == "succeeded", job.error
    pending = [i for i, s in enumerate(window.workspace.project.placements) if s.status == "pending"]
    assert len(pending) >= 2
    for row in pending[:2]:
        view.accept(row)
    text = view.editor.toPlainText()
    links = re.findall(r"!\[[^\]]*\]\(<?([^)>]+)>?\)", text)
    assert len(links) == 2
    root = window.workspace.root
    for link, row in zip(links, pending[:2]):
        suggestion = window.workspace.project.placements[row]
        assert not Path(link).is_absolute() and str(root) not in text  # no workspace path in the text
        assert (root / link).is_file()
        expected = re.sub(r"[^a-z0-9]+", "-", (suggestion.label or "").lower()).strip("-")
        assert Path(link).stem == expected  # "Fig. 3" → figure-3-like names, not fig3 ids
    assert str(root) not in window.workspace.snapshot()  # nor in the project file
    shot_dir = Path("/work/notes/shots")
    if shot_dir.is_dir():
        view.preview.document()  # the preview shows the images from the project folder
        window.grab().save(str(shot_dir / "authoring_two_accepts.png"))

    # one undo stack: the last accept is taken back, text and status together
    window.undo_action.trigger()
    assert window.workspace.project.placements[pending[1]].status == "pending"
    assert len(re.findall(r"!\[", view.editor.toPlainText())) == 1
    window.redo_action.trigger()
    assert window.workspace.project.placements[pending[1]].status == "accepted"

    # the user's text exported with its images, as Obsidian opens it
    out = tmp_path / "mine.md"
    wait_job(qtbot, window.export("markdown", out, which="authoring"))
    exported = out.read_text()
    assert exported.startswith("---\ntitle: ") and "\ndate: " in exported
    for link in re.findall(r"!\[[^\]]*\]\(<?([^)>]+)>?\)", exported):
        assert not Path(link).is_absolute() and (out.parent / link).is_file()
    pdf = tmp_path / "mine.pdf"
    wait_job(qtbot, window.export("pdf", pdf, which="authoring"), 60_000)
    with pymupdf.open(pdf) as document:
        assert sum(len(page.get_images()) for page in document) == 2


# ------------------------------------------------------------------------------------------ undo, stale state


@pytest.fixture
def summarized(qtbot, make_window):
    window = make_window()
    open_document(qtbot, window, PAPER)
    summarize(qtbot, window)
    return window


def test_edits_and_figure_swaps_undo_and_a_regeneration_keeps_a_removed_figure_out(qtbot, summarized):
    window = summarized
    summary = window.workspace.project.summary
    index = next(i for i, p in enumerate(summary.paragraphs) if p.figure is not None)
    original = summary.paragraphs[index].text
    window.edit_paragraph(index, "My own words.")
    window.choose_figure(index, None)
    assert window.workspace.project.summary.paragraphs[index].figure is None
    window.undo_action.trigger()  # the figure comes back
    assert window.workspace.project.summary.paragraphs[index].figure is not None
    window.undo_action.trigger()  # then the text
    assert window.workspace.project.summary.paragraphs[index].text == original
    window.redo_action.trigger()
    window.redo_action.trigger()
    assert window.workspace.project.summary.paragraphs[index].figure is None

    window.show_error("Summary failed: an earlier run", "error")
    with qtbot.waitSignal(window.summaryReady, timeout=120_000):
        job = window.summarize(replace=index)
        assert not window.banner.isVisible()  # the old failure is gone when a new run starts
        assert job is not None
    assert not window.banner.isVisible()
    assert window.workspace.project.summary.paragraphs[index].figure is None  # not put back


def test_a_failed_run_says_so_instead_of_still_summarizing(qtbot, make_window, tmp_path):
    bad = tmp_path / "not-a-model.gguf"
    bad.write_text("this is not a model")
    save_settings(Settings(engines=EngineSettings(engine="llama", llama=LlamaSettings(model=str(bad)))))
    window = make_window()
    open_document(qtbot, window, PAPER)
    job = window.summarize()
    wait_job(qtbot, job, 60_000)
    assert job.state == "failed"
    assert "Summarizing with" not in window.summary_view.status.text()
    assert window.banner.isVisible() and "Summary failed" in window.banner.text
    assert "b'" not in window.banner.text  # no Python byte strings in a message


def test_exported_pdf_is_small_and_keeps_figures_with_captions(qtbot, summarized, tmp_path):
    out = tmp_path / "summary.pdf"
    wait_job(qtbot, summarized.export("pdf", out), 60_000)
    assert out.stat().st_size < 1_000_000
    with pymupdf.open(out) as pdf:
        for page in pdf:
            words = page.get_text(flags=0).split()
            assert len(words) > 12 or page.get_images(), "a page holding only a caption line"


# ------------------------------------------------------------------------------------------ friction


def test_an_article_without_its_image_files_shows_why_not_blank_tiles(qtbot, make_window, tmp_path):
    window = make_window()
    assert not window.gallery.isVisible()  # no empty box before a document is open
    page = tmp_path / ARTICLE.name  # the saved page copied without its PMC4521097_files/ folder
    shutil.copyfile(ARTICLE, page)
    assert "PMC4521097_files/" in page.read_text(encoding="utf-8")
    open_document(qtbot, window, page)
    gallery = window.gallery
    assert gallery.isVisible() and gallery.list.count() > 0
    for row in range(gallery.list.count()):
        item = gallery.list.item(row)
        assert "p. ?" not in item.text()
        assert not item.icon().isNull()  # a tile saying why there is no picture
        assert "not here" in item.toolTip()


def test_messages_in_the_window_name_settings_not_command_line_flags(qtbot, make_window):
    window = make_window()
    window.show_error("the openai engine needs an endpoint: set openai.base_url in the settings or give --base-url URL")
    assert "--base-url" not in window.banner.text and "Settings ▸ Server" in window.banner.text


def test_pages_are_rasterised_in_a_child_process_with_its_own_gil(qtbot):
    """PyMuPDF holds the GIL while it renders; the reader's pages come from a child process."""
    import os


    render_process.warm()
    qtbot.waitUntil(render_process.ready, timeout=120_000)
    width, height, stride, data = render_process.render(str(PAPER), None, 0, 0.5)
    with pymupdf.open(PAPER) as pdf:
        page = pdf[0]
        pix = page.get_pixmap(matrix=pymupdf.Matrix(0.5, 0.5), alpha=False)
    assert (width, height) == (pix.width, pix.height) and len(data) == stride * height
    assert bytes(pix.samples) == data  # the same pixels as rendering here
    child = render_process._pool._processes  # one long-lived child, not this process
    assert child and all(pid != os.getpid() for pid in child)


def test_the_model_manager_uses_a_model_with_one_click_and_refuses_a_non_gguf(qtbot, tmp_path):
    runner = JobRunner()
    dialog = SettingsDialog(runner)
    qtbot.addWidget(dialog)
    table = dialog.models_table
    row = next(r for r in range(table.rowCount()) if table.item(r, 0).text() == "smollm2-135m")
    assert "judge: unfit" in table.item(row, 5).text()
    assert "do not separate damaged summaries" in table.item(row, 5).toolTip()
    table.selectRow(row)
    trial = dialog.use_selected_model()  # one click: tried in a child process, chosen, saved, fitness said
    assert trial is not None
    wait_job(qtbot, trial, 120_000)
    assert trial.state == "succeeded" and trial.result.ok and trial.result.completion_tokens > 0
    saved = load_settings()
    assert saved.engines.engine == "llama" and saved.engines.llama.model == "smollm2-135m"
    assert "too small to write summaries" in dialog.notice and "tokens/s" in dialog.notice

    text = tmp_path / "notes.gguf"
    text.write_text("my notes, not a model")
    refusal = gguf_refusal(str(text))
    assert refusal.startswith("Not used: notes.gguf is a text file") and "b'" not in refusal
    assert gguf_refusal(str(registry.get_model("smollm2-135m").path())) == ""
    runner.cancel_all()
    runner.wait(5_000)


def test_the_ask_pane_answers_with_citation_links_that_move_the_reader(qtbot, make_window):
    from PySide6.QtCore import QUrl

    window = make_window()
    open_document(qtbot, window, PAPER)
    view = window.ask_view
    window.tabs.setCurrentWidget(view)
    view.question.setText("How did the essential oils change the serum lipid profile of the rats?")
    job = view.ask()
    wait_job(qtbot, job, 180_000)
    assert job.state == "succeeded", job.error
    answer = view.answer
    assert answer.sentences and all(s.text in view.browser.toPlainText() for s in answer.sentences)
    page = next(p for s in answer.sentences for p in s.pages)
    assert f"cite:page:{page}" in view.browser.toHtml()
    window.document_view.show_page(1 if page != 1 else 2)
    view.browser.anchorClicked.emit(QUrl(f"cite:page:{page}"))
    assert window.document_view.current_page == page
