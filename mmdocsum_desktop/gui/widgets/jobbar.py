"""The job bar: what is running, a determinate progress bar with the time left, and Cancel. One bar for
every job."""

from __future__ import annotations

import time

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QSizePolicy, QWidget

from mmdocsum_desktop.gui import icons
from mmdocsum_desktop.gui.workers import Job


def time_left(elapsed_s: float, done: int, total: int, *, from_done: int = 0) -> str:
    """"about 40 s left", "about 3 min left" at the pace since ``from_done``; '' until there is enough
    to go by (2 s and 3 % of the way)."""
    moved = done - from_done
    if total <= 0 or moved <= 0 or done >= total or elapsed_s < 2.0 or moved / total < 0.03:
        return ""
    left = elapsed_s * (total - done) / moved
    return _about(left)


def _about(left: float) -> str:
    if left < 60:
        return f"about {max(5, round(left / 5) * 5)} s left"
    if left < 3600:
        return f"about {round(left / 60)} min left"
    return f"about {left / 3600:.1f} h left"


def expected_left(expected_s: float | None, elapsed_s: float, done: int, total: int) -> str:
    """Before the pace is known, the time left from what such a job took before (``expected_s``, e.g. a
    benchmark's last run here or its published time): its share still to do, less the time this part
    has run. '' when nothing is known."""
    if not expected_s or total <= 0 or done >= total:
        return ""
    return _about(max(expected_s * (total - done) / total - elapsed_s, 1.0))


class FittingProgressBar(QProgressBar):
    """A progress bar whose text ("40%  embedding sentences · about 3 min left") is cut with an ellipsis to
    the bar's width instead of running past its edge; the whole text is its tooltip."""

    def text(self) -> str:  # what the style paints (a virtual of QProgressBar)
        full = super().text()
        if self.toolTip() != full:
            self.setToolTip(full)
        room = max(0, self.contentsRect().width() - 2 * self.style().pixelMetric(self.style().PixelMetric.PM_ProgressBarChunkWidth))
        return self.fontMetrics().elidedText(full, Qt.TextElideMode.ElideRight, room)


class FittingLabel(QLabel):
    """A one-line label cut with an ellipsis to the width it is given (its whole text is its tooltip);
    a long job title never widens the status bar."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._full = ""
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setText(text)

    def setText(self, text: str) -> None:  # noqa: N802 (Qt's name)
        self._full = text
        self.setToolTip(text)
        self._fit()

    def full_text(self) -> str:
        return self._full

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        super().setText(self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight, max(0, self.width())))


class JobBar(QWidget):
    # (job, "about 3 min left" or ''): the one estimate of a job's time left; a view that shows the time
    # too (the Benchmark view's table) shows this one, so the two never disagree
    estimateChanged = Signal(object, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = FittingLabel("")
        self.label.setMinimumWidth(80)
        self.label.setMaximumWidth(320)
        self.bar = FittingProgressBar()
        self.bar.setMinimumWidth(220)
        self.bar.setMaximumWidth(320)
        self.bar.setTextVisible(True)
        self.cancel_button = QPushButton(icons.icon("cancel"), "Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        layout.addWidget(self.cancel_button)
        self.jobs: list[Job] = []
        # when each job's current stage started: the estimate restarts when the stage ("what") changes
        self._stage: dict[int, tuple[str, float, int]] = {}
        self._started: dict[int, float] = {}
        self.estimates: dict[int, str] = {}  # id(job) -> its latest estimate
        self.setVisible(False)

    def track(self, job: Job) -> None:
        self.jobs.append(job)
        self._started[id(job)] = time.monotonic()
        job.signals.progress.connect(lambda done, total, what, job=job: self._progress(job, done, total, what))
        job.signals.finished.connect(lambda job=job: self._finished(job))
        self._show(job)
        self.bar.setRange(0, 0)  # busy until the first report gives a total

    def _show(self, job: Job) -> None:
        self.label.setText(job.title)
        self.cancel_button.setEnabled(True)
        self.cancel_button.setText("Cancel")
        self.setVisible(True)

    def _progress(self, job: Job, done: int, total: int, what: str) -> None:
        if not shiboken6.isValid(self) or job not in self.jobs:
            return
        if job is not self.jobs[-1]:
            self._estimate(job, done, total, what)  # not shown in the bar, still told to its view
            return
        if total > 0:
            self.bar.setRange(0, total)
            self.bar.setValue(min(done, total))
            left = self._estimate(job, done, total, what)
            text = " · ".join(part for part in ("%p%", what, left) if part)
            self.bar.setFormat(text.replace("%p% · ", "%p%  ", 1))
        self.label.setText(job.title)

    def _estimate(self, job: Job, done: int, total: int, what: str) -> str:
        """The job's time left (at the pace of its current stage, else from what it took before), told
        through ``estimateChanged``."""
        if total <= 0:
            return self.estimates.get(id(job), "")
        stage = self._stage.get(id(job))
        now = time.monotonic()
        if stage is None or stage[0] != what:
            stage = self._stage[id(job)] = (what, now, done)
        left = time_left(now - stage[1], done, total, from_done=stage[2]) or expected_left(
            job.expected_s, now - self._started.get(id(job), now), done, total)
        if self.estimates.get(id(job)) != left:
            self.estimates[id(job)] = left
            self.estimateChanged.emit(job, left)
        return left

    def _finished(self, job: Job) -> None:
        self._stage.pop(id(job), None)
        self._started.pop(id(job), None)
        self.estimates.pop(id(job), None)
        if job in self.jobs:
            self.jobs.remove(job)
        if not shiboken6.isValid(self):
            return
        if self.jobs:
            self._show(self.jobs[-1])
        else:
            self.setVisible(False)
            self.bar.setRange(0, 1)
            self.bar.setValue(0)

    def cancel(self) -> None:
        if self.jobs:
            self.jobs[-1].cancel()
            self.cancel_button.setEnabled(False)
            self.cancel_button.setText("Cancelling…")
