"""Cycles are collected on the GUI thread while a window lives (a worker collecting a closed window's
Qt objects, or PyMuPDF objects while another thread is in MuPDF, crashed CI with a segmentation fault)."""

from __future__ import annotations

import gc
import threading

from mmdocsum_desktop.document.mupdf import MUPDF_LOCK
from mmdocsum_desktop.gui import main_thread_gc


class _Cycle:
    """Garbage only the cyclic collector frees; records the thread that finalised it."""

    finalised_on: list[str] = []

    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        _Cycle.finalised_on.append(threading.current_thread().name)


def _allocate_in_a_worker() -> list[list[object]]:
    """Enough live container allocations that automatic collection would have run several times on the
    worker (the count that triggers it is allocations minus deallocations, so they are kept)."""
    kept: list[list[object]] = []

    def churn() -> None:
        for _ in range(20 * gc.get_threshold()[0]):
            kept.append([])

    worker = threading.Thread(target=churn, name="reader-worker")
    worker.start()
    worker.join()
    return kept


def test_a_cycle_made_garbage_while_a_worker_allocates_is_freed_on_the_gui_thread(qtbot, make_window):
    was_enabled = gc.isenabled()
    window = make_window()
    assert not gc.isenabled()
    _Cycle.finalised_on.clear()
    _Cycle()  # unreachable at once; only a collection frees it
    kept = _allocate_in_a_worker()
    assert _Cycle.finalised_on == []  # the worker's allocations did not collect it
    before = main_thread_gc.collector().collections
    qtbot.waitUntil(lambda: _Cycle.finalised_on != [], timeout=10_000)
    assert _Cycle.finalised_on == [threading.main_thread().name]
    assert main_thread_gc.collector().collections > before
    kept.clear()
    window.dirty = False
    window.close()
    assert gc.isenabled() == was_enabled  # automatic collection is back once the last window closed


def test_no_collection_runs_while_a_worker_is_in_pymupdf(qtbot, make_window):
    """A closed window's cycles may hold PyMuPDF documents: they are not freed while a worker reads a PDF."""
    make_window()
    inside, leave = threading.Event(), threading.Event()

    def reading() -> None:
        with MUPDF_LOCK:
            inside.set()
            leave.wait(30)

    worker = threading.Thread(target=reading, name="reading-a-pdf")
    worker.start()
    inside.wait(10)
    _Cycle.finalised_on.clear()
    _Cycle()
    kept = _allocate_in_a_worker()
    postponed = main_thread_gc.collector().postponed
    qtbot.waitUntil(lambda: main_thread_gc.collector().postponed >= postponed + 2, timeout=10_000)
    assert _Cycle.finalised_on == []  # due, but PyMuPDF is busy: it waits
    leave.set()
    worker.join()
    qtbot.waitUntil(lambda: _Cycle.finalised_on != [], timeout=10_000)
    assert _Cycle.finalised_on == [threading.main_thread().name]
    kept.clear()
