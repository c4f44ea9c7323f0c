"""The files of the open project: autosave into its workspace, Save to a project file, Export, and the
window's preferences.

Autosave takes the snapshot on the GUI thread and writes it (with its fsync) on a worker, so typing never
waits for the disk; Save and Export ask where through the window's dialogs.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import shiboken6
from PySide6.QtCore import QObject, QStandardPaths, QTimer

from mmdocsum_desktop.app import project as proj
from mmdocsum_desktop.errors import MmdocsumError
from mmdocsum_desktop.gui.prefs import save_prefs, write_prefs_text
from mmdocsum_desktop.gui.window_actions import EXPORT_FILTERS
from mmdocsum_desktop.gui.workers import Job

if TYPE_CHECKING:  # a type only: the window imports this module
    from mmdocsum_desktop.gui.main_window import MainWindow

PROJECT_FILTER = "mmdocsum projects (*.mdsproj)"
AUTOSAVE_DELAY_MS = 1500


def export_target(fmt: proj.ExportFormat, path: Path) -> Path:
    """The file an export writes: ``path`` with the format's own suffix. A name typed with another
    format's suffix ("summary.pdf" for HTML) gets this one instead ("summary.html"): HTML written into a
    .pdf file opens nowhere. Any other name keeps its own and gets the format's added."""
    suffix = proj.EXPORT_SUFFIXES[fmt]
    typed = path.suffix.lower()
    if typed == suffix or (fmt == "html" and typed in (".htm", ".xhtml")) or (fmt == "markdown" and typed == ".markdown"):
        return path
    if typed in {*proj.EXPORT_SUFFIXES.values(), ".htm", ".markdown"}:
        return path.with_suffix(suffix)
    return path.with_name(path.name + suffix)


def exported_text(files: list[Path]) -> str:
    """The status line of an export: the file, and how many images went with it (all of them counted)."""
    if not files:
        return "Nothing was exported."
    main, images = Path(files[0]), [Path(f) for f in files[1:]]
    if not images:
        return f"Exported {main.name}."
    folders = sorted({image.parent.name for image in images})
    return (f"Exported {main.name} and {len(images)} image{'s' if len(images) != 1 else ''} "
            f"(in {', '.join(folders)}/).")


class ProjectFiles(QObject):
    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.autosave_timer = QTimer(self)
        self.autosave_timer.setSingleShot(True)
        self.autosave_timer.setInterval(AUTOSAVE_DELAY_MS)
        self.autosave_timer.timeout.connect(self.autosave)

    def autosave_soon(self) -> None:
        """Every change is on disk within AUTOSAVE_DELAY_MS: the first change starts the timer and later
        ones do not postpone it (restarting it on every key would save nothing while the user types)."""
        if not self.autosave_timer.isActive():
            self.autosave_timer.start()

    def autosave_pending(self) -> None:
        """Write now, on this thread, what the timer would have saved (the window goes away)."""
        if self.autosave_timer.isActive():
            self.autosave(background=False)

    def save_folder(self) -> Path:
        """Where Save and Export dialogs open: the project's own folder, else where the user saved last,
        else their Documents folder; never the paper's folder (often read-only, or someone else's)."""
        saved = self.window.workspace.project.saved_to if self.window.workspace is not None else None
        for folder in (Path(saved).parent if saved else None, Path(self.window.prefs.save_dir) if self.window.prefs.save_dir else None):
            if folder is not None and folder.is_dir():
                return folder
        documents = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
        return Path(documents) if documents and Path(documents).is_dir() else Path.home()

    def autosave(self, *, background: bool = True) -> None:
        """Save the user's work into the workspace: the snapshot is taken here, the file (with its
        fsync) is written by a worker so that typing never waits for the disk."""
        self.autosave_timer.stop()
        workspace = self.window.workspace
        if workspace is None:
            return
        text = workspace.snapshot()
        if not background:
            self._write(workspace, text)
            return
        job = Job("autosave", lambda control, stream: workspace.write_snapshot(text), kind="autosave")
        job.signals.succeeded.connect(lambda _path: self._autosaved())
        job.signals.failed.connect(lambda message: self.window.show_error(
            f"Autosave failed ({message}); your work is still in the window — save it elsewhere."))
        self.window.runner.start(job)

    def _write(self, workspace: proj.Workspace, text: str) -> None:
        try:
            workspace.write_snapshot(text)
        except OSError as error:
            self.window.show_error(f"Autosave failed ({error}); your work is still in the window — save it elsewhere.")
            return
        self._autosaved()

    def _autosaved(self) -> None:
        if not shiboken6.isValid(self.window):  # destroyed while the job ran
            return
        self.window.last_autosave = time.time()
        self.window.autosaved.emit()

    def save_prefs(self) -> None:
        text = self.window.prefs.model_dump_json(indent=2) + "\n"
        self.window.runner.start(Job("preferences", lambda control, stream: write_prefs_text(text), kind="prefs"))

    def save_project(self, *, ask: bool = False) -> bool:
        if self.window.workspace is None:
            return False
        target = self.window.workspace.project.saved_to
        if ask or not target:
            suggested = (self.window.workspace.project.title or "project")[:60].replace("/", "-") + proj.PROJECT_SUFFIX
            target = self.window.ask_save_path("Save project", PROJECT_FILTER, suggested)
            if not target:
                return False
        try:
            written = self.window.workspace.save_as(target)
        except (OSError, MmdocsumError) as error:
            self.window.show_error(f"Could not save the project: {error}")
            return False
        self.window.dirty = False
        self.window.prefs.add_recent(written)
        self.window.prefs.save_dir = str(Path(written).parent)
        save_prefs(self.window.prefs)
        self.window.update_title()
        self.window.show_status(f"Saved {written}.")
        return True

    def export_dialog(self, fmt: proj.ExportFormat, *, which: Literal["summary", "authoring"] = "summary"
                      ) -> Job | None:
        """Ask where, then export the summary (``which="summary"``) or the user's text ("authoring")."""
        if which == "authoring":
            if self.window.workspace is None or not self.window.workspace.project.authoring.strip():
                self.window.show_error("There is no text to export yet: write in the Authoring tab first.", "info")
                return None
        elif self.window.workspace is None or self.window.workspace.project.summary is None:
            self.window.show_error("There is no summary to export yet: run Summarize first.", "info")
            return None
        stem = (self.window.workspace.project.title or "summary")[:60].replace("/", "-")
        if which == "authoring":
            stem = f"{stem} - my text"
        path = self.window.ask_save_path(f"Export as {EXPORT_FILTERS[fmt]}", EXPORT_FILTERS[fmt],
                                  stem + proj.EXPORT_SUFFIXES[fmt])
        if not path:
            return None
        return self.export(fmt, Path(path), which=which)

    def export(self, fmt: proj.ExportFormat, path: Path, *, which: Literal["summary", "authoring"] = "summary"
               ) -> Job | None:
        if self.window.workspace is None:
            return None
        workspace = self.window.workspace
        target = export_target(fmt, path)
        if target != path:  # said, so that the user finds the file
            self.window.show_error(f"“{path.name}” is not a {EXPORT_FILTERS[fmt].split(' (')[0]} name: "
                                   f"exporting to {target.name} instead.", "info")
            path = target
        self.autosave()
        self.window.prefs.save_dir = str(path.parent)  # the next export's dialog opens here
        job = Job(f"Exporting {path.name}",
                  lambda control, stream: proj.export(workspace, fmt, path, which=which, control=control),
                  kind="export")
        job.signals.succeeded.connect(lambda files: self.window.show_status(exported_text(files)))
        job.signals.failed.connect(lambda message: self.window.show_error(f"Export failed: {message}"))
        self.window.start_job(job)
        return job

    def offer_recovery(self) -> bool:
        try:
            items = proj.recoverable_workspaces()
        except OSError:
            return False
        if not items:
            return False
        chosen = self.window.ask_recover(items)
        if chosen is None:
            return False
        return self.recover(chosen)

    def recover(self, item: proj.Recoverable) -> bool:
        if not self.window.ready_to_replace():
            return False
        try:
            workspace = proj.recover(item)
        except MmdocsumError as error:
            self.window.show_error(f"Could not recover the project: {error}")
            return False
        self.window.workspace = workspace
        self.window.dirty = True
        self.window.load_views()
        self.window.show_status(f"Recovered “{item.title}”. Save it with File ▸ Save Project.")
        return True
