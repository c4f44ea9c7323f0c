"""Evidence search over one document: lexical + embedding candidates, fused, rescored by a cross-encoder.

1. **Lexical**: BM25 (the ``bm25s`` library) over the words of ``text/tokens.py`` (no stop words),
   Snowball-stemmed in English. It finds the rare exact words — a gene, a unit, "Table 2" — that
   embeddings blur. A second BM25 ranks the figures and tables as documents (caption, content, citing
   sentences) for the visual scorer.
2. **Embedding**: cosine of the question with every passage under MiniLM (models/embed.py; vectors are
   cached on disk by content, so a document is embedded once). It finds paraphrases BM25 misses.
3. **Fusion**: reciprocal-rank fusion of the two rankings (``1 / (60 + rank)`` each, the constant of
   Cormack et al. 2009): it needs no score calibration between two very different scales.
4. **Rescoring**: the cross-encoder (models/rerank.py) reads the question with each of the ``rerank_top``
   best fused candidates, and with the captions of the ``rerank_captions`` likeliest figures and tables
   — it costs one model run per pair — and its logit orders them. Without the cross-encoder (files
   missing or damaged) the fused order stands and ``Evidence.rerank`` is None.
5. **Which visual** (``visuals.py``): every figure and table scored from its caption, content and
   citing sentences; the likeliest one, with its best passage, comes back with the evidence.

A question that names a figure or table ("What does Figure 5 show?", "Table II", "the second table",
``query.py``) is answered from that visual first: its caption, then its rows or text and the sentences
citing it, ordered by the cross-encoder. The paper's own abbreviations widen the lexical query
("holy basil oil" also finds "OSEO" when the paper defines it).

The index of a document (passages, BM25 matrix, vectors) is built once and kept in the retriever, keyed
by the document's content, so asking a second question costs only the query.
"""

from __future__ import annotations

import functools
import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mmdocsum_desktop.document.labels import find_mentions
from mmdocsum_desktop.jobs import JobControl, ensure_control
from mmdocsum_desktop.retrieval.passages import Passage, build_passages, document_labels, mentioned_labels
from mmdocsum_desktop.retrieval.query import expand_tokens, find_abbreviations, named_visuals
from mmdocsum_desktop.retrieval.visual_text import read_region_text
from mmdocsum_desktop.retrieval.visuals import (
    VisualProfile,
    VisualScore,
    build_profiles,
    score_visuals,
    visual_features,
    visual_text,
)
from mmdocsum_desktop.schemas.document import Document
from mmdocsum_desktop.text.tokens import tokens as text_tokens

RRF_K = 60
DEFAULT_CANDIDATES = 40
DEFAULT_RERANK_TOP = 20
# Captions of the likeliest visuals (before rescoring) the cross-encoder reads beside the head.
DEFAULT_RERANK_CAPTIONS = 3
# The cross-encoder reads this many characters of a passage (about 60 tokens): its cost grows with the
# length of the pair, and the start of a caption or a sentence says what it is about (a whole 1,000-
# character caption costs four times as much as its start).
RERANK_PASSAGE_CHARS = 240
INDEX_CACHE_SIZE = 8



def tokens(text: str, language: str | None = None) -> list[str]:
    """BM25 tokens: the words of :func:`mmdocsum_desktop.text.tokens.tokens` (stop words of the
    language left out, plurals folded, CJK as character bigrams); in English (and when the language is
    unknown) each reduced to its Snowball stem (nltk), so "fitted" meets "fit" and "measured"
    "measurement"."""
    words = text_tokens(text, language)
    if language and not language.lower().startswith("en"):
        return words
    return [_stem(word) for word in words]


@functools.lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    if word.isdigit() or len(word) <= 3:
        return word
    return _stemmer().stem(word)


@functools.lru_cache(maxsize=1)
def _stemmer():
    from nltk.stem.snowball import SnowballStemmer  # nltk is slow to import: only when evidence is searched

    return SnowballStemmer("english", ignore_stopwords=False)


@dataclass
class Evidence:
    """One retrieved passage with where it is and why it ranked where it did."""

    passage: Passage
    rank: int  # 0-based, after rescoring
    fused: float  # reciprocal-rank fusion score of BM25 and the embedding
    bm25: float
    dense: float  # cosine with the question
    rerank: float | None = None  # cross-encoder logit, when it rescored this passage

    @property
    def text(self) -> str:
        return self.passage.text

    @property
    def page(self) -> int | None:
        return self.passage.page

    @property
    def block(self) -> str | None:
        return self.passage.block

    @property
    def labels(self) -> tuple[str, ...]:
        return self.passage.labels

    @property
    def kind(self) -> str:
        return self.passage.kind

    @property
    def support(self) -> float:
        """0..1: the cross-encoder's relevance when it ran, else the cosine (clipped at 0)."""
        if self.rerank is not None:
            return float(1.0 / (1.0 + np.exp(-self.rerank)))
        return max(0.0, float(self.dense))

    def to_json(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "kind": self.passage.kind,
            "text": self.passage.text,
            "page": self.passage.page,
            "block": self.passage.block,
            "labels": list(self.passage.labels),
            "support": round(self.support, 4),
            "bm25": round(self.bm25, 4),
            "dense": round(self.dense, 4),
            "rerank": None if self.rerank is None else round(self.rerank, 4),
        }


@dataclass
class SearchResult:
    """What one question found: the evidence, best first, and which visual answers it.

    ``named``: the document's labels the question names ("What does Figure 5 show?"); ``unknown_named``:
    labels it names that the document does not have; ``visuals``: every visual scored, likeliest first
    (the named one first, at probability 1, when there is one)."""

    evidence: list[Evidence]
    named: list[str] = field(default_factory=list)
    unknown_named: list[str] = field(default_factory=list)
    visuals: list[VisualScore] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def visual(self) -> VisualScore | None:
        return self.visuals[0] if self.visuals else None

    def evidence_for(self, label: str) -> Evidence | None:
        """The best evidence passage resting on ``label`` (it is in ``evidence`` whenever one exists)."""
        return next((e for e in self.evidence if label in e.labels), None)


@dataclass
class EvidenceIndex:
    """Everything about one document that does not depend on the question."""

    key: str
    passages: list[Passage]
    vectors: np.ndarray  # (n, dim), L2-normalised rows
    bm25: Any  # bm25s.BM25, or None when there are no passages
    figure_labels: dict[str, Any]  # canonical label → the document's Figure
    known_labels: frozenset[str]  # labels found as figures/tables or cited in the prose
    label_pages: dict[str, int | None] = field(default_factory=dict)
    build_seconds: float = 0.0
    labels_in_order: list[str] = field(default_factory=list)  # the document's visuals, reading order
    profiles: list[VisualProfile] = field(default_factory=list)  # one per label with passages
    visual_bm25: Any = None  # bm25s.BM25 over the profiles as documents
    abbreviations: dict[str, list[str]] = field(default_factory=dict)  # short token → long-form tokens
    language: str | None = None  # the document's language: BM25 tokens follow it

    def __len__(self) -> int:
        return len(self.passages)


class Embedder:  # the part of models.embed.TextEmbedder used here (a Protocol would need typing_extensions)
    def embed(self, texts: Sequence[str], batch_size: int = 32, control: JobControl | None = None) -> np.ndarray:
        raise NotImplementedError


class Retriever:
    """Builds and caches document indexes and answers ``search(document, query)``.

    ``embedder``: a :class:`~mmdocsum_desktop.models.embed.TextEmbedder` (MiniLM); ``reranker``: a
    :class:`~mmdocsum_desktop.models.rerank.CrossEncoder` or None to rank without rescoring.
    Thread-safe: the GUI may ask from a worker while the index is used elsewhere.
    """

    def __init__(
        self,
        embedder,
        reranker=None,
        *,
        candidates: int = DEFAULT_CANDIDATES,
        rerank_top: int = DEFAULT_RERANK_TOP,
        rerank_captions: int = DEFAULT_RERANK_CAPTIONS,
        read_regions: bool = True,
        notes: Sequence[str] = (),
    ) -> None:
        if candidates < 1 or rerank_top < 0 or rerank_captions < 0:
            raise ValueError("candidates must be at least 1, rerank_top and rerank_captions at least 0")
        self.embedder = embedder
        self.reranker = reranker
        self.candidates = candidates
        self.rerank_top = rerank_top
        self.rerank_captions = rerank_captions
        self.read_regions = read_regions  # the words inside figure and table regions of a PDF
        self.notes = list(notes)  # e.g. why there is no cross-encoder
        self._indexes: OrderedDict[str, EvidenceIndex] = OrderedDict()
        self._lock = threading.Lock()
        self.last_timings: dict[str, float] = {}

    # ------------------------------------------------------------------------------------ indexing

    @staticmethod
    def document_key(document: Document, figure_text: Mapping[str, str] | None = None) -> str:
        digest = hashlib.sha256(document.model_dump_json().encode("utf-8", "surrogatepass"))
        for figure_id in sorted(figure_text or {}):
            digest.update(f"\0{figure_id}\0{(figure_text or {})[figure_id]}".encode("utf-8", "surrogatepass"))
        return digest.hexdigest()

    def index(
        self,
        document: Document,
        figure_text: Mapping[str, str] | None = None,
        *,
        control: JobControl | None = None,
    ) -> EvidenceIndex:
        """The document's index, built on first use and then taken from the cache."""
        key = self.document_key(document, figure_text)
        with self._lock:
            cached = self._indexes.get(key)
            if cached is not None:
                self._indexes.move_to_end(key)
                return cached
        built = self._build(document, figure_text, key, ensure_control(control))
        with self._lock:
            self._indexes[key] = built
            while len(self._indexes) > INDEX_CACHE_SIZE:
                self._indexes.popitem(last=False)
        return built

    def _build(self, document: Document, figure_text, key: str, control: JobControl) -> EvidenceIndex:
        labels = document_labels(document)
        regions = read_region_text(document) if self.read_regions else {}
        return self.index_passages(
            build_passages(document, figure_text, regions),
            known_labels=frozenset(labels) | frozenset(mentioned_labels(document)),
            label_pages={label: visual.page for label, visual in labels.items()},
            figure_labels=labels,
            key=key,
            control=control,
            language=document.language,
        )

    def index_passages(
        self,
        passages: Sequence[Passage],
        *,
        known_labels: frozenset[str] = frozenset(),
        label_pages: Mapping[str, int | None] | None = None,
        figure_labels: Mapping[str, Any] | None = None,
        key: str = "",
        control: JobControl | None = None,
        language: str | None = None,
    ) -> EvidenceIndex:
        """An index of passages given by the caller instead of read from a document (MCiteBench gives
        each question its own sources); not cached. ``known_labels``: the figures and tables that
        exist, which a model's answer may cite."""
        started = time.perf_counter()
        passages = list(passages)
        texts = [p.text for p in passages]
        bm25 = None
        if passages:
            import bm25s  # scipy.sparse and its tokenizer load with the first index, not the app

            bm25 = bm25s.BM25()
            # every passage gets at least one token: bm25s refuses an empty document
            bm25.index([tokens(t, language) or ["\u2205"] for t in texts], show_progress=False)
        vectors = (self.embedder.embed(texts, control=ensure_control(control)) if texts
                   else np.zeros((0, 384), np.float32))
        labels_in_order = list(figure_labels or {}) or list(
            dict.fromkeys(label for p in passages if p.kind == "caption" for label in p.labels))
        profiles = build_profiles(passages, labels_in_order)
        visual_bm25 = None
        if profiles:
            import bm25s  # scipy.sparse and its tokenizer load with the first index, not the app

            visual_bm25 = bm25s.BM25()
            visual_bm25.index([tokens(visual_text(p, passages), language) or ["\u2205"] for p in profiles],
                              show_progress=False)
        abbreviations = {
            (tokens(short, language) or [short.lower()])[0]: tokens(long_form, language)
            for short, long_form in find_abbreviations(p.text for p in passages if p.kind in ("sentence", "caption")).items()
        }
        return EvidenceIndex(
            key=key,
            passages=passages,
            vectors=np.asarray(vectors, dtype=np.float32),
            bm25=bm25,
            figure_labels=dict(figure_labels or {}),
            known_labels=known_labels,
            label_pages=dict(label_pages or {}),
            build_seconds=time.perf_counter() - started,
            labels_in_order=labels_in_order,
            profiles=profiles,
            visual_bm25=visual_bm25,
            abbreviations={short: long for short, long in abbreviations.items() if long and [short] != long},
            language=language,
        )

    # ------------------------------------------------------------------------------------ searching

    def search(
        self,
        target: Document | EvidenceIndex,
        query: str,
        *,
        k: int = 8,
        keep: Callable[[Passage], bool] | None = None,
        control: JobControl | None = None,
    ) -> list[Evidence]:
        """The ``k`` best passages for ``query``, best first. ``keep`` filters passages out before ranking
        (a benchmark hides the sentence a claim was taken from; a caller may search captions only)."""
        return self.find(target, query, k=k, keep=keep, control=control).evidence

    def find(
        self,
        target: Document | EvidenceIndex,
        query: str,
        *,
        k: int = 8,
        keep: Callable[[Passage], bool] | None = None,
        control: JobControl | None = None,
        weights: np.ndarray | None = None,
    ) -> SearchResult:
        """The evidence for ``query`` and the figure or table that answers it (see the module docstring).

        The likeliest visual's best passage is always among the evidence (added after the ``k`` best
        when it is not one of them). ``weights``: the visual scorer's weights (benchmarks fitting them)."""
        control = ensure_control(control)
        index = target if isinstance(target, EvidenceIndex) else self.index(target, control=control)
        timings: dict[str, float] = {}
        started = time.perf_counter()
        if not index.passages or not query.strip():
            self.last_timings = {"total_s": 0.0}
            return SearchResult([])
        allowed = np.ones(len(index.passages), dtype=bool)
        if keep is not None:
            allowed = np.array([bool(keep(p)) for p in index.passages], dtype=bool)
            if not allowed.any():
                return SearchResult([])

        named = named_visuals(query, index.labels_in_order)
        unknown = [label for _kind, label in find_mentions(query) if label not in index.known_labels
                   and not named] if index.labels_in_order else []
        query_tokens = expand_tokens(tokens(query, index.language), index.abbreviations)
        bm25_scores = np.zeros(len(index.passages), dtype=np.float32)
        if query_tokens and index.bm25 is not None:
            bm25_scores = np.asarray(index.bm25.get_scores(query_tokens), dtype=np.float32)
        visual_bm25 = np.zeros(len(index.profiles), dtype=np.float32)
        if query_tokens and index.visual_bm25 is not None:
            visual_bm25 = np.asarray(index.visual_bm25.get_scores(query_tokens), dtype=np.float32)
        timings["bm25_s"] = time.perf_counter() - started

        mark = time.perf_counter()
        query_vector = np.asarray(self.embedder.embed([query], control=control), dtype=np.float32)[0]
        dense = index.vectors @ query_vector
        timings["embed_s"] = time.perf_counter() - mark

        fused = _rrf([bm25_scores, dense], allowed)
        order = [int(i) for i in np.argsort(-fused, kind="stable") if allowed[i]]
        profiles = {p.label: p for p in index.profiles}
        if named:
            # the named visual's own passages first: captions, then its rows/text and citing sentences
            own = [i for label in named for i in profiles[label].passages if allowed[i]] if all(
                label in profiles for label in named) else []
            own = list(dict.fromkeys(own))
            first = [i for i in own if index.passages[i].kind == "caption"]
            rest_own = sorted((i for i in own if i not in first), key=lambda i: -fused[i])
            order = first + rest_own + [i for i in order if i not in set(own)]
            head = first + rest_own[: max(0, self.rerank_top - len(first))]
        else:
            # Passages sharing no word and hardly any meaning with the question are never candidates.
            order = order[: max(self.candidates, k)]
            head = order[: self.rerank_top]
            if self.rerank_captions and index.profiles:
                # the wider head: captions of the visuals likeliest before rescoring
                early = visual_features(index.profiles, query, bm25_scores, dense, visual_bm25, {}, allowed)
                for score in score_visuals(index.profiles, early, {}, fused, allowed, weights)[: self.rerank_captions]:
                    for i in profiles[score.label].captions:
                        if allowed[i] and i not in head:
                            head.append(i)

        rerank: dict[int, float] = {}
        mark = time.perf_counter()
        if self.reranker is not None and (self.rerank_top > 0 or named) and head:
            logits = self.reranker.score(query, [_clip(index.passages[i].text) for i in head], control=control)
            rerank = {i: float(v) for i, v in zip(head, logits)}
            if named:
                captions = [i for i in head if index.passages[i].kind == "caption"]
                others = sorted((i for i in head if i not in captions), key=lambda i: -rerank[i])
                order = captions + others + [i for i in order if i not in rerank]
            else:
                order = sorted(head, key=lambda i: -rerank[i]) + [i for i in order if i not in rerank]
        timings["rerank_s"] = time.perf_counter() - mark

        relevance = {i: float(1.0 / (1.0 + np.exp(-v))) for i, v in rerank.items()}
        if named:
            visuals = [VisualScore(label, 1.0, (), next((i for i in order if label in index.passages[i].labels), None))
                       for label in named]
        else:
            features = visual_features(index.profiles, query, bm25_scores, dense, visual_bm25, relevance, allowed)
            visuals = score_visuals(index.profiles, features, relevance, fused, allowed, weights)
        chosen = order[:k]
        best = visuals[0].best_passage if visuals else None
        if best is not None and best not in chosen:
            chosen.append(best)
        timings["total_s"] = time.perf_counter() - started
        self.last_timings = timings
        evidence = [
            Evidence(
                passage=index.passages[i],
                rank=rank,
                fused=float(fused[i]),
                bm25=float(bm25_scores[i]),
                dense=float(dense[i]),
                rerank=rerank.get(i),
            )
            for rank, i in enumerate(chosen)
        ]
        return SearchResult(evidence, named=named, unknown_named=unknown, visuals=visuals, timings=timings)

    def rescore(self, query: str, passages: Sequence[str], *, control: JobControl | None = None) -> np.ndarray:
        """0..1 relevance of each passage to ``query``: the cross-encoder when there is one, else cosine.
        Used to check that an answer's sentence is supported by the evidence it cites."""
        if not passages:
            return np.zeros(0, dtype=np.float32)
        if self.reranker is not None:
            logits = self.reranker.score(query, list(passages), control=control)
            return (1.0 / (1.0 + np.exp(-logits))).astype(np.float32)
        vectors = np.asarray(self.embedder.embed([query, *passages], control=control), dtype=np.float32)
        return np.clip(vectors[1:] @ vectors[0], 0.0, 1.0)

    @property
    def uses_reranker(self) -> bool:
        return self.reranker is not None


def _clip(text: str, limit: int = RERANK_PASSAGE_CHARS) -> str:
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0]


def _rrf(score_lists: Sequence[np.ndarray], allowed: np.ndarray) -> np.ndarray:
    """Reciprocal-rank fusion; passages scoring nothing in a list (BM25 0: no shared word) get no
    share from it, so a list only votes for what it actually found."""
    fused = np.zeros(len(allowed), dtype=np.float64)
    for scores in score_lists:
        ranked = np.argsort(-scores, kind="stable")
        ranks = np.empty(len(scores), dtype=np.int64)
        ranks[ranked] = np.arange(len(scores))
        contribution = 1.0 / (RRF_K + 1 + ranks)
        fused += np.where(scores > 0, contribution, 0.0)
    return np.where(allowed, fused, -1.0)
