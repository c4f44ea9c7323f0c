"""The benchmark view: pick a suite, a split and an engine; run it with progress and Cancel; see the
results table and the plots; open the HTML report; compare runs side by side."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mmdocsum_desktop.gui import core, icons
from mmdocsum_desktop.gui.workers import Job

if TYPE_CHECKING:
    from mmdocsum_desktop.gui.main_window import MainWindow

SUITES = [("mdocsum", "M-DocSum (summaries with figures)"), ("ftii", "FTII (image placement)"),
          ("mcite", "MCiteBench (citations)"), ("rouge", "ROUGE (abstract as reference)")]
ENGINES = ["extractive", "auto", "llama", "openai"]

# What each number is, for a person: (name, explanation). The keys are the benchmark files' own.
METRICS: dict[str, tuple[str, str]] = {
    "if": ("Instruction following (IF)", "Share of answers in the asked form: four paragraphs, each with a valid image "
                                        "reference, no image twice"),
    "if_strict": ("Instruction following, strict", "As IF, with the summary parser's own flag as well"),
    "omatch": ("Image slot match (OMatch)", "Paragraphs whose image (or no image) is the gold one, over all paragraphs"),
    "imgacc": ("Image accuracy (ImgAcc)", "Of the paragraphs whose gold has an image, those with the right image"),
    "nonacc": ("No-image accuracy (NonAcc)", "Of the paragraphs whose gold has no image, those left without one"),
    "jacsim": ("Image set overlap (JacSim)", "Jaccard overlap of the images used and the gold's, per document"),
    "is": ("Image score (IS)", "(OMatch + JacSim) / 2"),
    "com": ("Completeness (Com)", "Key points of the gold summary covered, scored by a judge model"),
    "acc": ("Accuracy (Acc)", "Sentences consistent with the paper, scored by a judge model"),
    "ts": ("Text score (TS)", "Harmonic mean of Com and Acc"),
    "total": ("Total", "0.1·IF + 0.45·TS + 0.45·IS, M-DocEval's overall score"),
    "rouge1": ("ROUGE-1", "Word overlap with the reference (F1)"),
    "rouge2": ("ROUGE-2", "Two-word overlap with the reference (F1)"),
    "rougeL": ("ROUGE-L", "Longest common word sequences with the reference (F1)"),
    "n_docs": ("Documents", "Documents scored in this run"),
    "n_records": ("Records", "Questions scored in this run"),
    "n_slots": ("Places", "Places in the texts where an image could go"),
    "source_f1": ("Source F1", "Cited sources against the gold sources (F1)"),
    "source_em": ("Source exact match", "Answers citing exactly the gold sources"),
    "citation_f1": ("Citation F1", "Citations placed at the right sentences (F1)"),
    "answer_accuracy": ("Answer accuracy", "Answers that are right"),
    "acc_b": ("Placement accuracy", "Places where the right image (or no image) was chosen"),
    "acc_i": ("Placement accuracy, image places", "Of the places that take an image, those given the right one"),
    "acc_ni": ("Placement accuracy, no-image places", "Of the places that take no image, those left empty"),
    "overall": ("Overall (judge)", "The judge's overall score, 0 to 5"),
}
ABSENT_TIP = "Not measured in this run (Com, Acc, TS and Total need a judge model: Settings ▸ Engine ▸ Judge)"


def metric_item(key: str) -> QTableWidgetItem:
    """The metric's human name, with its explanation and its key in the tooltip."""
    name, explanation = METRICS.get(key, (key.replace("_", " ").capitalize(), ""))
    item = QTableWidgetItem(name)
    item.setToolTip(f"{explanation} [{key}]" if explanation else key)
    return item


def value_item(value: Any, text: str | None = None) -> QTableWidgetItem:
    item = QTableWidgetItem(_shown(value) if text is None else text)
    if value is None:
        item.setToolTip(ABSENT_TIP)
    return item


def runs_dir() -> Path:
    from mmdocsum_desktop.models.paths import data_dir

    return data_dir() / "bench-runs"


class BenchView(QWidget):
    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window_ = window
        self.run_dir: Path | None = None
        self._job: Job | None = None
        self.suite = QComboBox()
        for value, label in SUITES:
            self.suite.addItem(label, value)
        self.split = QComboBox()
        self.split.setEditable(True)
        self.split.addItem("demo")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse_split)
        split_row = QHBoxLayout()
        split_row.addWidget(self.split, 1)
        split_row.addWidget(browse)
        self.engine = QComboBox()
        self.engine.addItems(ENGINES)
        self.run_button = QPushButton(icons.icon("benchmark"), "Run")
        self.run_button.clicked.connect(self.run)
        self.report_button = QPushButton("Open HTML report")
        self.report_button.clicked.connect(self.open_report)
        self.report_button.setEnabled(False)
        self.compare_button = QPushButton("Compare runs…")
        self.compare_button.clicked.connect(self.compare_dialog)
        self.open_run_button = QPushButton("Open a run…")
        self.open_run_button.clicked.connect(self._open_run_dialog)
        form = QFormLayout()
        form.addRow("Suite", self.suite)
        form.addRow("Split", split_row)
        form.addRow("Engine", self.engine)
        buttons = QHBoxLayout()
        for button in (self.run_button, self.report_button, self.compare_button, self.open_run_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        self.status = QLabel("Runs are resumable: running the same suite, split and engine again continues.")
        self.plot_count = 0
        self.status.setWordWrap(True)
        self.status.setStyleSheet("color: #555;")
        self.table = QTableWidget(0, 2)
        self.table.setHorizontalHeaderLabels(["Metric", "Value"])
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.plots_host = QWidget()
        self.plots_layout = QVBoxLayout(self.plots_host)
        self.plots_layout.addStretch(1)
        plots = QScrollArea()
        plots.setWidgetResizable(True)
        plots.setWidget(self.plots_host)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(plots)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        layout.addWidget(split, 1)

    def _browse_split(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Choose a split", "", "Splits (*.jsonl *.json *.tsv);;All files (*)")
        if path:
            self.split.setEditText(path)

    def _open_run_dialog(self) -> None:
        folder = self.window_.ask_directory("Open a benchmark run folder")
        if folder:
            self.show_run(Path(folder))

    # ---- running
    def run(self) -> Job | None:
        if self._job is not None:
            return None
        suite = self.suite.currentData()
        split = self.split.currentText().strip() or "demo"
        engine = self.engine.currentText()
        # the same suite, split and engine continue one run folder (runs are resumable)
        split_name = Path(split).stem if split != "demo" else "demo"
        out = runs_dir() / f"{suite}-{split_name}-{engine}"
        job = Job(f"Benchmark {suite} ({split}, {engine})", core.run_benchmark(suite, split, engine, out), kind="bench")
        job.signals.succeeded.connect(lambda result: self._done(out, result))
        job.signals.failed.connect(lambda message: (self.status.setText(f"Failed: {message}"),
                                                    self.window_.show_error(f"Benchmark failed: {message}")))
        job.signals.cancelled.connect(lambda partial: (self.status.setText(
            "Cancelled. Finished documents are kept; Run again to continue."), self.show_run(out)))
        job.signals.finished.connect(self._finished)
        self._job = job
        self.run_button.setEnabled(False)
        self.status.setText("Running…")
        self.window_.start_job(job)
        return job

    def _finished(self) -> None:
        self._job = None
        self.run_button.setEnabled(True)

    def _done(self, out: Path, result: Any) -> None:
        run = Path(result) if isinstance(result, str | Path) and Path(result).is_dir() else out
        self.window_.remember_bench_run(run)
        self.show_run(run)

    # ---- results
    def show_run(self, run: Path) -> Job:
        """Show a run's numbers and plots (read and drawn in a worker)."""
        self.run_dir = run
        job = Job(f"Loading {run.name}", core.load_run(run), kind="bench-view")
        job.signals.succeeded.connect(self._show_loaded)
        job.signals.failed.connect(lambda message: self.status.setText(f"{run.name}: {message}"))
        self.window_.start_job(job)
        return job

    def _show_loaded(self, loaded: dict[str, Any]) -> None:
        run: Path = loaded["run"]
        rows = list(loaded["headline"].items())
        self.table.setColumnCount(2)
        self.table.setHorizontalHeaderLabels(["Metric", f"{run.name} ({loaded['suite']})"])
        self.table.setRowCount(len(rows))
        for row, (key, value) in enumerate(rows):
            self.table.setItem(row, 0, metric_item(key))
            self.table.setItem(row, 1, value_item(value))
        while self.plots_layout.count() > 1:
            item = self.plots_layout.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        self.plot_count = 0
        for title, data in loaded["plots"]:
            pixmap = QPixmap()
            if pixmap.loadFromData(base64.b64decode(data), "PNG"):
                label = QLabel()
                label.setPixmap(pixmap)
                label.setToolTip(title)
                self.plots_layout.insertWidget(self.plots_layout.count() - 1, label)
                self.plot_count += 1
        self.report_button.setEnabled(self.report_path() is not None)
        self.status.setText(f"{run}: {len(rows)} numbers, {self.plot_count} plots.")

    def report_path(self) -> Path | None:
        if self.run_dir is None:
            return None
        path = self.run_dir / "report.html"
        return path if path.is_file() else None

    def open_report(self) -> None:
        path = self.report_path()
        if path is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))

    def compare_dialog(self) -> None:
        folder = self.window_.ask_directory("Choose a folder holding benchmark runs to compare")
        if not folder:
            return
        root = Path(folder)
        runs = [root] if (root / "metrics.json").is_file() else [
            p for p in sorted(root.iterdir()) if (p / "metrics.json").is_file()]
        self.compare(runs)

    def compare(self, runs: list[Path]) -> Job | None:
        if not runs:
            self.status.setText("No runs (folders with metrics.json) there.")
            return None
        job = Job("Comparing runs", core.compare_runs(runs), kind="bench-view")
        job.signals.succeeded.connect(self._show_comparison)
        job.signals.failed.connect(lambda message: self.status.setText(f"Compare failed: {message}"))
        self.window_.start_job(job)
        return job

    def _show_comparison(self, result: dict[str, Any]) -> None:
        rows: list[tuple[str, dict[str, Any]]] = []
        for suite, entries in result.get("suites", {}).items():
            for entry in entries:
                rows.append((f"{Path(entry['run']).name} ({suite}, {entry.get('what') or ''})", entry))
        keys = list(dict.fromkeys(k for _, entry in rows for k in entry.get("metrics", {})))
        self.table.setColumnCount(1 + len(rows))
        self.table.setHorizontalHeaderLabels(["Metric", *[name for name, _ in rows]])
        self.table.setRowCount(len(keys) + 1)
        for row, key in enumerate(keys):
            self.table.setItem(row, 0, metric_item(key))
            for column, (_, entry) in enumerate(rows, start=1):
                value = entry.get("metrics", {}).get(key)
                delta = (entry.get("delta") or {}).get(key)
                text = _shown(value) + (f" ({delta:+.3f})" if column > 1 and isinstance(delta, float) else "")
                self.table.setItem(row, column, value_item(value, text))
        self.table.setItem(len(keys), 0, QTableWidgetItem("seconds"))
        for column, (_, entry) in enumerate(rows, start=1):
            self.table.setItem(len(keys), column, QTableWidgetItem(_shown(entry.get("seconds"))))
        self.status.setText(f"Comparing {len(rows)} runs (differences against the first).")


def _shown(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)
