"""The main window: document pane + figure gallery on the left; summary, authoring and benchmark views on
the right; one job bar (progress + Cancel) in the status bar; an error banner that never blocks.

The window is the controller: it owns the Session the jobs run in, the project model the views observe
(:class:`~mmdocsum_desktop.gui.project_model.ProjectModel`, with the undo stack), and the open, save,
export, autosave and recovery of a project. The Summary tab's jobs and intents are in
:mod:`~mmdocsum_desktop.gui.summary_controller`, the menus and actions in
:mod:`~mmdocsum_desktop.gui.window_actions`, the files of the project in
:mod:`~mmdocsum_desktop.gui.project_files`.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Literal

import shiboken6
from PySide6.QtCore import QByteArray, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QPaintEvent, QUndoStack
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMessageBox,
    QSplitter,
    QTabWidget,
)

from mmdocsum_desktop import __version__
from mmdocsum_desktop.app import project as proj
from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.errors import MmdocsumError, ModelProcessError
from mmdocsum_desktop.gui import core, icons, main_thread_gc, theme
from mmdocsum_desktop.gui.ask_view import AskView
from mmdocsum_desktop.gui.authoring_view import AuthoringView
from mmdocsum_desktop.gui.banner import (
    ErrorBanner,
    ask_recover,
    ask_save_changes,
    model_stopped_dialog,
    window_words,
)
from mmdocsum_desktop.gui.bench_view import BenchView
from mmdocsum_desktop.gui.document_opener import DocumentOpener
from mmdocsum_desktop.gui.document_view import DocumentView
from mmdocsum_desktop.gui.figure_text_job import FigureTextReader
from mmdocsum_desktop.gui.library_view import LibraryView
from mmdocsum_desktop.gui.message_bridge import MessageBridge
from mmdocsum_desktop.gui.paper_tabs import PaperTabs
from mmdocsum_desktop.gui.prefs import GuiPrefs, load_prefs, save_prefs
from mmdocsum_desktop.gui.project_files import PROJECT_FILTER, ProjectFiles
from mmdocsum_desktop.gui.project_model import ProjectModel, UndoKeys
from mmdocsum_desktop.gui.settings_dialog import SettingsDialog
from mmdocsum_desktop.gui.summary_controller import SummaryController
from mmdocsum_desktop.gui.summary_view import SummaryView
from mmdocsum_desktop.gui.widgets.gallery import FigureGallery
from mmdocsum_desktop.gui.widgets.jobbar import JobBar
from mmdocsum_desktop.gui.window_actions import build_actions, build_layout, enable_actions, show_help
from mmdocsum_desktop.gui.workers import Job, JobRunner
from mmdocsum_desktop.schemas.settings import Settings, load_settings

log = logging.getLogger(__name__)

DOCUMENT_FILTER = "Documents (*.pdf *.html *.htm *.xhtml *.md *.markdown *.nxml *.xml);;All files (*)"


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
    tabs: QTabWidget  # window_actions.build_layout makes these
    splitter: QSplitter

    def __init__(self, *, prefs: GuiPrefs | None = None, session: Session | None = None) -> None:
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
        self.closing = False
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
        self.summary_view.sentenceClicked.connect(self.follow_sentence)
        self.authoring_view = AuthoringView(self)
        self.authoring_view.editor.setUndoRedoEnabled(False)  # the model's undo stack has every step
        self.authoring_view.editor.installEventFilter(UndoKeys(self.undo_stack, self))
        self.authoring_view.textChanged.connect(self._authoring_changed)
        self.authoring_view.suggestionsChanged.connect(self.state.placements_edited)
        self.bench_view = BenchView(self)
        self.ask_view = AskView(self)
        self.library_view = LibraryView(self)
        for view in (self.document_view, self.gallery, self.summary_view, self.authoring_view, self.ask_view):
            view.observe(self.state)
        self.summaries = SummaryController(self, self.state)
        self.files = ProjectFiles(self)
        self.opener = DocumentOpener(self)
        self.job_bar = JobBar()
        self.status_label = QLabel("")
        build_layout(self)
        self.papers = PaperTabs(self)  # the open papers, one tab each (issue 36, point 7)
        # an open paper's figure text read in the background when figure text is on (issue 39, point 4)
        self.figure_text = FigureTextReader(self)
        # beside the job bar, left of it (index 1: after the status line, the status bar's one widget)
        self.statusBar().insertPermanentWidget(1, self.figure_text.label)

        # What the core says while jobs run (a model fell back to the CPU, a cache was recreated).
        self.messages = MessageBridge(self)
        self.messages.notice.connect(lambda level, text: self.show_error(text, "warning" if level == "warning" else "info"))

        # the one Session of this window: every job runs in it, and it closes with the window
        self.session = session if session is not None else Session(self.engine_settings())
        build_actions(self)
        theme.apply_to(self)  # light, dark or the system's (Settings ▸ Appearance)
        self.resize(1280, 820)
        if self.prefs.geometry:
            self.restoreGeometry(QByteArray.fromBase64(self.prefs.geometry.encode("ascii")))
        self.update_title()
        self.update_actions()
        # the readers, the models and their runtimes (PyMuPDF, onnxruntime) are imported by a warm-up job
        # once the window has painted: imported here, they would hold the GIL while the window appears
        self._warm_up_pending = True
        # cycles are collected on this thread only while the window lives (main_thread_gc says why)
        main_thread_gc.collector().hold(self)

    @property
    def workspace(self) -> proj.Workspace | None:
        return self._holder["workspace"]

    @workspace.setter
    def workspace(self, value: proj.Workspace | None) -> None:
        self._holder["workspace"] = value
        self.state.hold(value)  # announced to the views by load_views

    @property
    def undo_stack(self) -> QUndoStack:
        return self.state.undo_stack

    def current_session(self) -> Session:
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
        enable_actions(self)

    def update_title(self) -> None:
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
        return self.files.save_folder()

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
        """'save', 'discard' or 'cancel' (about every paper named, when the window closes with several)."""
        return ask_save_changes(self, self.papers.asking)

    def ask_recover(self, items: list[proj.Recoverable]) -> proj.Recoverable | None:
        return ask_recover(self, items)

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
        if self.papers.switch_to_path(path):  # already open: its tab is shown
            return None
        if path.suffix == proj.PROJECT_SUFFIX:
            return self.open_project(path)
        return self.open_document(path)

    def ready_to_replace(self) -> bool:
        if self.workspace is None or self.papers.set_aside():  # the open paper stays, in its tab
            return True
        if not self.dirty or not self.has_work():
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

    def has_work(self) -> bool:
        project = self.workspace.project if self.workspace else None
        return bool(project and (project.summary or project.authoring.strip() or project.placements))

    def open_document(self, path: Path, *, password: str | None = None) -> Job | None:
        """Read the file in the background; the current work is replaced only once it is ready."""
        return self.opener.open(path, password=password)

    def load_views(self) -> None:
        workspace = self.workspace
        document = workspace.document if workspace else None
        if document is not None and document.kind == "pdf" and not Path(document.source).exists():
            self.show_error(f"The original file {document.source} is gone; showing the extracted text.", "warning")
        # the document, its summary and placements (or none) replace whatever the views showed; the
        # model drops the undo steps of the project before
        self.state.set_workspace(workspace)
        self.papers.shown(workspace)
        self.document_view.restore_position((workspace.project.extra.get("reader") if workspace else None) or {})
        self.update_title()
        self.update_actions()

    def open_project(self, path: Path) -> Job | None:
        if not self.ready_to_replace():
            return None
        try:
            workspace = proj.open_project(path)
        except MmdocsumError as error:
            self.show_error(str(error))
            return None
        self.workspace = workspace
        self.dirty = False
        self.prefs.add_recent(path, workspace.document.title if workspace.document is not None else None)
        save_prefs(self.prefs)
        self.load_views()
        self.show_status(f"Opened project {path.name}.")
        if workspace.document is not None:
            self.documentOpened.emit(workspace.document)
        return None

    def fill_recent(self) -> None:
        self.recent_menu.clear()
        for item in self.prefs.recent_files:
            action = self.recent_menu.addAction(self.prefs.recent_label(item))
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

    def follow_sentence(self, block_id: str, text: str) -> None:
        """A summary sentence's own citation: that sentence marked on its page (the block when the page does
        not print it)."""
        self.document_view.show_sentence(block_id, text)

    def follow_citation(self, kind: str, ref: str) -> None:
        self.document_view.clear_sentence()  # the sentence marked before goes with the next citation
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
        self.files.autosave_soon()

    # ============================================================================ saving
    def mark_changed(self) -> None:
        """The work changed since the last Save ('*' in the title); it is autosaved soon."""
        self.dirty = True
        self.update_title()
        self.files.autosave_soon()

    def autosave(self, *, background: bool = True) -> None:
        """Save the user's work into the workspace now (the file is written by a worker)."""
        self.files.autosave(background=background)

    def save_project(self, *, ask: bool = False) -> bool:
        return self.files.save_project(ask=ask)

    def export_dialog(self, fmt: proj.ExportFormat, *, which: Literal["summary", "authoring"] = "summary"
                      ) -> Job | None:
        """Ask where, then export the summary (``which="summary"``) or the user's text ("authoring")."""
        return self.files.export_dialog(fmt, which=which)

    def export(self, fmt: proj.ExportFormat, path: Path, *, which: Literal["summary", "authoring"] = "summary"
               ) -> Job | None:
        return self.files.export(fmt, path, which=which)

    # ============================================================================ settings etc.
    def open_settings(self) -> None:
        dialog = SettingsDialog(self.runner, self)
        dialog.exec()
        theme.apply_to(self)  # the colour scheme and the reader's inversion, as the dialog left them
        self.current_session()  # what the dialog saved applies from now on, also to a job started elsewhere
        self._settings_changed()
        if dialog.notice:  # e.g. no system keyring: the API key is kept for this session only
            self.show_error(dialog.notice, "warning")

    def _settings_changed(self) -> None:
        """A warning that the chosen model is too small goes once another engine is chosen; figure text
        turned on is read for the open papers (off: their readings stop)."""
        self.summaries.settings_changed()
        self.figure_text.settings_changed()

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
        """A language model's process that crashed or hung is said in a dialog as well as in the banner."""
        if shiboken6.isValid(self) and isinstance(job.exception, ModelProcessError):
            self.model_error_dialog = model_stopped_dialog(self, job)

    def remember_bench_run(self, run: Path) -> None:
        """Put a benchmark run first in the list the Benchmark view offers next time."""
        self.prefs.remember_bench_run(run)
        self.files.save_prefs()

    def cancel_jobs(self, kind: str | None = None) -> None:
        for job in self.runner.running(kind):
            job.cancel()

    # ============================================================================ recovery
    def offer_recovery(self) -> bool:
        """After a crash: offer the newest unsaved project back."""
        return self.files.offer_recovery()

    def recover(self, item: proj.Recoverable) -> bool:
        return self.files.recover(item)

    # ============================================================================ closing
    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 — Qt's name
        super().paintEvent(event)
        if self._warm_up_pending:
            self._warm_up_pending = False
            QTimer.singleShot(0, self, self._warm_up)  # after this paint; not at all once the window is gone

    def _warm_up(self) -> None:
        if not self.closing:
            self.runner.start(Job("warming up", core.warm_up(self.session), kind="warm-up"))

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 — Qt's name
        if not self.papers.ready_to_close():  # one question for every open paper with unsaved work
            event.ignore()
            return
        self.closing = True
        self.messages.close()
        self.runner.cancel_all()
        self.runner.wait(10_000)
        self.session.close()  # the language model's process goes with the window
        self.document_view.close_document()
        self.library_view.close_library()
        self.papers.discard_all()
        if self.workspace is not None:
            self.workspace.discard()
            self.workspace = None
        self.prefs.geometry = bytes(self.saveGeometry().toBase64().data()).decode("ascii")
        save_prefs(self.prefs)
        main_thread_gc.collector().release(id(self))
        event.accept()

    def release(self) -> None:
        """The window goes away without closing (tests simulate a crash): the workspace stays on disk."""
        self.closing = True
        self.files.autosave_pending()
        self.runner.cancel_all()
        self.runner.wait(10_000)
        self.document_view.close_document()
        self.library_view.close_library()
        main_thread_gc.collector().release(id(self))
        self.papers.release_all()
        if self.workspace is not None:
            self.workspace.release()
