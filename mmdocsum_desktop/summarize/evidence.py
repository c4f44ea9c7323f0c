"""Evidence for each paragraph of a summary, and the figures that belong with it.

"Extract, then write": the extractive engine picks, per role (background, method, results, conclusion),
more body sentences than a paragraph needs; they are that paragraph's evidence — clean body prose only
(engines/extractive.py: never back matter, captions, tables, furniture), each with its page, block and
the figure and table labels it (or its passage) cites. The grounded writer (summarize/grounded.py) writes
from them; the extractive engine's own paragraphs are their own evidence.

A paragraph shows a figure only when its evidence discusses it: the figure is cited by the evidence
sentences themselves (strongest) or by the passages (blocks) they come from. Figures are preferred to
tables for background, method and conclusion; a table may illustrate the results. Each figure is shown
once; the strongest claims are served first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mmdocsum_desktop.document.labels import find_mentions
from mmdocsum_desktop.document.model import Document
from mmdocsum_desktop.engines.extractive import DraftParagraph, Embedder, ExtractiveEngine
from mmdocsum_desktop.engines.sentences import Sentence
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.summarize.schema import FigureChoice, FigureEntry

# how much more evidence than an extractive paragraph: the writer shortens each evidence sentence (to
# about three quarters of its words on the dev half of pmc/), so a fifth more sentences give a summary of
# about the extractive length that covers more of the paper
EVIDENCE_SCALE = 1.2
SENTENCE_CITES, PASSAGE_CITES = 2.0, 1.0  # weight of a figure cited by the sentence itself / by its passage
FIGURE_FOR_PROSE, TABLE_FOR_RESULTS = 0.5, 0.3


@dataclass(frozen=True)
class EvidenceItem:
    """One evidence sentence: ``number`` is its 1-based tag in the writer's prompt."""

    number: int
    text: str
    block: str
    page: int | None
    section: str | None
    cites: tuple[str, ...] = ()  # labels ("Figure 2") the sentence itself cites
    passage_cites: tuple[str, ...] = ()  # labels its block cites anywhere

    @property
    def marker(self) -> str:
        return f"p. {self.page}" if self.page is not None else ""


@dataclass
class ParagraphEvidence:
    role: str
    items: list[EvidenceItem] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " ".join(item.text for item in self.items)

    @property
    def words(self) -> int:
        return len(self.text.split())

    def figure_weights(self, items: Sequence[EvidenceItem] | None = None) -> Counter[str]:
        """Lower-cased label → how strongly these items (all by default) discuss it."""
        weights: Counter[str] = Counter()
        for item in self.items if items is None else items:
            for label in item.cites:
                weights[label.lower()] += SENTENCE_CITES
            for label in item.passage_cites:
                if label not in item.cites:
                    weights[label.lower()] += PASSAGE_CITES
        return weights

    def to_json(self) -> dict[str, Any]:
        return {"role": self.role, "items": [
            {"n": i.number, "page": i.page, "block": i.block, "cites": list(i.cites), "text": i.text} for i in self.items
        ]}


def _labels(text: str, known: dict[str, str]) -> tuple[str, ...]:
    found = []
    for _, label in find_mentions(text):
        canonical = known.get(label.lower())
        if canonical is not None and canonical not in found:
            found.append(canonical)
    return tuple(found)


def evidence_from_drafts(document: Document, drafts: Sequence[DraftParagraph]) -> list[ParagraphEvidence]:
    """Each draft paragraph's sentences as evidence items, with the labels they and their blocks cite."""
    known = {v.label.lower(): v.label for v in document.visuals if v.label}
    block_text = {b.id: b.text for b in document.blocks}
    passage: dict[str, tuple[str, ...]] = {}
    result = []
    for draft in drafts:
        items = []
        for k, sentence in enumerate(draft.sentences, start=1):
            if sentence.block not in passage:
                passage[sentence.block] = _labels(block_text.get(sentence.block, ""), known)
            items.append(EvidenceItem(k, sentence.text, sentence.block, sentence.page, sentence.section,
                                      _labels(sentence.text, known), passage[sentence.block]))
        result.append(ParagraphEvidence(draft.role, items))
    return result


def select_evidence(document: Document, embedder: Embedder, *, include_abstract: bool = True,
                    control: JobControl | None = None, scale: float = EVIDENCE_SCALE) -> tuple[list[ParagraphEvidence], list[str]]:
    """The evidence of the four paragraphs (document order within each) and the extractive stage's warnings."""
    drafted = ExtractiveEngine(embedder).draft(document, include_abstract=include_abstract, control=control, scale=scale)
    return evidence_from_drafts(document, drafted.paragraphs), drafted.warnings


def sources_as_items(evidence: ParagraphEvidence, sentences: Sequence[Sentence]) -> list[EvidenceItem]:
    """The evidence items of the given document sentences (an extracted paragraph's own)."""
    by_text = {item.text: item for item in evidence.items}
    return [by_text[s.text] for s in sentences if s.text in by_text]


def choose_evidence_figures(
    evidence: Sequence[ParagraphEvidence],
    used: Sequence[Sequence[EvidenceItem]],
    entries: Sequence[FigureEntry],
    texts: Sequence[str],
    embedder: Embedder | None,
) -> list[FigureChoice | None]:
    """One figure (or None) per paragraph, each figure at most once: only figures the paragraph's used
    evidence discusses; figures before tables outside the results; ties go to the caption closest to
    the paragraph's text."""
    by_label = {e.label.lower(): e for e in entries if e.label}
    options: list[dict[int, float]] = []
    for paragraph, items in zip(evidence, used):
        weights = paragraph.figure_weights(items)
        scores: dict[int, float] = {}
        for label, weight in weights.items():
            entry = by_label.get(label)
            if entry is None:
                continue
            score = weight
            if entry.kind == "table":
                score += TABLE_FOR_RESULTS if paragraph.role == "results" else -FIGURE_FOR_PROSE
            elif paragraph.role != "results":
                score += FIGURE_FOR_PROSE
            scores[entry.index] = score
        options.append(scores)
    similarity = _caption_similarity(options, entries, texts, embedder)
    chosen: list[FigureChoice | None] = [None] * len(options)
    pairs = sorted(((score + 0.5 * similarity.get((row, index), 0.0), row, index)
                    for row, scores in enumerate(options) for index, score in scores.items()), reverse=True)
    taken_rows: set[int] = set()
    taken_figures: set[int] = set()
    by_index = {e.index: e for e in entries}
    for score, row, index in pairs:
        if row in taken_rows or index in taken_figures:
            continue
        taken_rows.add(row)
        taken_figures.add(index)
        signals = {"evidence": options[row][index], "caption_similarity": similarity.get((row, index), 0.0)}
        chosen[row] = FigureChoice.of(by_index[index], score=score, chosen_by="evidence", signals=signals)
    return chosen


def _caption_similarity(options: list[dict[int, float]], entries: Sequence[FigureEntry], texts: Sequence[str],
                        embedder: Embedder | None) -> dict[tuple[int, int], float]:
    wanted = sorted({index for scores in options for index in scores})
    if embedder is None or not wanted or not any(len(scores) > 1 for scores in options):
        return {}
    by_index = {e.index: e for e in entries}
    captions = [(by_index[i].caption or by_index[i].label or "")[:600] for i in wanted]
    vectors = np.asarray(embedder.embed([*texts, *captions]), dtype=np.float32)
    paragraph_vectors, caption_vectors = vectors[: len(texts)], vectors[len(texts):]
    column = {index: k for k, index in enumerate(wanted)}
    return {(row, index): float(paragraph_vectors[row] @ caption_vectors[column[index]])
            for row, scores in enumerate(options) for index in scores}
