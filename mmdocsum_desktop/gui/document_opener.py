"""Opening a document in the window: read in the background, then shown in a tab of its own beside the
papers already open (``gui.paper_tabs``).

The current work is only replaced once the new document is ready (and the user agreed), so a file that
fails to open costs nothing; text written before any document was open goes with the document opened
next. An encrypted PDF asks for its password and is read again.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QObject

from mmdocsum_desktop.app import project as proj
from mmdocsum_desktop.errors import EncryptedDocumentError
from mmdocsum_desktop.gui import core
from mmdocsum_desktop.gui.banner import counted, open_failure_text
from mmdocsum_desktop.gui.workers import Job
from mmdocsum_desktop.schemas.document import Document

if TYPE_CHECKING:  # a type only: the window imports this module
    from mmdocsum_desktop.gui.main_window import MainWindow


class DocumentOpener(QObject):
    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window

    def open(self, path: Path, *, password: str | None = None) -> Job | None:
        """Read the file in the background. The current work is only replaced once the new document is
        ready (and the user agreed), so a file that fails to open costs nothing."""
        if self.window.runner.running("open"):
            self.window.show_error("A document is already being opened; wait for it or cancel it.", "warning")
            return None
        if not path.exists():
            self.window.show_error(f"{path}: no such file")
            return None
        self.window.banner.hide()
        current = self.window.workspace
        # text written before any document was open belongs with the document opened next
        workspace = current if current is not None and current.document is None else proj.Workspace.create()

        def drop_new() -> None:
            if workspace is not self.window.workspace:
                workspace.discard()

        def failed(message: str) -> None:
            drop_new()
            self._failed(path, message, job)

        def cancelled(_partial: object) -> None:
            drop_new()
            self.window.show_status("Opening cancelled.")

        reading = core.open_document(self.window.session, path, workspace.root, password=password)
        job = Job(f"Opening {path.name}", reading, kind="open")
        job.signals.succeeded.connect(lambda document: self._ready(workspace, document, path))
        job.signals.failed.connect(failed)
        job.signals.cancelled.connect(cancelled)
        self.window.start_job(job)
        self.window.show_status(f"Opening {path.name}…")
        return job

    def _failed(self, path: Path, message: str, job: Job) -> None:
        if not shiboken6.isValid(self.window):  # destroyed while the job ran
            return
        if isinstance(job.exception, EncryptedDocumentError) and not self.window.closing:
            password = self.window.ask_password(path.name)
            if password:
                self.open(path, password=password)
                return
        self.window.show_error(open_failure_text(path, message))

    def _ready(self, workspace: proj.Workspace, document: Document, path: Path) -> None:
        if not shiboken6.isValid(self.window):  # destroyed while the job ran
            return
        if self.window.closing:
            if workspace is not self.window.workspace:
                workspace.discard()
            return
        if workspace is not self.window.workspace:
            if not self.window.ready_to_replace():
                workspace.discard()
                self.window.show_status(f"{path.name} was not opened; your work is unchanged.")
                return
        workspace.set_document(document)
        self.window.workspace = workspace
        self.window.prefs.add_recent(path, document.title)
        self.window.files.save_prefs()
        self.window.load_views()
        if self.window.has_work():
            self.window.mark_changed()
        else:
            self.window.dirty = False
            self.window.autosave()
        warnings = "; ".join(document.warnings[:2])
        count = f"{counted(len(document.figures), 'figure')}, {counted(len(document.tables), 'table')}"
        self.window.show_status(f"Opened {path.name}: {document.page_count or '–'} pages, {count}."
                                + (f" Note: {warnings}" if warnings else ""))
        self.window.documentOpened.emit(document)
