"""Start-up times: `mmdocsum --version`, and the desktop app from process start to its window's first
paint (offscreen Qt), each the median of several runs in fresh processes.

    .venv/bin/python benchmarks/bench_startup.py [--runs 5] [-o benchmarks/results/startup.json]

The window is started through the app's own `main()`; a small driver installs an event filter that
notes the first paint of the main window and quits. Times include the interpreter's start and every
import, as a user clicking the menu entry waits for them. A fresh, empty HOME keeps settings and
recovery prompts out of it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

DRIVER = r"""
import os, sys, time
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow

started = float(os.environ["MMDOCSUM_BENCH_STARTED"])
app = QApplication(["mmdocsum-desktop"])

class FirstPaint(QObject):
    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Paint and isinstance(watched, QMainWindow):
            print(f"FIRST_PAINT {time.time() - started:.4f}", flush=True)
            QTimer.singleShot(0, app.quit)
            app.removeEventFilter(self)
        return False

paint = FirstPaint()
app.installEventFilter(paint)
from mmdocsum_desktop.gui.app import main
code = main(["--no-recover"])
os._exit(code)  # workers still loading models in the background need not finish
"""


def run_once(command: list[str], env: dict[str, str], marker: str | None) -> float:
    env = {**env, "MMDOCSUM_BENCH_STARTED": repr(time.time())}
    started = time.perf_counter()
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"{command[:3]} failed: {result.stderr[-800:]}")
    if marker is None:
        return elapsed
    for line in result.stdout.splitlines():
        if line.startswith(marker):
            return float(line.split()[1])
    raise SystemExit(f"no {marker} line in: {result.stdout[-400:]} {result.stderr[-400:]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("-o", "--output", type=Path, default=REPO / "benchmarks" / "results" / "startup.json")
    args = parser.parse_args()
    bin_dir = Path(sys.executable).parent
    with tempfile.TemporaryDirectory(prefix="mmdocsum-startup-") as home:
        env = {**os.environ, "HOME": home, "XDG_CONFIG_HOME": f"{home}/.config", "XDG_DATA_HOME": f"{home}/.local/share",
               "XDG_CACHE_HOME": f"{home}/.cache", "XDG_STATE_HOME": f"{home}/.local/state",
               "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO)}
        cli = [str(bin_dir / "mmdocsum"), "--version"]
        run_once(cli, env, None)  # the first start fills the OS file cache; it is not counted
        version = [run_once(cli, env, None) for _ in range(args.runs)]
        gui = [sys.executable, "-c", DRIVER]
        run_once(gui, env, "FIRST_PAINT")
        paint = [run_once(gui, env, "FIRST_PAINT") for _ in range(args.runs)]
    load = os.getloadavg()[0]
    result = {
        "mmdocsum_version_s": {"median": round(statistics.median(version), 3), "runs": [round(v, 3) for v in version]},
        "gui_first_paint_s": {"median": round(statistics.median(paint), 3), "runs": [round(v, 3) for v in paint]},
        "load_average_1min": round(load, 2),
        "cpus": os.cpu_count(),
        "what": "fresh processes, warm file cache, offscreen Qt, empty HOME",
    }
    from mmdocsum_desktop.fileio import write_json_atomic

    write_json_atomic(args.output, result)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
