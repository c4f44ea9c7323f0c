"""The library's use cases, as `mmdocsum library ...`, the window's Library view and the benchmark call
them: open a library, add files, folders or a Zotero data folder (then index what is new), list, ask
across papers, summarise in batch, export notes, remove.

A :class:`Library` is an open library file; the use cases take the :class:`Session` (its reader, its
embedder and cross-encoder, its summary engine) and typed requests (``schemas.library``; unknown fields
refused). Long ones take a ``JobControl`` (progress, cancel) and are meant to run off the GUI thread:
each paper is committed as it finishes, so a cancel or a crash keeps what was done.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from mmdocsum_desktop import paths
from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.app.summary import SummarizeFileRequest, summarize_file
from mmdocsum_desktop.errors import MmdocsumError
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.library import batch, indexer, notes, sources, zotero
from mmdocsum_desktop.library.ask import LibrarySearch, citation_link
from mmdocsum_desktop.library.citation import cite as cite  # re-exported: "Copy with citation" in the window
from mmdocsum_desktop.library.citation import quote as quote  # and `mmdocsum library cite`
from mmdocsum_desktop.library.indexer import IndexProgress as IndexProgress  # re-exported for the window
from mmdocsum_desktop.library.store import LibraryError as LibraryError  # re-exported: front ends catch it
from mmdocsum_desktop.library.store import LibraryStore
from mmdocsum_desktop.schemas.document import Document
from mmdocsum_desktop.schemas.library import (
    AbsentItem,
    AddPathsRequest,
    AddReport,
    AddZoteroRequest,
    Annotation,
    BatchItem,
    BatchReport,
    ExportNotesRequest,
    ExportReport,
    IndexReport,
    IndexRequest,
    LibraryAnswer,
    LibraryAskRequest,
    ListRequest,
    Paper,
    PaperFilter,
    RemoveRequest,
    SummarizeLibraryRequest,
    VisualRecord,
)
from mmdocsum_desktop.schemas.summary import Summary

LIBRARY_ENV = "MMDOCSUM_LIBRARY"


def default_library_dir() -> Path:
    """``$MMDOCSUM_LIBRARY``, else ``library/`` under the app's data dir."""
    override = os.environ.get(LIBRARY_ENV)
    return Path(override).expanduser() if override else paths.data_dir() / "library"


class Library:
    """An open library (``folder``/library.sqlite): what the window lists and asks. Close it when done."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = (folder or default_library_dir()).expanduser()
        self.store = LibraryStore(self.folder)
        self._search: LibrarySearch | None = None

    def papers(self, request: ListRequest | None = None) -> list[Paper]:
        request = request or ListRequest()
        return self.store.papers(request.filter, sort=request.sort, descending=request.descending)

    def paper(self, paper_id: int) -> Paper | None:
        return self.store.paper(paper_id)

    def resolve(self, references: list[str]) -> list[Paper]:
        """Papers by id, path or Zotero key; LibraryError naming the unknown ones."""
        return self.store.resolve(references)

    def annotations(self, paper: Paper) -> list[Annotation]:
        """The paper's annotations from Zotero's reader, in reading order."""
        return self.store.annotations(paper.id)

    def absent(self) -> list[AbsentItem]:
        """The Zotero items whose paper is not on this computer, with what to do."""
        return self.store.absent()

    def visuals(self, paper: Paper) -> list[VisualRecord]:
        return self.store.visuals(paper.content_hash)

    def collections(self) -> list[str]:
        return self.store.collections()

    def counts(self) -> dict[str, int]:
        """Papers per status ("indexed": 950, "pending": 50, ...)."""
        return self.store.counts()

    def summary_counts(self) -> dict[str, int]:
        """Papers per summary state ("done": 12, "none": 938, "pending": 3, ...)."""
        return self.store.summary_counts()

    def summary(self, paper: Paper) -> Summary | None:
        stored = self.store.summary(paper.id)
        return Summary.model_validate_json(stored[0]) if stored else None

    def link(self, paper: Paper, page: int | None = None) -> str:
        """What opens the paper at ``page``: zotero://open-pdf for a Zotero paper, a file URI otherwise."""
        return citation_link(paper, page)

    def search(self, session: Session, *, rerank: bool = True) -> LibrarySearch:
        if self._search is None or (self._search.reranker is None) == rerank:
            reranker, problem = session.models.cross_encoder() if rerank else (None, None)
            self._search = LibrarySearch(self.store, session.embedder(), reranker,
                                         notes=[problem] if problem else [])
        return self._search

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def open_library(folder: Path | None = None) -> Library:
    return Library(folder)


# ------------------------------------------------------------------------------------------ adding


def _reader(session: Session, ocr: bool) -> Callable[[Path, JobControl], Document]:
    def read(path: Path, control: JobControl) -> Document:
        return session.read(path, control=control, ocr=ocr)

    return read


def index(session: Session, library: Library, request: IndexRequest | None = None, *,
          control: JobControl | None = None,
          on_progress: Callable[[IndexProgress], None] | None = None) -> IndexReport:
    """Read and embed every pending paper (resumes an interrupted run; another process may share it)."""
    request = request or IndexRequest()
    library.store.recover()  # a window keeps the library open: claims of processes killed since are released
    library.store.refresh_missing()
    return indexer.index_pending(library.store, _reader(session, request.ocr), session.embedder(), control=control,
                                 limit=request.limit, on_progress=on_progress)


def add_paths(session: Session, library: Library, request: AddPathsRequest, *, control: JobControl | None = None,
              on_progress: Callable[[IndexProgress], None] | None = None) -> AddReport:
    """Add files and folders (recursive), then index what is new or changed unless ``request.index`` is False."""
    report = AddReport(sources=sources.add_paths(library.store, request.paths, control=control))
    if request.index:
        report.index = index(session, library, IndexRequest(ocr=request.ocr), control=control, on_progress=on_progress)
    return report


def add_zotero(session: Session, library: Library, request: AddZoteroRequest, *, control: JobControl | None = None,
               on_progress: Callable[[IndexProgress], None] | None = None) -> AddReport:
    """Add a Zotero data folder's papers (read-only), then index what is new or changed."""
    report = AddReport(sources=[zotero.add_zotero(library.store, request.data_dir, base_dir=request.base_dir,
                                                  control=control)])
    if request.index:
        report.index = index(session, library, IndexRequest(ocr=request.ocr), control=control, on_progress=on_progress)
    return report


# ------------------------------------------------------------------------------------------ asking


def ask_library(session: Session, library: Library, request: LibraryAskRequest, *,
                control: JobControl | None = None) -> LibraryAnswer:
    """The papers that answer the question, each with its evidence (page, figure or table) and a link."""
    kept = library.store.papers(request.filter.model_copy(update={"status": "indexed"}))
    return library.search(session, rerank=request.rerank).ask(
        request.question, kept, top_papers=request.papers, evidence=request.evidence, control=control)


# ------------------------------------------------------------------------------------------ summaries


def selected_papers(library: Library, request: SummarizeLibraryRequest) -> list[Paper]:
    if request.all == bool(request.papers):
        raise MmdocsumError("name the papers to summarise, or --all (not both)")
    if request.all:
        return [p for p in library.store.papers(PaperFilter()) if p.status != "missing" and p.duplicate_of is None]
    return library.resolve(request.papers)


def summarize_papers(session: Session, library: Library, request: SummarizeLibraryRequest, *,
                     control: JobControl | None = None,
                     on_item: Callable[[BatchItem], None] | None = None) -> BatchReport:
    """Summaries of the selected papers in a queue (resumable: what is done is kept), ``concurrency`` at
    once when the engine is a server."""
    library.store.recover()
    papers = selected_papers(library, request)
    concurrency = request.concurrency
    with session.engine(request.choice) as run:
        in_process = run.in_process
    notes_out: list[str] = []
    if concurrency > 1 and in_process:
        notes_out.append(f"--concurrency {concurrency} ignored: the {session.engine_name(request.choice)} "
                         "engine runs in this process, one paper at a time")
        concurrency = 1

    def one(paper: Paper, assets: Path, job: JobControl) -> Summary:
        def stage(_name: str) -> AbstractContextManager[JobControl]:
            return nullcontext(job)

        return summarize_file(session, SummarizeFileRequest(path=Path(paper.source_path), assets=assets,
                                                       choice=request.choice), stage=stage).summary

    report = batch.run_batch(library.store, papers, one, concurrency=concurrency, again=request.again,
                             control=control, on_item=on_item)
    report.notes = notes_out
    return report


# ------------------------------------------------------------------------------------------ out


def export_notes(library: Library, request: ExportNotesRequest) -> ExportReport:
    """One Markdown note per paper into ``request.folder`` (front matter, summary, figures, links back).
    Only the generated part of a note is rewritten; a note whose generated part the user edited is left
    as it is and reported (``overwrite_edited`` rewrites it, still keeping the user's text around it)."""
    papers = library.resolve(request.papers) if request.papers else library.store.papers(PaperFilter())
    return notes.export_notes(library.store, papers, request.folder, overwrite_edited=request.overwrite_edited)


def remove_papers(library: Library, request: RemoveRequest) -> list[Paper]:
    """Remove papers (their passages go when no other paper shares the content); the removed ones."""
    if not request.papers and not request.missing:
        raise MmdocsumError("name the papers to remove, or --missing")
    chosen = library.resolve(request.papers) if request.papers else []
    if request.missing:
        library.store.refresh_missing()
        chosen += [p for p in library.store.papers(PaperFilter(status="missing")) if all(p.id != c.id for c in chosen)]
    library.store.remove([p.id for p in chosen])
    return chosen
