"""Evidence for each paragraph of a summary, and the figures that belong with it.

"Extract, then write": the extractive engine picks, per role (background, method, results, conclusion),
more body sentences than a paragraph needs; they are that paragraph's evidence — clean body prose only
(summarize/extractive.py: never back matter, captions, tables, furniture), each with its page, block and
the figure and table labels it (or its passage) cites. The grounded writer (summarize/grounded.py) writes
from them; the extractive engine's own paragraphs are their own evidence.

A paragraph shows a figure only when its evidence discusses it: the figure is cited by the evidence
sentences themselves (strongest), by the passages (blocks) they come from, or — weaker, the nearer the
better — by the other paragraphs of the section those passages belong to (under the same heading, then in
the same part of the paper: a Results sentence may show a figure its Results section discusses, never one
only the Methods cite). Figures are preferred to tables for background, method and conclusion; a table may
illustrate the results. Each figure is shown once. The assignment first illustrates as many paragraphs
as their evidence allows, then prefers the strongest ties; a paragraph left without a figure gets a typed
reason (:class:`~mmdocsum_desktop.schemas.summary.NoFigure`) that the summary shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mmdocsum_desktop.document.labels import find_mentions
from mmdocsum_desktop.document.sections import is_body_prose
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.schemas.document import Document
from mmdocsum_desktop.schemas.summary import FigureChoice, FigureEntry, NoFigure
from mmdocsum_desktop.summarize.extractive import DraftParagraph, Extractor
from mmdocsum_desktop.summarize.roles import block_roles
from mmdocsum_desktop.summarize.sentences import Embedder, Sentence

# how much more evidence than an extractive paragraph: the writer shortens each evidence sentence (to
# about three quarters of its words on the dev half of pmc/), so a fifth more sentences give a summary of
# about the extractive length that covers more of the paper
EVIDENCE_SCALE = 1.2
# weight of a figure cited by the sentence itself / by its passage / by its section (same heading) / by
# its part of the paper (the run of sections of one role: "Results" with its subsections)
SENTENCE_CITES, PASSAGE_CITES, SECTION_CITES, PART_CITES = 2.0, 1.0, 0.5, 0.25
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
    section_cites: tuple[str, ...] = ()  # labels the other blocks under its heading cite
    part_cites: tuple[str, ...] = ()  # labels cited anywhere in its part of the paper (its role's sections)

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

    def figure_weights(self, items: Sequence[EvidenceItem] | None = None) -> dict[str, float]:
        """Lower-cased label → how strongly these items (all by default) discuss it."""
        weights: dict[str, float] = {}
        for item in self.items if items is None else items:
            levels = ((item.cites, SENTENCE_CITES), (item.passage_cites, PASSAGE_CITES),
                      (item.section_cites, SECTION_CITES), (item.part_cites, PART_CITES))
            seen: set[str] = set()
            for labels, weight in levels:
                for label in labels:
                    if label not in seen:  # each item counts a label once, at its closest level
                        seen.add(label)
                        weights[label.lower()] = weights.get(label.lower(), 0.0) + weight
        return weights

    def cited_labels(self, items: Sequence[EvidenceItem] | None = None) -> list[str]:
        """Every label these items (all by default) discuss at any level, closest first."""
        found: dict[str, None] = {}
        for item in self.items if items is None else items:
            for label in (*item.cites, *item.passage_cites, *item.section_cites, *item.part_cites):
                found.setdefault(label, None)
        return list(found)

    def to_json(self) -> dict[str, Any]:
        return {"role": self.role, "items": [
            {"n": i.number, "page": i.page, "block": i.block, "cites": list(i.cites), "text": i.text} for i in self.items
        ]}


def _labels(text: str, known: dict[str, str]) -> tuple[str, ...]:
    found = []
    # label words in lower case count too ("(figure 4a)", Royal Society style): only labels the document
    # has are kept, so "a table 3 m long" cannot bring a figure in unless the paper has a Table 3
    for _, label in find_mentions(text, language="any"):
        canonical = known.get(label.lower())
        if canonical is not None and canonical not in found:
            found.append(canonical)
    return tuple(found)


def _cites_around(document: Document, known: dict[str, str]) -> tuple[dict[str, tuple[str, ...]],
                                                                    dict[str, tuple[str, ...]],
                                                                    dict[str, tuple[str, ...]]]:
    """Block id → the labels its own text cites, those its section (the run of body prose under one
    heading) cites, and those its part of the paper (the run of sections of one role) cites."""
    roles = block_roles(document)
    own: dict[str, tuple[str, ...]] = {}
    section_of: dict[str, int] = {}
    part_of: dict[str, int] = {}
    section_labels: dict[int, list[str]] = {}
    part_labels: dict[int, list[str]] = {}
    section = part = 0
    last_heading: str | None = None
    last_role: str | None = None
    for block in document.blocks:
        if not is_body_prose(block) or block.is_abstract:
            continue
        if block.section != last_heading:
            section += 1
            last_heading = block.section
        role = roles.get(block.id)
        if role != last_role:
            part += 1
            last_role = role
        labels = _labels(block.text, known)
        own[block.id] = labels
        section_of[block.id], part_of[block.id] = section, part
        section_labels.setdefault(section, []).extend(labels)
        if role is not None:  # a part is a role's sections; text under no known heading has none
            part_labels.setdefault(part, []).extend(labels)
    sections = {b: tuple(dict.fromkeys(section_labels.get(k, []))) for b, k in section_of.items()}
    parts = {b: tuple(dict.fromkeys(part_labels.get(k, []))) for b, k in part_of.items()}
    return own, sections, parts


def evidence_from_drafts(document: Document, drafts: Sequence[DraftParagraph]) -> list[ParagraphEvidence]:
    """Each draft paragraph's sentences as evidence items, with the labels they, their blocks, their
    sections and their parts of the paper cite."""
    known = {v.label.lower(): v.label for v in document.visuals if v.label}
    block_text = {b.id: b.text for b in document.blocks}
    own, sections, parts = _cites_around(document, known)
    result = []
    for draft in drafts:
        items = []
        for k, sentence in enumerate(draft.sentences, start=1):
            passage = own.get(sentence.block)
            if passage is None:
                passage = own[sentence.block] = _labels(block_text.get(sentence.block, ""), known)
            items.append(EvidenceItem(k, sentence.text, sentence.block, sentence.page, sentence.section,
                                      _labels(sentence.text, known), passage,
                                      sections.get(sentence.block, ()), parts.get(sentence.block, ())))
        result.append(ParagraphEvidence(draft.role, items))
    return result


def select_evidence(document: Document, embedder: Embedder, *, include_abstract: bool = True,
                    control: JobControl | None = None, scale: float = EVIDENCE_SCALE) -> tuple[list[ParagraphEvidence], list[str]]:
    """The evidence of the four paragraphs (document order within each) and the extractive stage's warnings."""
    drafted = Extractor(embedder).draft(document, include_abstract=include_abstract, control=control, scale=scale)
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
    """One figure (or None) per paragraph, each figure at most once (see :func:`assign_evidence_figures`)."""
    return [choice for choice, _ in assign_evidence_figures(evidence, used, entries, texts, embedder)]


def assign_evidence_figures(
    evidence: Sequence[ParagraphEvidence],
    used: Sequence[Sequence[EvidenceItem]],
    entries: Sequence[FigureEntry],
    texts: Sequence[str],
    embedder: Embedder | None,
) -> list[tuple[FigureChoice | None, NoFigure | None]]:
    """Per paragraph, the figure it shows, or None and why. Only figures the paragraph's used evidence
    discusses; each at most once; as many paragraphs illustrated as that allows (a maximum matching),
    and among those assignments the strongest ties: the closest citations, figures before tables
    outside the results, the caption closest to the paragraph's text."""
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
    by_index = {e.index: e for e in entries}
    columns = sorted({index for scores in options for index in scores})
    if columns:
        from scipy.optimize import linear_sum_assignment  # lazy: scipy loads only when figures compete

        # every allowed pair is worth more than any difference of scores: the most paragraphs illustrated
        # first, then the strongest ties among such assignments
        bonus = 1.0 + sum(max(scores.values(), default=0.0) + 0.5 for scores in options)
        gain = np.zeros((len(options), len(columns)))
        for row, scores in enumerate(options):
            for k, index in enumerate(columns):
                if index in scores:
                    gain[row, k] = bonus + scores[index] + 0.5 * similarity.get((row, index), 0.0)
        rows, cols = linear_sum_assignment(gain, maximize=True)
        for row, k in zip(rows, cols):
            if gain[row, k] <= 0:
                continue
            index = columns[k]
            signals = {"evidence": options[row][index], "caption_similarity": similarity.get((row, index), 0.0)}
            chosen[row] = FigureChoice.of(by_index[index], score=gain[row, k] - bonus, chosen_by="evidence",
                                          signals=signals)
    result: list[tuple[FigureChoice | None, NoFigure | None]] = []
    shown = {c.label.lower() for c in chosen if c is not None and c.label}
    for row, (paragraph, items, choice) in enumerate(zip(evidence, used, chosen)):
        if choice is not None:
            result.append((choice, None))
        elif not (texts[row] if row < len(texts) else "").strip():
            result.append((None, NoFigure(kind="no_text")))
        elif not entries:
            result.append((None, NoFigure(kind="document_has_none")))
        else:
            cited = paragraph.cited_labels(items)
            elsewhere = [label for label in cited if label.lower() in shown]
            without_image = [label for label in cited if label.lower() not in by_label]
            if elsewhere:
                result.append((None, NoFigure(kind="shown_elsewhere", labels=elsewhere[:3])))
            elif without_image:
                result.append((None, NoFigure(kind="no_image", labels=without_image[:3])))
            else:
                result.append((None, NoFigure(kind="not_cited")))
    return result


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
