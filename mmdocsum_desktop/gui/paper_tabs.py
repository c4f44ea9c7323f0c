"""Several papers open at once: one tab per paper above the window's panes, each holding its own workspace.

The window still shows one workspace at a time (``MainWindow.workspace``, announced to the views by
``load_views``); this module owns the others and the tab bar. Opening a paper adds a tab beside the open
ones instead of replacing the open work (``set_aside``, from ``MainWindow.ready_to_replace``); opening a
paper that is already open shows its tab; switching tabs hands the window that paper's workspace, so its
document, summary, authoring text, placements and reader position come back as they were.

What belongs to one paper stays with it:
* its unsaved state ("dirty"), kept here for the papers not shown; a paper's work is autosaved into its
  own workspace before another is shown, so recovery after a crash finds every open paper's work;
* a summary job: its result lands in the project of the paper it was started for, also after a switch
  (``land_summary``); one summary runs at a time in the window (the Session has one engine);
* Place images and a question in the Ask tab work on the paper shown: switching cancels them, and says so;
  the questions already answered stay with their paper (``AskView`` keeps them per workspace).
The undo history does not follow a paper: it is dropped on a switch, as it was when another paper was
opened (``ProjectModel.set_workspace`` clears it); the work itself is kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QBoxLayout, QTabBar

from mmdocsum_desktop.app import project as proj
from mmdocsum_desktop.gui.project_model import merge_regenerated
from mmdocsum_desktop.gui.workers import Job
from mmdocsum_desktop.schemas.summary import Summary

if TYPE_CHECKING:  # a type only: the window imports this module
    from mmdocsum_desktop.gui.main_window import MainWindow

TAB_TEXT_PX = 200  # a tab's title is elided to this width: ten open papers still fit a window's width


@dataclass
class Paper:
    """One open paper: its workspace, and whether it changed since it was last saved to a project file
    (for the paper shown, the window's own ``dirty`` is the truth)."""

    workspace: proj.Workspace
    dirty: bool = False


def has_work(workspace: proj.Workspace) -> bool:
    """Something the user would lose by discarding the workspace (as ``MainWindow.has_work``)."""
    project = workspace.project
    return bool(project.summary or project.authoring.strip() or project.placements)


def paper_title(workspace: proj.Workspace) -> str:
    document = workspace.document
    source = workspace.project.source or (document.source if document is not None else "")
    return ((document.title if document is not None else "") or workspace.project.title
            or (Path(source).name if source else "") or "Untitled")


def _release_all(papers: list[Paper]) -> None:
    for paper in papers:
        paper.workspace.release()


def _same_file(a: str | Path | None, b: str | Path) -> bool:
    if not a:
        return False
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


class PaperTabs(QObject):
    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.papers: list[Paper] = []
        self.current: Paper | None = None
        self.asking: list[str] = []  # the papers the save question is about while it is asked
        self.bar = QTabBar()
        self.bar.setObjectName("paperTabs")
        self.bar.setTabsClosable(True)
        self.bar.setDocumentMode(True)
        self.bar.setExpanding(False)
        self.bar.setUsesScrollButtons(True)
        self.bar.setElideMode(Qt.TextElideMode.ElideRight)
        self.bar.currentChanged.connect(self._tab_chosen)
        self.bar.tabCloseRequested.connect(self.close_paper)
        self.bar.setVisible(False)
        # above both panes (under the banner): a tab switches the reader and the summary together
        central = window.centralWidget()
        layout = central.layout() if central is not None else None
        if isinstance(layout, QBoxLayout):  # build_layout's column: the banner, then the panes
            layout.insertWidget(1, self.bar)
        # a window destroyed without closing (a crash, as tests simulate it) leaves every open paper's
        # workspace on disk for recovery; the list, not this object, is captured: it may be gone by then
        papers = self.papers
        window.destroyed.connect(lambda *_: _release_all(papers))

    # ============================================================================ what is open
    def find(self, workspace: proj.Workspace | None) -> Paper | None:
        return next((paper for paper in self.papers if paper.workspace is workspace), None)

    def find_path(self, path: Path) -> Paper | None:
        """The open paper read from ``path`` (a document), or saved as ``path`` (a project file)."""
        for paper in self.papers:
            project = paper.workspace.project
            if _same_file(project.saved_to if path.suffix == proj.PROJECT_SUFFIX else project.source, path):
                return paper
        return None

    def unsaved(self, paper: Paper) -> bool:
        dirty = self.window.dirty if paper is self.current else paper.dirty
        return dirty and has_work(paper.workspace)

    # ============================================================================ the window's hooks
    def set_aside(self) -> bool:
        """Another paper is about to be shown in place of the open one (``ready_to_replace``): the open
        one keeps its tab and its work, saved into its workspace now. False when the open work has no tab
        (text typed before any paper was open): the window then asks about it as it always did."""
        paper = self.find(self.window.workspace)
        if paper is None or paper is not self.current:
            return False
        self._leave(paper)
        return True

    def shown(self, workspace: proj.Workspace | None) -> None:
        """The window shows ``workspace`` now (``load_views``): its tab is added if it has none, and chosen."""
        leaving = self.current
        paper = self.find(workspace)
        if paper is None and workspace is not None:  # a paper, or a project of text alone: a tab either way
            paper = Paper(workspace)
            self.papers.append(paper)
            self.bar.blockSignals(True)
            self.bar.addTab("")
            self.bar.blockSignals(False)
        self.current = paper
        if leaving is not None and leaving is not paper:
            self._stop_jobs_of_shown(leaving)
        self.refresh()
        self._follow_summary_job()

    def switch_to_path(self, path: Path) -> bool:
        """Opening a paper that is already open shows its tab (no second copy of the same work)."""
        paper = self.find_path(path)
        if paper is None:
            return False
        self.show(paper)
        self.window.show_status(f"“{paper_title(paper.workspace)}” is already open; showing it.")
        if paper.workspace.document is not None:
            self.window.documentOpened.emit(paper.workspace.document)  # e.g. the Library's page to show
        return True

    def ready_to_close(self) -> bool:
        """The window closes: one question for every paper with unsaved work. Save saves each (asking
        where for those never saved); Cancel, or a Save that did not happen, keeps the window open."""
        current = self.window.workspace
        unsaved: list[tuple[proj.Workspace, Paper | None]] = [
            (paper.workspace, paper) for paper in self.papers if self.unsaved(paper)]
        if current is not None and self.find(current) is None and self.window.dirty and has_work(current):
            unsaved.insert(0, (current, None))  # text typed with no paper open: saved first, while shown
        if not unsaved:
            return True
        self.asking = [paper_title(workspace) for workspace, _paper in unsaved]
        try:
            answer = self.window.ask_save_changes()
        finally:
            self.asking = []
        if answer == "cancel":
            return False
        if answer == "save":
            for _workspace, paper in unsaved:
                if paper is not None:
                    self.show(paper)
                if not self.window.save_project():
                    return False
        return True

    def discard_all(self) -> None:
        """A clean close (saved, or the user chose to discard): every open paper's workspace goes."""
        for paper in self.papers:
            paper.workspace.discard()
        self.papers.clear()
        self.current = None

    def release_all(self) -> None:
        """The window goes away unclosed: every workspace stays on disk, to be recovered."""
        _release_all(self.papers)

    # ============================================================================ the user's choices
    def show(self, paper: Paper) -> None:
        """Show ``paper`` in the window: its document, summary, text, placements and reader position."""
        window = self.window
        if paper is self.current and window.workspace is paper.workspace:
            return
        if self.current is not None and window.workspace is self.current.workspace:
            self._leave(self.current)
        window.show_status("")  # a status line about the paper left is not about this one
        window.workspace = paper.workspace
        window.dirty = paper.dirty
        window.load_views()  # calls shown(): the tab is chosen, the jobs of the paper left stopped

    def close_paper(self, index: int) -> bool:
        """The tab's close button: unsaved work is asked about as when the window closes; the last tab
        closed leaves the empty window. Returns whether the paper was closed."""
        if not 0 <= index < len(self.papers):
            return False
        paper = self.papers[index]
        window = self.window
        if self.unsaved(paper):
            self.show(paper)  # the question is about the paper in front of the user; Save saves this one
            answer = window.ask_save_changes()
            if answer == "cancel" or (answer == "save" and not window.save_project()):
                return False
        if window.summaries.running_for is paper.workspace:
            window.cancel_jobs(kind="summary")  # nothing may be written into a workspace that is gone
        window.figure_text.cancel(paper.workspace)  # its crops go with it: their text is not read on
        position = self.papers.index(paper)
        self.papers.remove(paper)
        self.bar.blockSignals(True)
        self.bar.removeTab(position)
        self.bar.blockSignals(False)
        if paper is self.current:
            window.files.autosave_timer.stop()  # its work is discarded: nothing of it to write
            self.current = None
            if self.papers:
                neighbour = self.papers[min(position, len(self.papers) - 1)]
                window.workspace = neighbour.workspace
                window.dirty = neighbour.dirty
            else:
                # the editor keeps typed text when no project is shown (never lost by accident); here
                # the user closed that paper on purpose, so its text leaves the editor with it
                editor = window.authoring_view.editor
                editor.blockSignals(True)
                editor.clear()
                editor.blockSignals(False)
                window.workspace = None
                window.dirty = False
            self._stop_jobs_of_shown(paper)
            window.load_views()
        workspace = paper.workspace
        # an autosave (or a cancelled summary) still running may write into the folder after it went: it
        # goes again once they end, or the next start would offer the closed paper as crashed work. Hooked
        # before the folder goes: a job that ends in between has then written before the discard below
        for job in window.runner.running("autosave") + window.runner.running("summary"):
            job.signals.finished.connect(lambda: workspace.discard())
        workspace.discard()
        window.show_status(f"Closed “{paper_title(workspace)}”.")
        return True

    def land_summary(self, workspace: proj.Workspace, summary: Summary, replace: int | None) -> None:
        """A summary job finished after the user switched to another paper: the summary goes into the
        project of the paper it was written for (not into the one shown), which is saved and marked as
        changed. A paper closed meanwhile gets nothing."""
        paper = self.find(workspace)
        if paper is None:
            return
        project = workspace.project
        project.summary = merge_regenerated(project.summary, summary, replace)
        paper.dirty = True
        self.refresh()
        text = workspace.snapshot()
        job = Job("autosave", lambda control, stream: workspace.write_snapshot(text), kind="autosave")
        job.signals.failed.connect(lambda message: self.window.show_error(
            f"Autosave failed ({message}); the summary is in “{paper_title(workspace)}”'s tab — save it elsewhere."))
        self.window.runner.start(job)
        what = "Summary" if replace is None else f"Paragraph {replace + 1}"
        self.window.show_status(f"{what} of “{paper_title(workspace)}” is ready in its tab.")

    # ============================================================================ inside
    def refresh(self) -> None:
        """Each tab's title (elided; the file name as tooltip) and the chosen one; no bar without papers."""
        metrics = self.bar.fontMetrics()
        self.bar.blockSignals(True)
        for index, paper in enumerate(self.papers):
            title = paper_title(paper.workspace)
            self.bar.setTabText(index, metrics.elidedText(title, Qt.TextElideMode.ElideRight, TAB_TEXT_PX))
            source = paper.workspace.project.source or paper.workspace.project.saved_to or ""
            self.bar.setTabToolTip(index, f"{title}\n{Path(source).name}" if source else title)
        if self.current is not None:
            self.bar.setCurrentIndex(self.papers.index(self.current))
        self.bar.blockSignals(False)
        self.bar.setVisible(bool(self.papers))

    def _tab_chosen(self, index: int) -> None:
        if 0 <= index < len(self.papers):
            self.show(self.papers[index])

    def _leave(self, paper: Paper) -> None:
        """The shown paper goes behind its tab: its unsaved state is kept, its work written now."""
        window = self.window
        paper.dirty = window.dirty
        if window.files.autosave_timer.isActive():
            window.files.autosave()  # the snapshot is taken now, from this paper's workspace

    def _stop_jobs_of_shown(self, paper: Paper) -> None:
        """Place images and Ask work on the paper shown: they stop when it is left (said), so that their
        result can never be taken for the other paper's."""
        title = paper_title(paper.workspace)
        stopped = []
        for kind, what in (("placement", "Place images"), ("ask", "the question")):
            jobs = self.window.runner.running(kind)
            for job in jobs:
                job.cancel()
            if jobs:
                stopped.append(what)
        if stopped:
            self.window.show_status(f"Cancelled {' and '.join(stopped)} for “{title}”: another paper is shown.")

    def _follow_summary_job(self) -> None:
        """The Summary tab shows a running summary's progress only beside the paper it is written for."""
        window = self.window
        running = window.summaries.running_for
        if running is None:
            return
        if running is window.workspace:
            window.summary_view.begin_stream(f"Summarizing “{paper_title(running)}”…")
        else:
            window.summary_view.end_stream()
            window.show_status(f"The summary of “{paper_title(running)}” is still being written; it will "
                               "be in its tab. One summary is written at a time.")
