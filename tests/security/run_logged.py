"""Run the app with everything a user could turn on to report a bug: every log record at DEBUG written
to ``MMDOCSUM_TEST_LOG_DIR/debug.log``, faulthandler writing to ``faulthandler.log`` there (on a crash,
on SIGUSR1, and every thread's stack at exit).

    python -m tests.security.run_logged cli ARGS…      the `mmdocsum` command
    python -m tests.security.run_logged gui-flows …    tests/security/gui_flows.py

``MMDOCSUM_TEST_CRASH_AFTER_KEY=SECONDS``: that long after the app has read an API key (and while it
uses it), the process crashes with SIGSEGV — faulthandler writes its crash dump, and the operating
system writes a core file if the core size limit lets it.
"""

from __future__ import annotations

import atexit
import faulthandler
import logging
import os
import signal
import sys
import threading
from pathlib import Path


def enable_logging() -> None:
    folder = Path(os.environ["MMDOCSUM_TEST_LOG_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(filename=folder / "debug.log", level=logging.DEBUG,
                        format="%(asctime)s %(process)d %(threadName)s %(name)s %(levelname)s %(message)s")
    logging.captureWarnings(True)
    dump = (folder / "faulthandler.log").open("a")  # kept open for the life of the process
    faulthandler.enable(file=dump, all_threads=True)
    faulthandler.register(signal.SIGUSR1, file=dump, all_threads=True)
    atexit.register(lambda: faulthandler.dump_traceback(file=dump, all_threads=True))
    logging.getLogger("tests.security").debug("argv %s", sys.argv)


def crash_after_key(seconds: float) -> None:
    """Crash (SIGSEGV) ``seconds`` after the first API key is read: with the key in memory, in use."""
    from mmdocsum_desktop.schemas import settings

    real = settings.get_api_key

    def get_api_key(key_name: str) -> str:
        value = real(key_name)
        timer = threading.Timer(seconds, lambda: os.kill(os.getpid(), signal.SIGSEGV))
        timer.daemon = True
        timer.start()
        return value

    settings.get_api_key = get_api_key  # before engines.factory imports it


def main(argv: list[str]) -> int:
    enable_logging()
    if os.environ.get("MMDOCSUM_TEST_CRASH_AFTER_KEY"):
        crash_after_key(float(os.environ["MMDOCSUM_TEST_CRASH_AFTER_KEY"]))
    what, rest = argv[0], argv[1:]
    if what == "cli":
        from mmdocsum_desktop.cli import main as cli_main

        return cli_main(rest)
    if what == "gui-flows":
        from tests.security.gui_flows import main as flows

        return flows(rest)
    raise SystemExit(f"unknown: {what}")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
