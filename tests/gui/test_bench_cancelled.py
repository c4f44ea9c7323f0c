"""A benchmark run from the window, cancelled (issue 37, point 5 and the progress bar of point 8): while
it runs, the Time column of its split and the view's bar show the job bar's own estimate of the time left
(one estimate, not a run's total beside a guess), the progress bar leaves the buttons' labels whole, and
once cancelled the partial numbers are marked so and set beside no finished run."""

from __future__ import annotations

import pytest

from mmdocsum_desktop.gui import bench_view
from tests.gui.conftest import wait_job

pytestmark = pytest.mark.slow  # runs the demo M-DocSum split in a child process, then cancels it


def _time_cell(view, split: str, suite: str) -> str:
    row = next(r for r in range(view.bundled.rowCount()) if view.bundled.item(r, 0).data(0x0100) == (split, suite))
    return view.bundled.item(row, 3).text()


def test_a_cancelled_run_is_partial_and_its_time_left_is_said_once(qtbot, make_window):
    window = make_window()
    view = window.bench_view
    window.tabs.setCurrentWidget(view)
    window.splitter.setSizes([720, 560])  # a pane the five buttons fit, and no more
    view.choose("demo", "mdocsum")
    view.engine.setCurrentText("extractive")
    before = _time_cell(view, "demo", "mdocsum")
    job = view.run()
    assert job is not None and not view.progress.isHidden()
    qtbot.wait(50)
    for button in (view.run_button, view.cancel_button, view.report_button, view.compare_button,
                   view.open_run_button):
        assert button.width() >= button.sizeHint().width(), f"{button.text()!r} is cut"

    # the first report gives an estimate: the table's Time cell, the view's bar and the job bar agree
    qtbot.waitUntil(lambda: "left" in _time_cell(view, "demo", "mdocsum"), timeout=120_000)
    left = window.job_bar.estimates[id(job)]
    assert left.startswith("about") and _time_cell(view, "demo", "mdocsum") == f"running: {left}"
    assert left in view.progress.format() and left in window.job_bar.bar.format()

    view.cancel()
    wait_job(qtbot, job, 300_000)
    assert job.state == "cancelled"
    qtbot.waitUntil(lambda: view.table.rowCount() > 0, timeout=60_000)
    headers = [view.table.horizontalHeaderItem(c).text() for c in range(view.table.columnCount())]
    assert "partial" in headers[1]
    # not set beside the published run (which exists for demo:mdocsum) as if it had finished
    assert "demo:mdocsum" in bench_view.published_numbers()
    assert len(headers) == 2 and not any(h.startswith(("published", "previous")) for h in headers)
    assert "cancelled" in view.status.text() and "not compared" in view.status.text()
    assert _time_cell(view, "demo", "mdocsum") == before  # the Time column says what a run takes again
    assert not list(bench_view.history_dir("mdocsum", "demo").glob("*.json"))  # not remembered as a run
