"""Start-up cost: `mmdocsum --help`, importing the window's module, and the desktop app from process start
to its window's first paint (offscreen Qt), beside `python -c pass` as the floor no change can go below.

    .venv/bin/python benchmarks/bench_startup.py [--runs 3] [-o benchmarks/results/startup.json]

Each case runs in fresh processes, one at a time; the first run of each fills the OS file cache and is not
counted. For each run the script records the child's CPU seconds (user + sys, from
``resource.getrusage(RUSAGE_CHILDREN)`` before and after it is waited for) and its wall seconds, and
reports the median of each. CPU seconds are the number to compare: on a shared machine other processes
stretch the wall time, not the CPU time a start costs. The targets (issue 34): `mmdocsum --help` at most
0.6 CPU-s and `import mmdocsum_desktop.gui.main_window` at most 1.2 CPU-s.

The window is started through the app's own `main()`; a small driver installs an event filter that notes
the first paint of the main window and quits (its CPU time includes closing the window, not the models the
warm-up job would load after the paint; the page-rendering child process the window starts is not counted,
as nothing waits for it). A fresh, empty HOME keeps settings and recovery prompts out of it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mmdocsum_desktop.fileio import write_json_atomic  # noqa: E402 — after the repository is on sys.path

TARGETS_CPU_S = {"mmdocsum_help": 0.6, "import_main_window": 1.2}

FIRST_PAINT_DRIVER = r"""
import os, sys, time
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow

started = float(os.environ["MMDOCSUM_BENCH_STARTED"])
app = QApplication(["mmdocsum-desktop"])

class FirstPaint(QObject):
    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Paint and isinstance(watched, QMainWindow):
            print(f"FIRST_PAINT {time.time() - started:.4f}", flush=True)
            QTimer.singleShot(0, app.quit)  # closes the window, which stops the children it started
            app.removeEventFilter(self)
        return False

paint = FirstPaint()
app.installEventFilter(paint)
from mmdocsum_desktop.gui.app import main
os._exit(main(["--no-recover"]))  # workers still loading models in the background need not finish
"""


def run_once(command: list[str], env: dict[str, str]) -> tuple[float, float, float | None]:
    """(CPU seconds of the child and of the children it waited for, wall seconds until it exited, wall
    seconds until its first paint when it reports one)."""
    env = {**env, "MMDOCSUM_BENCH_STARTED": repr(time.time())}
    # output goes to files, not pipes: a child process the app left behind would hold a pipe open and
    # make this wait for it
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        returncode = subprocess.run(command, env=env, stdout=out, stderr=err, timeout=300, check=False).returncode
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if returncode != 0:
        raise SystemExit(f"{' '.join(command[:3])} failed ({returncode}): {stderr[-800:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    paint = [float(line.split()[1]) for line in stdout.splitlines() if line.startswith("FIRST_PAINT ")]
    return cpu, wall, (paint[0] if paint else None)


def measure(command: list[str], env: dict[str, str], runs: int) -> dict[str, object]:
    run_once(command, env)  # fills the OS file cache and writes .pyc files; not counted
    cpu, wall, paint = [], [], []
    for _ in range(runs):
        cpu_s, wall_s, paint_s = run_once(command, env)
        cpu.append(cpu_s)
        wall.append(wall_s)
        if paint_s is not None:
            paint.append(paint_s)
    result: dict[str, object] = {
        "cpu_s": round(statistics.median(cpu), 3),
        "wall_s": round(statistics.median(wall), 3),
        "cpu_runs": [round(value, 3) for value in cpu],
        "wall_runs": [round(value, 3) for value in wall],
    }
    if paint:
        result["first_paint_wall_s"] = round(statistics.median(paint), 3)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-window", action="store_true", help="skip the first-paint case (the slowest)")
    parser.add_argument("-o", "--output", type=Path, default=REPO / "benchmarks" / "results" / "startup.json")
    args = parser.parse_args()
    python = sys.executable
    mmdocsum = str(Path(python).parent / "mmdocsum")
    cases = {
        "python_pass": [python, "-c", "pass"],
        "mmdocsum_help": [mmdocsum, "--help"],
        "mmdocsum_version": [mmdocsum, "--version"],
        "import_main_window": [python, "-c", "import mmdocsum_desktop.gui.main_window"],
    }
    if not args.no_window:
        cases["window_first_paint"] = [python, "-c", FIRST_PAINT_DRIVER]
    results: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory(prefix="mmdocsum-startup-") as home:
        env = {**os.environ, "HOME": home, "XDG_CONFIG_HOME": f"{home}/.config",
               "XDG_DATA_HOME": f"{home}/.local/share", "XDG_CACHE_HOME": f"{home}/.cache",
               "XDG_STATE_HOME": f"{home}/.local/state", "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO)}
        for name, command in cases.items():
            results[name] = measure(command, env, args.runs)
            floor = results["python_pass"]
            paint = results[name].get("first_paint_wall_s")
            print(f"{name:20s} cpu {results[name]['cpu_s']:6.3f} s  wall {results[name]['wall_s']:6.3f} s"
                  + (f" (painted at {paint:.3f} s)" if paint is not None else "")
                  + f"   (floor: python -c pass cpu {floor['cpu_s']:.3f} s, wall {floor['wall_s']:.3f} s)", flush=True)
    report = {
        "cases": results,
        "targets_cpu_s": TARGETS_CPU_S,
        "within_targets": {name: results[name]["cpu_s"] <= limit for name, limit in TARGETS_CPU_S.items()},
        "runs": args.runs,
        "statistic": "median",
        "load_average_1min": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
        "python": sys.version.split()[0],
        "what": "fresh processes, warm file cache, offscreen Qt, empty HOME; cpu_s = user+sys of the child",
    }
    write_json_atomic(args.output, report)
    print(json.dumps(report["within_targets"]), f"-> {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
