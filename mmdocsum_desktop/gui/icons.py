"""The app's icons: the SVGs drawn for this project in ``mmdocsum_desktop/resources/icons/`` (see
make_icons.py there), found through importlib.resources so an installed wheel and a frozen bundle have
them too. A missing file gives an empty icon, never an error (the buttons keep their text)."""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path

from PySide6.QtGui import QIcon

APP_ID = "io.github.mmdocsum.Desktop"  # the desktop entry's name: lets the window manager match its icon
ICON_DIRS = (Path(str(resources.files("mmdocsum_desktop") / "resources" / "icons")),)


def icon_path(name: str) -> Path | None:
    for folder in ICON_DIRS:
        for suffix in (".svg", ".png"):
            candidate = folder / f"{name}{suffix}"
            if candidate.is_file():
                return candidate
    return None


@cache
def icon(name: str) -> QIcon:
    path = icon_path(name)
    return QIcon(str(path)) if path is not None else QIcon()


def app_icon() -> QIcon:
    """Every rendered size of the application icon, so small sizes use their own pixels rather than a
    downscaled 512-pixel image, and the SVG for any other size."""
    found = QIcon()
    for folder in ICON_DIRS:
        for png in sorted((folder / "hicolor").glob(f"*x*/apps/{APP_ID}.png")):
            found.addFile(str(png))
        scalable = folder / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg"
        if scalable.is_file():
            found.addFile(str(scalable))
    if found.isNull():
        svg = icon_path("app")
        if svg is not None:
            found.addFile(str(svg))
    return found
