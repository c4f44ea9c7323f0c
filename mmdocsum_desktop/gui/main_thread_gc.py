"""Python's cyclic garbage collector runs only on the GUI thread while a window is open.

Left automatic, the collector runs on whichever thread happens to allocate when a generation's count
passes its threshold: often a worker reading a paper. It then destroys whatever cycles are unreachable,
among them Qt objects of a closed dialog or window (whose C++ destructors must run on the GUI thread) and
PyMuPDF objects (which must not be freed while another thread is inside MuPDF). Either can end the
process with a segmentation fault, the window and the user's unsaved work with it. CI saw exactly that:
a worker reading a PDF crashed "Garbage-collecting".

So, while at least one window lives, automatic collection is off and a timer on the GUI thread collects
whenever the counts say automatic collection would have, as pyqtgraph's ``GarbageCollector`` does. It
collects only when no thread is in PyMuPDF (the lock is free): a closed window's cycles may hold PyMuPDF
documents, which must not be freed while a worker is inside MuPDF. A read holds the lock for seconds, a
long one for a minute; the cycles left meanwhile wait for it (reference counting, which frees almost
everything, is not affected). When the last window is gone, automatic collection is on again.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

from mmdocsum_desktop.app.present import try_mupdf

_INTERVAL_MS = 500


class MainThreadCollector(QObject):
    """Started by each window (``hold``), stopped when the last one closes or is destroyed."""

    def __init__(self) -> None:
        super().__init__()
        self._holders: set[int] = set()
        self._was_enabled = True
        self.postponed = 0  # ticks that found PyMuPDF busy and waited
        self.collections = 0  # how many collections the timer ran (the tests read it)
        self._timer = QTimer(self)
        self._timer.setInterval(_INTERVAL_MS)
        self._timer.timeout.connect(self.tick)

    def hold(self, owner: QObject) -> None:
        if not self._holders:
            self._was_enabled = gc.isenabled()
            gc.disable()
            self._timer.start()
        key = id(owner)
        self._holders.add(key)
        owner.destroyed.connect(lambda *_args: self.release(key))

    def release(self, key: int) -> None:
        """``key`` (``id`` of the window) is done; a second release of the same window is a no-op."""
        if key not in self._holders:
            return
        self._holders.discard(key)
        if not self._holders:
            self._timer.stop()
            self.tick(force=True)
            if self._was_enabled:
                gc.enable()

    @property
    def active(self) -> bool:
        return bool(self._holders)

    def tick(self, force: bool = False) -> None:
        """Collect the generations automatic collection would have collected by now."""
        threshold0, threshold1, threshold2 = gc.get_threshold()
        count0, count1, count2 = gc.get_count()
        if not force and count0 <= threshold0:
            return
        # the last window closing waits a little for a worker still in PyMuPDF, then leaves the cycles to
        # automatic collection rather than free PyMuPDF objects under it
        with try_mupdf(2.0 if force else 0.0) as free:
            if not free:
                self.postponed += 1
                return
            generation = 2 if force or count1 > threshold1 and count2 > threshold2 else 1 if count1 > threshold1 else 0
            gc.collect(generation)
            self.collections += 1


_collector: MainThreadCollector | None = None


def collector() -> MainThreadCollector:
    """The process's one collector (created on the GUI thread by the first window)."""
    global _collector
    if _collector is None:
        _collector = MainThreadCollector()
    return _collector
