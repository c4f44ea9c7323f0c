"""Scores of (paragraph, image) pairs: explicit mentions, caption, OCR text, citing sentences, CLIP.

Raw signals (:class:`Signals`) are similarity matrices, paragraphs × candidates, NaN where a candidate
lacks that text. The calibrated score of a pair is a logistic model over features derived from them
(:mod:`mmdocsum_desktop.placement.calibration`): for each similarity, its value, its margin over the best
other candidate for that paragraph ("row") and its margin over the best other paragraph for that
candidate ("col"). Mentions and proposals are hand-set logit bonuses on top.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from mmdocsum_desktop.errors import JobCancelled, MmdocsumError
from mmdocsum_desktop.jobs import JobControl, ensure_control
from mmdocsum_desktop.placement.text import (
    LexicalIndex,
    caption_body,
    contains_sentence,
    mentioned_labels,
    normalised,
    strip_mentions,
    tokens,
)
from mmdocsum_desktop.schemas.placement import ImageCandidate
from mmdocsum_desktop.text.sentences import split_sentences

SOURCES = ("caption", "ocr", "context")  # texts that describe a candidate
MIN_OCR_TOKENS = 2
MIN_CONTEXT_TOKENS = 3  # "Table 2 gives": a citing fragment too short to say anything


@dataclass
class Signals:
    """Raw per-pair signals for one placement problem (rows: texts scored, columns: candidates)."""

    sims: dict[str, np.ndarray] = field(default_factory=dict)  # "caption", "caption_lex", ..., "clip"
    mention: np.ndarray | None = None  # 1 where the text cites the candidate's label
    first_mention: np.ndarray | None = None  # 1 where it is the first text citing it
    other_mention: np.ndarray | None = None  # 1 where the text cites some visual but not this one
    proposal: np.ndarray | None = None  # 1 where an LLM proposed this candidate for this text

    @property
    def shape(self) -> tuple[int, int]:
        for matrix in (self.mention, *self.sims.values()):
            if matrix is not None:
                return matrix.shape  # type: ignore[return-value]
        return (0, 0)

    def present(self) -> set[str]:
        """Similarity signals with at least one value (a source no candidate has is absent)."""
        return {name for name, m in self.sims.items() if m.size and np.isfinite(m).any()}


@dataclass
class TextViews:
    """What the scorer reads of each candidate, prepared once per problem."""

    caption: list[str]
    ocr: list[str]
    context: list[list[str]]


def candidate_texts(
    candidates: Sequence[ImageCandidate], *, use_caption: bool, use_ocr: bool, use_context: bool
) -> TextViews:
    captions = [caption_body(c.caption) if use_caption else "" for c in candidates]
    ocr = []
    for c in candidates:
        text = " ".join((c.ocr_text or "").split()) if use_ocr else ""
        ocr.append(text if len(tokens(text)) >= MIN_OCR_TOKENS else "")
    context = [
        [s for s in c.context if len(tokens(strip_mentions(s))) >= MIN_CONTEXT_TOKENS] if use_context else []
        for c in candidates
    ]
    return TextViews(captions, ocr, context)


WORD_EVIDENCE = ("caption_rare", "caption_num", "caption_abbr")
# A word is "rare" in a paper when at most this share of its paragraphs (and at least 2) use it.
RARE_SHARE = 0.05
_ABBREVIATION = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-]*[A-Za-z0-9]")


def abbreviations(text: str) -> set[str]:
    """Names written with two capitals or a capital and a digit ("TNF", "mRNA", "HEK293", "IL-6"), as
    written (case kept: "CAT" the gene is not "cat")."""
    out = set()
    for word in _ABBREVIATION.findall(text):
        capitals = sum(c.isupper() for c in word)
        if capitals >= 2 or (capitals and any(c.isdigit() for c in word)):
            out.add(word)
    return out


def rare_weights(paragraph_words: Sequence[set[str]]) -> dict[str, float]:
    """log(paragraphs / paragraphs using it) for each word the paper's paragraphs use rarely."""
    count = max(len(paragraph_words), 1)
    frequency: dict[str, int] = {}
    for words in paragraph_words:
        for word in words:
            frequency[word] = frequency.get(word, 0) + 1
    limit = max(2, int(RARE_SHARE * count))
    return {w: math.log(count / df) for w, df in frequency.items() if df <= limit and count > df}


def word_evidence(
    caption_words: set[str], paragraph_words: set[str], caption_abbr: set[str], paragraph_abbr: set[str],
    rare: dict[str, float],
) -> dict[str, float]:
    """Three counts on a log scale: the summed rarity of the words both use (``caption_rare``), the
    numbers and digit-bearing names both use (``caption_num``: "37", "24h", "cd4"; single digits left
    out) and the abbreviations both use (``caption_abbr``)."""
    shared = caption_words & paragraph_words
    rare_sum = sum(rare.get(w, 0.0) for w in shared)
    numbers = sum(1 for w in shared if any(c.isdigit() for c in w) and not (w.isdigit() and len(w) == 1))
    return {
        "caption_rare": math.log1p(rare_sum),
        "caption_num": math.log1p(numbers),
        "caption_abbr": math.log1p(len(caption_abbr & paragraph_abbr)),
    }


def mention_matrices(
    texts: Sequence[str], candidates: Sequence[ImageCandidate]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n, m = len(texts), len(candidates)
    mention = np.zeros((n, m))
    other = np.zeros((n, m))
    labels = [(c.label or "").lower() for c in candidates]
    for i, text in enumerate(texts):
        cited = mentioned_labels(text)
        if not cited:
            continue
        for j, label in enumerate(labels):
            if label and label in cited:
                mention[i, j] = 1.0
            else:
                other[i, j] = 1.0
    first = np.zeros_like(mention)
    for j in range(m):
        rows = np.flatnonzero(mention[:, j])
        if rows.size:
            first[rows[0], j] = 1.0
    return mention, first, other


class SimilarityModel:
    """Embeds and indexes the texts of one problem; gives similarity matrices for any list of rows.

    Rows are paragraphs or windows of paragraphs (greedy's cumulative text): a row is given as a list of
    paragraph indices, its embedding is the normalised mean of theirs, its sentences and tokens the union
    of theirs. Per source (caption, OCR text, citing sentences) three similarities: of the row's
    embedding (``caption``), of its best sentence (``caption_sent``: the one sentence that describes the
    figure is not drowned by the rest of a long paragraph) and of its words (``caption_lex``, TF-IDF).
    """

    def __init__(
        self,
        paragraphs: Sequence[str],
        views: TextViews,
        *,
        embedder=None,
        exclude_self_context: bool = True,
        control: JobControl | None = None,
    ) -> None:
        self.control = ensure_control(control)
        self.paragraphs = list(paragraphs)
        self.views = views
        self.exclude_self_context = exclude_self_context
        self.embedder = embedder
        self.warnings: list[str] = []
        self.para_tokens = [tokens(p) for p in self.paragraphs]
        self.para_sentences = [split_sentences(p) if p.strip() else [] for p in self.paragraphs]
        self.para_norm = [normalised(p) for p in self.paragraphs]
        self.cap_tokens = [tokens(t) for t in views.caption]
        self.ocr_tokens = [tokens(t) for t in views.ocr]
        self.ctx_sentences = [list(sentences) for sentences in views.context]
        # Which citing sentences each paragraph contains itself: they are not evidence from elsewhere, so
        # a paragraph is never compared with them. A figure whose every citing sentence sits in one
        # paragraph would have context for all paragraphs but that one: its context is left out for
        # every paragraph, or the missing value alone would single that paragraph out.
        self.own_context = [
            [
                {k for k, s in enumerate(sentences) if contains_sentence(self.para_norm[i], s)}
                if exclude_self_context and self.para_norm[i]
                else set()
                for sentences in self.ctx_sentences
            ]
            for i in range(len(self.paragraphs))
        ]
        self.context_dropped = 0
        for j, sentences in enumerate(self.ctx_sentences):
            if sentences and any(len(own[j]) >= len(sentences) for own in self.own_context):
                self.ctx_sentences[j] = []
                self.context_dropped += 1
                for own in self.own_context:
                    own[j] = set()
        self.ctx_tokens = [[tokens(s) for s in sentences] for sentences in self.ctx_sentences]
        corpus = [*self.para_tokens, *self.cap_tokens, *self.ocr_tokens, *(t for ts in self.ctx_tokens for t in ts)]
        self.lexical = LexicalIndex(t for t in corpus if t)
        self.para_lex = [self.lexical.vector(t) for t in self.para_tokens]
        self.cap_lex = [self.lexical.vector(t) for t in self.cap_tokens]
        self.ocr_lex = [self.lexical.vector(t) for t in self.ocr_tokens]
        self.ctx_lex = [[self.lexical.vector(t) for t in ts] for ts in self.ctx_tokens]
        self._context_cache: dict[str, np.ndarray] | None = None
        self._para_words: list[set[str]] | None = None
        self._para_abbr: list[set[str]] = []
        self._cap_abbr: list[set[str]] = []
        self._rare: dict[str, float] = {}
        self.para_emb: np.ndarray | None = None
        self.sent_emb: list[np.ndarray] = []
        self.cap_emb: np.ndarray | None = None
        self.ocr_emb: np.ndarray | None = None
        self.ctx_emb: list[np.ndarray] = []
        if embedder is not None:
            self._embed()

    def _embed(self) -> None:
        """Embed captions, OCR texts, citing sentences and the paragraphs' sentences in one batch. A
        paragraph's vector is the normalised mean of its sentences' (no 256-token truncation of long
        paragraphs, and half the work of embedding paragraphs as well; measured as good or better on the
        FTII split from the papers)."""
        texts: list[str] = []
        texts += [t for t in self.views.caption]
        texts += [t for t in self.views.ocr]
        texts += [s for sentences in self.ctx_sentences for s in sentences]
        texts += [s for sentences in self.para_sentences for s in sentences]
        try:
            vectors = np.asarray(self.embedder.embed([t if t.strip() else " " for t in texts], control=self.control))
        except JobCancelled:
            raise
        except MmdocsumError as error:
            self.warnings.append(f"text embeddings failed ({error}); using word overlap only")
            self.embedder = None
            return
        except Exception as error:  # noqa: BLE001 — a broken model must not stop placement
            self.warnings.append(f"text embeddings failed ({type(error).__name__}: {error}); using word overlap only")
            self.embedder = None
            return
        m = len(self.views.caption)
        self.cap_emb = vectors[:m]
        self.ocr_emb = vectors[m : 2 * m]
        start = 2 * m
        for sentences in self.ctx_sentences:
            self.ctx_emb.append(vectors[start : start + len(sentences)])
            start += len(sentences)
        dim = vectors.shape[1] if vectors.ndim == 2 else 0
        paragraph_vectors = np.zeros((len(self.paragraphs), dim), dtype=np.float32)
        for i, sentences in enumerate(self.para_sentences):
            block = vectors[start : start + len(sentences)]
            self.sent_emb.append(block)
            start += len(sentences)
            if len(block):
                mean = block.mean(axis=0)
                paragraph_vectors[i] = mean / max(float(np.linalg.norm(mean)), 1e-12)
        self.para_emb = paragraph_vectors

    def best_sentences(self, i: int, j: int, count: int = 2) -> list[str]:
        """The paragraph's sentences closest to candidate ``j``'s caption (or OCR text): embeddings when
        there are some, shared words otherwise; best first."""
        sentences = self.para_sentences[i] if i < len(self.para_sentences) else []
        if not sentences:
            return []
        if self.has_embeddings and len(self.sent_emb[i]) == len(sentences):
            assert self.cap_emb is not None and self.ocr_emb is not None
            target = self.cap_emb[j] if self.views.caption[j] else self.ocr_emb[j]
            scores = self.sent_emb[i] @ target
        else:
            wanted = set(self.cap_tokens[j]) | set(self.ocr_tokens[j])
            scores = np.array([len(wanted & set(tokens(s))) for s in sentences], dtype=np.float64)
        order = np.argsort(-scores, kind="stable")[:count]
        return [sentences[k] for k in order if scores[k] > 0]

    @property
    def has_embeddings(self) -> bool:
        return self.para_emb is not None

    def _row_embedding(self, members: Sequence[int]) -> np.ndarray:
        assert self.para_emb is not None
        vector = self.para_emb[list(members)].mean(axis=0)
        return vector / max(float(np.linalg.norm(vector)), 1e-12)

    def _row_sentences(self, members: Sequence[int], fallback: np.ndarray) -> np.ndarray:
        parts = [self.sent_emb[i] for i in members if len(self.sent_emb[i])]
        return np.vstack(parts) if parts else fallback[None, :]

    def _row_lex(self, members: Sequence[int]) -> dict[str, float]:
        if len(members) == 1:
            return self.para_lex[members[0]]
        return self.lexical.vector([t for i in members for t in self.para_tokens[i]])

    def similarities(self, rows: Sequence[Sequence[int]]) -> dict[str, np.ndarray]:
        """Similarity matrices (len(rows) × candidates); NaN where the candidate lacks that text."""
        n, m = len(rows), len(self.views.caption)
        has_cap = np.array([bool(t) for t in self.views.caption], dtype=bool)
        has_ocr = np.array([bool(t) for t in self.views.ocr], dtype=bool)
        out: dict[str, np.ndarray] = {}
        row_lex = [self._row_lex(r) for r in rows]
        empty = np.array([not self.para_tokens[r[0]] and len(r) == 1 for r in rows], dtype=bool) if rows else None

        def masked(matrix: np.ndarray, has: np.ndarray) -> np.ndarray:
            matrix = matrix.astype(np.float64)
            matrix[:, ~has] = np.nan
            return matrix

        out["caption_lex"] = masked(self.lexical.matrix(row_lex, self.cap_lex), has_cap)
        for name, matrix in self._word_evidence(rows).items():
            out[name] = masked(matrix, has_cap)
        out["ocr_lex"] = masked(self.lexical.matrix(row_lex, self.ocr_lex), has_ocr)
        if self.has_embeddings:
            assert self.cap_emb is not None and self.ocr_emb is not None
            row_emb = np.stack([self._row_embedding(r) for r in rows]) if rows else np.zeros((0, self.cap_emb.shape[1]))
            out["caption"] = masked(row_emb @ self.cap_emb.T, has_cap)
            out["ocr"] = masked(row_emb @ self.ocr_emb.T, has_ocr)
            row_sent = [self._row_sentences(r, row_emb[i]) for i, r in enumerate(rows)]
            out["caption_sent"] = masked(np.array([(e @ self.cap_emb.T).max(axis=0) for e in row_sent]).reshape(n, m), has_cap)
            out["ocr_sent"] = masked(np.array([(e @ self.ocr_emb.T).max(axis=0) for e in row_sent]).reshape(n, m), has_ocr)
        for name, matrix in self._context_per_paragraph().items():
            # A window's context similarity is the best of its paragraphs' (each without its own sentences).
            out[name] = np.stack([np.fmax.reduce(matrix[list(r)], axis=0) for r in rows]) if rows else np.zeros((0, m))
        if empty is not None and empty.any():  # a paragraph with no words matches nothing
            for matrix in out.values():
                matrix[empty, :] = np.nan
        return out

    def _word_evidence(self, rows: Sequence[Sequence[int]]) -> dict[str, np.ndarray]:
        """``caption_rare`` / ``caption_num`` / ``caption_abbr`` of every row and caption (see
        :func:`word_evidence`); a row's words are the union of its paragraphs'."""
        n, m = len(rows), len(self.views.caption)
        out = {name: np.zeros((n, m)) for name in WORD_EVIDENCE}
        if self._para_words is None:
            self._para_words = [set(t) for t in self.para_tokens]
            self._para_abbr = [abbreviations(p) for p in self.paragraphs]
            self._cap_abbr = [abbreviations(c) for c in self.views.caption]
            self._rare = rare_weights(self._para_words)
        for r, members in enumerate(rows):
            words = set().union(*(self._para_words[i] for i in members)) if members else set()
            abbr = set().union(*(self._para_abbr[i] for i in members)) if members else set()
            for j, caption_tokens in enumerate(self.cap_tokens):
                values = word_evidence(set(caption_tokens), words, self._cap_abbr[j], abbr, self._rare)
                for name, value in values.items():
                    out[name][r, j] = value
        return out

    def shared_words(self, i: int, j: int, limit: int = 12) -> list[str]:
        """The caption's words that paragraph ``i`` uses too, rarest in the paper first (the Why)."""
        if self._para_words is None:
            self._word_evidence([])
        words = set(self.para_tokens[i]) if i < len(self.para_tokens) else set()
        shared = [t for t in dict.fromkeys(self.cap_tokens[j]) if t in words]
        shared.sort(key=lambda t: -self._rare.get(t, 0.0))
        return shared[:limit]

    def _allowed_context(self, i: int, j: int) -> list[int]:
        return [k for k in range(len(self.ctx_sentences[j])) if k not in self.own_context[i][j]]

    def _context_per_paragraph(self) -> dict[str, np.ndarray]:
        """Similarity of each paragraph to the citing sentences of each candidate, its own left out."""
        if self._context_cache is not None:
            return self._context_cache
        n, m = len(self.paragraphs), len(self.views.caption)
        out = {"context_lex": np.full((n, m), np.nan)}
        if self.has_embeddings:
            out["context"] = np.full((n, m), np.nan)
            out["context_sent"] = np.full((n, m), np.nan)
        for j in range(m):
            if not self.ctx_sentences[j]:
                continue
            if self.has_embeddings:
                sims = self.para_emb @ self.ctx_emb[j].T
            for i in range(n):
                allowed = self._allowed_context(i, j)
                if not allowed:
                    continue
                out["context_lex"][i, j] = max(LexicalIndex.cosine(self.para_lex[i], self.ctx_lex[j][k]) for k in allowed)
                if self.has_embeddings:
                    out["context"][i, j] = float(sims[i, allowed].max())
                    assert self.para_emb is not None  # has_embeddings
                    sentences = self.sent_emb[i] if len(self.sent_emb[i]) else self.para_emb[i][None, :]
                    out["context_sent"][i, j] = float((sentences @ self.ctx_emb[j][allowed].T).max())
        self._context_cache = out
        return out


def clip_similarities(
    clip, texts: Sequence[str], candidates: Sequence[ImageCandidate], control: JobControl | None = None
) -> tuple[np.ndarray | None, list[str]]:
    """CLIP cosine of each text with each candidate image; NaN for images CLIP cannot read.

    Returns (None, warnings) when CLIP cannot run at all.
    """
    notes: list[str] = []
    control = ensure_control(control)
    try:
        text_vectors = np.asarray(clip.encode_texts([t if t.strip() else " " for t in texts], control=control))
    except Exception as error:  # noqa: BLE001 — a broken CLIP export must not stop placement
        if isinstance(error, JobCancelled):
            raise
        return None, [f"CLIP cannot encode text ({_short(error)}); placing without CLIP"]
    rows: list[np.ndarray | None] = []
    for candidate in candidates:
        if not candidate.image:
            rows.append(None)
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                vector = np.asarray(clip.encode_images([candidate.image]))[0]
            rows.append(vector)
        except Exception as error:  # noqa: BLE001
            if isinstance(error, JobCancelled):
                raise
            notes.append(f"CLIP cannot read {candidate.display_name()} ({_short(error)})")
            rows.append(None)
    dims = {v.shape[-1] for v in rows if v is not None}
    if text_vectors.ndim != 2 or (dims and dims != {text_vectors.shape[1]}):
        return None, [*notes, "CLIP image and text embeddings differ in size; placing without CLIP"]
    out = np.full((len(texts), len(candidates)), np.nan)
    for j, vector in enumerate(rows):
        if vector is not None:
            out[:, j] = text_vectors @ vector
    return out, notes


def _short(error: BaseException) -> str:
    text = str(error).splitlines()[0] if str(error) else ""
    return f"{type(error).__name__}: {text}"[:200]
