"""Reading the text in an open paper's figures in the background (issue 39, point 4), so that Place images
finds it in the content cache and answers in about a second.

Only when it will be used: figure text is on in the placement settings (Settings ▸ Placement). A paper
that opens (or is opened again, or whose tab is shown by opening it once more) starts one job after it is
shown, on the runner's background thread (one at a time, never in the pool a summary or a placement
uses), at the priority of every worker (below the window's; not lower: the threads a library starts
lazily on a thread keep that thread's priority, and onnxruntime's, OpenCV's and the like serve every
later job in the process). Before each crop it reads, the job waits while any foreground job runs
(opening a paper, a summary, Place images, a question…), so it takes at most one crop's time (a second or
two) from the user's work; Place images meanwhile reads what is missing itself. Crops read before, in
any session, are only hashed. Its progress is a small label in the status bar ("Figure text: 3 of 12
figures"); closing the paper's tab cancels it, closing the window cancels and waits for it
(``JobRunner.cancel_all``). It reads image files already rendered (RapidOCR on Pillow's pixels): no
PyMuPDF, so the main-thread collection rule (``main_thread_gc``) has nothing to wait for.

The text the user writes in the Authoring view is prepared the same way (figure text on or off): a
moment after typing stops, a second background job embeds its new sentences and the open document's
figure texts into the cache (``app.placement.prepare_text``), so that Place images embeds nothing it has
seen and answers in well under a second however long the text is. It says nothing in the status bar.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QLabel

from mmdocsum_desktop.app import project as proj
from mmdocsum_desktop.app.placement import FigureTextReading
from mmdocsum_desktop.gui import core
from mmdocsum_desktop.gui.workers import Job, JobRunner
from mmdocsum_desktop.jobs import JobControl

if TYPE_CHECKING:  # a type only: the window imports this module
    from mmdocsum_desktop.gui.main_window import MainWindow

KIND = "figure-text"
TEXT_KIND = "text-ahead"
TEXT_PAUSE_MS = 1500  # the user's text is embedded this long after the last keystroke
_POLL_S = 0.25  # how often a waiting job looks whether the foreground is free (and whether it was cancelled)
_DONE_SHOWN_MS = 4000  # how long "Figure text read" stays in the status bar
_LABEL_TIP = ("The text inside this paper's figures is read in the background, so that Place images is quick. "
              "It pauses while other work runs.")


class FigureTextReader(QObject):
    """The window's background reading of figure text: one job per open paper, while figure text is on."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.jobs: dict[int, tuple[proj.Workspace, Job]] = {}  # running, by id of the paper's workspace
        self.last: Job | None = None  # the job started last (tests and the status label follow it)
        self.label = QLabel("")
        self.label.setObjectName("figureTextStatus")
        self.label.setStyleSheet("color: palette(placeholder-text);")
        self.label.setToolTip(_LABEL_TIP)
        self.label.setVisible(False)
        self._hide_timer = QTimer(self)
        self._hide_timer.setSingleShot(True)
        self._hide_timer.timeout.connect(lambda: self.label.setVisible(False))
        # set while no foreground job runs: a waiting background job goes on when it is set
        self.foreground_idle = threading.Event()
        self.foreground_idle.set()
        window.runner.started.connect(self._jobs_changed)
        window.runner.ended.connect(self._jobs_changed)
        window.documentOpened.connect(lambda _document: self.start(self.window.workspace))
        self.text_job: Job | None = None  # the running (or last) embedding of the user's text
        self._text_again = False  # the text changed while it ran: once more when it ends
        self.text_timer = QTimer(self)
        self.text_timer.setSingleShot(True)
        self.text_timer.setInterval(TEXT_PAUSE_MS)
        self.text_timer.timeout.connect(self.prepare_text)
        window.authoring_view.textChanged.connect(lambda _text: self.text_timer.start())
        window.documentOpened.connect(lambda _document: self.text_timer.start())  # a project with text in it

    # ---------------------------------------------------------------------------- when
    def wanted(self) -> bool:
        """Figure text is read ahead only when placement will use it (figure text on in the settings)."""
        return bool(self.window.current_session().settings.placement.ocr)

    def start(self, workspace: proj.Workspace | None) -> Job | None:
        """Read ``workspace``'s figure text in the background (nothing when figure text is off, the paper has
        no figures, or its job runs already)."""
        if workspace is None or workspace.document is None or self.window.closing or not self.wanted():
            return None
        if not workspace.document.visuals:
            return None
        running = self.jobs.get(id(workspace))
        if running is not None:
            return running[1]
        session = self.window.current_session()
        reading = core.read_figure_text(session, workspace.document, workspace.root, wait_turn=self.wait_turn)

        def fn(control: JobControl, stream: core.StreamFn) -> FigureTextReading:
            result: FigureTextReading = reading(control, stream)
            return result

        job = Job("Reading figure text", fn, kind=KIND)
        key = id(workspace)
        self.jobs[key] = (workspace, job)
        self.last = job
        job.signals.progress.connect(lambda done, total, _what, job=job: self._progress(job, done, total))
        job.signals.succeeded.connect(lambda result, job=job: self._succeeded(job, result))
        job.signals.failed.connect(lambda message, job=job: self._quiet(job, f"Figure text not read: {message}"))
        job.signals.finished.connect(lambda key=key, job=job: self._finished(key, job))
        self.window.runner.start(job)
        return job

    def cancel(self, workspace: proj.Workspace) -> None:
        """The paper's tab closes: its reading stops (after the crop being read, a second or two)."""
        running = self.jobs.pop(id(workspace), None)
        if running is not None:
            running[1].cancel()
            if running[1] is self.last:
                self.label.setVisible(False)

    def settings_changed(self) -> None:
        """Figure text turned on: every open paper's figures are read; turned off: the readings stop."""
        if self.wanted():
            for paper in list(self.window.papers.papers):
                self.start(paper.workspace)
        else:
            for workspace, _job in list(self.jobs.values()):
                self.cancel(workspace)

    def prepare_text(self) -> Job | None:
        """Embed the Authoring view's text and the shown paper's figure texts in the background (when a
        document's figures are what Place images places, and there is text)."""
        window = self.window
        workspace = window.workspace
        text = window.authoring_view.editor.toPlainText()
        document = workspace.document if workspace is not None else None
        if (workspace is None or document is None or not document.visuals or not text.strip() or window.closing
                or window.authoring_view.source.currentData() == "folder"):
            return None
        if self.text_job is not None and not self.text_job.done:
            self._text_again = True
            return None
        self._text_again = False
        session = window.current_session()
        fn = core.embed_text_ahead(session, text, document, workspace.root,
                                   figure_text=session.settings.placement.ocr, wait_turn=self.wait_turn)

        def run(control: JobControl, stream: core.StreamFn) -> int:
            asked: int = fn(control, stream)
            return asked

        job = Job("Preparing your text for Place images", run, kind=TEXT_KIND)
        job.signals.finished.connect(self._text_finished)
        self.text_job = job
        window.runner.start(job)
        return job

    def _text_finished(self) -> None:
        if shiboken6.isValid(self) and self._text_again:
            self.text_timer.start()

    # ---------------------------------------------------------------------------- yielding
    def _jobs_changed(self, _job: Job) -> None:
        """On the GUI thread, as jobs start and end: is a foreground job running?"""
        background = JobRunner.QUICK_KINDS | JobRunner.BACKGROUND_KINDS
        if any(job.kind not in background and not job.done for job in self.window.runner.running()):
            self.foreground_idle.clear()
        else:
            self.foreground_idle.set()

    def wait_turn(self, control: JobControl) -> None:
        """On the background thread, before each crop: wait while a foreground job runs (cancel still stops)."""
        while not self.foreground_idle.wait(_POLL_S):
            control.check()

    # ---------------------------------------------------------------------------- status bar
    def _progress(self, job: Job, done: int, total: int) -> None:
        if job is self.last and total > 0 and done < total:
            self._hide_timer.stop()
            self.label.setText(f"Figure text: {done} of {total} figures")
            self.label.setToolTip(_LABEL_TIP)  # not the reason an earlier reading failed
            self.label.setVisible(True)

    def _succeeded(self, job: Job, result: FigureTextReading) -> None:
        if job is not self.last:
            return
        if result.read:
            self.label.setText(f"Figure text read: {result.images} figures")
            self.label.setVisible(True)
            self._hide_timer.start(_DONE_SHOWN_MS)
        else:
            self.label.setVisible(False)  # all cached: nothing worth saying

    def _quiet(self, job: Job, message: str) -> None:
        """A failure (OCR not installed, say) is a tooltip, not a banner: nobody asked for this job."""
        if job is self.last:
            self.label.setText("Figure text not read")
            self.label.setToolTip(message)
            self.label.setVisible(True)
            self._hide_timer.start(_DONE_SHOWN_MS)

    def _finished(self, key: int, job: Job) -> None:
        if not shiboken6.isValid(self):
            return
        running = self.jobs.get(key)
        if running is not None and running[1] is job:
            del self.jobs[key]
        if job is self.last and job.state == "cancelled":
            self.label.setVisible(False)
