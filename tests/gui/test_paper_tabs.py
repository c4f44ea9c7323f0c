"""Several papers open at once (issue 36, point 7): one tab per paper in the real window, on committed papers.

Each paper keeps its own document, summary, authoring text and reader position; opening an open paper shows
its tab; closing a tab with unsaved work asks; a summary that finishes after a switch lands in its own paper.
"""

from __future__ import annotations

import json

import shiboken6

from mmdocsum_desktop.app import project as proj
from mmdocsum_desktop.gui.main_window import MainWindow
from tests.conftest import DATA_PAPERS
from tests.gui.conftest import wait_job

FIRST = DATA_PAPERS / "PMC4736972.pdf"  # a review: 6 pages, 1 figure
SECOND = DATA_PAPERS / "PMC2803133.pdf"  # J. Clin. Biochem. Nutr.: 8 pages, 3 figures, 4 tables
OPEN_TIMEOUT = 60_000
WAIT = 30_000  # autosaves and page renders queue behind other jobs on a loaded machine
SUMMARY_TIMEOUT = 120_000


def _open(qtbot, window, path):
    with qtbot.waitSignal(window.documentOpened, timeout=OPEN_TIMEOUT):
        job = window.open_path(path)
        assert job is not None
    qtbot.waitUntil(lambda: not window.runner.running("open"), timeout=WAIT)
    return window.workspace


def _two_papers(qtbot, window):
    first = _open(qtbot, window, FIRST)
    second = _open(qtbot, window, SECOND)
    return first, second


def _saved(workspace: proj.Workspace) -> dict:
    return json.loads((workspace.root / "project.json").read_text(encoding="utf-8"))


def test_two_papers_each_keep_their_document_text_and_place(qtbot, make_window):
    window = make_window()
    first, second = _two_papers(qtbot, window)
    bar = window.papers.bar
    assert first is not second and bar.isVisible() and bar.count() == 2
    assert bar.currentIndex() == 1 and window.workspace is second  # the paper opened last is shown
    assert first.root.is_dir()  # the first paper's work was kept, not discarded
    assert bar.tabText(0) and bar.tabText(1) and bar.tabText(0) != bar.tabText(1)
    assert FIRST.name in bar.tabToolTip(0) and SECOND.name in bar.tabToolTip(1)

    # text typed in the second paper stays with it
    window.authoring_view.editor.setPlainText("Notes on the second paper only.")
    assert second.project.authoring == "Notes on the second paper only." and window.dirty
    view = window.document_view
    qtbot.waitUntil(lambda: view.rendered_page == 1, timeout=WAIT)
    view.show_page(5)
    qtbot.waitUntil(lambda: second.project.extra.get("reader", {}).get("page") == 5, timeout=WAIT)

    bar.setCurrentIndex(0)  # the user clicks the first tab
    assert window.workspace is first and window.state.document is first.document
    assert view.document is first.document and view.page_count == 6
    assert window.authoring_view.editor.toPlainText() == "" and first.project.authoring == ""
    assert not window.dirty  # the first paper had nothing unsaved
    assert not window.undo_stack.canUndo()  # the history is dropped on a switch: no Undo of the other's typing
    qtbot.waitUntil(lambda: _saved(second)["authoring"] == "Notes on the second paper only.", timeout=WAIT)

    bar.setCurrentIndex(1)
    assert window.workspace is second and view.document is second.document and view.page_count == 8
    assert window.authoring_view.editor.toPlainText() == "Notes on the second paper only."
    assert window.dirty  # its unsaved state came back with it
    assert view.current_page == 5  # and so did the reader's place


def test_opening_an_open_paper_shows_its_tab(qtbot, make_window):
    window = make_window()
    first, second = _two_papers(qtbot, window)
    opened = []
    window.documentOpened.connect(opened.append)
    assert window.open_path(FIRST) is None  # no second reading of the same file
    assert window.workspace is first and window.papers.bar.currentIndex() == 0
    assert window.papers.bar.count() == 2 and opened == [first.document]
    assert "already open" in window.status_label.text()


def test_closing_a_tab_with_unsaved_work_asks_and_the_last_leaves_the_empty_window(qtbot, make_window):
    window = make_window()
    first, second = _two_papers(qtbot, window)
    window.papers.bar.setCurrentIndex(0)
    window.authoring_view.editor.setPlainText("Work on the first paper.")
    window.papers.bar.setCurrentIndex(1)  # the first paper's tab is not the one shown
    asked = []
    window.ask_save_changes = lambda: (asked.append(window.workspace), "cancel")[1]
    assert not window.papers.close_paper(0)
    assert asked == [first]  # asked with that paper in front of the user
    assert window.papers.bar.count() == 2 and first.root.is_dir()

    window.ask_save_changes = lambda: (asked.append(window.workspace), "discard")[1]
    assert window.papers.close_paper(0)
    assert len(asked) == 2 and window.papers.bar.count() == 1
    # gone, also after the autosave the switch started has written (never offered back as crashed work)
    qtbot.waitUntil(lambda: not window.runner.running("autosave") and not first.root.exists(), timeout=WAIT)
    qtbot.wait(200)
    assert not first.root.exists() and proj.recoverable_workspaces() == []
    assert window.workspace is second and window.document_view.document is second.document

    assert window.papers.close_paper(0)  # nothing unsaved: not asked
    assert len(asked) == 2
    qtbot.waitUntil(lambda: not window.runner.running("autosave") and not second.root.exists(), timeout=WAIT)
    assert window.workspace is None and window.state.document is None and not window.papers.bar.isVisible()
    assert window.authoring_view.editor.toPlainText() == "" and not window.save_action.isEnabled()


def test_closing_the_window_asks_once_for_every_unsaved_paper(qtbot, make_window):
    window = make_window()
    first, second = _two_papers(qtbot, window)
    window.authoring_view.editor.setPlainText("Second paper's notes.")
    window.papers.bar.setCurrentIndex(0)
    window.authoring_view.editor.setPlainText("First paper's notes.")
    asked = []
    window.ask_save_changes = lambda: (asked.append(list(window.papers.asking)), "cancel")[1]
    assert not window.close()
    assert len(asked) == 1 and len(asked[0]) == 2 and first.root.is_dir() and second.root.is_dir()
    window.ask_save_changes = lambda: (asked.append(list(window.papers.asking)), "discard")[1]
    assert window.close()
    assert len(asked) == 2 and not first.root.exists() and not second.root.exists()


def test_a_summary_finishing_after_a_switch_lands_in_its_own_paper(qtbot, make_window):
    window = make_window()
    first, second = _two_papers(qtbot, window)
    window.papers.bar.setCurrentIndex(0)
    job = window.summarize()  # the extractive engine (the tests' default)
    assert job is not None and window.summaries.running_for is first
    window.papers.bar.setCurrentIndex(1)  # switched before the job's result reaches the window
    wait_job(qtbot, job, SUMMARY_TIMEOUT)
    assert job.state == "succeeded", job.error
    assert first.project.summary is not None and first.project.summary.paragraphs
    assert second.project.summary is None and window.state.summary is None
    assert window.summary_view.summary is None  # the paper shown shows no other paper's summary
    assert "ready in its tab" in window.status_label.text()
    qtbot.waitUntil(lambda: _saved(first)["summary"] is not None, timeout=WAIT)  # autosaved into its workspace
    assert _saved(second)["summary"] is None

    window.papers.bar.setCurrentIndex(0)
    assert window.state.summary is first.project.summary and window.summary_view.summary is first.project.summary
    assert window.dirty  # the summary is unsaved work of the first paper


def test_every_open_papers_work_is_autosaved_and_recoverable_after_a_crash(qtbot):
    window = MainWindow()
    window.show()
    first, second = _two_papers(qtbot, window)
    window.authoring_view.editor.setPlainText("Typed in the second paper.")
    window.papers.bar.setCurrentIndex(0)  # at once: the second paper's autosave had not run yet
    window.authoring_view.editor.setPlainText("Typed in the first paper.")
    window.autosave(background=False)
    qtbot.waitUntil(lambda: _saved(second)["authoring"] == "Typed in the second paper.", timeout=WAIT)
    qtbot.waitUntil(lambda: not window.runner.running(), timeout=WAIT)  # no thumbnail lands on a deleted list

    shiboken6.delete(window)  # gone without closeEvent: as good as a crash for the work on disk
    found = {item.root: item for item in proj.recoverable_workspaces()}
    assert set(found) == {str(first.root), str(second.root)}
    assert _saved(first)["authoring"] == "Typed in the first paper."
    for workspace in (first, second):
        proj.Workspace.load(workspace.root).discard()
