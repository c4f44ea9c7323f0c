"""The window's application state as one evented object that the views observe.

The setters here change what is open and announce it: each emits the signal of what changed, and the
views (summary, authoring, document, gallery, ask) redraw from it. So a new document cannot leave a
summary or placement suggestions of the previous one on screen: ``set_workspace`` announces the new
document, summary and placements together. The user's edits go through the intents of its subclass
:class:`~mmdocsum_desktop.gui.project_model.ProjectModel`, which records each as a step of Undo.
Summaries and placements are the application's own objects (``schemas.summary.Summary``,
``app.project`` placements), stored in the workspace's project as they are.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal

from mmdocsum_desktop.app import project as proj


class AppState(QObject):
    workspaceChanged = Signal(object)  # the Workspace, or None
    documentChanged = Signal(object)  # the Document, or None
    summaryChanged = Signal(object)  # the Summary, or None
    placementsChanged = Signal(object)  # the list of placements (empty without a workspace)
    busyChanged = Signal(bool)  # a summary job started or ended

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._workspace: proj.Workspace | None = None
        self._busy = False  # a summary job runs

    # ---- what the views read
    @property
    def workspace(self) -> proj.Workspace | None:
        return self._workspace

    @property
    def document(self) -> Any | None:
        return self._workspace.document if self._workspace is not None else None

    @property
    def summary(self) -> Any | None:
        return self._workspace.project.summary if self._workspace is not None else None

    @property
    def placements(self) -> list[Any]:
        return list(self._workspace.project.placements) if self._workspace is not None else []

    @property
    def busy(self) -> bool:
        return self._busy

    # ---- what the main window writes
    def hold(self, workspace: proj.Workspace | None) -> None:
        """Keep ``workspace`` without announcing it yet: the window swaps projects in steps (the old one
        is discarded, a new one made for text typed before any document) and announces the result with
        ``set_workspace`` once the views should show it; until then they keep what they show."""
        self._workspace = workspace

    def set_workspace(self, workspace: proj.Workspace | None) -> None:
        """Another project or document (or none): everything shown belongs to it from now on."""
        self._workspace = workspace
        self.workspaceChanged.emit(workspace)
        self.documentChanged.emit(self.document)
        self.summaryChanged.emit(self.summary)
        self.placementsChanged.emit(self.placements)

    def set_summary(self, summary: Any | None) -> None:
        """Store the summary in the project (as it is) and show it; also after an edit in place."""
        if self._workspace is None:
            return
        self._workspace.project.summary = summary
        self.summaryChanged.emit(summary)

    def set_placements(self, placements: list[Any]) -> None:
        if self._workspace is None:
            return
        self._workspace.project.placements = list(placements)
        self.placementsChanged.emit(self.placements)

    def set_busy(self, busy: bool) -> None:
        if busy != self._busy:
            self._busy = busy
            self.busyChanged.emit(busy)
