"""The window's side of `mmdocsum-desktop`: the Qt application, then the main window or a screenshot.

``gui/app.py`` (the entry point) parses the command line and refuses what cannot work before anything
here is imported; this module imports Qt and the window.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication

from mmdocsum_desktop.gui import icons
from mmdocsum_desktop.gui.main_window import MainWindow
from mmdocsum_desktop.gui.screenshot import take_screenshot


def run(file: Path | None, *, screenshot: Path | None = None, size: str = "1440x900", recover: bool = True) -> int:
    """Open the window (``file`` opened in it, unsaved work offered back), or with ``screenshot`` save a
    picture of the window with ``file``'s summary; returns the exit status."""
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(
        [sys.argv[0] if sys.argv else "mmdocsum-desktop"])
    app.setApplicationName("mmdocsum-desktop")
    app.setOrganizationName("mmdocsum")
    app.setDesktopFileName(icons.APP_ID)  # on Wayland the compositor finds the icon through the desktop entry
    app.setWindowIcon(icons.app_icon())
    if screenshot is not None:
        assert file is not None  # the entry point refuses --screenshot without a FILE
        return take_screenshot(file, screenshot, size=size)
    window = MainWindow()
    window.show()
    if recover:
        window.offer_recovery()
    if file is not None:
        window.open_path(file)
    return app.exec()
