"""The window's one-line messages: the dismissible banner, and the core's words as the window says them."""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget

# The core's messages name command-line flags; in the window they name the setting to change instead.
_FLAG_WORDS = (
    (re.compile(r"(?:give )?--model PATH"), "choose a model in Settings ▸ Local model"),
    (re.compile(r"--base-url(?: URL)?"), "the server address (Settings ▸ Server)"),
    (re.compile(r"--api-key-name(?: NAME)?"), "the API key (Settings ▸ Server)"),
    (re.compile(r"--api-model(?: NAME)?"), "the server's model (Settings ▸ Server)"),
    (re.compile(r"--mmproj(?: PATH)?"), "a vision projector (Settings ▸ Local model)"),
    (re.compile(r"--model(?: PATH)?"), "a model (Settings ▸ Local model)"),
)


# what a PDF library says in brackets after the reader's own words: a path, "filename=", its phrasing
_LIBRARY_WORDS = re.compile(r"\s*\((?:[^()]*?(?:filename=|Failed to open|Cannot open|format error|code=|'/)[^()]*)\)")


def open_failure_text(path: Path, message: str) -> str:
    """"Could not open NAME: what is wrong." — the file named once, in the reader's words, not the
    library's ("broken.pdf: broken.pdf: ...", "(Cannot open empty file: filename='/tmp/...')")."""
    message = message.strip()
    for prefix in (f"{path}: ", f"{path.name}: "):
        while message.startswith(prefix):
            message = message[len(prefix):]
    message = _LIBRARY_WORDS.sub("", message).strip().rstrip(".")
    try:
        empty = path.is_file() and path.stat().st_size == 0
    except OSError:
        empty = False
    if empty:
        message = "the file is empty"
    return f"Could not open {path.name}: {message or 'it is not a document this app can read'}."


def counted(number: int, noun: str) -> str:
    """"1 table", "3 tables", "no figures"."""
    return f"{number} {noun}" if number == 1 else f"{number or 'no'} {noun}s"


def window_words(message: str) -> str:
    """A core message as the window says it: settings, not command-line flags."""
    for pattern, words in _FLAG_WORDS:
        message = pattern.sub(words, message)
    return message


class ErrorBanner(QWidget):
    """A dismissible message at the top of the window: errors never open a blocking dialog."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel("")
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        close = QToolButton()
        close.setText("✕")
        close.setAutoRaise(True)
        close.clicked.connect(self.hide)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        layout.addWidget(self.label, 1)
        layout.addWidget(close)
        self.setAutoFillBackground(True)
        self.setVisible(False)
        self.kind = ""

    def show_message(self, text: str, kind: str = "error") -> None:
        self.kind = kind
        colour = {"error": "#fbe3e1", "warning": "#fff4d6", "info": "#e3effb"}.get(kind, "#e3effb")
        self.setStyleSheet(f"background: {colour}; color: #222;")
        self.label.setText(text)
        self.setVisible(True)

    @property
    def text(self) -> str:
        return self.label.text() if self.isVisible() else ""
