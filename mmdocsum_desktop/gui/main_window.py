"""The main window: document pane + figure gallery on the left; summary, authoring and benchmark views on
the right; one job bar (progress + Cancel) in the status bar; an error banner that never blocks.

The window is the controller: it owns the Session the jobs run in, the project model the views observe
(:class:`~mmdocsum_desktop.gui.project_model.ProjectModel`, with the undo stack), and the open, save,
export, autosave and recovery of a project. The Summary tab's jobs and intents are in
:mod:`~mmdocsum_desktop.gui.summary_controller`, the menus and actions in
:mod:`~mmdocsum_desktop.gui.window_actions`.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Literal

import shiboken6
from PySide6.QtCore import QByteArray, QStandardPaths, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QUndoStack
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMessageBox,
    QSizePolicy,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from mmdocsum_desktop import __version__, app
from mmdocsum_desktop.app import project as proj
from mmdocsum_desktop.errors import EncryptedDocumentError, MmdocsumError, ModelProcessError
from mmdocsum_desktop.gui import core, icons
from mmdocsum_desktop.gui.ask_view import AskView
from mmdocsum_desktop.gui.authoring_view import AuthoringView
from mmdocsum_desktop.gui.banner import ErrorBanner, counted, open_failure_text, window_words
from mmdocsum_desktop.gui.bench_view import BenchView
from mmdocsum_desktop.gui.document_view import DocumentView
from mmdocsum_desktop.gui.message_bridge import MessageBridge
from mmdocsum_desktop.gui.prefs import GuiPrefs, load_prefs, save_prefs, write_prefs_text
from mmdocsum_desktop.gui.project_model import ProjectModel, UndoKeys
from mmdocsum_desktop.gui.settings_dialog import SettingsDialog
from mmdocsum_desktop.gui.summary_controller import SummaryController
from mmdocsum_desktop.gui.summary_view import SummaryView
from mmdocsum_desktop.gui.widgets.gallery import FigureGallery
from mmdocsum_desktop.gui.widgets.jobbar import JobBar
from mmdocsum_desktop.gui.window_actions import EXPORT_FILTERS, build_actions, show_help
from mmdocsum_desktop.gui.workers import Job, JobRunner
from mmdocsum_desktop.schemas.document import Document
from mmdocsum_desktop.schemas.settings import Settings, load_settings

log = logging.getLogger(__name__)

AUTOSAVE_DELAY_MS = 1500
DOCUMENT_FILTER = "Documents (*.pdf *.html *.htm *.xhtml *.md *.markdown *.nxml *.xml);;All files (*)"
PROJECT_FILTER = "mmdocsum projects (*.mdsproj)"


def _release(workspace: proj.Workspace | None) -> None:
    if workspace is not None:
        workspace.release()


class MainWindow(QMainWindow):
    documentOpened = Signal(object)
    summaryReady = Signal(object)
    autosaved = Signal()

    # the actions, menus and tool bar (window_actions.build_actions makes them)
    open_action: QAction
    open_project_action: QAction
    save_action: QAction
    save_as_action: QAction
    export_actions: dict[str, QAction]
    authoring_export_actions: dict[str, QAction]
    settings_action: QAction
    quit_action: QAction
    summarize_action: QAction
    cancel_action: QAction
    place_action: QAction
    about_action: QAction
    guide_action: QAction
    shortcuts_action: QAction
    undo_action: QAction
    redo_action: QAction
    recent_menu: QMenu
    authoring_export_menu: QMenu
    view_menu: QMenu

    def __init__(self, *, prefs: GuiPrefs | None = None, session: app.Session | None = None) -> None:
        super().__init__()
        self.setWindowIcon(icons.app_icon())
        self.setAcceptDrops(True)
        self.prefs = prefs if prefs is not None else load_prefs()
        self.runner = JobRunner(self, max_threads=3)
        # the workspace is released (left on disk for recovery) if the window is destroyed unclosed
        holder: dict[str, proj.Workspace | None] = {"workspace": None}
        self._holder = holder
        # the open project, evented: the views observe it and change it through its intents; it owns
        # the undo stack. The window changes what is open only through its setters.
        self.state = ProjectModel(self)
        self.state.changed.connect(self._work_changed)
        self.destroyed.connect(lambda *_: _release(holder["workspace"]))
        self.dirty = False  # changed since the last Save to a project file
        self.last_autosave = 0.0
        self._closing = False
        self.help_dialogs: dict[str, QDialog] = {}

        self.banner = ErrorBanner()
        self.document_view = DocumentView(self.runner)
        self.document_view.message.connect(lambda text: self.show_error(text, "warning"))
        self.document_view.positionChanged.connect(self._reader_moved)
        self.document_view.askRequested.connect(self.ask_about)
        self.gallery = FigureGallery(self.runner)
        self.gallery.figureActivated.connect(self.document_view.show_figure)
        self.summary_view = SummaryView()
        self.summary_view.session_source = self.current_session
        self.summary_view.citationClicked.connect(self.follow_citation)
        self.authoring_view = AuthoringView(self)
        self.authoring_view.editor.setUndoRedoEnabled(False)  # the model's undo stack has every step
        self.authoring_view.editor.installEventFilter(UndoKeys(self.undo_stack, self))
        self.authoring_view.textChanged.connect(self._authoring_changed)
        self.authoring_view.suggestionsChanged.connect(self.state.placements_edited)
        self.bench_view = BenchView(self)
        self.ask_view = AskView(self)
        for view in (self.document_view, self.summary_view, self.authoring_view, self.ask_view):
            view.observe(self.state)
        self.summaries = SummaryController(self, self.state)

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

        # the one Session of this window: every job runs in it, and it closes with the window
        self.session = session if session is not None else app.Session(self.engine_settings())
        build_actions(self)
        self.resize(1280, 820)
        if self.prefs.geometry:
            self.restoreGeometry(QByteArray.fromBase64(self.prefs.geometry.encode("ascii")))
        self._update_title()
        self.update_actions()
        self.runner.start(Job("warming up", core.warm_up(self.session), kind="warm-up"))

    @property
    def workspace(self) -> proj.Workspace | None:
        return self._holder["workspace"]

    @workspace.setter
    def workspace(self, value: proj.Workspace | None) -> None:
        self._holder["workspace"] = value
        self.state.hold(value)  # announced to the views by _load_views

    @property
    def undo_stack(self) -> QUndoStack:
        return self.state.undo_stack

    def current_session(self) -> app.Session:
        """The window's Session with the settings as saved now (the Settings dialog may have changed
        them), handed to it here on the GUI thread before a job takes it; jobs never change it."""
        self.session.use_settings(self.engine_settings())
        return self.session

    def engine_settings(self) -> Settings:
        """The saved settings (the defaults, with a warning, when the file is unreadable)."""
        try:
            return load_settings()
        except MmdocsumError as error:
            self.show_error(f"{error}; using the default settings", "warning")
            return Settings()

    def _work_changed(self) -> None:
        """An intent (or Undo/Redo) changed the user's work: it is saved soon, and the actions follow."""
        self.mark_changed()
        self.update_actions()

    def update_actions(self) -> None:
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
        if hasattr(self, "summaries"):
            self.summaries.fitness_banner = False  # the banner says something else now
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
        workspace = current if current is not None and current.document is None else proj.Workspace.create()

        def drop_new() -> None:
            if workspace is not self.workspace:
                workspace.discard()

        def failed(message: str) -> None:
            drop_new()
            self._open_failed(path, message, job)

        def cancelled(_partial: object) -> None:
            drop_new()
            self.show_status("Opening cancelled.")

        job = Job(f"Opening {path.name}", core.open_document(self.session, path, workspace.root, password=password),
                  kind="open")
        job.signals.succeeded.connect(lambda document: self._document_ready(workspace, document, path))
        job.signals.failed.connect(failed)
        job.signals.cancelled.connect(cancelled)
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
        # the document, its summary and placements (or none) replace whatever the views showed; the
        # model drops the undo steps of the project before
        self.state.set_workspace(workspace)
        self.document_view.restore_position((workspace.project.extra.get("reader") if workspace else None) or {})
        self.gallery.set_figures(document, workspace.root if workspace else None)
        self._update_title()
        self.update_actions()

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

    def fill_recent(self) -> None:
        self.recent_menu.clear()
        for item in self.prefs.recent_files:
            action = self.recent_menu.addAction(Path(item).name)
            action.setToolTip(item)
            action.triggered.connect(lambda checked=False, item=item: self.open_path(item))
        if not self.prefs.recent_files:
            self.recent_menu.addAction("(none)").setEnabled(False)

    # drag and drop of files onto the window
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 — Qt's name
        if event.mimeData().hasUrls() and any(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802
        files = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if files:
            event.acceptProposedAction()
            self.open_path(files[0])

    # ============================================================================ summary
    def summarize(self, *, replace: int | None = None) -> Job | None:
        """Summarise the open document; with ``replace``, write that one paragraph anew instead."""
        return self.summaries.summarize(replace=replace)

    def regenerate_paragraph(self, index: int) -> None:
        self.summaries.regenerate_paragraph(index)

    def choose_figure(self, index: int, figure_id: str | None) -> None:
        self.summaries.choose_figure(index, figure_id)

    def edit_paragraph(self, index: int, text: str) -> None:
        self.summaries.edit_paragraph(index, text)

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
            self.workspace = proj.Workspace.create()  # text typed before any document is a project too
        # an accepted placement writes the text itself: that accept is the step of Undo, not typing
        record = not self.state.applying_undo and not self.authoring_view.changing_text
        self.state.type_text(text, record=record)
        self.update_actions()

    def _reader_moved(self, position: dict) -> None:
        """Page and zoom go with the project (restored when it opens again); not an edit: no '*'."""
        workspace = self.workspace
        if workspace is None or workspace.document is None or workspace.project.extra.get("reader") == position:
            return
        workspace.project.extra["reader"] = dict(position)
        if not self.autosave_timer.isActive():
            self.autosave_timer.start()

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

    def export_dialog(self, fmt: proj.ExportFormat, *, which: Literal["summary", "authoring"] = "summary"
                      ) -> Job | None:
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

    def export(self, fmt: proj.ExportFormat, path: Path, *, which: Literal["summary", "authoring"] = "summary"
               ) -> Job | None:
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
        dialog = SettingsDialog(self.runner, self)
        dialog.exec()
        self._settings_changed()
        if dialog.notice:  # e.g. no system keyring: the API key is kept for this session only
            self.show_error(dialog.notice, "warning")

    def _settings_changed(self) -> None:
        """A warning that the chosen model is too small goes once another engine is chosen."""
        self.summaries.settings_changed()

    def show_help(self, which: str) -> QDialog:
        """The quick guide or the keyboard shortcuts, in a window that stays open beside the work."""
        return show_help(self, which)

    def about(self) -> None:
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
    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 — Qt's name
        if self.workspace is not None and self.dirty and self._has_work():
            answer = self.ask_save_changes()
            if answer == "cancel" or (answer == "save" and not self.save_project()):
                event.ignore()
                return
        self._closing = True
        self.messages.close()
        self.runner.cancel_all()
        self.runner.wait(10_000)
        self.session.close()  # the language model's process goes with the window
        self.document_view.close_document()
        if self.workspace is not None:
            self.workspace.discard()
            self.workspace = None
        self.prefs.geometry = bytes(self.saveGeometry().toBase64().data()).decode("ascii")
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
