"""The Summary tab's side of the window: summary and regenerate jobs, and the summary view's intents
(another figure, an edited paragraph) passed on to the project model.

A summary job runs in the window's Session; its result goes to :meth:`ProjectModel.accept_summary`,
which records it as a step of Undo and announces it, so the summary view redraws from the model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from mmdocsum_desktop.app import catalog
from mmdocsum_desktop.app import project as proj
from mmdocsum_desktop.gui import core
from mmdocsum_desktop.gui.project_model import ProjectModel
from mmdocsum_desktop.gui.workers import Job

if TYPE_CHECKING:  # a type only: the window imports this module
    from mmdocsum_desktop.gui.main_window import MainWindow


class SummaryController(QObject):
    def __init__(self, window: MainWindow, model: ProjectModel) -> None:
        super().__init__(window)
        self.window = window
        self.model = model
        self.view = window.summary_view
        self._regenerations = 0  # a new seed for each regenerated paragraph (LLM engines)
        self.fitness_banner = False  # the banner shows the "model too small" warning of the last run
        self.running_for: proj.Workspace | None = None  # the paper the running summary job writes for
        self.view.summarizeRequested.connect(self.summarize)
        self.view.regenerateRequested.connect(self.regenerate_paragraph)
        self.view.figureChosen.connect(self.choose_figure)
        self.view.textEdited.connect(self.edit_paragraph)
        model.summaryChanged.connect(lambda _summary: self.watch_paragraph_editors())

    # ============================================================================ jobs
    def summarize(self, *, replace: int | None = None) -> Job | None:
        """Summarise the open document; with ``replace``, write that one paragraph anew instead."""
        window = self.window
        workspace = window.workspace
        if workspace is None or workspace.document is None:
            window.show_error("Open a document first (File ▸ Open, or drop a file on the window).", "info")
            return None
        summary = workspace.project.summary
        if self.model.busy or (replace is not None and summary is None):
            return None
        window.banner.hide()  # a message about an earlier run is stale now
        session = window.current_session()
        engine = core.engine_name(session)
        writer = catalog.fitness_for_settings(session.settings, "summary_writer", engine=engine)
        if writer is not None and writer.warns:
            window.show_error(writer.sentence() + " What it writes is marked.", "warning")
            self.fitness_banner = True
        if replace is None or summary is None:
            title = "Summarizing"
            fn = core.summarize(session, workspace.document, workspace.root)
        else:
            title = f"Regenerating paragraph {replace + 1}"
            self._regenerations += 1
            fn = core.regenerate_paragraph(session, workspace.document, workspace.root, summary, replace,
                                           self._regenerations)
        job = Job(f"{title} ({engine})", fn, kind="summary")
        # its text is streamed beside its own paper only (another paper's tab may be shown meanwhile)
        job.signals.text.connect(lambda text: self.view.append_stream(text)
                                 if self._alive() and workspace is self.window.workspace else None)
        job.signals.succeeded.connect(lambda result: self._done(workspace, result, replace))
        job.signals.failed.connect(self._failed)
        job.signals.cancelled.connect(lambda partial: self._cancelled())
        job.signals.finished.connect(self._finished)
        self.model.set_busy(True)
        self.running_for = workspace
        self.view.begin_stream(f"{title} with the {engine} engine…")
        window.tabs.setCurrentWidget(self.view)
        window.start_job(job)
        window.update_actions()
        return job

    def _alive(self) -> bool:
        return shiboken6.isValid(self) and shiboken6.isValid(self.window)  # destroyed while the job ran

    def _finished(self) -> None:
        if not self._alive():
            return
        self.running_for = None
        self.model.set_busy(False)
        self.view.end_stream()
        self.window.update_actions()

    def _failed(self, message: str) -> None:
        if not self._alive():
            return
        self.window.show_error(f"Summary failed: {message}")
        self.view.show_outcome("The summary failed; the one shown (if any) is unchanged.")

    def _done(self, workspace: proj.Workspace, result: dict[str, Any], replace: int | None) -> None:
        if not self._alive():
            return
        if workspace is not self.window.workspace:  # another paper's tab is shown: it lands in its own
            self.window.papers.land_summary(workspace, result["summary"], replace)
            return
        self.view.add_images(result.get("images") or {})
        before = self.model.accept_summary(result["summary"], replace)
        summary = workspace.project.summary
        assert summary is not None  # accept_summary stored it
        writer = catalog.fitness_for_summary(summary)
        if writer is None or not writer.warns:
            self.window.banner.hide()  # success: no earlier failure or warning stays up
        if replace is None:
            self.window.show_status("Summary ready.")
        elif before is not None and replace < len(before.paragraphs) and \
                before.paragraphs[replace].text == summary.paragraphs[replace].text:
            self.window.show_status(f"Paragraph {replace + 1}: the engine wrote the same text again; nothing changed.")
        else:
            self.window.show_status(f"Paragraph {replace + 1} regenerated.")
        self.window.summaryReady.emit(summary)

    def _cancelled(self) -> None:
        if not self._alive():
            return
        # the partial text is dropped: nothing the user did not accept goes into their text
        self.window.show_status("Summary cancelled; nothing was changed.")
        self.view.show_outcome("Summary cancelled; nothing was changed.")

    def regenerate_paragraph(self, index: int) -> None:
        summary = self.model.summary
        if summary is None or index >= len(summary.paragraphs):
            return
        if core.engine_name(self.window.current_session()) == "extractive":
            self.window.show_status("The extractive engine picks the same sentences again; an LLM engine "
                                    "(Settings ▸ Engine) writes a new version.")
        self.summarize(replace=index)

    def settings_changed(self) -> None:
        """A warning that the chosen model is too small goes once another engine is chosen."""
        if not self.fitness_banner or not self.window.banner.isVisible():
            return
        session = self.window.current_session()
        writer = catalog.fitness_for_settings(session.settings, "summary_writer", engine=core.engine_name(session))
        if writer is None or not writer.warns:
            self.window.banner.hide()
            self.fitness_banner = False

    # ============================================================================ the view's intents
    def choose_figure(self, index: int, figure_id: str | None) -> None:
        workspace = self.window.workspace
        summary = self.model.summary
        if workspace is None or summary is None or not 0 <= index < len(summary.paragraphs):
            return
        figure = workspace.figure(figure_id) if figure_id else None
        if figure_id and figure is None:
            self.window.show_error(f"There is no figure {figure_id} in this document.")
            return
        swap = self.model.swap_figure(index, figure_id)
        note = ("" if swap is None or swap.taken_from is None else
                f" It was removed from paragraph {swap.taken_from + 1} (each figure is used once).")
        label = (figure.label or figure.id) if figure is not None else "no figure"
        self.window.show_status(f"Paragraph {index + 1} now shows {label}.{note}")

    def edit_paragraph(self, index: int, text: str) -> None:
        self.model.edit_paragraph(index, text)

    def watch_paragraph_editors(self) -> None:
        """Text typed into a paragraph's editor is kept (and autosaved) as it is typed, not only when the
        editor is closed: a crash while a paragraph is open for editing must not lose what was typed."""
        for card in getattr(self.view, "cards", []):
            editor = getattr(card, "editor", None)
            button = getattr(card, "edit_button", None)
            if editor is None or button is None or editor.property("mmdocsumDraftWatched"):
                continue
            editor.setProperty("mmdocsumDraftWatched", True)
            editor.textChanged.connect(lambda card=card: self._draft(card))
            button.toggled.connect(lambda checked, card=card: self._edit_started(card) if checked
                                   else self._draft_closed(card))

    def _index_of(self, card: QWidget) -> int | None:
        summary = self.model.summary
        paragraph = getattr(card, "paragraph", None)
        if summary is None or paragraph is None:
            return None
        return next((i for i, p in enumerate(summary.paragraphs) if p is paragraph), None)

    def _edit_started(self, card: Any) -> None:
        """The pencil opens a paragraph's editor: its text now is what Undo of this edit goes back to."""
        if shiboken6.isValid(card) and card.paragraph is not None:
            card.setProperty("mmdocsumTextBefore", card.paragraph.text)

    def _draft(self, card: Any) -> None:
        if not self._alive() or not shiboken6.isValid(card) or not card.edit_button.isChecked():
            return
        index = self._index_of(card)
        if index is not None:
            self.model.draft_paragraph(index, card.editor.toPlainText().strip())

    def _draft_closed(self, card: Any) -> None:
        """The editor closes: the edit is one step of Undo (the drafts kept the text as it was typed, so
        the text before is the one the editor opened with), and the paragraph is shown as edited."""
        if not shiboken6.isValid(card):
            return
        index = self._index_of(card)
        if index is None:
            return
        text_before = card.property("mmdocsumTextBefore")
        card.setProperty("mmdocsumTextBefore", None)
        if self.model.finish_paragraph_edit(index, text_before if isinstance(text_before, str) else None,
                                            card.editor.toPlainText().strip()):
            self.window.show_status(f"Paragraph {index + 1} edited (Ctrl+Z undoes it).")
