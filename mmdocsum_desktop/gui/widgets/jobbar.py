"""The job bar: what is running, a determinate progress bar and Cancel. One bar for every job."""

from __future__ import annotations

import shiboken6
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from mmdocsum_desktop.gui import icons
from mmdocsum_desktop.gui.workers import Job


class JobBar(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel("")
        self.bar = QProgressBar()
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
        self.setVisible(False)

    def track(self, job: Job) -> None:
        self.jobs.append(job)
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
        if not shiboken6.isValid(self) or not self.jobs or job is not self.jobs[-1]:
            return
        if total > 0:
            self.bar.setRange(0, total)
            self.bar.setValue(min(done, total))
            self.bar.setFormat(f"%p%  {what}" if what else "%p%")
        self.label.setText(job.title)

    def _finished(self, job: Job) -> None:
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
