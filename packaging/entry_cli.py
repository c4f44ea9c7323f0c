"""Entry point of the frozen `mmdocsum` command (PyInstaller runs this file, not the console script)."""

import multiprocessing
import sys

if __name__ == "__main__":
    # a spawned worker of the frozen app starts this same executable; freeze_support routes it to the worker
    multiprocessing.freeze_support()
    from mmdocsum_desktop.cli import main

    sys.exit(main())
