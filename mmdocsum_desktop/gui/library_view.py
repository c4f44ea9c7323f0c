"""The Library tab: the papers of the user's library (folders and Zotero, see ``app.library``) in a
sortable table with search and collections; adding, indexing and batch summaries run as background jobs
(papers and pages as progress, cancellable, resumable: each paper is committed as it is done); a question
asked of the whole library is answered with links that open the paper at its page.

The window opens one library file (``--library`` / ``$MMDOCSUM_LIBRARY`` or the data dir's) when the tab
is first shown; the store is safe to use from the worker threads (it serialises its connection)."""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    QUrl,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from mmdocsum_desktop.app import library as lib
from mmdocsum_desktop.gui.workers import Job
from mmdocsum_desktop.schemas.library import (
    AddPathsRequest,
    AddZoteroRequest,
    ExportNotesRequest,
    LibraryAnswer,
    LibraryAskRequest,
    ListRequest,
    Paper,
    PaperFilter,
    SummarizeLibraryRequest,
)

if TYPE_CHECKING:
    from mmdocsum_desktop.gui.main_window import MainWindow

ALL_COLLECTIONS = "All collections"
COLUMNS = ("Title", "Authors", "Year", "Status", "Summary", "Language", "Pages")
_LINK_SCHEME = "library"  # library:PAPER_ID:PAGE — a citation of the whole-library answer


def paper_link(paper_id: int, page: int | None) -> str:
    return f"{_LINK_SCHEME}:{paper_id}:{page or 1}"


def parse_paper_link(url: str) -> tuple[int, int] | None:
    parts = url.split(":")
    if len(parts) != 3 or parts[0] != _LINK_SCHEME:
        return None
    try:
        return int(parts[1]), max(1, int(parts[2]))
    except ValueError:
        return None


def _authors(paper: Paper) -> str:
    if not paper.authors:
        return ""
    first = paper.authors[0]
    return first if len(paper.authors) == 1 else f"{first} et al." if len(paper.authors) > 2 else " & ".join(paper.authors)


class PaperTableModel(QAbstractTableModel):
    """The listed papers, one row each; sorting is the proxy's (numbers sort as numbers)."""

    def __init__(self) -> None:
        super().__init__()
        self.papers: list[Paper] = []

    def set_papers(self, papers: list[Paper]) -> None:
        self.beginResetModel()
        self.papers = list(papers)
        self.endResetModel()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.papers)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        paper = self.papers[index.row()]
        column = COLUMNS[index.column()]
        if role == Qt.ItemDataRole.ToolTipRole:
            why = paper.error or paper.summary_error
            return paper.source_path + (f"\n{why}" if why else "")
        if role == Qt.ItemDataRole.UserRole:  # the sort key
            return {"Year": paper.year or 0, "Pages": paper.pages or 0}.get(column, self._text(paper, column).lower())
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(paper, column)
        return None

    @staticmethod
    def _text(paper: Paper, column: str) -> str:
        return {
            "Title": paper.display_title(),
            "Authors": _authors(paper),
            "Year": str(paper.year or ""),
            "Status": paper.status,
            "Summary": paper.summary_status,
            "Language": paper.language or "",
            "Pages": str(paper.pages or ""),
        }[column]


class LibraryView(QWidget):
    """The library's papers, its jobs (add, index, summarise, export) and questions across it."""

    def __init__(self, window: MainWindow, folder: Path | None = None) -> None:
        super().__init__(window)
        self.window_ = window
        self.folder = folder
        self.library: lib.Library | None = None
        self.job: Job | None = None
        self.answer: LibraryAnswer | None = None
        self._pending_page: int | None = None

        self.search = QLineEdit()
        self.search.setPlaceholderText("Search titles, authors and text")
        self.search.returnPressed.connect(self.refresh)
        self.collection = QComboBox()
        self.collection.addItem(ALL_COLLECTIONS)
        self.collection.currentIndexChanged.connect(lambda _index: self.refresh())
        self.add_folder_button = QPushButton("Add folder…")
        self.add_folder_button.clicked.connect(self._choose_folder)
        self.add_zotero_button = QPushButton("Add Zotero…")
        self.add_zotero_button.setToolTip("Your Zotero data folder (with zotero.sqlite), read without writing to it")
        self.add_zotero_button.clicked.connect(self._choose_zotero)
        self.summarize_button = QPushButton("Summarise selected")
        self.summarize_button.clicked.connect(lambda: self.summarize_selected())
        self.export_button = QPushButton("Export notes…")
        self.export_button.setToolTip("One Markdown note per paper (an Obsidian vault, for example)")
        self.export_button.clicked.connect(self._choose_export_folder)

        self.model = PaperTableModel()
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(Qt.ItemDataRole.UserRole)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.doubleClicked.connect(self._open_row)

        self.question = QLineEdit()
        self.question.setPlaceholderText("Ask every paper of the library a question and press Enter")
        self.question.returnPressed.connect(lambda: self.ask())
        self.browser = QTextBrowser()
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self._anchor)
        self.status = QLabel("")
        self.status.setWordWrap(True)

        tools = QHBoxLayout()
        tools.addWidget(self.search, 2)
        tools.addWidget(self.collection, 1)
        buttons = QHBoxLayout()
        for button in (self.add_folder_button, self.add_zotero_button, self.summarize_button, self.export_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addWidget(self.question)
        lower_layout.addWidget(self.browser, 1)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.table)
        splitter.addWidget(lower)
        splitter.setSizes([400, 200])
        layout = QVBoxLayout(self)
        layout.addLayout(tools)
        layout.addLayout(buttons)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.status)
        window.documentOpened.connect(self._document_opened)

    # ---------------------------------------------------------------------------------- the library
    def open_library(self) -> lib.Library:
        """The library file, opened on first use (a bad file is said in the status line, not raised)."""
        if self.library is None:
            self.library = lib.open_library(self.folder)
        return self.library

    def close_library(self) -> None:
        if self.library is not None:
            self.library.close()
            self.library = None

    def showEvent(self, event: Any) -> None:  # noqa: N802 — Qt's name
        super().showEvent(event)
        if self.library is None:
            self.refresh()

    def refresh(self) -> None:
        """List the papers that match the search and the collection, and the library's collections."""
        try:
            library = self.open_library()
            collection = self.collection.currentText()
            chosen = PaperFilter(collection=None if collection in ("", ALL_COLLECTIONS) else collection,
                                 search=self.search.text().strip() or None)
            papers = library.papers(ListRequest(filter=chosen))
            collections = library.collections()
            counts = library.counts()
        except lib.LibraryError as error:
            self.status.setText(f"The library cannot be opened: {error}")
            return
        self.model.set_papers(papers)
        if [self.collection.itemText(i) for i in range(1, self.collection.count())] != collections:
            self.collection.blockSignals(True)
            current = self.collection.currentText()
            self.collection.clear()
            self.collection.addItems([ALL_COLLECTIONS, *collections])
            self.collection.setCurrentText(current if current in collections else ALL_COLLECTIONS)
            self.collection.blockSignals(False)
        if not counts:
            self.status.setText(f"The library ({library.folder}) is empty: add a folder of papers or your Zotero data folder.")
        else:
            by_status = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
            self.status.setText(f"{len(papers)} paper(s) listed; in the library: {by_status}.")

    def selected_papers(self) -> list[Paper]:
        rows = {self.proxy.mapToSource(index).row() for index in self.table.selectionModel().selectedRows()}
        return [self.model.papers[row] for row in sorted(rows)]

    # ---------------------------------------------------------------------------------- jobs
    def _start(self, title: str, fn: Any, done: Any) -> Job | None:
        if self.job is not None:
            self.status.setText("The library is busy with another job; cancel it or wait for it.")
            return None
        job = Job(title, fn, kind="library")
        job.signals.succeeded.connect(lambda result: self._alive() and done(result))
        job.signals.failed.connect(lambda message: self._say(f"{title} failed: {message}"))
        job.signals.cancelled.connect(lambda _partial: self._say(
            f"{title} cancelled; what was done is kept, and running it again goes on from there."))
        job.signals.finished.connect(self._finished)
        self.job = job
        self.window_.start_job(job)
        return job

    def _alive(self) -> bool:
        return shiboken6.isValid(self)

    def _say(self, text: str) -> None:
        if self._alive():  # the window may be gone when a job ends
            self.status.setText(text)

    def _finished(self) -> None:
        if self._alive():
            self.job = None
            self.refresh()

    def add_folder(self, folder: Path) -> Job | None:
        library, session = self.open_library(), self.window_.current_session()
        request = AddPathsRequest(paths=[folder])
        return self._start(f"Adding {folder.name}", lambda control, _stream: lib.add_paths(
            session, library, request, control=control), self._added)

    def add_zotero(self, data_dir: Path) -> Job | None:
        library, session = self.open_library(), self.window_.current_session()
        request = AddZoteroRequest(data_dir=data_dir)
        return self._start("Adding Zotero", lambda control, _stream: lib.add_zotero(
            session, library, request, control=control), self._added)

    def _added(self, report: Any) -> None:
        found = sum(source.found for source in report.sources)
        new = sum(source.new + source.changed for source in report.sources)
        indexed = f"; {report.index.indexed} indexed, {report.index.pages} pages" if report.index else ""
        failed = f"; {len(report.index.failed)} could not be read" if report.index and report.index.failed else ""
        self.status.setText(f"{found} paper(s) found, {new} new or changed{indexed}{failed}.")

    def summarize_selected(self, papers: list[Paper] | None = None) -> Job | None:
        chosen = papers if papers is not None else self.selected_papers()
        if not chosen:
            self.status.setText("Select the papers to summarise in the table first.")
            return None
        library, session = self.open_library(), self.window_.current_session()
        request = SummarizeLibraryRequest(papers=[str(paper.id) for paper in chosen])
        return self._start(f"Summarising {len(chosen)} paper(s)", lambda control, _stream: lib.summarize_papers(
            session, library, request, control=control), self._summarized)

    def _summarized(self, report: Any) -> None:
        self.status.setText(f"{report.done} summarised, {report.failed} failed, {report.resumed} already done."
                            + (" " + "; ".join(report.notes) if report.notes else ""))

    def export_notes(self, folder: Path, papers: list[Paper] | None = None) -> Job | None:
        library = self.open_library()
        request = ExportNotesRequest(folder=folder, papers=[str(p.id) for p in papers or []])
        return self._start("Exporting notes", lambda _control, _stream: lib.export_notes(library, request),
                           lambda report: self.status.setText(f"{len(report.notes)} note(s) written to {report.folder}."))

    def ask(self) -> Job | None:
        text = self.question.text().strip()
        if not text:
            return None
        library, session = self.open_library(), self.window_.current_session()
        collection = self.collection.currentText()
        request = LibraryAskRequest(question=text, filter=PaperFilter(
            collection=None if collection in ("", ALL_COLLECTIONS) else collection))
        self.browser.setHtml(f"<p><b>Q: {html.escape(text)}</b></p><p><i>Looking through the library…</i></p>")
        return self._start("Asking the library", lambda control, _stream: lib.ask_library(
            session, library, request, control=control), self._answered)

    def _answered(self, answer: LibraryAnswer) -> None:
        self.answer = answer
        self.browser.setHtml(answer_html(answer))
        self.status.setText(f"{answer.searched_papers} paper(s) searched in {answer.seconds:.1f} s. "
                            "Click a source to open the paper at that page.")

    # ---------------------------------------------------------------------------------- opening
    def _open_row(self, index: QModelIndex) -> None:
        paper = self.model.papers[self.proxy.mapToSource(index).row()]
        self.open_paper(paper)

    def open_paper(self, paper: Paper, page: int | None = None) -> Job | None:
        path = Path(paper.source_path)
        if not path.is_file():
            self.status.setText(f"{paper.display_title()}: its file {path} is gone.")
            return None
        self._pending_page = page
        return self.window_.open_path(path)

    def _document_opened(self, _document: Any) -> None:
        if self._pending_page is not None:
            page, self._pending_page = self._pending_page, None
            self.window_.document_view.show_page(page)

    def _anchor(self, url: QUrl) -> None:
        parsed = parse_paper_link(url.toString())
        if parsed is None or self.library is None:
            return
        paper = self.library.paper(parsed[0])
        if paper is not None:
            self.open_paper(paper, parsed[1])

    # ---------------------------------------------------------------------------------- dialogs
    def _choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add a folder of papers")
        if folder:
            self.add_folder(Path(folder))

    def _choose_zotero(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Your Zotero data folder (with zotero.sqlite)")
        if folder:
            self.add_zotero(Path(folder))

    def _choose_export_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Export one note per paper into")
        if folder:
            self.export_notes(Path(folder), self.selected_papers() or None)


def answer_html(answer: LibraryAnswer) -> str:
    """The answer, then each paper it rests on with its evidence, every source a link to paper and page."""
    parts = [f"<p><b>Q: {html.escape(answer.question)}</b></p>"]
    if not answer.papers:
        parts.append("<p><i>No paper of the library answers this.</i></p>")
    for hit in answer.papers:
        visual = f" — {html.escape(hit.visual)}, p. {hit.visual_page}" if hit.visual and hit.visual_page else ""
        parts.append(f'<p><a href="{paper_link(hit.paper_id, hit.visual_page)}"><b>{html.escape(hit.title)}</b></a>{visual}</p><ul>')
        for evidence in hit.evidence:
            where = ", ".join(x for x in (f"p. {evidence.page}" if evidence.page else "", evidence.label or "") if x)
            parts.append(f'<li>{html.escape(evidence.text)} <a href="{paper_link(evidence.paper_id, evidence.page)}">'
                         f"[{html.escape(where or 'source')}]</a></li>")
        parts.append("</ul>")
    if answer.notes:
        parts.append('<p style="font-size:small">' + html.escape("; ".join(answer.notes)) + "</p>")
    return "".join(parts)
