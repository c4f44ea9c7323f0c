"""Ctrl-C sent to a running command at a moment its own output names, never after a guessed delay."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable


def interrupt_when(process: subprocess.Popen, ready: Callable[[str], bool], timeout_s: float = 240) -> tuple[str, str]:
    """Read the process's stderr until ``ready(text so far)``, then press Ctrl-C; returns what was read
    before and after the interrupt (the process has ended)."""
    received = ""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        char = process.stderr.read(1)
        if not char:
            break
        received += char
        if ready(received):
            process.send_signal(2)  # SIGINT, as the terminal sends it
            break
    return received, process.communicate(timeout=120)[1]
