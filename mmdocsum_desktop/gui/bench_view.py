"""The benchmark view: the bundled splits listed with what each measures and how long it takes here;
pick a suite, a split and an engine; run it with progress and Cancel; see the results table beside the
previous run of the same suite and split and the numbers the README publishes, and the plots; open the
HTML report; compare runs side by side."""

from __future__ import annotations

import base64
import json
import time
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
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mmdocsum_desktop.app import catalog
from mmdocsum_desktop.bench import report
from mmdocsum_desktop.bench import splits as bench_splits
from mmdocsum_desktop.fileio import write_json_atomic
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
    return catalog.bench_runs_dir()


PUBLISHED = bench_splits.SPLITS_ROOT / "published.json"


def published_numbers() -> dict[str, Any]:
    """``{"split:suite": {engine: {"metrics", "wall_s", "cpu_s", "machine"}}}``: the numbers the README
    publishes (written by ``benchmarks/bench_bundled_splits.py --publish``); {} when absent."""
    try:
        data = json.loads(PUBLISHED.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def history_dir(suite: str, split: str) -> Path:
    """Where finished runs of one suite on one split are kept for comparison (one JSON per run)."""
    return runs_dir() / "history" / f"{suite}-{_split_key(split)}"


def _split_key(split: str) -> str:
    return split if bench_splits.bundled(split) is not None else Path(split).stem


def _seconds(value: float | None) -> str:
    if value is None:
        return "not run yet"
    return f"{value / 60:.0f} min" if value >= 90 else f"{value:.0f} s"


def bundled_rows() -> list[dict[str, Any]]:
    """One row per bundled split and suite: what it measures, its papers, and how long it takes.

    ``seconds``: per engine, what a run is expected to take — the last run here with that engine (wall
    seconds), else the published CPU seconds of that engine. The published wall seconds were measured on a
    shared, loaded machine and ran 4 to 25 times what a run takes on a desktop (issue 46, item 8), so they
    are never an estimate; an engine with neither gives no first estimate (the pace of the run does)."""
    published = published_numbers()
    rows = []
    for split in bench_splits.BUNDLED.values():
        papers = split.papers()
        for suite in split.files:
            seconds: dict[str, float] = {}
            for engine, reference in published.get(f"{split.name}:{suite}", {}).items():
                if isinstance(reference, dict) and isinstance(reference.get("cpu_s"), (int, float)):
                    seconds[str(engine)] = float(reference["cpu_s"])
            here: dict[str, float] = {}
            for entry in sorted(history_dir(suite, split.name).glob("*.json"), reverse=True):
                try:
                    run = json.loads(entry.read_text(encoding="utf-8"))
                except (OSError, ValueError):
                    continue
                if isinstance(run, dict) and isinstance(run.get("wall_s"), (int, float)) and run.get("engine"):
                    here.setdefault(str(run["engine"]), float(run["wall_s"]))
            seconds.update(here)
            if here:
                engine, took_s = next(iter(here.items()))
                took = f"{_seconds(took_s)} here (last run, {engine})"
            elif seconds:
                engine, took_s = next(iter(seconds.items()))
                took = f"about {_seconds(took_s)} of CPU on a 2-core machine ({engine})"
            else:
                took = "not measured"
            rows.append({"split": split.name, "suite": suite, "measures": split.measures.get(suite, ""),
                         "took": took, "seconds": seconds, "papers": papers, "licence": split.licence_note})
    return rows


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
        for name in bench_splits.BUNDLED:
            self.split.addItem(name)
        self.bundled = QTableWidget(0, 4)
        self.bundled.setHorizontalHeaderLabels(["Split", "Suite", "What it measures", "Time"])
        self.bundled.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.bundled.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.bundled.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.bundled.setSelectionMode(QTableWidget.SelectionMode.SingleSelection)
        self.bundled.setMaximumHeight(190)
        self.bundled.itemSelectionChanged.connect(self._bundled_chosen)
        self.refresh_bundled()
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
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.time_left = ""  # the job bar's estimate for the running benchmark (one estimate, shown twice)
        buttons = QHBoxLayout()
        for button in (self.run_button, self.cancel_button, self.report_button, self.compare_button,
                       self.open_run_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        self.status = QLabel("Runs are resumable: running the same suite, split and engine again continues.")
        self.plot_count = 0
        self.status.setWordWrap(True)
        self.status.setStyleSheet("color: palette(placeholder-text);")
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
        layout.addWidget(QLabel("Bundled splits (choose one to run it; papers and licences in its tooltip)"))
        layout.addWidget(self.bundled)
        layout.addLayout(form)
        layout.addLayout(buttons)
        # a row of its own: beside the buttons it took their room and cut their labels
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(split, 1)

    def refresh_bundled(self) -> None:
        rows = bundled_rows()
        self.bundled.setRowCount(len(rows))
        for row, entry in enumerate(rows):
            papers = entry["papers"]
            tip = "\n".join(f"{p['id']}: {p.get('title', '')[:80]} ({p.get('journal', '')}, {p.get('licence', '')})"
                            for p in papers[:20]) or entry["licence"]
            for column, text in enumerate((entry["split"], entry["suite"], entry["measures"], entry["took"])):
                item = QTableWidgetItem(text)
                item.setToolTip(f"{entry['measures']}\n\n{tip}" if column < 3 else text)
                item.setData(Qt.ItemDataRole.UserRole, (entry["split"], entry["suite"]))
                item.setData(Qt.ItemDataRole.UserRole + 1, entry["seconds"])  # what a run takes, for estimates
                self.bundled.setItem(row, column, item)

    def _bundled_chosen(self) -> None:
        items = self.bundled.selectedItems()
        if not items:
            return
        split, suite = items[0].data(Qt.ItemDataRole.UserRole)
        self.split.setEditText(split)
        index = self.suite.findData(suite)
        if index >= 0:
            self.suite.setCurrentIndex(index)

    def choose(self, split: str, suite: str) -> None:
        """Select the bundled row of ``split`` and ``suite`` (what a click on it does)."""
        for row in range(self.bundled.rowCount()):
            item = self.bundled.item(row, 0)
            if item is not None and item.data(Qt.ItemDataRole.UserRole) == (split, suite):
                self.bundled.selectRow(row)
                return
        raise KeyError(f"{split}:{suite} is not a bundled split")

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
        self._previous = self._last_history(suite, split)
        self._current = (out, split, engine)
        started = time.perf_counter()
        job = Job(f"Benchmark {suite} ({split}, {engine})", core.run_benchmark(suite, split, engine, out), kind="bench")
        took = self._time_item(split, suite)
        if took is not None:  # the job bar's first estimate: what a run with this engine took (table's data)
            expected = took.data(Qt.ItemDataRole.UserRole + 1)
            job.expected_s = expected.get(engine) if isinstance(expected, dict) else None
        self._running = (split, suite)
        self.time_left = ""
        self.window_.job_bar.estimateChanged.connect(self._estimate)
        job.signals.succeeded.connect(
            lambda result: self._done(out, result, suite, split, engine, time.perf_counter() - started))
        job.signals.progress.connect(self._progress)
        def failed(message: str) -> None:
            self.status.setText(f"Failed: {message}")
            self.window_.show_error(f"Benchmark failed: {message}")

        def cancelled(_partial: object) -> None:
            self.status.setText("Cancelled. Finished documents are kept; Run again to continue.")
            self.show_run(out, cancelled=True)

        job.signals.failed.connect(failed)
        job.signals.cancelled.connect(cancelled)
        job.signals.finished.connect(self._finished)
        self._job = job
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.progress.setRange(0, 0)
        self.progress.setVisible(True)
        self.status.setText("Running…")
        self.window_.start_job(job)
        return job

    def cancel(self) -> None:
        if self._job is not None:
            self._job.cancel()
            self.status.setText("Cancelling…")

    def _progress(self, done: int, total: int, what: str) -> None:
        if total > 0:
            self.progress.setRange(0, total)
            self.progress.setValue(min(done, total))
        self._progress_text = f"%v / %m {what}" if total > 0 else what
        self._show_progress_text()

    def _show_progress_text(self) -> None:
        text = getattr(self, "_progress_text", "")
        self.progress.setFormat(" · ".join(part for part in (text, self.time_left) if part))

    def _estimate(self, job: Job, left: str) -> None:
        """The job bar's estimate of the running benchmark, shown in this view's bar and in the Time
        column of its split (which otherwise says how long a whole run took)."""
        if job is not self._job:
            return
        self.time_left = left
        self._show_progress_text()
        took = self._time_item(*self._running)
        if took is not None:
            took.setText(f"running: {left}" if left else "running…")

    def _time_item(self, split: str, suite: str) -> QTableWidgetItem | None:
        """The Time cell of a bundled split's row (None: not a bundled split)."""
        for row in range(self.bundled.rowCount()):
            item = self.bundled.item(row, 0)
            if item is not None and item.data(Qt.ItemDataRole.UserRole) == (split, suite):
                return self.bundled.item(row, 3)
        return None

    def _finished(self) -> None:
        if self._job is not None:
            self.window_.job_bar.estimateChanged.disconnect(self._estimate)
        self._job = None
        self.time_left = ""
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.progress.setVisible(False)
        self.refresh_bundled()  # the Time column says how long runs take again

    def _done(self, out: Path, result: Any, suite: str = "", split: str = "", engine: str = "",
              seconds: float | None = None) -> None:
        run = Path(result) if isinstance(result, str | Path) and Path(result).is_dir() else out
        self.window_.remember_bench_run(run)
        if suite and split:
            self._remember(run, suite, split, engine, seconds)
        self.show_run(run)

    # ---- history and published numbers
    def _remember(self, run: Path, suite: str, split: str, engine: str, seconds: float | None) -> None:
        """Keep this run's headline numbers and time, for the next run's comparison and the Time column."""
        try:
            metrics = report.load_metrics(run)
        except Exception:  # noqa: BLE001 — a run without readable metrics has nothing to remember
            return
        stamp = time.strftime("%Y%m%d-%H%M%S")
        entry = {"engine": engine, "run": str(run), "when": stamp, "wall_s": round(seconds or 0.0, 1),
                 "metrics": report.headline(metrics)}
        write_json_atomic(history_dir(suite, split) / f"{stamp}-{engine}.json", entry)
        self.refresh_bundled()

    def _last_history(self, suite: str, split: str) -> dict[str, Any] | None:
        for entry in sorted(history_dir(suite, split).glob("*.json"), reverse=True):
            try:
                return json.loads(entry.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
        return None

    # ---- results
    def show_run(self, run: Path, *, cancelled: bool = False) -> Job:
        """Show a run's numbers and plots (read and drawn in a worker); ``cancelled``: the run was
        cancelled just now (its metrics say so too)."""
        self.run_dir = run
        job = Job(f"Loading {run.name}", core.load_run(run), kind="bench-view")
        job.signals.succeeded.connect(self._show_loaded)
        job.signals.failed.connect(lambda message: self.status.setText(f"{run.name}: {message}"))
        self.window_.start_job(job)
        return job

    def _identity(self, run: Path) -> tuple[str, str]:
        """(split name, engine) of a run: as started here, else as its metrics.json says."""
        current = getattr(self, "_current", None)
        if current is not None and current[0] == run:
            return current[1], current[2]
        try:
            metrics = json.loads((run / "metrics.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return "", ""
        engine = (metrics.get("settings") or {}).get("engine") or {}
        name = (engine.get("engine") or engine.get("name") or "") if isinstance(engine, dict) else engine
        return str(metrics.get("split") or ""), str(name)

    def comparisons(self, suite: str, split: str, engine: str) -> list[tuple[str, dict[str, Any]]]:
        """(column title, numbers) to show beside a run: the previous run of this suite and split (kept
        when the run started), and what the README publishes for it (this engine, else extractive)."""
        columns: list[tuple[str, dict[str, Any]]] = []
        previous = getattr(self, "_previous", None)
        if previous:
            columns.append((f"previous run ({previous.get('engine')}, {previous.get('when')})", previous["metrics"]))
        published = published_numbers().get(f"{split}:{suite}", {})
        chosen = engine if engine in published else ("extractive" if "extractive" in published else None)
        if chosen:
            columns.append((f"published ({chosen})", published[chosen].get("metrics", {})))
        return columns

    def _show_loaded(self, loaded: dict[str, Any]) -> None:
        run: Path = loaded["run"]
        rows = list(loaded["headline"].items())
        split, engine = self._identity(run)
        partial = bool(loaded.get("cancelled"))
        # a cancelled run's numbers cover the documents finished before the cancel: set beside a finished
        # run they would read as differences of quality, so it is shown alone, marked partial
        extra = self.comparisons(loaded["suite"], split, engine) if split and not partial else []
        title = f"{run.name} ({loaded['suite']})" + (" — partial: cancelled" if partial else "")
        self.table.setColumnCount(2 + len(extra))
        self.table.setHorizontalHeaderLabels(["Metric", title, *[t for t, _ in extra]])
        self.table.setRowCount(len(rows))
        for row, (key, value) in enumerate(rows):
            self.table.setItem(row, 0, metric_item(key))
            self.table.setItem(row, 1, value_item(value))
            for column, (_, numbers) in enumerate(extra, start=2):
                other = numbers.get(key)
                delta = value - other if isinstance(value, float) and isinstance(other, int | float) else None
                text = _shown(other) + (f" (this run {delta:+.3f})" if delta is not None else "")
                self.table.setItem(row, column, value_item(other, text))
        while self.plots_layout.count() > 1:
            taken = self.plots_layout.takeAt(0)
            plot = taken.widget() if taken is not None else None
            if plot is not None:
                plot.deleteLater()
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
        if partial:
            self.status.setText(f"{run}: cancelled, so its {len(rows)} numbers cover only the documents finished "
                                "before the cancel and are not compared with other runs. Run again to continue it.")
        else:
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
