"""Evidence for each paragraph of a summary, and the figures that belong with it.

"Extract, then write": the extractive engine picks, per role (background, method, results, conclusion),
more body sentences than a paragraph needs; they are that paragraph's evidence — clean body prose only
(summarize/extractive.py: never back matter, captions, tables, furniture), each with its page, block and
the figure and table labels it (or its passage) cites. The grounded writer (summarize/grounded.py) writes
from them; the extractive engine's own paragraphs are their own evidence.

A paragraph shows a figure only when its evidence discusses it: the figure is cited by the evidence
sentences themselves, by the passages (blocks) they come from, or by the other paragraphs of the section
those passages belong to (under the same heading, or in the same part of the paper: a Results sentence
may show a figure its Results section discusses, never one only the Methods cite). Each figure is shown
once. The assignment first illustrates as many paragraphs as their evidence allows, then prefers the pairs
placement's own matcher scores highest
(:mod:`mmdocsum_desktop.placement.match`: the same features and fitted weights as ``mmdocsum place``, the
paragraph in its role's section, the evidence's citations as the mentions the placement model treats as
decisive, the figure first cited in the paragraph's part of the paper as the one "first discussed" there,
among those its own evidence cites when it cites any);
figures are preferred to tables outside the results. A paragraph left without a figure gets a typed
reason (:class:`~mmdocsum_desktop.schemas.summary.NoFigure`) that the summary shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from mmdocsum_desktop.document.labels import find_mentions
from mmdocsum_desktop.document.sections import is_body_prose
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.placement.baseline import BASELINE_THRESHOLD
from mmdocsum_desktop.placement.engine import PlacementEngine
from mmdocsum_desktop.placement.match import Mentions, PairScores, score_pairs
from mmdocsum_desktop.schemas.document import Document
from mmdocsum_desktop.schemas.placement import ImageCandidate
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
    # labels whose first citation in the paper's body is in its part: where the paper first discusses them
    first_cites: tuple[str, ...] = ()

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
                                                                    dict[str, tuple[str, ...]],
                                                                    dict[str, tuple[str, ...]]]:
    """Block id → the labels its own text cites, those its section (the run of body prose under one
    heading) cites, those its part of the paper (the run of sections of one role) cites, and those whose
    first citation in the body falls in its part."""
    roles = block_roles(document)
    own: dict[str, tuple[str, ...]] = {}
    section_of: dict[str, int] = {}
    part_of: dict[str, int] = {}
    section_labels: dict[int, list[str]] = {}
    part_labels: dict[int, list[str]] = {}
    first_part: dict[str, int] = {}  # label → the part of its first citation in the body
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
            for label in labels:
                first_part.setdefault(label, part)
        else:
            for label in labels:  # first cited under no known heading: no part claims it
                first_part.setdefault(label, -1)
    sections = {b: tuple(dict.fromkeys(section_labels.get(k, []))) for b, k in section_of.items()}
    parts = {b: tuple(dict.fromkeys(part_labels.get(k, []))) for b, k in part_of.items()}
    firsts = {b: tuple(label for label, k in first_part.items() if k == part_of[b]) for b in part_of}
    return own, sections, parts, firsts


def evidence_from_drafts(document: Document, drafts: Sequence[DraftParagraph]) -> list[ParagraphEvidence]:
    """Each draft paragraph's sentences as evidence items, with the labels they, their blocks, their
    sections and their parts of the paper cite."""
    known = {v.label.lower(): v.label for v in document.visuals if v.label}
    block_text = {b.id: b.text for b in document.blocks}
    own, sections, parts, firsts = _cites_around(document, known)
    result = []
    for draft in drafts:
        items = []
        for k, sentence in enumerate(draft.sentences, start=1):
            passage = own.get(sentence.block)
            if passage is None:
                passage = own[sentence.block] = _labels(block_text.get(sentence.block, ""), known)
            items.append(EvidenceItem(k, sentence.text, sentence.block, sentence.page, sentence.section,
                                      _labels(sentence.text, known), passage,
                                      sections.get(sentence.block, ()), parts.get(sentence.block, ()),
                                      firsts.get(sentence.block, ())))
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


Matcher = Literal["placement", "alignment", "citations", "caption"]
# "placement" (the default): placement's scorer and fitted model score every pair (placement/match.py), the
# evidence's citations entering as its mentions; "alignment": the same with issue 43's fitted alignment's
# utility (placement's default strategy), every citing paragraph ahead of the rest; "citations": issue 33's weights per citation level with
# the caption's similarity as a tie-break; "caption": the simple baseline, the caption's MiniLM cosine to the
# paragraph, greedy, at placement's baseline threshold. The last two are kept to be measured beside the
# first (benchmarks/summary_figures.py).
MATCHERS: tuple[Matcher, ...] = ("placement", "alignment", "citations", "caption")
# the section a summary paragraph of each role stands for: the section kind the placement model reads
ROLE_SECTIONS = {"background": "Introduction", "method": "Methods", "results": "Results", "conclusion": "Discussion"}
# utility taken from a table outside the results: figures are preferred there, a table may still be shown
# (the participants' Table 1 of a Methods section)
TABLE_OUTSIDE_RESULTS = 0.5


def choose_evidence_figures(
    evidence: Sequence[ParagraphEvidence],
    used: Sequence[Sequence[EvidenceItem]],
    entries: Sequence[FigureEntry],
    texts: Sequence[str],
    embedder: Embedder | None,
    *,
    matcher: Matcher = "placement",
) -> list[FigureChoice | None]:
    """One figure (or None) per paragraph, each figure at most once (see :func:`assign_evidence_figures`)."""
    return [choice for choice, _ in assign_evidence_figures(evidence, used, entries, texts, embedder, matcher=matcher)]


def assign_evidence_figures(
    evidence: Sequence[ParagraphEvidence],
    used: Sequence[Sequence[EvidenceItem]],
    entries: Sequence[FigureEntry],
    texts: Sequence[str],
    embedder: Embedder | None,
    *,
    matcher: Matcher = "placement",
    control: JobControl | None = None,
) -> list[tuple[FigureChoice | None, NoFigure | None]]:
    """Per paragraph, the figure it shows, or None and why. Only figures the paragraph's used evidence
    discusses (at any level: its sentences, their passages, their section, their part of the paper); each
    at most once; as many paragraphs illustrated as that allows (a maximum matching), and among those
    assignments the pairs the placement model scores highest (:func:`placement_figures`)."""
    if matcher == "placement":
        chosen = placement_figures(evidence, used, entries, texts, embedder, control=control)
    elif matcher == "alignment":
        chosen = placement_figures(evidence, used, entries, texts, embedder, control=control, model="align")
    elif matcher == "citations":
        chosen = citation_figures(evidence, used, entries, texts, embedder)
    elif matcher == "caption":
        chosen = caption_figures(entries, texts, embedder)
    else:
        raise ValueError(f"unknown figure matcher {matcher!r}: use one of {', '.join(MATCHERS)}")
    return _with_reasons(evidence, used, entries, texts, chosen)


def _allowed(evidence: Sequence[ParagraphEvidence], used: Sequence[Sequence[EvidenceItem]],
             entries: Sequence[FigureEntry]) -> list[dict[int, float]]:
    """Per paragraph: entry index → how strongly its used evidence discusses it (only entries it does)."""
    by_label = {e.label.lower(): e for e in entries if e.label}
    options: list[dict[int, float]] = []
    for paragraph, items in zip(evidence, used):
        scores: dict[int, float] = {}
        for label, weight in paragraph.figure_weights(items).items():
            entry = by_label.get(label)
            if entry is not None:
                scores[entry.index] = weight
        options.append(scores)
    return options


def _matching(gain: dict[tuple[int, int], float], rows: int) -> dict[int, tuple[int, float]]:
    """A maximum-weight matching of the allowed pairs (row, entry index) → gain: first as many rows
    matched as possible, then the highest total gain among such matchings. Row → (entry index, gain)."""
    columns = sorted({index for _, index in gain})
    if not columns:
        return {}
    from scipy.optimize import linear_sum_assignment  # lazy: scipy loads only when figures compete

    # every allowed pair is worth more than any difference of gains: the most rows matched first
    bonus = 1.0 + 2.0 * rows * max(abs(g) for g in gain.values())
    matrix = np.zeros((rows, len(columns)))
    position = {index: k for k, index in enumerate(columns)}
    for (row, index), value in gain.items():
        matrix[row, position[index]] = bonus + value
    chosen_rows, chosen_cols = linear_sum_assignment(matrix, maximize=True)
    return {int(row): (columns[k], float(matrix[row, k] - bonus)) for row, k in zip(chosen_rows, chosen_cols)
            if matrix[row, k] > 0}


def evidence_mentions(evidence: Sequence[ParagraphEvidence], used: Sequence[Sequence[EvidenceItem]],
                      entries: Sequence[FigureEntry], texts: Sequence[str]) -> Mentions:
    """The placement model's mentions for summary paragraphs. A paragraph cites a figure when its text
    does, or its evidence sentences or the passages they come from do (what a paragraph of the paper citing
    it would be). It is where a figure is first discussed (placement's decisive "first mention") when the
    figure's first citation in the paper falls in the part of the paper its evidence comes from (its
    role's sections) and, if the paragraph cites figures itself, it is one of those: the paragraph's own
    citations come first, the part it stands for next; the first such paragraph only."""
    candidates = figure_pool(entries)
    own = Mentions.of_texts(list(texts), candidates)
    cites = np.array(own.cites, dtype=np.float64)
    first = np.zeros_like(cites)
    column = {e.label.lower(): k for k, e in enumerate(entries) if e.label}
    claimed: set[int] = set()
    for row, items in enumerate(used[: len(texts)]):
        for item in items:
            for label in (*item.cites, *item.passage_cites):
                if label.lower() in column:
                    cites[row, column[label.lower()]] = 1.0
        for item in items:
            for label in item.first_cites:
                k = column.get(label.lower())
                if k is not None and k not in claimed and (cites[row, k] or not cites[row].any()):
                    first[row, k] = 1.0
        claimed |= set(np.flatnonzero(first[row]).tolist())
    return Mentions(cites, first)


def figure_pool(entries: Sequence[FigureEntry]) -> list[ImageCandidate]:
    """The summary's figures as placement's pool (caption, label, kind, figure text when read)."""
    return [ImageCandidate(image=e.image, label=e.label, figure=e.label or e.index,
                           kind="table" if e.kind == "table" else "figure", caption=e.caption,
                           ocr_text=e.ocr_text, order=e.index, source_id=e.id) for e in entries]


def placement_scores(evidence: Sequence[ParagraphEvidence], used: Sequence[Sequence[EvidenceItem]],
                     entries: Sequence[FigureEntry], texts: Sequence[str], embedder: Embedder | None,
                     control: JobControl | None = None, model: str = "sequence") -> PairScores:
    """Every (paragraph, figure) pair scored by placement's matcher (:func:`placement.match.score_pairs`):
    each paragraph in its role's section, its evidence's citations as its mentions."""
    engine = PlacementEngine(embedder=embedder)
    sections = [ROLE_SECTIONS.get(p.role) for p in evidence]
    sections += [None] * (len(texts) - len(sections))
    return score_pairs(engine, list(texts), figure_pool(entries), sections=sections,
                       headings=[False] * len(texts), mentions=evidence_mentions(evidence, used, entries, texts),
                       control=control, model=model)


def placement_figures(evidence: Sequence[ParagraphEvidence], used: Sequence[Sequence[EvidenceItem]],
                      entries: Sequence[FigureEntry], texts: Sequence[str], embedder: Embedder | None,
                      control: JobControl | None = None, model: str = "sequence") -> list[FigureChoice | None]:
    """The one matcher: placement's utility of every pair the evidence allows; the most paragraphs
    illustrated, then the highest total utility (tables outside the results less)."""
    options = _allowed(evidence, used, entries)
    chosen: list[FigureChoice | None] = [None] * len(texts)
    if not any(options) or not texts:
        return chosen
    scores = placement_scores(evidence, used, entries, texts, embedder, control=control, model=model)
    column = {e.index: k for k, e in enumerate(entries)}
    by_index = {e.index: e for e in entries}
    gain: dict[tuple[int, int], float] = {}
    for row, allowed in enumerate(options[: len(texts)]):
        for index in allowed:
            value = float(scores.utility[row, column[index]])
            if not np.isfinite(value):
                continue  # a paragraph with no text takes no figure
            if by_index[index].kind == "table" and evidence[row].role != "results":
                value -= TABLE_OUTSIDE_RESULTS
            gain[(row, index)] = value
    for row, (index, _gain) in _matching(gain, len(texts)).items():
        k = column[index]
        signals = {"utility": float(scores.utility[row, k]), "probability": float(np.nan_to_num(scores.probabilities[row, k])),
                   "evidence": options[row][index], "mention": float(scores.problem.mention[row, k]),
                   "first_discussed": float(scores.problem.first_mention[row, k])}
        chosen[row] = FigureChoice.of(by_index[index], score=float(np.nan_to_num(scores.probabilities[row, k])),
                                      chosen_by="evidence", signals=signals)
    return chosen


def citation_figures(evidence: Sequence[ParagraphEvidence], used: Sequence[Sequence[EvidenceItem]],
                     entries: Sequence[FigureEntry], texts: Sequence[str],
                     embedder: Embedder | None) -> list[FigureChoice | None]:
    """Issue 33's matcher (kept for comparison): the closest citation level, figures before tables
    outside the results, the caption closest to the paragraph as a tie-break."""
    by_index = {e.index: e for e in entries}
    options: list[dict[int, float]] = []
    for paragraph, allowed in zip(evidence, _allowed(evidence, used, entries)):
        scores: dict[int, float] = {}
        for index, weight in allowed.items():
            score = weight
            if by_index[index].kind == "table":
                score += TABLE_FOR_RESULTS if paragraph.role == "results" else -FIGURE_FOR_PROSE
            elif paragraph.role != "results":
                score += FIGURE_FOR_PROSE
            scores[index] = score
        options.append(scores)
    similarity = _caption_similarity(options, entries, texts, embedder)
    gain = {(row, index): score + 0.5 * similarity.get((row, index), 0.0)
            for row, scores in enumerate(options) for index, score in scores.items()}
    chosen: list[FigureChoice | None] = [None] * len(texts)
    for row, (index, value) in _matching(gain, len(texts)).items():
        signals = {"evidence": options[row][index], "caption_similarity": similarity.get((row, index), 0.0)}
        chosen[row] = FigureChoice.of(by_index[index], score=value, chosen_by="evidence", signals=signals)
    return chosen


def caption_figures(entries: Sequence[FigureEntry], texts: Sequence[str],
                    embedder: Embedder | None) -> list[FigureChoice | None]:
    """The simple baseline: the MiniLM cosine of each paragraph to each caption, the best pairs first
    (greedy), each figure and paragraph once, pairs below placement's baseline threshold left out."""
    chosen: list[FigureChoice | None] = [None] * len(texts)
    live = [row for row, text in enumerate(texts) if text.strip()]
    if embedder is None or not entries or not live:
        return chosen
    captions = [(e.caption or e.label or "")[:600] for e in entries]
    vectors = np.asarray(embedder.embed([*(texts[row] for row in live), *captions]), dtype=np.float32)
    cosine = vectors[: len(live)] @ vectors[len(live):].T
    taken_rows: set[int] = set()
    taken_cols: set[int] = set()
    for flat in np.argsort(-cosine, axis=None, kind="stable"):
        r, k = divmod(int(flat), len(entries))
        if cosine[r, k] < BASELINE_THRESHOLD:
            break
        if r in taken_rows or k in taken_cols:
            continue
        taken_rows.add(r)
        taken_cols.add(k)
        chosen[live[r]] = FigureChoice.of(entries[k], score=float(cosine[r, k]), chosen_by="evidence",
                                          signals={"caption_similarity": float(cosine[r, k])})
    return chosen


def _with_reasons(evidence: Sequence[ParagraphEvidence], used: Sequence[Sequence[EvidenceItem]],
                  entries: Sequence[FigureEntry], texts: Sequence[str],
                  chosen: Sequence[FigureChoice | None]) -> list[tuple[FigureChoice | None, NoFigure | None]]:
    """Each paragraph's choice, or None and the typed reason a reader sees."""
    by_label = {e.label.lower(): e for e in entries if e.label}
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
