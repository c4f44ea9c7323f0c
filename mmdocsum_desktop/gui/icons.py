"""The app's icons: the SVGs drawn for this project in ``resources/icons/`` (see make_icons.py there).
A missing file gives an empty icon, never an error (the buttons keep their text)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from PySide6.QtGui import QIcon

ICON_DIRS = (Path(__file__).resolve().parents[2] / "resources" / "icons",)


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
    found = QIcon()
    for folder in ICON_DIRS:
        png = folder / "mmdocsum-desktop.png"
        if png.is_file():
            found.addFile(str(png))
    svg = icon_path("app")
    if svg is not None:
        found.addFile(str(svg))
    return found
