"""The status bar's progress text stays inside its bar (issue 46, item 7): a job with a long title and a
long stage name is cut with an ellipsis to the bar's and the label's width, its whole text in their
tooltips, in the real window."""

from __future__ import annotations

import threading

from mmdocsum_desktop.gui.workers import Job
from tests.gui.conftest import wait_job

STAGE = "embedding the sentences of every paragraph of the paper and of its figure captions and tables"
TITLE = "Summarising a-paper-with-a-really-long-file-name-as-downloaded-from-a-publisher-site-v2-final.pdf"


def test_long_progress_text_is_cut_to_the_bar_and_whole_in_its_tooltip(qtbot, make_window):
    window = make_window()
    window.resize(900, 600)
    reported = threading.Event()
    release = threading.Event()

    def work(control, stream):
        control.report(3, 10, STAGE)
        reported.set()
        while not release.wait(0.05):
            control.check()

    job = window.start_job(Job(TITLE, work))
    try:
        bar, label = window.job_bar.bar, window.job_bar.label
        qtbot.waitUntil(lambda: STAGE in bar.format() and bar.isVisible(), timeout=10_000)
        shown = bar.text()
        assert shown.endswith("\u2026") and shown != bar.toolTip()
        assert STAGE in bar.toolTip() and bar.toolTip().startswith("30%")
        assert bar.fontMetrics().horizontalAdvance(shown) <= bar.contentsRect().width()
        assert label.toolTip() == TITLE and label.full_text() == TITLE
        assert label.fontMetrics().horizontalAdvance(label.text()) <= label.width()
        assert label.text() != TITLE and label.text().endswith("\u2026")
        # the status bar is no wider than the window: nothing of it runs off the edge
        assert window.statusBar().width() <= window.width()
        assert window.job_bar.geometry().right() <= window.statusBar().width()
    finally:
        release.set()
    wait_job(qtbot, job)
