"""Issue 29, the summary, driven through the real window (offscreen) on a real paper and the extractive
engine: a paragraph edited with the pencil is one step of Undo; the status says what happened; exports
name their images after the labels, cite only the paper's own sentences, write one caption line, open
their dialog in the user's folders and create folders with the usual permissions."""

from __future__ import annotations

import os
import re
import stat

import pytest
from PySide6.QtCore import Qt

from tests.gui.conftest import wait_job
from tests.gui.test_main_window import PAPER, open_document, summarize


@pytest.fixture
def summarized(qtbot, make_window):
    window = make_window()
    open_document(qtbot, window, PAPER)
    summarize(qtbot, window)
    return window


def test_a_pencil_edit_is_its_own_undo_step_and_redo_brings_it_back(qtbot, summarized):
    window = summarized
    index = 3  # the Conclusion, as in the report
    card = window.summary_view.cards[index]
    original = window.workspace.project.summary.paragraphs[index].text
    qtbot.mouseClick(card.edit_button, Qt.MouseButton.LeftButton)
    assert card.editor.isVisible()
    card.editor.selectAll()
    typed = "These are my own closing words about the method."
    qtbot.keyClicks(card.editor, typed)
    # what is typed is kept as it is typed (crash safety) ...
    assert window.workspace.project.summary.paragraphs[index].text == typed
    qtbot.mouseClick(card.edit_button, Qt.MouseButton.LeftButton)  # the pencil again: done editing
    shown = lambda: (window.summary_view.flush(), window.summary_view.cards[index].browser.toPlainText())[1]  # noqa: E731
    assert typed[:30] in shown()
    # ... and closing the editor makes it one step of Undo, named for what it was
    assert window.undo_action.text().replace("&", "") == f"Undo Edit paragraph {index + 1}"
    window.undo_action.trigger()
    assert window.workspace.project.summary.paragraphs[index].text == original
    assert original[:40] in shown() and typed[:30] not in shown()
    assert window.redo_action.text().replace("&", "") == f"Redo Edit paragraph {index + 1}"
    window.redo_action.trigger()
    assert window.workspace.project.summary.paragraphs[index].text == typed
    assert typed[:30] in shown()


def test_regenerating_to_the_same_text_does_not_say_it_changed(qtbot, summarized):
    window = summarized
    with qtbot.waitSignal(window.summaryReady, timeout=120_000):
        window.regenerate_paragraph(1)  # the extractive engine picks the same sentences again
    assert "regenerated" not in window.status_label.text()
    assert "same text" in window.status_label.text()


def test_exports_name_images_by_label_cite_only_the_papers_words_and_open_in_the_users_folder(
        qtbot, summarized, tmp_path):
    window = summarized
    summary = window.workspace.project.summary
    # the dialog never opens in the paper's own folder
    assert window.save_folder() != PAPER.parent
    index = next(i for i, p in enumerate(summary.paragraphs) if p.figure is not None and p.sentences)
    paragraph = summary.paragraphs[index]
    mine = "I add this sentence of my own."
    window.edit_paragraph(index, paragraph.text + " " + mine)

    out = tmp_path / "exports" / "summary.md"
    out.parent.mkdir()
    os.chmod(out.parent, 0o755)
    wait_job(qtbot, window.export("markdown", out))
    text = out.read_text()
    assert re.search(re.escape(mine) + r"\s*(\n|$)", text), "the user's sentence is cited"
    first = paragraph.sentences[0]
    assert first.marker and f"[{first.marker[1:-1]}]" in text.replace("\\", "")  # the paper's sentence keeps it
    images = out.parent / "summary_images"
    names = sorted(p.name for p in images.iterdir() if not p.name.startswith("."))  # not the app's manifest
    labels = [p.figure.label for p in summary.paragraphs if p.figure is not None and p.figure.label]
    assert names and all(re.fullmatch(r"(figure|fig|table)-\d+[a-z]?\.(png|jpg|jpeg)", n) for n in names), names
    for label in labels:  # "Figure 1" -> figure-1.png, linked from the text
        stem = re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")
        assert any(n.startswith(stem + ".") for n in names) and f"summary_images/{stem}." in text
    mode = stat.S_IMODE(images.stat().st_mode)
    umask = os.umask(0)
    os.umask(umask)
    assert mode == 0o777 & ~umask  # the folder the user gets: not 0700
    # one caption line per figure, its label said once ("Figure 1: Fig. 1." was the bug)
    for line in re.findall(r"^\*(.+)\*$", text, flags=re.MULTILINE):
        assert not re.match(r"(Figure|Table) (\d+): (Fig\.|Figure|Table) \2\b", line), line
    assert window.save_folder() == out.parent  # the next export opens where this one went
