"""Issue 39, point 4, in the real window (offscreen): with figure text on, opening a paper reads the text
in its figures in the background (status bar), the user's text is embedded a moment after typing stops,
and Place images then reads no crop and embeds nothing; the reading waits while foreground work runs and
stops when the paper's tab closes. Real RapidOCR, real PDF, real content cache
(each test its own, so that no earlier test has read these crops)."""

from __future__ import annotations

import os
import shutil
import sys
import threading
from pathlib import Path

import pytest

from mmdocsum_desktop.app.placement import figure_candidates
from mmdocsum_desktop.gui.settings_dialog import SettingsDialog
from mmdocsum_desktop.gui.workers import Job
from mmdocsum_desktop.schemas.settings import PlacementSettings, Settings, save_settings
from tests.gui.conftest import wait_job

OPEN_TIMEOUT = 60_000
READ_TIMEOUT = 120_000  # RapidOCR loads, then reads each crop, on a loaded machine


@pytest.fixture
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MMDOCSUM_CACHE_DIR", str(tmp_path / "cache"))


def _figure_text(on: bool) -> None:
    save_settings(Settings(placement=PlacementSettings(ocr=on)))


def _open(qtbot, window, path):
    with qtbot.waitSignal(window.documentOpened, timeout=OPEN_TIMEOUT):
        assert window.open_path(path) is not None
    return window.workspace


@pytest.mark.slow  # RapidOCR reads the two figures; embeddings and placement: about half a minute here
def test_figure_text_is_read_in_the_background_when_on_and_place_then_reads_no_crop(
        qtbot, make_window, two_figure_pdf, own_cache):
    _figure_text(False)
    window = make_window()
    workspace = _open(qtbot, window, two_figure_pdf)
    assert window.figure_text.last is None  # figure text off: nothing is read ahead

    dialog = SettingsDialog(window.runner, window)  # Settings ▸ Local model ▸ "…reads the text inside figures"
    assert not dialog.figure_text.isChecked()
    dialog.figure_text.setChecked(True)
    assert dialog.save()
    dialog.close()
    window._settings_changed()  # what open_settings does once the dialog is closed
    assert window.current_session().settings.placement.ocr
    job = window.figure_text.last
    assert job is not None and job.kind == "figure-text"
    wait_job(qtbot, job, READ_TIMEOUT)
    assert job.state == "succeeded", job.error
    crops = [c.image for c in figure_candidates(workspace.document, workspace.root) if c.image]
    assert len(crops) >= 2 and job.result.images == len(crops)
    assert job.result.read == len(crops) and job.result.failed == []
    assert all(window.session.models.ocr_text(crop) is not None for crop in crops)
    label = window.figure_text.label
    assert label.isVisible() and label.text() == f"Figure text read: {len(crops)} figures"

    # opened again (its tab shown): a second reading finds every crop cached and reads none
    again = window.figure_text.start(workspace)
    wait_job(qtbot, again, READ_TIMEOUT)
    assert (again.result.read, again.result.cached) == (0, len(crops))

    # the user writes: a moment later their sentences are embedded in the background too
    view = window.authoring_view
    view.editor.setPlainText(f"Fig. 2 shows the liver cells of the treated rats ({workspace.root.name}).\n\n"
                             "The myocardial cells of the treated rats are shown in Fig. 3.\n")
    reader = window.figure_text
    qtbot.waitUntil(lambda: reader.text_job is not None and reader.text_job.delivered, timeout=READ_TIMEOUT)
    assert reader.text_job.state == "succeeded" and reader.text_job.result > 0, reader.text_job.error

    runs = window.session.models.ocr().runs
    embedded = window.session.models.embedder().session_runs
    placing = view.place_images()
    wait_job(qtbot, placing, READ_TIMEOUT)
    assert placing.state == "succeeded", placing.error
    assert window.session.models.ocr().runs == runs  # Place images read no crop: all from the cache
    assert window.session.models.embedder().session_runs == embedded  # and embedded nothing: all cached


@pytest.mark.slow
def test_the_reading_waits_for_foreground_work_and_stops_when_the_tab_closes(
        qtbot, make_window, two_figure_pdf, own_cache, tmp_path):
    _figure_text(True)
    window = make_window()
    release = threading.Event()

    def foreground(control, stream):  # a summary, say: long foreground work
        while not release.wait(0.05):
            control.check()

    busy = window.runner.start(Job("busy", foreground, kind="task"))
    try:
        workspace = _open(qtbot, window, two_figure_pdf)
        job = window.figure_text.last
        assert job is not None and not job.done
        label = window.figure_text.label
        # it shows where it is, and waits before its first crop while the foreground job runs
        qtbot.waitUntil(lambda: label.isVisible() and label.text().startswith("Figure text: 0 of"), timeout=10_000)
        qtbot.wait(1000)
        assert not job.done
        crops = [c.image for c in figure_candidates(workspace.document, workspace.root) if c.image]
        kept = []
        for index, crop in enumerate(crops):  # the crops go with the tab: copies say what was cached
            kept.append(shutil.copy(crop, tmp_path / f"crop-{index}.png"))

        assert window.papers.close_paper(window.papers.papers.index(window.papers.current))
        wait_job(qtbot, job, 10_000)
        assert job.state == "cancelled"
        assert not label.isVisible()
        assert all(window.session.models.ocr_text(crop) is None for crop in kept)  # no crop was read
    finally:
        release.set()
    wait_job(qtbot, busy)


def _threads_below_the_workers() -> list[tuple[int, int]]:
    """(id, nice) of this process's threads that run at a lower priority than the job runner's workers
    (the main thread's nice value + 5; Linux: /proc/self/task/ID/stat, field 19)."""
    workers = min(19, os.getpriority(os.PRIO_PROCESS, os.getpid()) + 5)
    found = []
    for task in Path("/proc/self/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # the thread ended meanwhile
            continue
        if int(fields[16]) > workers:
            found.append((int(task.name), int(fields[16])))
    return found


@pytest.mark.slow  # RapidOCR loads and reads the paper's two figures
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="thread priorities are read from /proc")
def test_background_reading_leaves_no_thread_below_the_workers_priority(qtbot, make_window, two_figure_pdf,
                                                                       own_cache):
    # RapidOCR is built and first run by the background job here (a fresh window's models, figure text on):
    # the threads it and the libraries under it start then (onnxruntime's, OpenCV's) serve every later job
    # in the process — a scanned page read in the foreground, say — so they must not run at a priority
    # lower than any worker's
    _figure_text(True)
    window = make_window()
    assert _threads_below_the_workers() == []
    _open(qtbot, window, two_figure_pdf)
    job = window.figure_text.last
    assert job is not None
    wait_job(qtbot, job, READ_TIMEOUT)
    assert job.state == "succeeded" and job.result.read >= 2, job.error
    assert _threads_below_the_workers() == []
