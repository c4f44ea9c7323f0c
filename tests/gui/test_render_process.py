"""The reader's render child (gui/render_process.py) ends when the window's process is killed, instead of
waiting on its queue for ever (real processes: a window stand-in, its spawned child, SIGKILL)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

# a window's process, reduced to what matters: the render child started, its pid printed, then waiting
_WINDOW = """
import os, time
from mmdocsum_desktop.gui import render_process
render_process.warm()
print(render_process._executor().submit(os.getpid).result(), flush=True)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    """Running (a zombie nobody reaped yet has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="processes are looked up in /proc")
def test_the_render_child_ends_when_the_window_is_killed():
    window = subprocess.Popen([sys.executable, "-c", _WINDOW], stdout=subprocess.PIPE, text=True)
    try:
        child = int(window.stdout.readline())
        assert child != window.pid and _alive(child)
        os.kill(window.pid, signal.SIGKILL)
        window.wait(timeout=30)
        deadline = time.monotonic() + 30
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _alive(child)
    finally:
        window.kill()
        window.wait(timeout=30)
        window.stdout.close()
