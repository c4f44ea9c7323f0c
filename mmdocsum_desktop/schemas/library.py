"""The library's typed records: a paper as the library knows it, what indexing and a batch of summaries
report, a library-wide answer with its citations, and the requests of the library's use cases
(``app.library``). The window and the command line read and build these; nothing here touches SQLite.

Requests refuse unknown fields (``extra="forbid"``): a misspelled option is an error, never ignored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from mmdocsum_desktop.schemas.settings import EngineChoice

# pending: known, not indexed yet (or its file changed); indexed: passages stored; failed: the reader
# refused it (``error`` says why); missing: its file is gone (kept, never silently lost)
PaperStatus = Literal["pending", "indexed", "failed", "missing"]
# what ``list --status`` filters by: a paper's status, or "indexing" (pending, claimed by a live process;
# "pending" then means pending and not being read)
PaperState = Literal["pending", "indexing", "indexed", "failed", "missing"]
# none: never asked for; queued: in a batch, waiting its turn; running: being written now; done; failed
# (``summary_error`` says why); pending: asked for, but its batch stopped before it was written (cancelled,
# or killed: found so when the library is next opened) — the same command again writes it
SummaryStatus = Literal["none", "pending", "queued", "running", "done", "failed"]
SourceKind = Literal["folder", "zotero"]
# the files a folder source takes; anything else under the folder is not a paper
PAPER_SUFFIXES = (".pdf", ".html", ".htm", ".md", ".markdown", ".xml", ".nxml")


class Paper(BaseModel):
    """One paper of the library: where it is, what it is, how far the library got with it."""

    id: int
    source_path: str
    source_kind: SourceKind = "folder"
    content_hash: str = ""
    title: str = ""
    authors: list[str] = Field(default_factory=list)
    # each author's family name where the source gives it ("De Bock" of Zotero's "Jasper De Bock"); empty
    # when unknown (the last word of the name stands in)
    family_names: list[str] = Field(default_factory=list)
    year: int | None = None
    doi: str | None = None
    language: str | None = None
    pages: int | None = None
    figures: int = 0
    tables: int = 0
    status: PaperStatus = "pending"
    indexing: bool = False  # pending and being read now by a live process (its claim)
    error: str | None = None
    summary_status: SummaryStatus = "none"
    summary_error: str | None = None
    collections: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    zotero_key: str | None = None  # the Zotero item (the parent of the attachment)
    zotero_attachment_key: str | None = None  # the PDF attachment: zotero://open-pdf links need it
    zotero_library_id: int | None = None
    duplicate_of: int | None = None  # the paper whose file has the same content (asked once, listed twice)
    # the citation key, unique within the library: Better BibTeX's or the Zotero item's Extra field's where
    # there is one, else first author, year, title word ("smith2020malaria"); "" for a paper not from a library
    citekey: str = ""
    added_at: float = 0.0
    indexed_at: float | None = None

    def display_title(self) -> str:
        return self.title or Path(self.source_path).name

    def first_family_name(self) -> str:
        """The first author's family name ("De Bock"), or the last word of the name when the source gave
        no family name; "" without authors."""
        if self.family_names and self.family_names[0].strip():
            return self.family_names[0].strip()
        words = self.authors[0].split() if self.authors else []
        return words[-1] if words else ""

    def state(self) -> str:
        """The indexing state as ``list --status`` shows it ("indexing" while a live process reads it)."""
        return "indexing" if self.indexing else self.status


class VisualRecord(BaseModel):
    """A figure or table of an indexed paper, with its caption (what the Library view lists)."""

    label: str | None
    kind: Literal["figure", "table"] = "figure"
    page: int | None = None
    caption: str = ""


AnnotationKind = Literal["highlight", "underline", "note", "text", "image", "ink"]


class Annotation(BaseModel):
    """One of the user's annotations of a paper in Zotero's reader (Zotero 6 and 7): a highlight or an
    underline with the text it marks, a note, a text box, an image area or ink; the user's comment."""

    key: str  # Zotero's item key of the annotation
    kind: AnnotationKind
    text: str = ""  # the words the highlight or underline marks
    comment: str = ""
    color: str = ""  # "#ffd400"
    page_label: str = ""  # the page as the paper numbers it ("5", "iv")
    page: int | None = None  # 1-based page of the file
    sort_index: str = ""  # Zotero's reading-order key ("00004|001234|00321")


class AbsentItem(BaseModel):
    """A Zotero item whose paper is not on this computer (its file missing, or relative to a base folder not
    known): kept in the library so that ``library list --absent`` says what to do about it."""

    source: str  # the Zotero data folder
    item_key: str
    title: str = ""
    reason: str
    advice: str = ""


class SourceReport(BaseModel):
    """What registering one source found (folder or Zotero data folder)."""

    source: str
    kind: SourceKind
    found: int = 0  # papers the source holds
    new: int = 0
    changed: int = 0  # content differs from what was indexed: read again
    unchanged: int = 0
    missing: int = 0  # papers the library had from this source whose files are gone
    # papers dropped because their Zotero item's PDF is its paper now (the item's web snapshot, read before)
    superseded: int = 0
    skipped: list[str] = Field(default_factory=list)  # one line each: an attachment without a file...
    absent: list[AbsentItem] = Field(default_factory=list)  # Zotero items whose paper is not here
    annotations: int = 0  # the Zotero reader's annotations read with the papers
    base_dir: str | None = None  # the linked-attachment base folder used (given, or from Zotero's prefs.js)
    base_dir_from: str | None = None  # where it came from: "--zotero-base" or the prefs.js file


class IndexReport(BaseModel):
    """What one indexing run did: papers and pages read, what failed, whether it was cancelled."""

    indexed: int = 0  # papers read and stored by this run
    reused: int = 0  # same content already indexed (another path, or another process did it)
    failed: dict[str, str] = Field(default_factory=dict)  # source path → why
    pages: int = 0
    passages: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    cancelled: bool = False
    left: int = 0  # papers still pending (cancelled, or claimed by another process)


class AddReport(BaseModel):
    sources: list[SourceReport] = Field(default_factory=list)
    index: IndexReport | None = None


class LibraryCitation(BaseModel):
    """Where an answer's evidence is: the paper, the page, the figure or table; ``link`` opens it there."""

    paper_id: int
    title: str
    source_path: str
    zotero_key: str | None = None  # the Zotero item cited (one paper per item: its PDF, else its snapshot)
    page: int | None = None
    label: str | None = None  # "Figure 3", "Table 2"; None for prose
    kind: str = "sentence"  # the passage kind: sentence, caption, cells, figure-text, ocr
    text: str = ""
    score: float = 0.0  # 0..1 (cross-encoder relevance, or the cosine without one)
    link: str = ""  # zotero://open-pdf/... for Zotero papers, a file:// URI with #page=N otherwise


class PaperHit(BaseModel):
    """A paper ranked for a question, with the figure or table likeliest to answer it."""

    paper_id: int
    title: str
    source_path: str
    zotero_key: str | None = None  # the Zotero item
    score: float
    visual: str | None = None
    visual_page: int | None = None
    evidence: list[LibraryCitation] = Field(default_factory=list)


class LibraryAnswer(BaseModel):
    question: str
    answer: str  # the best evidence quoted, each sentence followed by its citation marker [n]
    citations: list[LibraryCitation] = Field(default_factory=list)  # [n] is citations[n - 1]
    papers: list[PaperHit] = Field(default_factory=list)  # best first
    searched_papers: int = 0
    seconds: float = 0.0
    timings: dict[str, float] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)


class BatchItem(BaseModel):
    paper_id: int
    title: str
    source_path: str
    status: SummaryStatus
    error: str | None = None
    seconds: float = 0.0


class BatchReport(BaseModel):
    items: list[BatchItem] = Field(default_factory=list)
    done: int = 0
    failed: int = 0
    resumed: int = 0  # already summarised before this run (not redone)
    cancelled: bool = False
    timed_out: bool = False  # the command's time limit (--time-limit) ended the batch: the rest is pending
    seconds: float = 0.0
    notes: list[str] = Field(default_factory=list)


class ExportReport(BaseModel):
    folder: str
    notes: list[str] = Field(default_factory=list)  # the files written
    without_summary: int = 0  # notes written with the paper's properties only
    # one line per note left as it is, naming the file and why (the user edited its generated part, it has
    # no mmdocsum markers, ...)
    skipped: list[str] = Field(default_factory=list)


# --------------------------------------------------------------------------------------- requests


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AddPathsRequest(_Request):
    """Files and folders (recursive) to add; ``index`` False only registers them."""

    paths: list[Path] = Field(min_length=1)
    index: bool = True
    ocr: bool = True


class AddZoteroRequest(_Request):
    """A Zotero data folder (the one holding ``zotero.sqlite`` and ``storage/``), read strictly read-only."""

    data_dir: Path
    # the linked-attachment base folder ("attachments:" paths); None: the one Zotero's own prefs.js names
    base_dir: Path | None = None
    index: bool = True
    ocr: bool = True


class IndexRequest(_Request):
    """Index what is pending (resumes an interrupted run); ``limit`` stops after that many papers."""

    ocr: bool = True
    limit: int | None = Field(default=None, ge=1)


class PaperFilter(_Request):
    """Which papers: by collection, tag, year range and status; empty means all."""

    collection: str | None = None
    tag: str | None = None
    year_from: int | None = None
    year_to: int | None = None
    status: PaperState | None = None
    summary_status: SummaryStatus | None = None
    search: str | None = None  # words of the title, authors or text (FTS5)


class ListRequest(_Request):
    filter: PaperFilter = Field(default_factory=PaperFilter)
    sort: Literal["title", "year", "authors", "status", "added", "language"] = "title"
    descending: bool = False


class LibraryAskRequest(_Request):
    question: str = Field(min_length=1)
    filter: PaperFilter = Field(default_factory=PaperFilter)
    papers: int = Field(default=3, ge=1, le=50)  # papers shown
    evidence: int = Field(default=3, ge=1, le=20)  # passages per paper
    rerank: bool = True

    @field_validator("question")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the question is empty")
        return value


class SummarizeLibraryRequest(_Request):
    """Summaries of the selected papers (``papers``: ids, paths or Zotero keys) or of all of them."""

    all: bool = False
    papers: list[str] = Field(default_factory=list)
    again: bool = False  # write again the summaries already done
    concurrency: int = Field(default=1, ge=1, le=256)
    choice: EngineChoice | None = None


class ExportNotesRequest(_Request):
    """Notes into ``folder``. A note whose generated part the user edited is left as it is (reported)
    unless ``overwrite_edited``; what the user wrote outside the markers is kept either way."""

    folder: Path
    papers: list[str] = Field(default_factory=list)  # empty: every paper
    overwrite_edited: bool = False


class RemoveRequest(_Request):
    papers: list[str] = Field(default_factory=list)
    missing: bool = False  # also every paper whose file is gone
