"""SIGKILL in the middle of a summary and of a benchmark (the real commands, in their own processes,
killed at several moments of their run): the output a summary writes is whole or absent, never partial;
a benchmark's folder holds only whole files; running the same command again finishes — the benchmark
resuming what was done — with the same result as a run that was never interrupted."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import SAMPLE_PDF
from tests.security.conftest import AppHome


def _start(app: AppHome, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "mmdocsum_desktop", *args], cwd=app.cwd, env=app.env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _kill_when(process: subprocess.Popen, condition, delay: float, timeout: float = 120) -> bool:
    """SIGKILL ``delay`` seconds after ``condition()`` holds; False if the command finished first."""
    deadline = time.monotonic() + timeout
    while not condition():
        if process.poll() is not None:
            return False
        assert time.monotonic() < deadline, "the command never got there"
        time.sleep(0.005)
    try:
        process.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        assert process.returncode == -signal.SIGKILL
        return True
    return False


def test_a_killed_summary_leaves_no_partial_output_and_runs_again(tmp_path):
    app = AppHome.make(tmp_path / "app")
    paper = str(SAMPLE_PDF)  # 14 pages, 5 figures and a table: crops to interrupt
    done = app.run("summarize", paper, "-o", "reference/summary.md", "--quiet")  # never interrupted
    assert done.returncode == 0, done.stderr[-2000:]
    reference = (app.cwd / "reference" / "summary.md").read_text()
    assert reference.count("\n## ") == 4

    target = app.cwd / "out" / "summary.md"
    assets = target.parent / "summary_files"
    target.parent.mkdir()
    rng = random.Random(11)
    moments = [  # while it starts, while it writes the figure crops, while it summarises
        (lambda: True, rng.uniform(0.3, 1.5)),
        (lambda: len(list((assets / "figures").glob("*.png"))) >= 3, rng.uniform(0.0, 0.05)),
        (lambda: (assets / "document.json").exists(), rng.uniform(0.1, 1.0)),
    ]
    killed = 0
    for condition, delay in moments:
        if assets.exists():
            shutil.rmtree(assets)  # each run starts from nothing, so that every stage is reached again
        process = _start(app, "summarize", paper, "-o", str(target), "--quiet")
        killed += _kill_when(process, condition, delay)
        # the output is the whole summary or not there at all; no partial-work file is left either
        assert not target.exists() or target.read_text() == reference
        assert not target.with_name(target.name + ".partial.json").exists()
        # nothing else that looks like output (an unfinished atomic write is a hidden .tmp file)
        # (summary_images/ holds the Markdown's figures: it is output only beside a finished summary.md)
        finished = ("summary.md", "summary_images") if target.exists() else ()
        assert not [p.name for p in target.parent.iterdir()
                    if p.name not in (*finished, "summary_files") and not p.name.startswith(".")]
        if (assets / "document.json").exists():
            json.loads((assets / "document.json").read_text())
    assert killed >= 2, "the summary finished before most kills: nothing was tested"
    done = app.run("summarize", paper, "-o", str(target), "--quiet")
    assert done.returncode == 0, done.stderr[-2000:]
    assert target.read_text() == reference


def _comparable(metrics: dict) -> dict:
    """The metrics without what differs between any two runs (timings, dates)."""
    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in ("timings", "seconds", "created")}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return strip(metrics)


def _whole_files(folder: Path) -> int:
    """Every JSON file of a run folder parses (atomic writes); returns how many predictions there are."""
    for path in folder.rglob("*.json"):
        json.loads(path.read_text(encoding="utf-8"))
    predictions = list((folder / "predictions").glob("*.json")) if (folder / "predictions").is_dir() else []
    for path in predictions:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert data["id"] == path.stem and len(data["answer"]) == 4, path
    return len(predictions)


def test_a_killed_benchmark_resumes_to_the_same_metrics(tmp_path):
    app = AppHome.make(tmp_path / "app")
    done = app.run("bench", "mdocsum", "-o", "reference", "--quiet")  # never interrupted
    assert done.returncode == 0, done.stderr[-2000:]
    reference = json.loads((app.cwd / "reference" / "metrics.json").read_text())
    assert reference["n_docs"] == 5 and reference["timings"]["processed"] == 5

    out = app.cwd / "out"
    predictions = out / "predictions"
    rng = random.Random(5)

    def finished() -> int:
        return len(list(predictions.glob("*.json"))) if predictions.is_dir() else 0

    moments = [  # while it starts, in the middle of documents, while it writes the metrics and reports
        (lambda: True, rng.uniform(0.3, 1.5)),
        (lambda: finished() >= 1, rng.uniform(0.0, 0.3)),
        (lambda: finished() >= 3, rng.uniform(0.0, 0.3)),
        (lambda: finished() >= 5, rng.uniform(0.0, 0.2)),
    ]
    killed = 0
    for condition, delay in moments:
        process = _start(app, "bench", "mdocsum", "-o", str(out), "--quiet")
        killed += _kill_when(process, condition, delay)
        _whole_files(out)
    assert killed >= 3, "the benchmark finished before most kills: nothing was tested"
    before = _whole_files(out)
    done = app.run("bench", "mdocsum", "-o", str(out), "--quiet")
    assert done.returncode == 0, done.stderr[-2000:]
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["timings"]["resumed"] == before and metrics["timings"]["processed"] == 5 - before
    assert _whole_files(out) == 5
    assert _comparable(metrics) == _comparable(reference)
