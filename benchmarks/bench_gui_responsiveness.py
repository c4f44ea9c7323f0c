"""Is the GUI thread ever blocked? A 10 ms QTimer heartbeat on the GUI thread records the largest gap
between two beats while the real window (offscreen) opens ../shared/corpus/papers/mineru_demo1.pdf,
summarizes it (the configured engine; extractive on a fresh install), exports it, and runs the demo
benchmark. Goal: no gap over 100 ms.

    .venv/bin/python benchmarks/bench_gui_responsiveness.py [--paper PATH] [--suite mdocsum] [--split demo]

Prints one line per phase and writes benchmarks/results/gui_responsiveness.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
PAPER = (Path(os.environ.get("MMDOCSUM_CORPUS") or REPO / ".." / "shared" / "corpus") / "papers" / "mineru_demo1.pdf").resolve()
BEAT_MS = 10
GOAL_MS = 100


class Heartbeat:
    """The beat's gaps, and where the GUI thread was during the longest one: a watcher thread samples the
    GUI thread's Python stack while a beat is overdue (STALL_SAMPLE_MS late), so a stall names its code."""

    STALL_SAMPLE_MS = 40

    def __init__(self) -> None:
        import threading

        from PySide6.QtCore import QTimer

        self.timer = QTimer()
        self.timer.setInterval(BEAT_MS)
        self.timer.timeout.connect(self._beat)
        self.gaps: list[float] = []
        self.last = time.perf_counter()
        self.gui_thread = threading.get_ident()
        self.stall_stack: list[str] = []
        self._stall_seen_ms = 0.0
        self._watching = False

    def start(self) -> None:
        import threading

        self.gaps = []
        self.stall_stack = []
        self._stall_seen_ms = 0.0
        self.last = time.perf_counter()
        self.timer.start()
        self._watching = True
        threading.Thread(target=self._watch, daemon=True).start()

    def _watch(self) -> None:
        import threading
        import traceback

        while self._watching:
            time.sleep(0.01)
            late_ms = (time.perf_counter() - self.last) * 1000.0
            if late_ms > self.STALL_SAMPLE_MS and late_ms > self._stall_seen_ms:
                frames = sys._current_frames()
                frame = frames.get(self.gui_thread)
                if frame is not None:
                    self._stall_seen_ms = late_ms
                    self.stall_stack = [line.rstrip() for line in traceback.format_stack(frame)[-8:]]
                    # a GUI thread waiting inside Qt's loop is usually waiting for the GIL: what holds it
                    for ident, other in frames.items():
                        if ident not in (self.gui_thread, threading.get_ident()):
                            self.stall_stack.append(f"-- thread {ident}:")
                            self.stall_stack += [line.rstrip() for line in traceback.format_stack(other)[-4:]]

    def _beat(self) -> None:
        now = time.perf_counter()
        self.gaps.append((now - self.last) * 1000.0)
        self.last = now

    def stop(self) -> dict:
        self.timer.stop()
        self._watching = False
        gaps = sorted(self.gaps)
        if not gaps:
            return {"beats": 0}
        return {
            "longest_stall_stack": self.stall_stack,
            "beats": len(gaps),
            "max_gap_ms": round(gaps[-1], 1),
            "p99_gap_ms": round(gaps[int(0.99 * (len(gaps) - 1))], 1),
            "median_gap_ms": round(statistics.median(gaps), 1),
            "gaps_over_100ms": sum(1 for g in gaps if g > GOAL_MS),
            "gaps_over_50ms": sum(1 for g in gaps if g > 50),
        }


def run_until(signal_or_done, timeout_s: float) -> float:
    """Spin the event loop until the callable returns True; returns seconds taken."""
    from PySide6.QtCore import QEventLoop, QTimer

    started = time.perf_counter()
    loop = QEventLoop()
    poll = QTimer()
    poll.setInterval(20)
    poll.timeout.connect(lambda: (signal_or_done() or time.perf_counter() - started > timeout_s) and loop.quit())
    poll.start()
    loop.exec()
    poll.stop()
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--paper", type=Path, default=PAPER)
    parser.add_argument("--suite", default="mdocsum")
    parser.add_argument("--split", default="demo")
    parser.add_argument("--engine", default="extractive", help="engine for the benchmark phase")
    parser.add_argument("--cold", action="store_true", help="start with an empty model cache")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "gui_responsiveness.json")
    args = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="mmdocsum-gui-bench-"))
    for key in ("MMDOCSUM_CONFIG_DIR", "MMDOCSUM_WORKSPACES_DIR"):
        os.environ.setdefault(key, str(scratch / key.lower()))
    if args.cold:  # no cached embeddings or OCR results: what a first run costs
        os.environ["MMDOCSUM_CACHE_DIR"] = str(scratch / "cache")
    from PySide6.QtWidgets import QApplication

    _app = QApplication.instance() or QApplication([])  # kept alive for the run
    from mmdocsum_desktop.gui.main_window import MainWindow
    from mmdocsum_desktop.gui.prefs import GuiPrefs

    heart = Heartbeat()
    results: dict[str, dict] = {}
    heart.start()
    started = time.perf_counter()
    window = MainWindow(prefs=GuiPrefs())  # starts the warm-up job (imports) in the background
    window.ask_save_changes = lambda: "discard"
    window.resize(1440, 900)
    window.show()
    run_until(lambda: not window.runner.running("warm-up"), 120)
    stats = heart.stop()
    stats["seconds"] = round(time.perf_counter() - started, 2)
    stats["note"] = "window construction on the GUI thread, then module imports in a worker"
    results["start-up"] = stats
    print(f"{'start-up':<22} {stats['seconds']:>6.1f} s  largest gap {stats['max_gap_ms']:>6.1f} ms", flush=True)

    def phase(name: str, start, done, timeout_s: float = 600.0) -> None:
        heart.start()
        job = start()
        if job is None:
            results[name] = {"error": window.banner.text or "did not start"}
            heart.stop()
            return
        seconds = run_until(lambda: done(job), timeout_s)
        stats = heart.stop()
        stats["seconds"] = round(seconds, 2)
        stats["state"] = getattr(job, "state", "?")
        if getattr(job, "error", None):
            stats["error"] = job.error
        results[name] = stats
        print(f"{name:<22} {stats.get('seconds', 0):>6.1f} s  largest gap {stats.get('max_gap_ms', 0):>6.1f} ms  "
              f"p99 {stats.get('p99_gap_ms', 0):>5.1f} ms  gaps>100ms {stats.get('gaps_over_100ms', 0)}  "
              f"[{stats['state']}]", flush=True)

    phase("open document", lambda: window.open_path(args.paper), lambda job: job.delivered)
    run_until(lambda: window.document_view.rendered_page == 1, 10)
    phase("summarize", window.summarize, lambda job: job.delivered and window.summary_view.filled)
    phase("export html+pdf", lambda: window.export("pdf", scratch / "s.pdf"), lambda job: job.delivered)
    phase("page through", lambda: _page_through(window), lambda job: job())
    window.tabs.setCurrentWidget(window.bench_view)
    window.bench_view.split.setEditText(args.split)
    window.bench_view.suite.setCurrentIndex(max(0, window.bench_view.suite.findData(args.suite)))
    window.bench_view.engine.setCurrentText(args.engine)
    phase(f"benchmark {args.suite}/{args.split}", window.bench_view.run, lambda job: job.delivered, timeout_s=900)

    worst = max((r.get("max_gap_ms", 0) for n, r in results.items() if n != "start-up"), default=0)
    payload = {
        "what": "largest gap between 10 ms heartbeats on the GUI thread, per phase (offscreen platform)",
        "goal_ms": GOAL_MS,
        "worst_gap_ms": worst,
        "worst_gap_ms_note": "over the phases after start-up; start-up (window, then imports and the text "
                             "embedder loading in a worker) is listed on its own",
        "paper": args.paper.name,
        "cache": "cold (empty embedding cache)" if args.cold else "as found (warm after a first run)",
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        "phases": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    print(f"worst gap after start-up {worst:.1f} ms (goal ≤ {GOAL_MS} ms); start-up "
          f"{results['start-up'].get('max_gap_ms', 0):.1f} ms; written {args.out}")
    window.dirty = False
    window.close()
    return 0


def _page_through(window):
    """Flip through every page (rendering happens in a worker) and zoom in once."""
    view = window.document_view
    pages = list(range(1, view.page_count + 1))

    def step():
        if pages:
            view.show_page(pages.pop(0))
            return False
        return view.rendered_page == view.current_page

    from PySide6.QtCore import QTimer

    timer = QTimer()
    timer.setInterval(60)
    state = {"done": False}

    def tick():
        state["done"] = step()
        if state["done"]:
            timer.stop()

    timer.timeout.connect(tick)
    timer.start()
    window._page_timer = timer  # keep it alive
    return lambda: state["done"]


if __name__ == "__main__":
    raise SystemExit(main())
