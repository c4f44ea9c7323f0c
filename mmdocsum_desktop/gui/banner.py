"""The window's one-line messages: the dismissible banner, and the core's words as the window says them."""

from __future__ import annotations

import re
import time
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QWidget,
)

from mmdocsum_desktop.app import project as proj
from mmdocsum_desktop.gui.workers import Job

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


MAX_LINES = 3  # the banner's height at most; a longer message scrolls


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
        # a long message (a settings file with several mistakes, a model's error) scrolls within three
        # lines: the banner never squeezes the document and the summary below it
        self.scroller = QScrollArea()
        self.scroller.setWidget(self.label)
        self.scroller.setWidgetResizable(True)
        self.scroller.setFrameShape(QFrame.Shape.NoFrame)
        self.scroller.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroller.setMaximumHeight(self.label.fontMetrics().lineSpacing() * MAX_LINES + 6)
        self.scroller.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Maximum)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        layout.addWidget(self.scroller, 1)
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


def model_stopped_dialog(parent: QWidget, job: Job) -> QMessageBox:
    """A language model's process crashed or hung: said in a dialog as well as in the banner. The window,
    the document, the summary and the user's text stay as they were, and the next run starts a new model
    process. The dialog is window-modal and non-blocking: the event loop (and autosave) go on."""
    dialog = QMessageBox(QMessageBox.Icon.Warning, "The language model stopped",
                         f"{job.title}: {job.exception}", QMessageBox.StandardButton.Ok, parent)
    dialog.setInformativeText("Your document, summary and text are unchanged. The next run starts the model "
                              "again; Settings ▸ Doctor tries it and says what to do.")
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog


def ask_save_changes(parent: QWidget, titles: list[str] | None = None) -> str:
    """'save', 'discard' or 'cancel'; with several ``titles``, one question about all those papers."""
    question = "Save your work on this document to a project file before closing it?"
    if titles and len(titles) > 1:
        question = (f"Save your work on these {len(titles)} papers to project files before closing them?\n"
                    + "\n".join(f"• {title[:80]}" for title in titles[:10])
                    + (f"\n… and {len(titles) - 10} more" if len(titles) > 10 else ""))
    answer = QMessageBox.question(
        parent, "Unsaved work",
        question + "\n(If you discard it, the summary, your edits and your text are deleted.)",
        QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
    )
    return {QMessageBox.StandardButton.Save: "save", QMessageBox.StandardButton.Discard: "discard"}.get(
        answer, "cancel")


def ask_recover(parent: QWidget, items: list[proj.Recoverable]) -> proj.Recoverable | None:
    """The newest of the projects left unsaved by a crash, if the user wants it back."""
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(items[0].modified))
    answer = QMessageBox.question(
        parent, "Recover your work?",
        f"mmdocsum did not close normally. Recover “{items[0].title}” (last autosaved {when})?"
        + (f"\n{len(items) - 1} more unsaved project(s) can be recovered next time." if len(items) > 1 else ""),
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
    )
    return items[0] if answer == QMessageBox.StandardButton.Yes else None
