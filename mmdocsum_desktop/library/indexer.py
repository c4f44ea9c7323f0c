"""Indexing the library's pending papers: read each one, cut it into the passages evidence search ranks
(prose sentences, captions, table rows, the words inside figures: ``retrieval.passages``), embed them,
store them — one paper at a time, each in one transaction.

Why one at a time: memory stays that of the largest paper (a thousand papers never sit in memory
together), a kill -9 loses at most the paper being read, and a cancel stops between papers or inside
the reader (the JobControl reaches it). Resuming is just indexing again: what is stored is never read
twice (papers are pending until their transaction commits), and two processes at once share the work
through claims (``store.claim_next``).

Progress means papers and pages: ``control.report(papers done, papers to do, "N pages · title")``, and
``on_progress`` gets an :class:`IndexProgress` with the pages read so far.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mmdocsum_desktop.errors import JobCancelled, MmdocsumError
from mmdocsum_desktop.jobs import JobControl, ensure_control, nested_control
from mmdocsum_desktop.library.bibliography import Bibliography, document_doi, pdf_bibliography
from mmdocsum_desktop.library.store import ContentFacts, LibraryStore, NewPassage, claim_token
from mmdocsum_desktop.retrieval.passages import build_passages, canonical_label
from mmdocsum_desktop.retrieval.visual_text import read_region_text
from mmdocsum_desktop.schemas.document import Document
from mmdocsum_desktop.schemas.library import IndexReport, Paper, VisualRecord
from mmdocsum_desktop.summarize.sentences import Embedder

ReadDocument = Callable[[Path, JobControl], Document]
# the DOI is looked for in the first blocks only: a reference list is full of other papers' DOIs
# Passages embedded per model run. onnxruntime's arena keeps the largest run's memory for the process's
# life: 32 passages of 256 tokens grow it by 1.25 GB, 8 by 0.29 GB, at the same CPU cost per passage
# (measured on MiniLM int8, 2 threads); the library's peak memory goal is 1.5 GB with the models loaded.
EMBED_BATCH = 8


@dataclass(frozen=True)
class IndexProgress:
    papers_done: int
    papers_total: int
    pages_done: int
    current: str  # the paper being read (its title or file name)


def document_visuals(document: Document) -> list[VisualRecord]:
    return [VisualRecord(label=canonical_label(v.label) or v.label, kind=v.kind, page=v.page,
                         caption=" ".join(v.caption.split())) for v in document.visuals]


def index_pending(
    store: LibraryStore,
    read: ReadDocument,
    embedder: Embedder,
    *,
    control: JobControl | None = None,
    limit: int | None = None,
    read_regions: bool = True,
    on_progress: Callable[[IndexProgress], None] | None = None,
) -> IndexReport:
    """Index the pending papers until none is left (or ``limit`` papers were read, or cancelled).

    ``read(path, control)`` reads one file (the session's reader, with OCR for scanned pages);
    ``embedder`` embeds the passages (MiniLM). A paper the reader refuses is marked failed with the
    reason and the run goes on; the report lists them."""
    control = ensure_control(control)
    token = claim_token()
    report = IndexReport()
    started, cpu_started = time.perf_counter(), time.process_time()
    total = store.pending()
    done = 0
    tried: set[int] = set()
    try:
        while limit is None or done < limit:
            control.check()
            paper = store.claim_next(token, skip=tried)
            if paper is None:
                break
            tried.add(paper.id)
            name = paper.display_title()
            total = max(total, done + 1)
            control.report(done, total, f"{report.pages} pages · {name}")
            if on_progress is not None:
                on_progress(IndexProgress(done, total, report.pages, name))
            try:
                pages, passages, reused = _index_one(store, paper, read, embedder,
                                                     nested_control(control, done, total, name), read_regions)
            except JobCancelled:
                store.release(paper.id, token)
                raise
            except MmdocsumError as error:
                store.mark_failed(paper.id, str(error))
                report.failed[paper.source_path] = str(error)
            except Exception as error:  # noqa: BLE001 — one unreadable paper never stops a library
                message = f"{type(error).__name__}: {error}"
                store.mark_failed(paper.id, message)
                report.failed[paper.source_path] = message
            else:
                report.pages += pages
                report.passages += passages
                if reused:
                    report.reused += 1
                else:
                    report.indexed += 1
            done += 1
            # papers added meanwhile (another command) count in the total
            total = done + store.pending()
        control.report(done, max(total, done), f"{report.pages} pages")
        if on_progress is not None:
            on_progress(IndexProgress(done, max(total, done), report.pages, ""))
    except JobCancelled:
        report.cancelled = True
    report.left = store.pending()
    report.seconds = time.perf_counter() - started
    report.cpu_seconds = time.process_time() - cpu_started
    if not report.cancelled:
        store.collect_garbage()
    return report


def _index_one(store: LibraryStore, paper: Paper, read: ReadDocument, embedder: Embedder, control: JobControl,
               read_regions: bool) -> tuple[int, int, bool]:
    """(pages, passages, reused) of one paper, stored in one transaction."""
    if store.has_content(paper.content_hash):
        store.mark_indexed(paper.id)  # another path (or process) brought the same bytes in
        return 0, 0, True
    path = Path(paper.source_path)
    if not path.is_file():
        raise MmdocsumError(f"{path}: the file is gone")
    started = time.perf_counter()
    document = read(path, control)
    regions = read_region_text(document) if read_regions else {}
    found = build_passages(document, None, regions)
    texts = [p.text for p in found]
    vectors = (np.asarray(embedder.embed(texts, batch_size=EMBED_BATCH, control=control), dtype=np.float32) if texts
               else np.zeros((0, 384), dtype=np.float32))
    passages = [NewPassage(p.kind, p.text, p.page, p.block, p.labels, p.section, p.figure, p.inherited) for p in found]
    # a PDF's authors and year from the file itself (a folder has no other source; Zotero's win)
    bibliography = pdf_bibliography(path, document) if path.suffix.lower() == ".pdf" else Bibliography()
    # a PDF's title is never its journal's name (bibliography.paper_title)
    title = bibliography.title if path.suffix.lower() == ".pdf" else " ".join((document.title or "").split())
    facts = ContentFacts(title=title, language=document.language,
                         pages=document.page_count, doi=document_doi(document),
                         read_seconds=time.perf_counter() - started, authors=bibliography.authors,
                         family_names=bibliography.family_names, year=bibliography.year)
    stored = store.store_content(paper.id, paper.content_hash, facts, passages, vectors, document_visuals(document))
    return int(document.page_count or 0), len(passages), not stored
