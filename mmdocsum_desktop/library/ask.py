"""A question asked across the whole library: which papers answer it, where (page), and with which figure
or table.

Two stages, so that a thousand papers cost about what one does:

1. **Across papers**: every stored passage (prose sentences, captions, table rows, words inside
   figures) is a candidate. The question's embedding is compared with all of them (the store's vectors,
   held in memory as float32 and reloaded only when the store's generation changes), SQLite's FTS5
   ranks them by BM25, the two rankings are fused by reciprocal rank (as ``retrieval.search`` does for
   one paper), and the cross-encoder rescores the best ``RERANK_TOP``. A paper scores by its best
   rescored passage.
2. **Within each of the best papers**: the paper's stored passages become an ``EvidenceIndex`` (no
   re-reading, no re-embedding: the stored vectors are used) and the one-paper retriever finds its
   evidence and the figure or table likeliest to answer (``retrieval.visuals``, the scorer fitted on the
   ask benchmark), exactly what ``mmdocsum ask`` does on one paper.

The answer quotes the best evidence of the best paper; every citation names the paper, the page, the
figure or table, and a link that opens the paper there (``zotero://open-pdf`` for Zotero papers).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from mmdocsum_desktop.jobs import JobControl, ensure_control
from mmdocsum_desktop.library.store import LibraryStore, StoredPassage, VectorTable
from mmdocsum_desktop.library.zotero import open_pdf_link
from mmdocsum_desktop.retrieval.passages import (
    CONTENT_KINDS,
    FIGURE_TEXT_KINDS,
    QUOTE_WORDS,
    Passage,
    PassageKind,
    figure_text_quote,
)
from mmdocsum_desktop.retrieval.search import Embedder, EvidenceIndex, Retriever
from mmdocsum_desktop.schemas.library import LibraryAnswer, LibraryCitation, Paper, PaperHit, VisualRecord
from mmdocsum_desktop.summarize.sentences import Embedder as TextEmbedder

RRF_K = 60
DENSE_CANDIDATES = 200
LEXICAL_CANDIDATES = 200
# passages across the library the cross-encoder reads (about 15 ms of CPU each): enough to rank papers
RERANK_TOP = 20
RERANK_CHARS = 240  # as retrieval.search.RERANK_PASSAGE_CHARS: the start of a passage says what it is
PAPER_INDEXES = 16  # per-paper evidence indexes kept in memory for the next questions
_QUOTED = 2  # passages the extractive answer quotes


class _KnownVectors(Embedder):
    """An embedder that answers from the stored vectors (and the question's, computed once): building a
    paper's evidence index from the store embeds nothing again."""

    def __init__(self, known: dict[str, np.ndarray], fallback: TextEmbedder) -> None:
        self._known = known
        self._fallback = fallback

    def embed(self, texts: Sequence[str], batch_size: int = 32, control: JobControl | None = None) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._known]
        if missing:
            fresh = np.asarray(self._fallback.embed(missing, control=control), dtype=np.float32)
            self._known.update(zip(missing, fresh))
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        return np.stack([self._known[t] for t in texts]).astype(np.float32)


def citation_link(paper: Paper, page: int | None) -> str:
    """Where a click goes: Zotero's reader at the page for a Zotero paper, else the file (#page=N, which
    PDF viewers and browsers honour)."""
    if paper.zotero_attachment_key and paper.source_kind == "zotero":
        return open_pdf_link(paper.zotero_attachment_key, page)
    uri = Path(paper.source_path).as_uri()
    return f"{uri}#page={page}" if page and paper.source_path.lower().endswith(".pdf") else uri


class LibrarySearch:
    """Library-wide search over one store; keeps the vectors and the best papers' indexes between
    questions (the window asks many). Thread-safe."""

    def __init__(self, store: LibraryStore, embedder: TextEmbedder, reranker: object | None = None,
                 *, notes: Sequence[str] = ()) -> None:
        self.store = store
        self.embedder = embedder
        self.reranker = reranker  # models.rerank.CrossEncoder, or None: fused order, no rescoring
        self.notes = list(notes)
        self._table: VectorTable | None = None
        self._indexes: OrderedDict[str, EvidenceIndex] = OrderedDict()
        self._lock = threading.Lock()

    def table(self) -> VectorTable:
        generation = self.store.generation()
        with self._lock:
            if self._table is None or self._table.generation != generation:
                self._table = self.store.vector_table()
                self._indexes.clear()  # an index is keyed by content; cheap to rebuild, never stale
            return self._table

    def ask(self, question: str, papers: Sequence[Paper], *, top_papers: int = 3, evidence: int = 3,
            control: JobControl | None = None) -> LibraryAnswer:
        """Answer ``question`` from ``papers`` (the indexed papers the filters kept)."""
        control = ensure_control(control)
        started = time.perf_counter()
        timings: dict[str, float] = {}
        answer = LibraryAnswer(question=question, answer="", notes=list(self.notes))
        by_content: dict[str, Paper] = {}
        for paper in papers:  # a content held by two papers is asked once, shown as the first of them
            if paper.status == "indexed" and paper.content_hash and paper.content_hash not in by_content:
                by_content[paper.content_hash] = paper
        answer.searched_papers = len(by_content)
        if not by_content:
            answer.answer = "The library has no indexed paper to search (add papers, or widen the filters)."
            answer.seconds = time.perf_counter() - started
            return answer
        mark = time.perf_counter()
        table = self.table()
        timings["load_s"] = time.perf_counter() - mark

        mark = time.perf_counter()
        query = np.asarray(self.embedder.embed([question], control=control), dtype=np.float32)[0]
        timings["embed_s"] = time.perf_counter() - mark
        allowed_content = np.asarray([h in by_content for h in table.contents], dtype=bool)
        allowed = allowed_content[table.content_of] if len(table.contents) else np.zeros(0, dtype=bool)

        mark = time.perf_counter()
        dense = np.asarray(table.vectors @ query, dtype=np.float32)
        dense[~allowed] = -np.inf
        count = int(allowed.sum())
        top_dense = np.argsort(-dense, kind="stable")[:min(DENSE_CANDIDATES, count)]
        timings["dense_s"] = time.perf_counter() - mark

        mark = time.perf_counter()
        lexical: list[int] = []
        for passage_id, _score in self.store.text_search(question, limit=LEXICAL_CANDIDATES * 4):
            row = int(np.searchsorted(table.passage_ids, passage_id))
            if row < len(table.passage_ids) and table.passage_ids[row] == passage_id and allowed[row]:
                lexical.append(row)
                if len(lexical) >= LEXICAL_CANDIDATES:
                    break
        timings["fts_s"] = time.perf_counter() - mark
        control.check()

        fused: dict[int, float] = {}
        for ranking in ([int(i) for i in top_dense], lexical):
            for rank, row in enumerate(ranking):
                fused[row] = fused.get(row, 0.0) + 1.0 / (RRF_K + 1 + rank)
        ordered = sorted(fused, key=lambda r: -fused[r])
        head = ordered[:RERANK_TOP]
        stored = self.store.passages_by_id([int(table.passage_ids[r]) for r in head])

        mark = time.perf_counter()
        relevance: dict[int, float] = {}
        if self.reranker is not None and head:
            texts = [_clip(stored[int(table.passage_ids[r])].text) for r in head]
            logits = np.asarray(self.reranker.score(question, texts, batch_size=8, control=control),  # type: ignore[attr-defined]
                                dtype=np.float32)
            relevance = {r: float(1.0 / (1.0 + np.exp(-v))) for r, v in zip(head, logits)}
        timings["rerank_s"] = time.perf_counter() - mark

        # a paper scores by its best passage: rescored relevance when there is one, else fused rank
        paper_score: dict[str, float] = {}
        for position, row in enumerate(ordered):
            content = table.contents[int(table.content_of[row])]
            score = relevance.get(row, -1.0 + 1.0 / (2 + position)) if relevance else fused[row]
            paper_score[content] = max(paper_score.get(content, -np.inf), score)
        best = sorted(paper_score, key=lambda c: -paper_score[c])[:top_papers]

        mark = time.perf_counter()
        for position, content in enumerate(best):
            control.check()
            paper = by_content[content]
            # the best paper is searched as `mmdocsum ask` searches one paper (cross-encoder included);
            # the next ones without rescoring, which would double the answer's time for papers shown below it
            answer.papers.append(self._paper_hit(paper, question, query, evidence, paper_score[content], control,
                                                 rerank=position == 0))
        timings["papers_s"] = time.perf_counter() - mark

        for hit in answer.papers:
            answer.citations.extend(hit.evidence)
        quoted = answer.papers[0].evidence[:_QUOTED] if answer.papers else []
        answer.answer = " ".join(f"{c.text} [{i + 1}]" for i, c in enumerate(quoted)) or \
            "No passage of the library matches the question."
        answer.timings = {k: round(v, 4) for k, v in timings.items()}
        answer.seconds = time.perf_counter() - started
        return answer

    # ------------------------------------------------------------------------------------ one paper

    def _paper_hit(self, paper: Paper, question: str, query: np.ndarray, evidence: int, score: float,
                   control: JobControl, *, rerank: bool) -> PaperHit:
        index, visuals = self._index(paper.content_hash)
        retriever = Retriever(_KnownVectors({question: query}, self.embedder), self.reranker if rerank else None,
                              read_regions=False)
        found = retriever.find(index, question, k=evidence, control=control)
        visual = found.visual.label if found.visual is not None else None
        visual_page = next((v.page for v in visuals if v.label == visual), None) if visual else None
        citations = []
        for item in found.evidence[:evidence]:
            citations.append(self._citation(paper, item.passage, item.support))
        if visual:
            # the visual's own best passage leads when the evidence does not already start with it
            chosen = found.evidence_for(visual)
            if chosen is not None and (not citations or citations[0].label != visual):
                first = self._citation(paper, chosen.passage, chosen.support)
                citations = [first] + [c for c in citations if c.text != first.text][:max(0, evidence - 1)]
        return PaperHit(paper_id=paper.id, title=paper.display_title(), source_path=paper.source_path,
                        zotero_key=paper.zotero_key, score=round(float(score), 4), visual=visual, visual_page=visual_page, evidence=citations)

    def _citation(self, paper: Paper, passage: Passage, support: float) -> LibraryCitation:
        own = passage.kind in (*CONTENT_KINDS, "caption") or not passage.inherited
        label = passage.labels[0] if passage.labels and own else None
        text = passage.text
        if passage.kind in FIGURE_TEXT_KINDS:  # a figure's words are shown as a short quote, never raw
            text = figure_text_quote(text) or " ".join(text.split()[:QUOTE_WORDS]) + "\u2026"
        return LibraryCitation(paper_id=paper.id, title=paper.display_title(), source_path=paper.source_path,
                               zotero_key=paper.zotero_key, page=passage.page, label=label, kind=passage.kind, text=text,
                               score=round(float(support), 4), link=citation_link(paper, passage.page))

    def _index(self, content_hash: str) -> tuple[EvidenceIndex, list[VisualRecord]]:
        with self._lock:
            cached = self._indexes.get(content_hash)
            if cached is not None:
                self._indexes.move_to_end(content_hash)
                return cached, [VisualRecord.model_validate(v) for v in cached.figure_labels.values()]
        stored, vectors = self.store.passages_of(content_hash)
        visuals = self.store.visuals(content_hash)
        passages = [_passage(i, p) for i, p in enumerate(stored)]
        known = {p.text: v for p, v in zip(passages, _normalised(vectors))}
        labels = {v.label: v for v in visuals if v.label}
        mentioned = {label for p in passages for label in p.labels}
        retriever = Retriever(_KnownVectors(known, self.embedder), None, read_regions=False)
        index = retriever.index_passages(
            passages, known_labels=frozenset(labels) | frozenset(mentioned),
            label_pages={label: v.page for label, v in labels.items()}, figure_labels=labels, key=content_hash)
        with self._lock:
            self._indexes[content_hash] = index
            while len(self._indexes) > PAPER_INDEXES:
                self._indexes.popitem(last=False)
        return index, visuals


def _passage(position: int, stored: StoredPassage) -> Passage:
    kind: PassageKind = stored.kind  # type: ignore[assignment]  # the store holds what build_passages made
    return Passage(position, kind, stored.text, stored.page, stored.block, stored.labels, stored.section,
                   stored.figure, stored.inherited)


def _normalised(vectors: np.ndarray) -> np.ndarray:
    values = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(values, axis=1, keepdims=True) if len(values) else np.ones((0, 1), np.float32)
    normalised: np.ndarray = values / np.maximum(norms, 1e-6)
    return normalised


def _clip(text: str) -> str:
    return text if len(text) <= RERANK_CHARS else text[:RERANK_CHARS].rsplit(" ", 1)[0]
