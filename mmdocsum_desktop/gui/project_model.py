"""The open project as an evented model that owns its undo steps.

Views and the window do not change the project themselves: they call an intent here (accept a summary,
edit a paragraph, give a paragraph another figure, type in the authoring editor, accept a placement...).
The intent changes the project, pushes one :class:`SnapshotCommand` onto the model's own
:class:`QUndoStack`, and the signals of :class:`~mmdocsum_desktop.gui.state.AppState` say what changed, so
every view redraws from the model. Undo and Redo put a snapshot back through the same signals. A change
made by Undo or Redo is never recorded again, and the steps of one project are dropped when another opens.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QObject, Signal
from PySide6.QtGui import QKeyEvent, QKeySequence, QUndoCommand, QUndoStack

from mmdocsum_desktop.app import project as proj
from mmdocsum_desktop.app.summary import FigureSwap, swap_figure
from mmdocsum_desktop.gui.state import AppState
from mmdocsum_desktop.schemas.summary import Summary

TYPING_MERGE_S = 2.0  # keystrokes this close together are one step of Undo

# the user's text and the placement suggestions with their status: what Undo of an authoring step restores
AuthoringState = tuple[str, list[proj.PlacementSuggestion]]


def merge_regenerated(current: Summary | None, summary: Summary, replace: int | None) -> Summary:
    """The summary a job's result makes: all of ``summary``, or with ``replace`` only that paragraph's new
    text laid into ``current`` (edits made to the others meanwhile are kept, and so is the figure the
    paragraph has now). Also for a result that lands in a paper not shown (``gui.paper_tabs``)."""
    if replace is not None and current is not None and replace < len(current.paragraphs):
        fresh = summary.paragraphs[replace].model_copy(deep=True)
        fresh.figure = current.paragraphs[replace].figure
        fresh.image_caption = current.paragraphs[replace].image_caption
        current.paragraphs[replace] = fresh
        return current
    return summary


class SnapshotCommand(QUndoCommand):
    """One step of Undo: a state before and after, applied by ``apply`` (the summary, the user's text
    with the placements, ...). The change is made before the command is pushed; redo re-applies it."""

    def __init__(self, text: str, apply: Callable[[Any], None], before: Any, after: Any, *,
                 merge_key: int = -1) -> None:
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


class UndoKeys(QObject):
    """Ctrl+Z / Ctrl+Shift+Z in an editor go to the model's one undo stack, not to the editor's own
    (which would undo typing but not an accepted placement)."""

    def __init__(self, stack: QUndoStack, parent: QObject) -> None:
        super().__init__(parent)
        self.stack = stack

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 — Qt's name
        if event.type() in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress) and isinstance(event, QKeyEvent):
            for key, step in ((QKeySequence.StandardKey.Undo, self.stack.undo),
                              (QKeySequence.StandardKey.Redo, self.stack.redo)):
                if event.matches(key):
                    if event.type() == QEvent.Type.KeyPress:
                        step()
                    event.accept()
                    return True
        return False


class ProjectModel(AppState):
    """The project shown in the window: the state the views observe, and the intents that change it."""

    changed = Signal()  # the user's work changed (an intent, an Undo or a Redo): the window saves it
    authoringRestored = Signal(str)  # Undo/Redo put this text back into the authoring editor

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.undo_stack = QUndoStack(self)
        self._applying_undo = False
        self._authoring_text = ""  # the text before the latest edit (what Undo of typing goes back to)

    @property
    def applying_undo(self) -> bool:
        return self._applying_undo

    def set_workspace(self, workspace: proj.Workspace | None) -> None:
        # Undo steps belong to the work they changed; another project starts with none
        self.undo_stack.clear()
        self._authoring_text = workspace.project.authoring if workspace is not None else ""
        super().set_workspace(workspace)

    # ============================================================================ summary intents
    def accept_summary(self, summary: Summary, replace: int | None = None) -> Summary | None:
        """A summary job's result becomes the project's summary (one step of Undo). With ``replace``,
        only that paragraph's new text is taken: edits made to the others meanwhile are kept, and so is
        the figure the paragraph has now (one the user removed is not put back). Returns the summary
        before, for the window to say what changed."""
        workspace = self.workspace
        if workspace is None:
            return None
        current = workspace.project.summary
        before = current.model_copy(deep=True) if current is not None else None
        summary = merge_regenerated(current, summary, replace)
        workspace.project.summary = summary
        self._record_summary("Regenerate paragraph" if replace is not None else "Summarize", before)
        self.set_summary(summary)
        self.changed.emit()
        return before

    def swap_figure(self, index: int, figure_id: str | None) -> FigureSwap | None:
        """Paragraph ``index`` shows figure ``figure_id`` (None: no figure); a figure shown by another
        paragraph leaves it (each figure is used once)."""
        workspace = self.workspace
        summary = workspace.project.summary if workspace is not None else None
        if workspace is None or summary is None or not 0 <= index < len(summary.paragraphs):
            return None
        figure = workspace.figure(figure_id) if figure_id else None
        before = summary.model_copy(deep=True)
        swap = swap_figure(summary, index, figure_id, document=workspace.document)
        label = (figure.label or "a figure") if figure is not None else "no figure"
        self._record_summary(f"Paragraph {index + 1}: {label}", before)
        self.set_summary(summary)
        self.changed.emit()
        return swap

    def edit_paragraph(self, index: int, text: str) -> bool:
        """Paragraph ``index`` says ``text`` now (one step of Undo)."""
        summary = self.summary
        if summary is None or not 0 <= index < len(summary.paragraphs):
            return False
        before = summary.model_copy(deep=True)
        summary.paragraphs[index].text = text
        self._record_summary(f"Edit paragraph {index + 1}", before)
        self.set_summary(summary)
        self.changed.emit()
        return True

    def draft_paragraph(self, index: int, text: str) -> None:
        """Text typed into a paragraph's open editor is kept as it is typed (and autosaved): a crash while
        the editor is open loses nothing. Not a step of Undo: closing the editor is (``finish_paragraph_edit``)."""
        summary = self.summary
        if summary is None or not 0 <= index < len(summary.paragraphs) or summary.paragraphs[index].text == text:
            return
        summary.paragraphs[index].text = text
        self.changed.emit()

    def finish_paragraph_edit(self, index: int, text_before: str | None, typed: str) -> bool:
        """A paragraph's editor closed: the edit since it opened (with ``text_before``) is one step of Undo,
        and the paragraph is shown as edited. Returns whether the text changed."""
        summary = self.summary
        if summary is None or not 0 <= index < len(summary.paragraphs):
            return False
        paragraph = summary.paragraphs[index]
        if typed and typed != paragraph.text:
            paragraph.text = typed
        edited = text_before is not None and paragraph.text != text_before
        if edited:
            before = summary.model_copy(deep=True)
            before.paragraphs[index].text = text_before or ""
            self._record_summary(f"Edit paragraph {index + 1}", before)
            self.changed.emit()
        self.set_summary(summary)
        return edited

    def _record_summary(self, what: str, before: Summary | None) -> None:
        """Put a change of the summary (already made) on the undo stack."""
        workspace = self.workspace
        if workspace is None or self._applying_undo:
            return
        after = workspace.project.summary.model_copy(deep=True) if workspace.project.summary is not None else None

        def apply(state: Summary | None, workspace: proj.Workspace = workspace) -> None:
            self._apply_undo(lambda: self._restore_summary(workspace, state))

        self.undo_stack.push(SnapshotCommand(what, apply, before, after))

    def _restore_summary(self, workspace: proj.Workspace, state: Summary | None) -> None:
        if workspace is not self.workspace:
            return
        self.set_summary(state.model_copy(deep=True) if state is not None else None)
        self.changed.emit()

    # ============================================================================ authoring intents
    def authoring_state(self) -> AuthoringState:
        """The user's text and the placement suggestions with their status, as Undo restores them."""
        workspace = self.workspace
        if workspace is None:
            return "", []
        return workspace.project.authoring, [p.model_copy(deep=True) for p in workspace.project.placements]

    def type_text(self, text: str, *, record: bool = True) -> None:
        """The authoring editor holds ``text`` now. Typing is a step of Undo that merges with the keystrokes
        just before it; ``record=False`` for a change another intent records (an accepted placement)."""
        workspace = self.workspace
        if workspace is None or workspace.project.authoring == text:
            return
        before = (self._authoring_text, [p.model_copy(deep=True) for p in workspace.project.placements])
        workspace.project.authoring = text
        self._authoring_text = text
        if record:
            self._record_authoring("Typing", before, self.authoring_state(), typing=True)
        self.changed.emit()

    def change_authoring(self, what: str, change: Callable[[], bool]) -> bool:
        """Run ``change`` (an accepted, rejected or taken-back placement, which edits the text and the
        suggestions) as one step of Undo; ``change`` returns False when it changed nothing."""
        before = self.authoring_state()
        if not change():
            return False
        self._record_authoring(what, before, self.authoring_state())
        self.changed.emit()
        return True

    def placements_edited(self) -> None:
        """The suggestions were changed in place (statuses, a new run of Place images)."""
        if self.workspace is not None:
            self.changed.emit()

    def _record_authoring(self, what: str, before: AuthoringState, after: AuthoringState, *,
                          typing: bool = False) -> None:
        workspace = self.workspace
        if self._applying_undo or workspace is None:
            return

        def apply(state: AuthoringState, workspace: proj.Workspace = workspace) -> None:
            self._apply_undo(lambda: self._restore_authoring(workspace, state))

        self.undo_stack.push(SnapshotCommand(what, apply, before, after, merge_key=1 if typing else -1))

    def _restore_authoring(self, workspace: proj.Workspace, state: AuthoringState) -> None:
        if workspace is not self.workspace:
            return
        text, placements = state
        workspace.project.placements = [p.model_copy(deep=True) for p in placements]
        workspace.project.authoring = text
        self._authoring_text = text
        self.authoringRestored.emit(text)
        self.set_placements(workspace.project.placements)
        self.changed.emit()

    def _apply_undo(self, change: Callable[[], None]) -> None:
        if self._applying_undo:
            return
        self._applying_undo = True
        try:
            change()
        finally:
            self._applying_undo = False

