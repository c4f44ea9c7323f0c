"""The main window: document pane + figure gallery on the left; summary, authoring and benchmark views on
the right; one job bar (progress + Cancel) in the status bar; an error banner that never blocks."""

from __future__ import annotations

import logging
import re
import time
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import QByteArray, QEvent, QObject, QStandardPaths, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence, QUndoCommand, QUndoStack
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QSizePolicy,
    QSplitter,
    QTabWidget,
    QTextBrowser,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from mmdocsum_desktop import app
from mmdocsum_desktop.app import project as proj
from mmdocsum_desktop.errors import EncryptedDocumentError, MmdocsumError, ModelProcessError
from mmdocsum_desktop.gui import core, icons
from mmdocsum_desktop.gui.ask_view import AskView
from mmdocsum_desktop.gui.authoring_view import AuthoringView
from mmdocsum_desktop.gui.bench_view import BenchView
from mmdocsum_desktop.gui.document_view import DocumentView
from mmdocsum_desktop.gui.message_bridge import MessageBridge
from mmdocsum_desktop.gui.prefs import GuiPrefs, load_prefs, save_prefs, write_prefs_text
from mmdocsum_desktop.gui.state import AppState
from mmdocsum_desktop.gui.summary_view import SummaryView
from mmdocsum_desktop.gui.widgets.gallery import FigureGallery
from mmdocsum_desktop.gui.widgets.jobbar import JobBar
from mmdocsum_desktop.gui.workers import Job, JobRunner
from mmdocsum_desktop.models import fitness
from mmdocsum_desktop.schemas.document import Document

log = logging.getLogger(__name__)

AUTOSAVE_DELAY_MS = 1500
DOCUMENT_FILTER = "Documents (*.pdf *.html *.htm *.xhtml *.md *.markdown *.nxml *.xml);;All files (*)"
PROJECT_FILTER = "mmdocsum projects (*.mdsproj)"
EXPORT_FILTERS = {
    "markdown": "Markdown (*.md)",
    "html": "Self-contained HTML (*.html)",
    "pdf": "PDF (*.pdf)",
    "mdocsum": "M-DocSum JSON (*.json)",
}
AUTHORING_EXPORTS = ("markdown", "html", "pdf")
TYPING_MERGE_S = 2.0  # keystrokes this close together are one step of Undo

GUIDE_HTML = """
<h3>mmdocsum in five steps</h3>
<ol>
<li><b>Open</b> a paper (Ctrl+O, or drop a PDF, HTML, Markdown or JATS file on the window). The reader
shows every page; the figures and tables it found are outlined and listed below it.</li>
<li><b>Summarize</b> (Ctrl+R) writes four paragraphs (background, method, results, conclusion), each with
the figure that fits it. Click a citation (<i>p. 4</i>, <i>Figure 2</i>) to see the passage in the paper.</li>
<li><b>Edit</b>: change a paragraph's text, pick another figure, or regenerate one paragraph. Everything can
be undone (Ctrl+Z).</li>
<li><b>Write</b> in the Authoring tab, then <b>Place images</b>: the app suggests which figure goes after
which of your paragraphs; nothing enters your text until you press Accept.</li>
<li><b>Export</b> the summary or your text as Markdown (opens in Obsidian), HTML or PDF.</li>
</ol>
<p>Small language models (under about a billion parameters) write fluent text that is often wrong, and
cannot judge summaries: the app says so before it uses one, and marks what they wrote. The extractive
engine only quotes the paper.</p>
"""


def shortcuts_html(actions: list[QAction]) -> str:
    """The window's keyboard shortcuts as a table, from the actions themselves (never out of date)."""
    rows = []
    for action in actions:
        keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        if keys:
            rows.append(f"<tr><td><b>{keys}</b></td><td>{action.text().replace('&', '').rstrip('…')}</td></tr>")
    reader = [("PgUp / PgDown", "previous / next page"), ("Ctrl+wheel, Ctrl++ / Ctrl+-", "zoom"),
              ("Ctrl+1 / Ctrl+2", "fit width / fit page")]
    rows += [f"<tr><td><b>{keys}</b></td><td>{what}</td></tr>" for keys, what in reader]
    return "<h3>Keyboard shortcuts</h3><table cellpadding='3'>" + "".join(rows) + "</table>"


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


class SnapshotCommand(QUndoCommand):
    """One step of Undo: a state before and after, applied by ``apply`` (the summary, the user's text
    with the placements, ...). The change is made before the command is pushed; redo re-applies it."""

    def __init__(self, text: str, apply, before: Any, after: Any, *, merge_key: int = -1) -> None:
        super().__init__(text)
        self._apply, self.before, self.after = apply, before, after
        self._merge_key = merge_key
        self._done = False
        self.at = time.monotonic()

    def id(self) -> int:  # noqa: A003 — Qt's name
        return self._merge_key

    def mergeWith(self, other: QUndoCommand) -> bool:  # noqa: N802 — Qt's name
        if not isinstance(other, SnapshotCommand) or other.at - self.at > TYPING_MERGE_S:
            return False
        self.after, self.at = other.after, other.at
        return True

    def redo(self) -> None:
        if not self._done:  # QUndoStack.push calls redo: the change is already made, objects stay as they are
            self._done = True
            return
        self._apply(self.after)

    def undo(self) -> None:
        self._apply(self.before)


class _UndoKeys(QObject):
    """Ctrl+Z / Ctrl+Shift+Z in the authoring editor go to the window's one undo stack, not to the
    editor's own (which would undo typing but not an accepted placement)."""

    def __init__(self, stack: QUndoStack, parent: QObject) -> None:
        super().__init__(parent)
        self.stack = stack

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 — Qt's name
        if event.type() in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress):
            for key, step in ((QKeySequence.StandardKey.Undo, self.stack.undo),
                              (QKeySequence.StandardKey.Redo, self.stack.redo)):
                if event.matches(key):
                    if event.type() == QEvent.Type.KeyPress:
                        step()
                    event.accept()
                    return True
        return False


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


class MainWindow(QMainWindow):
    documentOpened = Signal(object)
    summaryReady = Signal(object)
    autosaved = Signal()

    def __init__(self, *, prefs: GuiPrefs | None = None) -> None:
        super().__init__()
        self.setWindowIcon(icons.app_icon())
        self.setAcceptDrops(True)
        self.prefs = prefs if prefs is not None else load_prefs()
        self.runner = JobRunner(self, max_threads=3)
        # the workspace is released (left on disk for recovery) if the window is destroyed unclosed
        holder: dict[str, proj.Workspace | None] = {"workspace": None}
        self._holder = holder
        # what is open and shown (document, summary, placements, the running summary job): the views
        # observe it; the window changes it only through its setters
        self.state = AppState(self)
        self.destroyed.connect(lambda *_: holder["workspace"] is not None and holder["workspace"].release())
        self.dirty = False  # changed since the last Save to a project file
        self.last_autosave = 0.0
        self._regenerations = 0  # a new seed for each regenerated paragraph (LLM engines)
        self._closing = False
        self._fitness_banner = False  # the banner shows the "model too small" warning of the last run
        self.undo_stack = QUndoStack(self)
        self._applying_undo = False  # a change made by Undo/Redo is not recorded again
        self._authoring_text = ""  # the text before the latest edit (what Undo of typing goes back to)
        self.help_dialogs: dict[str, QDialog] = {}

        self.banner = ErrorBanner()
        self.document_view = DocumentView(self.runner)
        self.document_view.message.connect(lambda text: self.show_error(text, "warning"))
        self.document_view.positionChanged.connect(self._reader_moved)
        self.document_view.askRequested.connect(self.ask_about)
        self.gallery = FigureGallery(self.runner)
        self.gallery.figureActivated.connect(self.document_view.show_figure)
        self.summary_view = SummaryView()
        self.summary_view.summarizeRequested.connect(self.summarize)
        self.summary_view.regenerateRequested.connect(self.regenerate_paragraph)
        self.summary_view.figureChosen.connect(self.choose_figure)
        self.summary_view.citationClicked.connect(self.follow_citation)
        self.summary_view.textEdited.connect(self.edit_paragraph)
        self.authoring_view = AuthoringView(self)
        self.authoring_view.editor.setUndoRedoEnabled(False)  # the window's undo stack has every step
        self.authoring_view.editor.installEventFilter(_UndoKeys(self.undo_stack, self))
        self.authoring_view.textChanged.connect(self._authoring_changed)
        self.authoring_view.suggestionsChanged.connect(self._placements_changed)
        self.bench_view = BenchView(self)
        self.ask_view = AskView(self)
        for view in (self.document_view, self.summary_view, self.authoring_view, self.ask_view):
            view.observe(self.state)
        self.state.summaryChanged.connect(lambda _summary: self._watch_paragraph_editors())

        left = QSplitter(Qt.Orientation.Vertical)
        left.addWidget(self.document_view)
        left.addWidget(self.gallery)
        left.setStretchFactor(0, 4)
        left.setStretchFactor(1, 1)
        left.setSizes([600, 200])
        self.tabs = QTabWidget()
        self.tabs.addTab(self.summary_view, icons.icon("summarize"), "Summary")
        self.tabs.addTab(self.authoring_view, icons.icon("edit"), "Authoring")
        self.tabs.addTab(self.ask_view, icons.icon("summarize"), "Ask")
        self.tabs.addTab(self.bench_view, icons.icon("benchmark"), "Benchmark")
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.tabs)
        self.splitter.setSizes([620, 660])
        # the user decides how wide each side is: an explicit minimum lets the splitter go below the
        # widest page's wish (the Benchmark tab's), and no content can push the divider or the window
        for pane in (left, self.tabs):
            pane.setMinimumWidth(300)
        self.splitter.setChildrenCollapsible(False)
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.banner)
        layout.addWidget(self.splitter, 1)
        self.setCentralWidget(central)

        self.job_bar = JobBar()
        self.status_label = QLabel("")
        # a long status line is cut at the window's edge; it never widens the window (the banner wraps)
        self.status_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.statusBar().addWidget(self.status_label, 1)
        self.statusBar().addPermanentWidget(self.job_bar)
        # What the core says while jobs run (a model fell back to the CPU, a cache was recreated).
        self.messages = MessageBridge(self)
        self.messages.notice.connect(lambda level, text: self.show_error(text, "warning" if level == "warning" else "info"))

        self.autosave_timer = QTimer(self)
        self.autosave_timer.setSingleShot(True)
        self.autosave_timer.setInterval(AUTOSAVE_DELAY_MS)
        self.autosave_timer.timeout.connect(self.autosave)

        self._build_actions()
        self.resize(1280, 820)
        if self.prefs.geometry:
            self.restoreGeometry(QByteArray.fromBase64(self.prefs.geometry.encode("ascii")))
        self._update_title()
        self._update_actions()
        self.runner.start(Job("warming up", core.warm_up(), kind="warm-up"))

    @property
    def workspace(self) -> proj.Workspace | None:
        return self._holder["workspace"]

    @workspace.setter
    def workspace(self, value: proj.Workspace | None) -> None:
        self._holder["workspace"] = value
        self.state.hold(value)  # announced to the views by _load_views

    # ============================================================================ actions
    def _action(self, text: str, slot, *, icon: str | None = None, shortcut=None, tip: str = "") -> QAction:
        action = QAction(text, self)
        if icon:
            action.setIcon(icons.icon(icon))
        if shortcut is not None:
            action.setShortcut(shortcut)
        if tip:
            action.setStatusTip(tip)
            action.setToolTip(tip)
        action.triggered.connect(lambda checked=False: slot())
        return action

    def _build_actions(self) -> None:
        self.open_action = self._action("&Open…", self.open_dialog, icon="open", shortcut=QKeySequence.StandardKey.Open,
                                        tip="Open a PDF, HTML, Markdown or JATS file")
        self.open_project_action = self._action("Open &Project…", self.open_project_dialog)
        self.save_action = self._action("&Save Project", self.save_project, icon="save",
                                        shortcut=QKeySequence.StandardKey.Save, tip="Save the project file")
        self.save_as_action = self._action("Save Project &As…", lambda: self.save_project(ask=True),
                                           shortcut=QKeySequence.StandardKey.SaveAs)
        self.export_actions = {
            fmt: self._action(label.split(" (")[0] + "…", lambda fmt=fmt: self.export_dialog(fmt))
            for fmt, label in EXPORT_FILTERS.items()
        }
        self.settings_action = self._action("&Settings…", self.open_settings, icon="settings",
                                            shortcut=QKeySequence.StandardKey.Preferences)
        self.quit_action = self._action("&Quit", self.close, shortcut=QKeySequence.StandardKey.Quit)
        self.summarize_action = self._action("&Summarize", self.summarize, icon="summarize", shortcut="Ctrl+R",
                                             tip="Write the four-paragraph illustrated summary")
        self.cancel_action = self._action("&Cancel", self.job_bar.cancel, icon="cancel", shortcut="Esc",
                                          tip="Cancel the running job")
        self.place_action = self._action("&Place Images", self.authoring_view.place_images, icon="place-images",
                                         tip="Suggest where the document's figures go in your text")
        self.about_action = self._action("&About", self.about)
        self.guide_action = self._action("Quick &Guide", lambda: self.show_help("guide"),
                                         shortcut=QKeySequence.StandardKey.HelpContents)
        self.shortcuts_action = self._action("&Keyboard Shortcuts", lambda: self.show_help("shortcuts"),
                                             shortcut="Ctrl+/")
        self.undo_action = self.undo_stack.createUndoAction(self, "&Undo")
        self.undo_action.setShortcut(QKeySequence.StandardKey.Undo)
        self.redo_action = self.undo_stack.createRedoAction(self, "&Redo")
        self.redo_action.setShortcut(QKeySequence.StandardKey.Redo)
        self.authoring_export_actions = {
            fmt: self._action(EXPORT_FILTERS[fmt].split(" (")[0] + "…",
                              lambda fmt=fmt: self.export_dialog(fmt, which="authoring"))
            for fmt in AUTHORING_EXPORTS
        }

        menu = self.menuBar().addMenu("&File")
        menu.addAction(self.open_action)
        self.recent_menu = menu.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        menu.addAction(self.open_project_action)
        menu.addSeparator()
        menu.addAction(self.save_action)
        menu.addAction(self.save_as_action)
        export_menu = menu.addMenu(icons.icon("export"), "&Export Summary")
        for action in self.export_actions.values():
            export_menu.addAction(action)
        self.authoring_export_menu = menu.addMenu(icons.icon("export"), "Export &Your Text")
        for action in self.authoring_export_actions.values():
            self.authoring_export_menu.addAction(action)
        menu.addSeparator()
        menu.addAction(self.settings_action)
        menu.addSeparator()
        menu.addAction(self.quit_action)
        menu = self.menuBar().addMenu("&Edit")
        menu.addAction(self.undo_action)
        menu.addAction(self.redo_action)
        self.view_menu = self.menuBar().addMenu("&View")
        for action in self.document_view.view_actions():
            self.view_menu.addAction(action)
        menu = self.menuBar().addMenu("&Summary")
        menu.addAction(self.summarize_action)
        menu.addAction(self.cancel_action)
        menu = self.menuBar().addMenu("&Authoring")
        menu.addAction(self.place_action)
        menu = self.menuBar().addMenu("&Help")
        menu.addAction(self.guide_action)
        menu.addAction(self.shortcuts_action)
        menu.addSeparator()
        menu.addAction(self.about_action)

        toolbar = QToolBar("Main")
        toolbar.setObjectName("mainToolbar")
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        toolbar.addAction(self.open_action)
        toolbar.addAction(self.save_action)
        toolbar.addSeparator()
        toolbar.addAction(self.summarize_action)
        export_button = QToolButton()
        export_button.setText("Export")
        export_button.setIcon(icons.icon("export"))
        export_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        export_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        export_button.setMenu(export_menu)
        toolbar.addWidget(export_button)
        toolbar.addAction(self.place_action)
        toolbar.addSeparator()
        toolbar.addAction(self.settings_action)
        self.addToolBar(toolbar)

    def _update_actions(self) -> None:
        has_document = self.workspace is not None and self.workspace.document is not None
        has_summary = self.workspace is not None and self.workspace.project.summary is not None
        running = self.state.busy
        self.summarize_action.setEnabled(has_document and not running)
        self.summary_view.summarize_button.setEnabled(has_document and not running)
        for action in self.export_actions.values():
            action.setEnabled(has_summary)
        has_text = self.workspace is not None and bool(self.workspace.project.authoring.strip())
        for action in self.authoring_export_actions.values():
            action.setEnabled(has_text)
        self.place_action.setEnabled(has_document)
        self.save_action.setEnabled(self.workspace is not None)
        self.save_as_action.setEnabled(self.workspace is not None)

    def _update_title(self) -> None:
        name = "mmdocsum"
        if self.workspace is not None:
            name = self.workspace.project.title or "Untitled"
            if self.workspace.project.saved_to:
                name = f"{name} — {Path(self.workspace.project.saved_to).name}"
        self.setWindowTitle(f"{'*' if self.dirty else ''}{name} — mmdocsum")

    # ============================================================================ messages
    def show_error(self, message: str, kind: str = "error") -> None:
        """Tell the user in one line; the window stays usable and nothing typed is touched."""
        message = window_words(message)
        self._fitness_banner = False  # the banner says something else now
        self.banner.show_message(message, kind)
        self.status_label.setText(message.splitlines()[0][:200] if message else "")

    def show_status(self, message: str) -> None:
        self.status_label.setText(message)

    # Dialogs go through these methods so that tests (and --screenshot) can answer them.
    def ask_open_path(self, title: str, filters: str) -> str | None:
        path, _ = QFileDialog.getOpenFileName(self, title, self.prefs.last_dir or "", filters)
        return path or None

    def save_folder(self) -> Path:
        """Where Save and Export dialogs open: the project's own folder, else where the user saved last,
        else their Documents folder; never the paper's folder (often read-only, or someone else's)."""
        saved = self.workspace.project.saved_to if self.workspace is not None else None
        for folder in (Path(saved).parent if saved else None, Path(self.prefs.save_dir) if self.prefs.save_dir else None):
            if folder is not None and folder.is_dir():
                return folder
        documents = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
        return Path(documents) if documents and Path(documents).is_dir() else Path.home()

    def ask_save_path(self, title: str, filters: str, suggested: str) -> str | None:
        start = str(self.save_folder() / suggested)
        path, _ = QFileDialog.getSaveFileName(self, title, start, filters)
        return path or None

    def ask_directory(self, title: str) -> str | None:
        return QFileDialog.getExistingDirectory(self, title, self.prefs.last_dir or "") or None

    def ask_password(self, name: str) -> str | None:
        text, ok = QInputDialog.getText(self, "Password", f"{name} is encrypted. Password:", QLineEdit.EchoMode.Password)
        return text if ok and text else None

    def ask_save_changes(self) -> str:
        """'save', 'discard' or 'cancel'."""
        answer = QMessageBox.question(
            self, "Unsaved work",
            "Save your work on this document to a project file before closing it?\n"
            "(If you discard it, the summary, your edits and your text are deleted.)",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
        )
        return {QMessageBox.StandardButton.Save: "save", QMessageBox.StandardButton.Discard: "discard"}.get(
            answer, "cancel")

    def ask_recover(self, items: list[proj.Recoverable]) -> proj.Recoverable | None:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(items[0].modified))
        answer = QMessageBox.question(
            self, "Recover your work?",
            f"mmdocsum did not close normally. Recover “{items[0].title}” (last autosaved {when})?"
            + (f"\n{len(items) - 1} more unsaved project(s) can be recovered next time." if len(items) > 1 else ""),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        )
        return items[0] if answer == QMessageBox.StandardButton.Yes else None

    # ============================================================================ documents
    def open_dialog(self) -> None:
        path = self.ask_open_path("Open a document", DOCUMENT_FILTER + ";;" + PROJECT_FILTER)
        if path:
            self.open_path(path)

    def open_project_dialog(self) -> None:
        path = self.ask_open_path("Open a project", PROJECT_FILTER)
        if path:
            self.open_path(path)

    def open_path(self, path: str | Path) -> Job | None:
        path = Path(path)
        if path.suffix == proj.PROJECT_SUFFIX:
            return self.open_project(path)
        return self.open_document(path)

    def _ready_to_replace(self) -> bool:
        if self.workspace is None:
            return True
        if not self.dirty or not self._has_work():
            self.workspace.discard()
            self.workspace = None
            return True
        answer = self.ask_save_changes()
        if answer == "cancel":
            return False
        if answer == "save" and not self.save_project():
            return False
        self.workspace.discard()
        self.workspace = None
        return True

    def _has_work(self) -> bool:
        project = self.workspace.project if self.workspace else None
        return bool(project and (project.summary or project.authoring.strip() or project.placements))

    def open_document(self, path: Path, *, password: str | None = None) -> Job | None:
        """Read the file in the background. The current work is only replaced once the new document is
        ready (and the user agreed), so a file that fails to open costs nothing."""
        if self.runner.running("open"):
            self.show_error("A document is already being opened; wait for it or cancel it.", "warning")
            return None
        if not path.exists():
            self.show_error(f"{path}: no such file")
            return None
        self.banner.hide()
        current = self.workspace
        # text written before any document was open belongs with the document opened next
        reuse = current is not None and current.document is None
        workspace = current if reuse else proj.Workspace.create()

        def drop_new() -> None:
            if workspace is not self.workspace:
                workspace.discard()

        job = Job(f"Opening {path.name}", core.open_document(path, workspace.root, password=password), kind="open")
        job.signals.succeeded.connect(lambda document: self._document_ready(workspace, document, path))
        job.signals.failed.connect(lambda message: (drop_new(), self._open_failed(path, message, job)))
        job.signals.cancelled.connect(lambda partial: (drop_new(), self.show_status("Opening cancelled.")))
        self.start_job(job)
        self.show_status(f"Opening {path.name}…")
        return job

    def _open_failed(self, path: Path, message: str, job: Job) -> None:
        if not shiboken6.isValid(self):  # destroyed while the job ran
            return
        if isinstance(job.exception, EncryptedDocumentError) and not self._closing:
            password = self.ask_password(path.name)
            if password:
                self.open_document(path, password=password)
                return
        self.show_error(open_failure_text(path, message))

    def _document_ready(self, workspace: proj.Workspace, document: Document, path: Path) -> None:
        if not shiboken6.isValid(self):  # destroyed while the job ran
            return
        if self._closing:
            if workspace is not self.workspace:
                workspace.discard()
            return
        if workspace is not self.workspace:
            if not self._ready_to_replace():
                workspace.discard()
                self.show_status(f"{path.name} was not opened; your work is unchanged.")
                return
            self.cancel_jobs(kind="summary")
        workspace.set_document(document)
        self.workspace = workspace
        self.prefs.add_recent(path)
        self._save_prefs()
        self._load_views()
        if self._has_work():
            self.mark_changed()
        else:
            self.dirty = False
            self.autosave()
        warnings = "; ".join(document.warnings[:2])
        count = f"{counted(len(document.figures), 'figure')}, {counted(len(document.tables), 'table')}"
        self.show_status(f"Opened {path.name}: {document.page_count or '–'} pages, {count}."
                         + (f" Note: {warnings}" if warnings else ""))
        self.documentOpened.emit(document)

    def _load_views(self) -> None:
        workspace = self.workspace
        document = workspace.document if workspace else None
        if document is not None and document.kind == "pdf" and not Path(document.source).exists():
            self.show_error(f"The original file {document.source} is gone; showing the extracted text.", "warning")
        # Undo steps belong to the work they changed; another project starts with none
        self.undo_stack.clear()
        self._authoring_text = workspace.project.authoring if workspace else ""
        # the document, its summary and placements (or none) replace whatever the views showed
        self.state.set_workspace(workspace)
        self.document_view.restore_position((workspace.project.extra.get("reader") if workspace else None) or {})
        self.gallery.set_figures(document, workspace.root if workspace else None)
        self._update_title()
        self._update_actions()

    def open_project(self, path: Path) -> Job | None:
        if not self._ready_to_replace():
            return None
        try:
            workspace = proj.open_project(path)
        except MmdocsumError as error:
            self.show_error(str(error))
            return None
        self.workspace = workspace
        self.dirty = False
        self.prefs.add_recent(path)
        save_prefs(self.prefs)
        self._load_views()
        self.show_status(f"Opened project {path.name}.")
        if workspace.document is not None:
            self.documentOpened.emit(workspace.document)
        return None

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for item in self.prefs.recent_files:
            action = self.recent_menu.addAction(Path(item).name)
            action.setToolTip(item)
            action.triggered.connect(lambda checked=False, item=item: self.open_path(item))
        if not self.prefs.recent_files:
            self.recent_menu.addAction("(none)").setEnabled(False)

    # drag and drop of files onto the window
    def dragEnterEvent(self, event) -> None:  # noqa: N802 — Qt's name
        if event.mimeData().hasUrls() and any(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # noqa: N802
        files = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if files:
            event.acceptProposedAction()
            self.open_path(files[0])

    # ============================================================================ summary
    def engine_settings(self):
        """The saved settings (the defaults, with a warning, when the file is unreadable)."""
        from mmdocsum_desktop.schemas.settings import load_settings

        try:
            return load_settings()
        except MmdocsumError as error:
            self.show_error(f"{error}; using the default settings", "warning")
            from mmdocsum_desktop.schemas.settings import Settings

            return Settings()

    def summarize(self, *, replace: int | None = None) -> Job | None:
        """Summarise the open document; with ``replace``, write that one paragraph anew instead."""
        workspace = self.workspace
        if workspace is None or workspace.document is None:
            self.show_error("Open a document first (File ▸ Open, or drop a file on the window).", "info")
            return None
        if self.state.busy:
            return None
        self.banner.hide()  # a message about an earlier run is stale now
        settings = self.engine_settings()
        engine = core.engine_name(settings)
        writer = fitness.for_settings(settings, "summary_writer", engine=engine)
        if writer is not None and writer.warns:
            self.show_error(writer.sentence() + " What it writes is marked.", "warning")
            self._fitness_banner = True
        if replace is None:
            title = "Summarizing"
            fn = core.summarize(workspace.document, workspace.root, settings)
        else:
            title = f"Regenerating paragraph {replace + 1}"
            self._regenerations += 1
            fn = core.regenerate_paragraph(workspace.document, workspace.root, settings,
                                           workspace.project.summary, replace, self._regenerations)
        job = Job(f"{title} ({engine})", fn, kind="summary")
        job.signals.text.connect(self.summary_view.append_stream)
        job.signals.succeeded.connect(lambda result: self._summary_done(workspace, result, replace, job))
        job.signals.failed.connect(lambda message: self._summary_failed(message))
        job.signals.cancelled.connect(lambda partial: self._summary_cancelled(workspace, partial))
        job.signals.finished.connect(self._summary_finished)
        self.state.set_busy_job(job)
        self.summary_view.begin_stream(f"{title} with the {engine} engine…")
        self.tabs.setCurrentWidget(self.summary_view)
        self.start_job(job)
        self._update_actions()
        return job

    def _summary_finished(self) -> None:
        if not shiboken6.isValid(self):  # destroyed while the job ran
            return
        self.state.set_busy_job(None)
        self.summary_view.end_stream()
        self._update_actions()

    def _summary_failed(self, message: str) -> None:
        if not shiboken6.isValid(self):
            return
        self.show_error(f"Summary failed: {message}")
        self.summary_view.show_outcome("The summary failed; the one shown (if any) is unchanged.")

    def _summary_done(self, workspace: proj.Workspace, result: Any, replace: int | None, job: Job) -> None:
        if not shiboken6.isValid(self):  # destroyed while the job ran
            return
        if workspace is not self.workspace:
            return
        summary = result["summary"]
        self.summary_view.add_images(result.get("images") or {})
        current = workspace.project.summary
        before = current.model_copy(deep=True) if current is not None else None
        if replace is not None and current is not None and replace < len(current.paragraphs):
            # only the regenerated paragraph's text is taken: edits made to the others meanwhile are kept,
            # and so is the figure the paragraph has now (one the user removed is not put back)
            fresh = summary.paragraphs[replace].model_copy(deep=True)
            fresh.figure = current.paragraphs[replace].figure
            fresh.image_caption = current.paragraphs[replace].image_caption
            current.paragraphs[replace] = fresh
            summary = current
        workspace.project.summary = summary
        self._record_summary_change("Regenerate paragraph" if replace is not None else "Summarize", before)
        self.state.set_summary(summary)
        self.mark_changed()
        self._update_actions()
        writer = fitness.for_summary(summary)
        if writer is None or not writer.warns:
            self.banner.hide()  # success: no earlier failure or warning stays up
        if replace is None:
            self.show_status("Summary ready.")
        elif before is not None and replace < len(before.paragraphs) and \
                before.paragraphs[replace].text == summary.paragraphs[replace].text:
            self.show_status(f"Paragraph {replace + 1}: the engine wrote the same text again; nothing changed.")
        else:
            self.show_status(f"Paragraph {replace + 1} regenerated.")
        self.summaryReady.emit(summary)

    def _summary_cancelled(self, workspace: proj.Workspace, partial: Any) -> None:
        if not shiboken6.isValid(self):  # destroyed while the job ran
            return
        # the partial text is dropped: nothing the user did not accept goes into their text
        self.show_status("Summary cancelled; nothing was changed.")
        self.summary_view.show_outcome("Summary cancelled; nothing was changed.")

    def regenerate_paragraph(self, index: int) -> None:
        summary = self.workspace.project.summary if self.workspace else None
        if summary is None or index >= len(summary.paragraphs):
            return
        if core.engine_name(self.engine_settings()) == "extractive":
            self.show_status("The extractive engine picks the same sentences again; an LLM engine "
                             "(Settings ▸ Engine) writes a new version.")
        self.summarize(replace=index)

    def choose_figure(self, index: int, figure_id: str | None) -> None:
        workspace = self.workspace
        if workspace is None or workspace.project.summary is None:
            return
        paragraphs = workspace.project.summary.paragraphs
        if not 0 <= index < len(paragraphs):
            return
        figure = workspace.figure(figure_id) if figure_id else None
        if figure_id and figure is None:
            self.show_error(f"There is no figure {figure_id} in this document.")
            return
        before = workspace.project.summary.model_copy(deep=True)
        swap = app.swap_figure(workspace.project.summary, index, figure_id, document=workspace.document)
        label_now = (figure.label or "a figure") if figure is not None else "no figure"
        self._record_summary_change(f"Paragraph {index + 1}: {label_now}", before)
        note = ("" if swap.taken_from is None else
                f" It was removed from paragraph {swap.taken_from + 1} (each figure is used once).")
        self._show_summary(workspace.project.summary, workspace)
        self.mark_changed()
        label = (figure.label or figure.id) if figure is not None else "no figure"
        self.show_status(f"Paragraph {index + 1} now shows {label}.{note}")

    def _watch_paragraph_editors(self) -> None:
        """Text typed into a paragraph's editor is kept (and autosaved) as it is typed, not only when the
        editor is closed: a crash while a paragraph is open for editing must not lose what was typed."""
        for card in getattr(self.summary_view, "cards", []):
            editor = getattr(card, "editor", None)
            button = getattr(card, "edit_button", None)
            if editor is None or button is None or editor.property("mmdocsumDraftWatched"):
                continue
            editor.setProperty("mmdocsumDraftWatched", True)
            editor.textChanged.connect(lambda card=card: self._paragraph_draft(card))
            button.toggled.connect(lambda checked, card=card: self._paragraph_edit_started(card) if checked
                                   else self._paragraph_draft_closed(card))

    def _paragraph_edit_started(self, card) -> None:
        """The pencil opens a paragraph's editor: its text now is what Undo of this edit goes back to."""
        if shiboken6.isValid(card) and card.paragraph is not None:
            card.setProperty("mmdocsumTextBefore", card.paragraph.text)

    def _paragraph_draft(self, card) -> None:
        if not shiboken6.isValid(self) or not shiboken6.isValid(card) or not card.edit_button.isChecked():
            return
        summary = self.workspace.project.summary if self.workspace else None
        paragraph = card.paragraph
        if summary is None or paragraph is None or not any(p is paragraph for p in summary.paragraphs):
            return
        text = card.editor.toPlainText().strip()
        if text != paragraph.text:
            paragraph.text = text
            self.mark_changed()

    def _paragraph_draft_closed(self, card) -> None:
        """The editor closes: the edit is one step of Undo (the drafts kept the text as it was typed, so
        the text before is the one the editor opened with), and the paragraph is shown as edited."""
        summary = self.workspace.project.summary if self.workspace else None
        if summary is None or not shiboken6.isValid(card) or not any(p is card.paragraph for p in summary.paragraphs):
            return
        index = next(i for i, p in enumerate(summary.paragraphs) if p is card.paragraph)
        text_before = card.property("mmdocsumTextBefore")
        card.setProperty("mmdocsumTextBefore", None)
        typed = card.editor.toPlainText().strip()
        if typed and typed != card.paragraph.text:
            card.paragraph.text = typed
        if isinstance(text_before, str) and card.paragraph.text != text_before:
            before = summary.model_copy(deep=True)
            before.paragraphs[index].text = text_before
            self._record_summary_change(f"Edit paragraph {index + 1}", before)
            self.mark_changed()
            self.show_status(f"Paragraph {index + 1} edited (Ctrl+Z undoes it).")
        self._show_summary(summary, self.workspace)

    def _show_summary(self, summary: proj.Summary | None, workspace: proj.Workspace | None) -> None:
        if workspace is self.workspace:
            self.state.set_summary(summary)  # the summary view (and the draft watcher) follow the state
        else:
            self.summary_view.set_summary(summary, workspace)
            self._watch_paragraph_editors()

    def edit_paragraph(self, index: int, text: str) -> None:
        summary = self.workspace.project.summary if self.workspace else None
        if summary is None or not 0 <= index < len(summary.paragraphs):
            return
        before = summary.model_copy(deep=True)
        summary.paragraphs[index].text = text
        self._record_summary_change(f"Edit paragraph {index + 1}", before)
        self._show_summary(summary, self.workspace)
        self.mark_changed()

    # ============================================================================ undo
    def _record_summary_change(self, what: str, before: proj.Summary | None) -> None:
        """Put a change of the summary (already made) on the undo stack."""
        workspace = self.workspace
        if workspace is None or self._applying_undo:
            return
        after = workspace.project.summary.model_copy(deep=True) if workspace.project.summary is not None else None

        def apply(state: proj.Summary | None, workspace: proj.Workspace = workspace) -> None:
            self._apply_undo(lambda: self._restore_summary(workspace, state))

        self.undo_stack.push(SnapshotCommand(what, apply, before, after))

    def _restore_summary(self, workspace: proj.Workspace, state: proj.Summary | None) -> None:
        if workspace is not self.workspace:
            return
        workspace.project.summary = state.model_copy(deep=True) if state is not None else None
        self._show_summary(workspace.project.summary, workspace)
        self.mark_changed()
        self._update_actions()

    def _apply_undo(self, change) -> None:
        if self._applying_undo:
            return
        self._applying_undo = True
        try:
            change()
        finally:
            self._applying_undo = False

    def record_authoring_change(self, what: str, before: tuple[str, list], after: tuple[str, list], *,
                                typing: bool = False) -> None:
        """Put a change of the user's text and placements (already made) on the undo stack; typing
        merges with the keystrokes just before it."""
        workspace = self.workspace
        if self._applying_undo or workspace is None:
            return

        def apply(state: tuple[str, list], workspace: proj.Workspace = workspace) -> None:
            self._apply_undo(lambda: self._restore_authoring(workspace, state))

        self.undo_stack.push(SnapshotCommand(what, apply, before, after, merge_key=1 if typing else -1))

    def authoring_state(self) -> tuple[str, list]:
        """The user's text and the placement suggestions with their status, as Undo restores them."""
        placements = self.workspace.project.placements if self.workspace is not None else []
        return self.authoring_view.editor.toPlainText(), [p.model_copy(deep=True) for p in placements]

    def _restore_authoring(self, workspace: proj.Workspace, state: tuple[str, list]) -> None:
        if workspace is not self.workspace:
            return
        text, placements = state
        workspace.project.placements = [p.model_copy(deep=True) for p in placements]
        workspace.project.authoring = text
        self._authoring_text = text
        if self.authoring_view.editor.toPlainText() != text:
            self.authoring_view.editor.setPlainText(text)
        self.state.set_placements(workspace.project.placements)
        self.mark_changed()
        self._update_actions()

    def ask_about(self, text: str) -> None:
        """The reader's "Ask about this": the selected passage becomes a question in the Ask tab."""
        passage = " ".join(text.split())
        if not passage:
            return
        self.ask_view.question.setText(f"What does the paper mean by “{passage[:300]}”?")
        self.tabs.setCurrentWidget(self.ask_view)
        self.ask_view.question.setFocus()
        self.ask_view.ask()

    def follow_citation(self, kind: str, ref: str) -> None:
        if kind == "page":
            try:
                self.document_view.show_page(int(ref))
            except ValueError:
                return
        elif kind in {"figure", "table"}:
            if self.document_view.show_figure(ref):
                self.gallery.select(ref)
        elif kind == "block":
            self.document_view.show_block(ref)

    # ============================================================================ authoring
    def _authoring_changed(self, text: str) -> None:
        if self.workspace is None:
            self.workspace = proj.Workspace.create()
        if self.workspace.project.authoring != text:
            before = (self._authoring_text, [p.model_copy(deep=True) for p in self.workspace.project.placements])
            self.workspace.project.authoring = text
            self._authoring_text = text
            if not self._applying_undo and not getattr(self.authoring_view, "changing_text", False):
                self.record_authoring_change("Typing", before, self.authoring_state(), typing=True)
            self.mark_changed()
        self._update_actions()

    def _reader_moved(self, position: dict) -> None:
        """Page and zoom go with the project (restored when it opens again); not an edit: no '*'."""
        workspace = self.workspace
        if workspace is None or workspace.document is None or workspace.project.extra.get("reader") == position:
            return
        workspace.project.extra["reader"] = dict(position)
        if not self.autosave_timer.isActive():
            self.autosave_timer.start()

    def _placements_changed(self) -> None:
        if self.workspace is not None:
            self.mark_changed()

    # ============================================================================ saving
    def mark_changed(self) -> None:
        """Every change is on disk within AUTOSAVE_DELAY_MS: the first change starts the timer and later
        ones do not postpone it (restarting it on every key would save nothing while the user types)."""
        self.dirty = True
        self._update_title()
        if not self.autosave_timer.isActive():
            self.autosave_timer.start()

    def autosave(self, *, background: bool = True) -> None:
        """Save the user's work into the workspace: the snapshot is taken here, the file (with its
        fsync) is written by a worker so that typing never waits for the disk."""
        self.autosave_timer.stop()
        workspace = self.workspace
        if workspace is None:
            return
        text = workspace.snapshot()
        if not background:
            self._write_autosave(workspace, text)
            return
        job = Job("autosave", lambda control, stream: workspace.write_snapshot(text), kind="autosave")
        job.signals.succeeded.connect(lambda _path: self._autosaved())
        job.signals.failed.connect(lambda message: self.show_error(
            f"Autosave failed ({message}); your work is still in the window — save it elsewhere."))
        self.runner.start(job)

    def _write_autosave(self, workspace: proj.Workspace, text: str) -> None:
        try:
            workspace.write_snapshot(text)
        except OSError as error:
            self.show_error(f"Autosave failed ({error}); your work is still in the window — save it elsewhere.")
            return
        self._autosaved()

    def _autosaved(self) -> None:
        if not shiboken6.isValid(self):  # destroyed while the job ran
            return
        self.last_autosave = time.time()
        self.autosaved.emit()

    def _save_prefs(self) -> None:
        text = self.prefs.model_dump_json(indent=2) + "\n"
        self.runner.start(Job("preferences", lambda control, stream: write_prefs_text(text), kind="prefs"))

    def save_project(self, *, ask: bool = False) -> bool:
        if self.workspace is None:
            return False
        target = self.workspace.project.saved_to
        if ask or not target:
            suggested = (self.workspace.project.title or "project")[:60].replace("/", "-") + proj.PROJECT_SUFFIX
            target = self.ask_save_path("Save project", PROJECT_FILTER, suggested)
            if not target:
                return False
        try:
            written = self.workspace.save_as(target)
        except (OSError, MmdocsumError) as error:
            self.show_error(f"Could not save the project: {error}")
            return False
        self.dirty = False
        self.prefs.add_recent(written)
        self.prefs.save_dir = str(Path(written).parent)
        save_prefs(self.prefs)
        self._update_title()
        self.show_status(f"Saved {written}.")
        return True

    def export_dialog(self, fmt: str, *, which: str = "summary") -> Job | None:
        """Ask where, then export the summary (``which="summary"``) or the user's text ("authoring")."""
        if which == "authoring":
            if self.workspace is None or not self.workspace.project.authoring.strip():
                self.show_error("There is no text to export yet: write in the Authoring tab first.", "info")
                return None
        elif self.workspace is None or self.workspace.project.summary is None:
            self.show_error("There is no summary to export yet: run Summarize first.", "info")
            return None
        stem = (self.workspace.project.title or "summary")[:60].replace("/", "-")
        if which == "authoring":
            stem = f"{stem} - my text"
        path = self.ask_save_path(f"Export as {EXPORT_FILTERS[fmt]}", EXPORT_FILTERS[fmt],
                                  stem + proj.EXPORT_SUFFIXES[fmt])
        if not path:
            return None
        return self.export(fmt, Path(path), which=which)

    def export(self, fmt: str, path: Path, *, which: str = "summary") -> Job | None:
        if self.workspace is None:
            return None
        workspace = self.workspace
        self.autosave()
        self.prefs.save_dir = str(path.parent)  # the next export's dialog opens here
        job = Job(f"Exporting {path.name}",
                  lambda control, stream: proj.export(workspace, fmt, path, which=which, control=control),
                  kind="export")
        job.signals.succeeded.connect(lambda files: self.show_status(f"Exported {', '.join(Path(f).name for f in files[:3])}."))
        job.signals.failed.connect(lambda message: self.show_error(f"Export failed: {message}"))
        self.start_job(job)
        return job

    # ============================================================================ settings etc.
    def open_settings(self) -> None:
        from mmdocsum_desktop.gui.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.runner, self)
        dialog.exec()
        self._settings_changed()
        if dialog.notice:  # e.g. no system keyring: the API key is kept for this session only
            self.show_error(dialog.notice, "warning")

    def _settings_changed(self) -> None:
        """A warning that the chosen model is too small goes once another engine is chosen."""
        if not self._fitness_banner or not self.banner.isVisible():
            return
        settings = self.engine_settings()
        writer = fitness.for_settings(settings, "summary_writer", engine=core.engine_name(settings))
        if writer is None or not writer.warns:
            self.banner.hide()
            self._fitness_banner = False

    def show_help(self, which: str) -> QDialog:
        """The quick guide or the keyboard shortcuts, in a window that stays open beside the work."""
        dialog = self.help_dialogs.get(which)
        if dialog is None:
            dialog = QDialog(self)
            dialog.setWindowTitle("Quick guide" if which == "guide" else "Keyboard shortcuts")
            browser = QTextBrowser(dialog)
            browser.setObjectName("helpText")
            actions = [self.open_action, self.save_action, self.summarize_action, self.cancel_action,
                       self.undo_action, self.redo_action, self.guide_action, self.shortcuts_action,
                       self.settings_action, self.quit_action, *self.document_view.view_actions()]
            browser.setHtml(GUIDE_HTML if which == "guide" else shortcuts_html(actions))
            buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, dialog)
            buttons.rejected.connect(dialog.close)
            layout = QVBoxLayout(dialog)
            layout.addWidget(browser)
            layout.addWidget(buttons)
            dialog.resize(560, 460)
            self.help_dialogs[which] = dialog
        dialog.show()
        dialog.raise_()
        return dialog

    def about(self) -> None:
        from mmdocsum_desktop import __version__

        QMessageBox.about(self, "About mmdocsum",
                          f"<b>mmdocsum-desktop {__version__}</b><br>Read a document, get its illustrated "
                          "summary, write with images placed for you. Offline. AGPL-3.0-or-later.")

    # ============================================================================ jobs
    def start_job(self, job: Job) -> Job:
        """Run ``job`` in the background with its progress in the window's job bar (the views' way in)."""
        self.job_bar.track(job)
        job.signals.failed.connect(lambda _message: self.job_failed(job))
        self.runner.start(job)
        return job

    def job_failed(self, job: Job) -> None:
        """A language model's process that crashed or hung is said in a dialog as well as in the banner: the
        window, the document, the summary and the user's text stay as they were, and the next run starts a
        new model process."""
        if not shiboken6.isValid(self) or not isinstance(job.exception, ModelProcessError):
            return
        dialog = QMessageBox(QMessageBox.Icon.Warning, "The language model stopped",
                             f"{job.title}: {job.exception}", QMessageBox.StandardButton.Ok, self)
        dialog.setInformativeText("Your document, summary and text are unchanged. The next run starts the model "
                                  "again; Settings ▸ Doctor tries it and says what to do.")
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.model_error_dialog = dialog
        dialog.open()  # window-modal and non-blocking: the event loop (and autosave) go on

    def remember_bench_run(self, run: Path) -> None:
        """Put a benchmark run first in the list the Benchmark view offers next time."""
        self.prefs.remember_bench_run(run)
        self._save_prefs()

    def cancel_jobs(self, kind: str | None = None) -> None:
        for job in self.runner.running(kind):
            job.cancel()

    # ============================================================================ recovery
    def offer_recovery(self) -> bool:
        try:
            items = proj.recoverable_workspaces()
        except OSError:
            return False
        if not items:
            return False
        chosen = self.ask_recover(items)
        if chosen is None:
            return False
        return self.recover(chosen)

    def recover(self, item: proj.Recoverable) -> bool:
        if not self._ready_to_replace():
            return False
        try:
            workspace = proj.recover(item)
        except MmdocsumError as error:
            self.show_error(f"Could not recover the project: {error}")
            return False
        self.workspace = workspace
        self.dirty = True
        self._load_views()
        self.show_status(f"Recovered “{item.title}”. Save it with File ▸ Save Project.")
        return True

    # ============================================================================ closing
    def closeEvent(self, event) -> None:  # noqa: N802 — Qt's name
        if self.workspace is not None and self.dirty and self._has_work():
            answer = self.ask_save_changes()
            if answer == "cancel" or (answer == "save" and not self.save_project()):
                event.ignore()
                return
        self._closing = True
        self.messages.close()
        self.runner.cancel_all()
        self.runner.wait(10_000)
        self.document_view.close_document()
        if self.workspace is not None:
            self.workspace.discard()
            self.workspace = None
        self.prefs.geometry = bytes(self.saveGeometry().toBase64()).decode("ascii")
        save_prefs(self.prefs)
        event.accept()

    def release(self) -> None:
        """The window goes away without closing (tests simulate a crash): the workspace stays on disk."""
        self._closing = True
        if self.autosave_timer.isActive():
            self.autosave(background=False)
        self.runner.cancel_all()
        self.runner.wait(10_000)
        self.document_view.close_document()
        if self.workspace is not None:
            self.workspace.release()
