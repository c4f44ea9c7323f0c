"""The window paints before the PDF library and the models' runtime load (issue 34): they are imported by
the warm-up job that the first paint starts, not by the window's module or its construction.

Each check runs a real offscreen window in a fresh interpreter: in this test process the GUI fixtures
have long imported PyMuPDF, so its sys.modules says nothing about what the window needs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import REPO_ROOT

HEAVY = ("fitz", "pymupdf", "onnxruntime")

# Notes which of HEAVY are imported after the window's module is imported, after the window is built, at
# its first paint, and once the warm-up job it starts has ended; prints them as one JSON line.
PROBE = r"""
import json, sys
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication

HEAVY = HEAVY_NAMES
def loaded():
    return sorted(name for name in HEAVY if name in sys.modules)

app = QApplication(["mmdocsum-desktop"])
from mmdocsum_desktop.gui.main_window import MainWindow

seen = {"after_import": loaded()}
window = MainWindow()
seen["after_init"] = loaded()


class FirstPaint(QObject):
    def eventFilter(self, watched, event):
        if watched is window and event.type() == QEvent.Type.Paint and "at_first_paint" not in seen:
            seen["at_first_paint"] = loaded()
        return False


def job_ended(job):
    if job.kind == "warm-up":
        seen["after_warm_up"] = loaded()
        app.quit()


first_paint = FirstPaint()
app.installEventFilter(first_paint)
window.runner.ended.connect(job_ended)
QTimer.singleShot(240_000, app.quit)  # a warm-up that never ends shows as a missing key below
window.show()
app.exec()
print("SEEN " + json.dumps(seen), flush=True)
window.close()  # and the interpreter's exit stops the page-rendering child the window started
""".replace("HEAVY_NAMES", repr(HEAVY))


def test_the_window_paints_before_pymupdf_and_onnxruntime_load_and_the_warm_up_loads_them(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO_ROOT)}
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=300,
                            env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = [line for line in result.stdout.splitlines() if line.startswith("SEEN ")]
    assert len(lines) == 1, result.stdout[-2000:] + result.stderr[-2000:]
    seen = json.loads(lines[0].removeprefix("SEEN "))
    assert seen["after_import"] == []
    assert seen["after_init"] == []
    assert seen["at_first_paint"] == []
    # the job the first paint starts imports the PDF reader and the runtime: the probe sees them load
    assert seen["after_warm_up"] == ["onnxruntime", "pymupdf"]
