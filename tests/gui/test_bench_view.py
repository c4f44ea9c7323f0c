"""The Benchmark view's bundled splits: listed with what each measures, its papers and licences and how
long it takes; chosen with a click, run with progress, cancelled, and shown beside the previous run and
the published numbers."""

from __future__ import annotations

import pytest

from mmdocsum_desktop.bench import splits
from mmdocsum_desktop.gui import bench_view
from tests.gui.conftest import wait_job


def _rows(view) -> dict[tuple[str, str], list[str]]:
    return {
        view.bundled.item(r, 0).data(0x0100): [view.bundled.item(r, c).text() for c in range(4)]
        for r in range(view.bundled.rowCount())
    }


def test_bundled_splits_are_listed_with_what_they_measure_and_their_papers(make_window):
    view = make_window().bench_view
    rows = _rows(view)
    expected = {(name, suite) for name, split in splits.BUNDLED.items() for suite in split.files}
    assert set(rows) == expected and ("pmc-test", "mdocsum") in rows and ("elife-digests", "rouge") in rows
    assert "structured abstract" in rows[("pmc-test", "mdocsum")][2]
    published = bench_view.published_numbers()
    for key, (_, _, _, took) in rows.items():  # nothing run here yet: the published time, if any
        assert took.startswith("about") if f"{key[0]}:{key[1]}" in published else took == "not measured"
    row = next(r for r in range(view.bundled.rowCount()) if view.bundled.item(r, 0).data(0x0100) == ("pmc-test", "mdocsum"))
    tip = view.bundled.item(row, 0).toolTip()
    assert tip.count("CC BY") == 16 and "PMC7376533" in tip  # every paper named with its licence
    view.choose("elife-digests", "rouge")
    assert view.split.currentText() == "elife-digests" and view.suite.currentData() == "rouge"


@pytest.mark.slow  # runs the demo FTII split twice in a child process
def test_a_bundled_run_is_compared_with_the_previous_run_and_the_published_numbers(qtbot, make_window):
    view = make_window().bench_view
    view.choose("demo", "ftii")
    first = view.run()
    assert view.cancel_button.isEnabled() and not view.progress.isHidden()
    wait_job(qtbot, first, 180_000)
    assert first.state == "succeeded", first.error
    qtbot.waitUntil(lambda: view.table.rowCount() > 0, timeout=30_000)
    headers = [view.table.horizontalHeaderItem(c).text() for c in range(view.table.columnCount())]
    assert not any(h.startswith("previous run") for h in headers)
    assert any(h.startswith("published") for h in headers) == ("demo:ftii" in bench_view.published_numbers())
    assert "here (last run, extractive)" in _rows(view)[("demo", "ftii")][3]  # the time column now says this machine's
    second = view.run()
    wait_job(qtbot, second, 180_000)
    qtbot.waitUntil(lambda: any((view.table.horizontalHeaderItem(c).text() or "").startswith("previous run")
                                for c in range(view.table.columnCount())), timeout=30_000)
    column = next(c for c in range(view.table.columnCount())
                  if view.table.horizontalHeaderItem(c).text().startswith("previous run"))
    row = next(r for r in range(view.table.rowCount()) if "image places" in view.table.item(r, 0).text())
    assert view.table.item(row, column).text().split()[0] == view.table.item(row, 1).text()  # same split, same result
    assert not view.cancel_button.isEnabled() and view.progress.isHidden()


@pytest.mark.slow  # starts the real pmc-test summaries in a child process, then cancels it
def test_a_bundled_run_can_be_cancelled(qtbot, make_window):
    window = make_window()
    view = window.bench_view
    view.choose("pmc-test", "mdocsum")
    view.engine.setCurrentText("extractive")
    job = view.run()
    qtbot.waitUntil(lambda: job.state == "running", timeout=30_000)
    qtbot.wait(1500)
    view.cancel()
    wait_job(qtbot, job, 300_000)  # the child stops at its next check: reading a page, a document
    assert job.state == "cancelled"
    assert view.run_button.isEnabled() and not view.cancel_button.isEnabled()
