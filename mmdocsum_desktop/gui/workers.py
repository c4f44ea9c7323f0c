"""The one way the GUI runs long work: a core function that takes a ``JobControl`` runs on a
``QThreadPool`` thread; its progress, streamed text, result or error come back as Qt signals on the
GUI thread, and Cancel calls ``JobControl.cancel()`` (the core raises ``JobCancelled`` at its next
``report``).

    job = Job("Reading paper.pdf", lambda control, stream: read_document(path, control=control))
    job.signals.succeeded.connect(show)
    jobs.start(job)
"""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

from mmdocsum_desktop.errors import JobCancelled, MmdocsumError
from mmdocsum_desktop.jobs import JobControl

log = logging.getLogger(__name__)

StreamFn = Callable[[str], None]
JobFn = Callable[[JobControl, StreamFn], Any]

_PROGRESS_INTERVAL_S = 0.05
_STREAM_INTERVAL_S = 0.05


class JobSignals(QObject):
    progress = Signal(int, int, str)
    text = Signal(str)
    succeeded = Signal(object)
    failed = Signal(str)
    cancelled = Signal(object)
    finished = Signal()


class Job(QRunnable):
    """A cancellable piece of work. ``fn(control, stream)`` runs off the GUI thread; ``stream(text)``
    sends streamed text (an LLM's tokens) to the GUI, batched every 50 ms."""

    def __init__(self, title: str, fn: JobFn, *, kind: str = "task") -> None:
        super().__init__()
        self.setAutoDelete(False)
        self.title = title
        self.kind = kind
        self.fn = fn
        self.signals = JobSignals()
        self.delivered = False  # set on the GUI thread once every signal of the job has been handled
        self.expected_s: float | None = None  # what such a job took before: the job bar's first estimate
        self.signals.finished.connect(self._delivered)
        self.control = JobControl(on_progress=self._on_progress)
        self.result: Any = None
        self.error: str | None = None
        self.exception: BaseException | None = None
        self.state = "pending"  # pending, running, succeeded, failed, cancelled
        self._last_progress = 0.0
        self._pending_text: list[str] = []
        self._last_text = 0.0
        self.started_at = 0.0
        self.seconds = 0.0

    # ---- called on the worker thread
    def _on_progress(self, done: int, total: int, what: str) -> None:
        now = time.monotonic()
        if done >= total or now - self._last_progress >= _PROGRESS_INTERVAL_S:
            self._last_progress = now
            self.signals.progress.emit(int(done), int(total), str(what))

    def _stream(self, text: str) -> None:
        self._pending_text.append(text)
        now = time.monotonic()
        if now - self._last_text >= _STREAM_INTERVAL_S:
            self._flush_text()
            self._last_text = now
        self.control.check()

    def _flush_text(self) -> None:
        if self._pending_text:
            chunk = "".join(self._pending_text)
            self._pending_text.clear()
            self.signals.text.emit(chunk)

    @Slot()
    def run(self) -> None:
        _lower_thread_priority()
        self.state = "running"
        self.started_at = time.monotonic()
        try:
            result = self.fn(self.control, self._stream)
        except JobCancelled as error:
            self.exception = error
            self._flush_text()
            self.state = "cancelled"
            self.signals.cancelled.emit(getattr(error, "partial", None))
        except MmdocsumError as error:
            self.exception = error
            self._flush_text()
            self.state = "failed"
            self.error = str(error) or type(error).__name__
            self.signals.failed.emit(self.error)
        except MemoryError:
            self.state = "failed"
            self.error = "not enough memory for this job"
            self.signals.failed.emit(self.error)
        except Exception as error:  # noqa: BLE001 — shown to the user, never a crash of the window
            self.exception = error
            self._flush_text()
            self.state = "failed"
            self.error = f"internal error: {type(error).__name__}: {error}"
            log.error("%s failed:\n%s", self.title, traceback.format_exc())
            self.signals.failed.emit(self.error)
        else:
            self._flush_text()
            self.result = result
            self.state = "succeeded"
            self.signals.succeeded.emit(result)
        finally:
            self.seconds = time.monotonic() - self.started_at
            self.signals.finished.emit()

    # ---- called on the GUI thread
    def _delivered(self) -> None:
        self.delivered = True

    def cancel(self) -> None:
        self.control.cancel()

    def orphan(self) -> None:
        """The window that started this job is gone: stop it and deliver nothing."""
        self.control.cancel()
        import warnings

        for signal in (self.signals.progress, self.signals.text, self.signals.succeeded, self.signals.failed,
                       self.signals.cancelled, self.signals.finished):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    signal.disconnect()
                except (RuntimeError, TypeError):
                    pass

    @property
    def done(self) -> bool:
        return self.state in {"succeeded", "failed", "cancelled"}


_NICE_DONE: set[int] = set()


def _lower_thread_priority() -> None:
    """Workers yield the CPU to the GUI thread (Linux: a thread is a task with its own nice value)."""
    import os
    import sys
    import threading

    if not sys.platform.startswith("linux"):
        return
    tid = threading.get_native_id()
    if tid in _NICE_DONE:
        return
    _NICE_DONE.add(tid)
    try:
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + 5))
    except OSError:
        pass


def keep_gui_responsive(interval_s: float = 0.001) -> None:
    """Shorter GIL switch interval: every Qt callback into Python waits for the GIL, and with the default
    5 ms a busy worker makes a repaint with many callbacks stall for tens of milliseconds."""
    import sys

    if sys.getswitchinterval() > interval_s:
        sys.setswitchinterval(interval_s)


def _orphan_all(jobs: list[Job]) -> None:
    for job in list(jobs):
        job.orphan()


class JobRunner(QObject):
    """Starts jobs on a thread pool and keeps them alive until they finish."""

    started = Signal(object)
    ended = Signal(object)

    # short jobs get their own threads so that they never wait behind a summary or a benchmark
    QUICK_KINDS = frozenset({"autosave", "prefs", "render", "thumbnails", "search"})
    # work nobody waits for (reading an open paper's figure text, embedding the user's text ahead of Place
    # images) runs one at a time on a thread of its own: it never takes the place of a summary or a placement
    BACKGROUND_KINDS = frozenset({"figure-text", "text-ahead"})

    def __init__(self, parent: QObject | None = None, *, max_threads: int = 2) -> None:
        super().__init__(parent)
        keep_gui_responsive()
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(max_threads)
        self.quick_pool = QThreadPool(self)
        self.quick_pool.setMaxThreadCount(2)
        self.background_pool = QThreadPool(self)
        self.background_pool.setMaxThreadCount(1)
        self._jobs: list[Job] = []
        jobs = self._jobs
        # destroyed with its window (a crash, or a test that deletes it): the jobs' signals go nowhere
        self.destroyed.connect(lambda *_: _orphan_all(jobs))

    def start(self, job: Job) -> Job:
        self._jobs.append(job)
        job.signals.finished.connect(lambda job=job: self._finished(job))
        self.started.emit(job)
        if job.kind in self.BACKGROUND_KINDS:
            self.background_pool.start(job)
        else:
            (self.quick_pool if job.kind in self.QUICK_KINDS else self.pool).start(job)
        return job

    def _finished(self, job: Job) -> None:
        if job in self._jobs:
            self._jobs.remove(job)
        if shiboken6.isValid(self):  # a signal queued before the window was destroyed
            self.ended.emit(job)

    def running(self, kind: str | None = None) -> list[Job]:
        return [j for j in self._jobs if kind is None or j.kind == kind]

    def cancel_all(self) -> None:
        for job in list(self._jobs):
            job.cancel()

    def wait(self, timeout_ms: int = 30_000) -> bool:
        return (self.pool.waitForDone(timeout_ms) and self.quick_pool.waitForDone(timeout_ms)
                and self.background_pool.waitForDone(timeout_ms))
