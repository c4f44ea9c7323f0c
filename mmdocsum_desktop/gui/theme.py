"""Light and dark: the window follows the system's colour scheme, or the one chosen in Settings ▸ Appearance.

Qt 6.5+ tells the system's scheme (``QStyleHints.colorScheme``, and ``colorSchemeChanged`` when the user
switches); Qt 6.8+ can ask the platform for a scheme (``setColorScheme``). The platform's own dark palette
is not everywhere (the offscreen and some X11 platforms have none), so the app sets a dark palette of
its own under the Fusion style whenever the scheme it shows is dark: what the user chose is what they
see on every platform. The reader's pages can be inverted in dark mode (white text on black, as Okular
and Sioyek do); the page images themselves are left as they are otherwise, photographs included.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Literal

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory

if TYPE_CHECKING:
    from mmdocsum_desktop.gui.main_window import MainWindow

Theme = Literal["system", "light", "dark"]
THEMES: dict[str, str] = {"system": "As the system", "light": "Light", "dark": "Dark"}

_state: dict[str, object] = {"choice": "system", "connected": False, "style": None, "windows": []}


def system_scheme() -> Literal["light", "dark"]:
    """The system's colour scheme as Qt knows it ("light" when it does not say)."""
    app = QGuiApplication.instance()
    if not isinstance(app, QGuiApplication):
        return "light"
    return "dark" if app.styleHints().colorScheme() == Qt.ColorScheme.Dark else "light"


def effective(choice: str) -> Literal["light", "dark"]:
    """The scheme the window shows for a choice of Settings ▸ Appearance."""
    if choice == "dark":
        return "dark"
    if choice == "light":
        return "light"
    return system_scheme()


def dark_palette() -> QPalette:
    palette = QPalette()
    colours = {
        QPalette.ColorRole.Window: "#2b2d31", QPalette.ColorRole.WindowText: "#e6e6e6",
        QPalette.ColorRole.Base: "#1f2023", QPalette.ColorRole.AlternateBase: "#2b2d31",
        QPalette.ColorRole.ToolTipBase: "#3a3c41", QPalette.ColorRole.ToolTipText: "#e6e6e6",
        QPalette.ColorRole.Text: "#e6e6e6", QPalette.ColorRole.Button: "#35373c",
        QPalette.ColorRole.ButtonText: "#e6e6e6", QPalette.ColorRole.BrightText: "#ff6b6b",
        QPalette.ColorRole.Link: "#7fb2ff", QPalette.ColorRole.Highlight: "#3d6fb4",
        QPalette.ColorRole.HighlightedText: "#ffffff", QPalette.ColorRole.PlaceholderText: "#9a9a9a",
    }
    for role, colour in colours.items():
        palette.setColor(role, QColor(colour))
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor("#7a7a7a"))
    return palette


def apply(choice: str) -> Literal["light", "dark"]:
    """Show the app in ``choice`` ("system", "light", "dark") and return the scheme now shown. With
    "system" it follows the system's changes from now on."""
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return "light"
    _state["choice"] = choice if choice in THEMES else "system"
    hints = app.styleHints()
    if not _state["connected"]:
        hints.colorSchemeChanged.connect(_system_changed)
        _state["connected"] = True
    # ask the platform too (Qt 6.8+): native dialogs and title bars follow where it can
    if hasattr(hints, "setColorScheme"):
        if choice == "dark":
            hints.setColorScheme(Qt.ColorScheme.Dark)
        elif choice == "light":
            hints.setColorScheme(Qt.ColorScheme.Light)
        elif hasattr(hints, "unsetColorScheme"):
            hints.unsetColorScheme()
    return _show(effective(str(_state["choice"])))


def _show(scheme: Literal["light", "dark"]) -> Literal["light", "dark"]:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    if scheme == "dark":
        if _state["style"] is None:
            _state["style"] = app.style().name()  # the platform's style, for going back to light
            app.setStyle(QStyleFactory.create("Fusion"))  # it draws every widget from the palette
        app.setPalette(dark_palette())
    elif _state["style"] is not None:  # back from dark: the platform's style and palette (else untouched)
        app.setStyle(QStyleFactory.create(str(_state["style"])) or QStyleFactory.create("Fusion"))
        app.setPalette(app.style().standardPalette())
        _state["style"] = None
    windows = _state["windows"]
    assert isinstance(windows, list)
    for ref in list(windows):
        window = ref()
        if window is None:
            windows.remove(ref)
        else:
            _follow(window, scheme)
    return scheme


def _system_changed(scheme: Qt.ColorScheme) -> None:
    if _state["choice"] == "system":
        _show("dark" if scheme == Qt.ColorScheme.Dark else "light")


def _follow(window: MainWindow, scheme: str) -> None:
    try:
        window.document_view.set_inverted(scheme == "dark" and window.prefs.invert_pages)
    except RuntimeError:  # its widgets are gone (closed and deleted); the weak reference goes with it
        pass


def apply_to(window: MainWindow) -> Literal["light", "dark"]:
    """The window's appearance from its preferences (at start and after Settings): the app's scheme, and
    its reader's pages inverted when dark and asked for. The window then follows the system's changes."""
    windows = _state["windows"]
    assert isinstance(windows, list)
    if not any(ref() is window for ref in windows):
        windows.append(weakref.ref(window))  # weak: a closed window is not kept alive by its theme
    return apply(window.prefs.theme)


def is_dark() -> bool:
    """Whether the app shows the dark scheme now (views with colours of their own ask)."""
    app = QApplication.instance()
    return isinstance(app, QApplication) and app.palette().color(QPalette.ColorRole.Window).lightness() < 128
