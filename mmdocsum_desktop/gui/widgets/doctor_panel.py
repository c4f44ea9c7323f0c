"""The "Doctor" panel in Settings: the same report as `mmdocsum doctor` (what the app's models will run
on, and what to do about each "no"), worked out on a worker thread, with Copy for bug reports."""

from __future__ import annotations

from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from mmdocsum_desktop.app import doctor
from mmdocsum_desktop.gui.workers import Job, JobRunner

# the order run_doctor goes through its parts, for a determinate progress bar
_STEPS = ("app", "devices", "llama.cpp", "onnxruntime", "memory", "models", "keyring")


class DoctorPanel(QWidget):
    """Shows :func:`mmdocsum_desktop.app.doctor.run_doctor`'s report; checks the first time it is
    shown (probing llama.cpp and the GPUs takes a moment) and again on "Check again"."""

    def __init__(self, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.report = None
        self.job: Job | None = None
        self.summary = QLabel("Not checked yet.")
        self.summary.setWordWrap(True)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        # advice lines are sentences: they wrap at the panel's edge instead of running off it
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.check_button = QPushButton("Check again")
        self.check_button.clicked.connect(self.check)
        self.copy_button = QPushButton("Copy for a bug report")
        self.copy_button.setEnabled(False)
        self.copy_button.clicked.connect(self.copy)
        buttons = QHBoxLayout()
        buttons.addWidget(self.check_button)
        buttons.addWidget(self.copy_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.text, 1)
        layout.addLayout(buttons)

    def showEvent(self, event) -> None:  # noqa: N802 — Qt's name
        super().showEvent(event)
        if self.report is None and self.job is None:
            self.check()

    def check(self) -> Job:
        """Start a check on the runner's thread pool; the GUI thread only shows the result."""
        if self.job is not None and not self.job.done:
            return self.job

        def run(control, stream):
            def step(name: str) -> None:
                control.check()
                control.report(_STEPS.index(name) if name in _STEPS else 0, len(_STEPS), name)

            return doctor.run_doctor(on_step=step)

        self.summary.setText("Checking what this machine can run…")
        self.check_button.setEnabled(False)
        job = Job("Checking devices", run, kind="settings")
        # bound methods of this widget, not lambdas: Qt drops them if Settings closes before the check ends
        job.signals.progress.connect(self._progress)
        job.signals.succeeded.connect(self._show)
        job.signals.failed.connect(self._failed)
        job.signals.finished.connect(self._finished)
        self.job = job
        return self.runner.start(job)

    def _progress(self, done: int, total: int, what: str) -> None:
        self.summary.setText(f"Checking {what}…")

    def _finished(self) -> None:
        self.check_button.setEnabled(True)

    def _show(self, report) -> None:
        self.report = report
        self.text.setPlainText(report.to_text())
        problems = report.problems
        if problems:
            self.summary.setText(f"{len(problems)} thing(s) to fix; each says what to do.")
        else:
            self.summary.setText("Nothing to fix.")
        self.copy_button.setEnabled(True)

    def _failed(self, message: str) -> None:
        self.summary.setText(f"The check failed: {message}")

    def copy(self) -> None:
        if self.report is not None:
            QGuiApplication.clipboard().setText(self.report.to_text())
