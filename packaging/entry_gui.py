"""Entry point of the frozen `mmdocsum-desktop` app (PyInstaller runs this file, not the gui script)."""

import multiprocessing
import sys

if __name__ == "__main__":
    # benchmark jobs run in spawned children, which start this same executable; freeze_support routes them
    multiprocessing.freeze_support()
    from mmdocsum_desktop.gui.app import main

    sys.exit(main())
