"""The app's icons: the SVGs drawn for this project in ``mmdocsum_desktop/resources/icons/`` (see
make_icons.py there), found through importlib.resources so an installed wheel and a frozen bundle have
them too. A missing file gives an empty icon, never an error (the buttons keep their text).

The icons are drawn in the ink of the scheme shown when they are painted: their dark blue ink becomes a
light blue in dark mode (issue 46, item 6), so icons created before the user switches stay visible; the
accent colours (orange, red) read on both."""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path

from PySide6.QtCore import QByteArray, QPoint, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QIcon, QIconEngine, QImage, QPainter, QPalette, QPixmap
from PySide6.QtWidgets import QApplication

APP_ID = "io.github.mmdocsum.Desktop"  # the desktop entry's name: lets the window manager match its icon
ICON_DIRS = (Path(str(resources.files("mmdocsum_desktop") / "resources" / "icons")),)


def icon_path(name: str) -> Path | None:
    for folder in ICON_DIRS:
        for suffix in (".svg", ".png"):
            candidate = folder / f"{name}{suffix}"
            if candidate.is_file():
                return candidate
    return None


INK = "#2b4a7a"  # the icons' line colour (make_icons.py)
DARK_INK = "#a9c8f5"  # the same lines on a dark window


def dark_scheme() -> bool:
    """Whether the app shows a dark palette now (the window's background is dark)."""
    app = QApplication.instance()
    return isinstance(app, QApplication) and app.palette().color(QPalette.ColorRole.Window).lightness() < 128


class ThemedSvgIcon(QIconEngine):
    """An SVG icon drawn at paint time in the ink of the scheme shown (see the module's docstring)."""

    def __init__(self, svg: bytes) -> None:
        super().__init__()
        self.svg = svg
        self._dark = svg.replace(INK.encode(), DARK_INK.encode())
        self._cache: dict[tuple[int, int, bool, int], QPixmap] = {}

    def _renderer(self, dark: bool):
        from PySide6.QtSvg import QSvgRenderer  # lazy: QtSvg loads with the first icon painted

        return QSvgRenderer(QByteArray(self._dark if dark else self.svg))

    def paint(self, painter: QPainter, rect: QRect, mode: QIcon.Mode, state: QIcon.State) -> None:
        painter.drawPixmap(rect, self.pixmap(rect.size(), mode, state))

    def pixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QPixmap:
        dark = dark_scheme()
        key = (size.width(), size.height(), dark, int(mode.value))
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        image = QImage(size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        if mode == QIcon.Mode.Disabled:
            painter.setOpacity(0.4)
        self._renderer(dark).render(painter, QRectF(QPoint(0, 0), size.toSizeF()))
        painter.end()
        pixmap = QPixmap.fromImage(image)
        self._cache[key] = pixmap
        return pixmap

    def actualSize(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QSize:  # noqa: N802 (Qt's name)
        return size

    def clone(self) -> QIconEngine:
        return ThemedSvgIcon(self.svg)


@cache
def icon(name: str) -> QIcon:
    path = icon_path(name)
    if path is None:
        return QIcon()
    if path.suffix == ".svg":
        try:
            return QIcon(ThemedSvgIcon(path.read_bytes()))
        except OSError:
            return QIcon()
    return QIcon(str(path))


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
