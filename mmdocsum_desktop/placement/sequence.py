"""Placement as a sequence: figures follow the text's order, and a figure goes where it is first discussed.

Journals number figures in the order the text first cites them, and a figure belongs after the paragraph
that starts to discuss it. Two things follow, both here:

* :func:`monotone_assign` — the decision: a monotone alignment of figures (in their sequence, see
  :func:`figure_ranks`) to paragraphs (in document order) by dynamic programming, "none" allowed for
  every paragraph and every figure; each chosen pair earns its utility (the calibrated log-odds above the
  threshold). Then figures the backbone left out go where they are very confident even against the
  order (a user's own summary may discuss Figure 4 before Figure 2).
* :func:`neighbour_features` — what a pair's score looks like against its column's earlier and later
  paragraphs and its neighbours: the first paragraph about what a caption shows beats a later one that
  matches as well, and the paragraphs after it usually keep discussing the figure.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np

# The gap features are clipped: one paragraph far above the rest says as much at 3 logits as at 10.
GAP_CLIP = 3.0
NEIGHBOUR_FEATURES = (
    "z_base", "prior_gap", "later_gap", "next_z", "prev_z", "pos_dev", "rel_pos", "length", "unlabeled",
)

_NUMBER = re.compile(r"(\d+)")


def _label_number(label: str | None) -> float | None:
    """3 for "Figure 3", 3.5 for "Figure S3"-style supplements' stand-in ordering after the main ones."""
    if not label:
        return None
    match = _NUMBER.search(label)
    if match is None:
        return None
    number = float(match.group(1))
    supplementary = bool(re.search(r"\bS\d", label, re.IGNORECASE)) or " s" in label.lower()
    return number + (1000.0 if supplementary else 0.0)


def figure_ranks(labels: Sequence[str | None], kinds: Sequence[str], orders: Sequence[float]) -> list[int]:
    """The sequence position of each candidate (0 = first).

    Document order (``orders``) first; then, within each kind, the positions that kind occupies are
    refilled in label-number order when every candidate of the kind has a number — a PDF may print
    Figure 3 above Figure 2 on a page, but the text cites 2 before 3. Unnumbered pools keep their order.
    """
    count = len(labels)
    by_document = sorted(range(count), key=lambda j: (orders[j], j))
    slots = list(by_document)
    for kind in sorted(set(kinds)):
        members = [j for j in by_document if kinds[j] == kind]
        numbers = [_label_number(labels[j]) for j in members]
        if len(members) < 2 or any(n is None for n in numbers):
            continue
        positions = [slots.index(j) for j in members]
        renumbered = [j for _, j in sorted(zip(numbers, members), key=lambda t: (t[0], members.index(t[1])))]
        for position, j in zip(positions, renumbered):
            slots[position] = j
    ranks = [0] * count
    for rank, j in enumerate(slots):
        ranks[j] = rank
    return ranks


def neighbour_features(
    z: np.ndarray,
    ranks: Sequence[int],
    valid: np.ndarray | None = None,
    lengths: Sequence[int] | None = None,
    labeled: Sequence[bool] | None = None,
) -> dict[str, np.ndarray]:
    """Per pair (paragraph i, candidate j), from the base logits ``z`` (n × m):

    * ``prior_gap`` — z[i, j] minus the best earlier paragraph's (clipped; the first paragraph gets the
      clip): is this the first paragraph that matches the caption this well?
    * ``later_gap`` — the best later paragraph's z minus this one (clipped): a later one matches better;
    * ``next_z`` / ``prev_z`` — the neighbours' z minus the column's median (discussion runs on);
    * ``pos_dev`` — |relative position of the paragraph − relative rank of the figure|;
    * ``rel_pos`` — the paragraph's relative position (first figures are rarely cited in the last lines);
    * ``length`` — log of the paragraph's word count (``lengths``) minus the median's: a one-line
      paragraph rarely introduces a figure;
    * ``unlabeled`` — 1 for a candidate without a label ("Figure N") when others in the pool have one
      (``labeled``): in a PDF whose figures are numbered, an unnumbered image is mostly a logo or an
      ornament (95 of the 142 dev-half pool images that no paragraph cites). A pool with no labels at
      all gets zeros: nothing to tell its images apart by.

    Rows not ``valid`` (empty paragraphs) are ignored as neighbours and get zeros.
    """
    z = np.asarray(z, dtype=np.float64)
    n, m = z.shape
    valid = np.ones(n, dtype=bool) if valid is None else np.asarray(valid, dtype=bool)
    out = {name: np.zeros((n, m)) for name in NEIGHBOUR_FEATURES}
    out["z_base"] = np.where(valid[:, None], z, 0.0)
    if n == 0 or m == 0:
        return out
    rows = np.flatnonzero(valid)
    if rows.size == 0:
        return out
    zv = z[rows]  # only paragraphs with text
    k = zv.shape[0]
    before = np.full((k, m), -np.inf)
    after = np.full((k, m), -np.inf)
    if k > 1:
        before[1:] = np.maximum.accumulate(zv[:-1], axis=0)
        after[:-1] = np.maximum.accumulate(zv[::-1], axis=0)[::-1][1:]
    prior_gap = np.clip(np.where(np.isfinite(before), zv - before, GAP_CLIP), -GAP_CLIP, GAP_CLIP)
    later_gap = np.clip(np.where(np.isfinite(after), after - zv, -GAP_CLIP), -GAP_CLIP, GAP_CLIP)
    median = np.median(zv, axis=0, keepdims=True)
    next_z = np.zeros((k, m))
    prev_z = np.zeros((k, m))
    if k > 1:
        next_z[:-1] = zv[1:] - median
        prev_z[1:] = zv[:-1] - median
    rel_pos = (np.arange(k) / max(k - 1, 1))[:, None] * np.ones((1, m))
    rel_rank = (np.asarray(ranks, dtype=np.float64) + 0.5) / max(m, 1)
    pos_dev = np.abs(rel_pos - rel_rank[None, :])
    if labeled is not None and len(labeled) == m:
        has_label = np.asarray(labeled, dtype=bool)
        if has_label.any():
            out["unlabeled"][rows] = np.where(has_label, 0.0, 1.0)[None, :] * np.ones((rows.size, 1))
    if lengths is not None:
        logs = np.log1p(np.asarray(lengths, dtype=np.float64)[rows])
        out["length"][rows] = (logs - np.median(logs))[:, None] * np.ones((1, m))
    for name, values in (("prior_gap", prior_gap), ("later_gap", later_gap), ("next_z", next_z),
                         ("prev_z", prev_z), ("pos_dev", pos_dev), ("rel_pos", rel_pos)):
        out[name][rows] = values
    return out


def paragraph_prior(valid_paragraphs: int, scale: float) -> float:
    """The utility bonus ``scale`` × log(paragraphs with text) that each pair gets.

    A figure's calibrated score is its share of a softmax over the paragraphs, so the same evidence
    gives a smaller score among 120 short paragraphs (a PDF read into pieces) than among 30 long ones;
    this puts scores of both on one scale for the threshold (``scale`` fitted on the dev half).
    """
    return float(scale) * math.log(max(int(valid_paragraphs), 1))


def monotone_assign(
    utility: np.ndarray,
    ranks: Sequence[int],
    *,
    out_of_order: float | None = None,
) -> list[int | None]:
    """The candidate (or None) per paragraph that maximises the summed utility of the chosen pairs, with
    chosen figures in increasing rank down the paragraphs, each paragraph and each figure used at most
    once; pairs with utility ≤ 0 (or NaN) are never chosen.

    ``out_of_order``: afterwards, a figure left out goes to a free paragraph against the order when its
    utility there is at least this (None: never).
    """
    u = np.asarray(utility, dtype=np.float64)
    n, m = u.shape
    if n == 0:
        return []
    if m == 0:
        return [None] * n
    columns = sorted(range(m), key=lambda j: (ranks[j], j))
    gain = np.where(np.isfinite(u[:, columns]), u[:, columns], 0.0)
    gain = np.maximum(gain, 0.0)
    # best[i, k]: the best total over the first i paragraphs and the first k figures of the sequence
    best = np.zeros((n + 1, m + 1))
    for i in range(1, n + 1):
        row_gain = gain[i - 1]
        previous = best[i - 1]
        current = best[i]
        # take pair (i-1, k-1), or skip the paragraph; the running max skips figures
        take = previous[:-1] + row_gain
        current[1:] = np.maximum(previous[1:], take)
        np.maximum.accumulate(current, out=current)
    choice: list[int | None] = [None] * n
    i, k = n, m
    while i > 0 and k > 0:
        if best[i, k] == best[i - 1, k]:
            i -= 1
        elif best[i, k] == best[i, k - 1]:
            k -= 1
        else:
            choice[i - 1] = columns[k - 1]
            i -= 1
            k -= 1
    if out_of_order is not None:
        placed = {j for j in choice if j is not None}
        free = [i for i in range(n) if choice[i] is None]
        extras = []
        for j in range(m):
            if j in placed:
                continue
            for i in free:
                value = u[i, j]
                if np.isfinite(value) and value >= out_of_order:
                    extras.append((float(value), i, j))
        for _value, i, j in sorted(extras, reverse=True):
            if choice[i] is None and j not in placed:
                choice[i] = j
                placed.add(j)
    return choice


def monotone_total(utility: np.ndarray, choice: Sequence[int | None]) -> float:
    """The summed positive utility of a choice (what :func:`monotone_assign` maximises)."""
    u = np.asarray(utility, dtype=np.float64)
    return float(sum(max(u[i, j], 0.0) for i, j in enumerate(choice) if j is not None and np.isfinite(u[i, j])))


# ------------------------------------------------------------------------------------------ sections

SECTION_KINDS = ("intro", "methods", "results", "discussion")
SECTION_FEATURES = (*(f"sec_{kind}" for kind in SECTION_KINDS), "sec_first")
_SECTION_WORDS = (
    ("intro", re.compile(r"\b(introduction|background)\b", re.IGNORECASE)),
    ("methods", re.compile(
        r"\b(methods?|methodology|materials?|procedures?|experimental|protocols?|statistical analys[ie]s|"
        r"data (collection|analysis)|study (design|area|population)|participants|patients and)\b", re.IGNORECASE)),
    ("results", re.compile(r"\b(results?|findings)\b", re.IGNORECASE)),
    ("discussion", re.compile(r"\b(discussion|conclusions?|summary|limitations)\b", re.IGNORECASE)),
)
_HEADING_END = re.compile(r"[.!?;:,]\s*[\"'”’)\]]?\s*$")
HEADING_MAX_WORDS = 12


def section_kind(titles: Sequence[str] | str | None) -> str | None:
    """"intro" / "methods" / "results" / "discussion" from a section's titles (outermost first), or None."""
    if titles is None:
        return None
    if isinstance(titles, str):
        titles = [titles]
    for title in titles:
        for kind, pattern in _SECTION_WORDS:
            if pattern.search(title or ""):
                return kind
    return None


def is_heading(text: str | None) -> bool:
    """A heading or a title line among the user's paragraphs: one short line that does not end a
    sentence ("Results", "2.1 Cell culture", "# Methods"). No image ever goes after one."""
    line = (text or "").strip()
    if not line or "\n" in line:
        return False
    if line.startswith("#"):
        return True
    words = line.split()
    return len(words) <= HEADING_MAX_WORDS and not _HEADING_END.search(line) and (line[0].isupper() or line[0].isdigit())


def heading_rows(paragraphs: Sequence[str]) -> np.ndarray:
    """True for each paragraph that is a heading or the title line: a heading-like line with text after
    it (a heading heads something; a lone short line, or the last one, is a paragraph of its own)."""
    texts = [p or "" for p in paragraphs]
    later_text = np.zeros(len(texts), dtype=bool)
    seen = False
    for i in range(len(texts) - 1, -1, -1):
        later_text[i] = seen
        seen = seen or bool(texts[i].strip())
    return np.array([is_heading(t) for t in texts], dtype=bool) & later_text


def paragraph_sections(
    paragraphs: Sequence[str],
    sections: Sequence[Sequence[str] | str | None] | None = None,
    headings: Sequence[bool] | np.ndarray | None = None,
) -> tuple[list[str | None], list[bool]]:
    """Per paragraph, its section's kind and whether it opens its section.

    ``sections``: the section titles of each paragraph when the caller knows them (a JATS or PDF
    reading, or a writer's Markdown headings); otherwise the headings among the paragraphs themselves
    (``headings``, default :func:`heading_rows`) start the sections. Before the first heading nothing
    opens a section: a list of paragraphs with no headings has no section features at all (the fitted
    model then reads none, as when the fit's papers are scored without their section titles)."""
    kinds: list[str | None] = []
    first: list[bool] = []
    if sections is not None:
        previous: object = object()
        for titles in sections:
            key = tuple(titles) if isinstance(titles, (list, tuple)) else titles
            kinds.append(section_kind(titles))
            first.append(key != previous)
            previous = key
        return kinds, first
    current: str | None = None
    opened = False  # a section opens at a heading; text before the first one is in none
    rows = heading_rows(paragraphs) if headings is None else np.asarray(headings, dtype=bool)
    for text, heading in zip(paragraphs, rows):
        if heading:
            current = section_kind(text.lstrip("# ")) or current
            opened = True
            kinds.append(current)
            first.append(False)
            continue
        kinds.append(current)
        first.append(opened and bool((text or "").strip()))
        if (text or "").strip():
            opened = False
    return kinds, first


def section_features(kinds: Sequence[str | None], first: Sequence[bool], m: int) -> dict[str, np.ndarray]:
    """Per pair: one-hot of the paragraph's section kind, and ``sec_first`` (it opens its section)."""
    n = len(kinds)
    out = {}
    for kind in SECTION_KINDS:
        column = np.array([1.0 if k == kind else 0.0 for k in kinds]).reshape(n, 1)
        out[f"sec_{kind}"] = np.repeat(column, m, axis=1) if n else np.zeros((0, m))
    opens = np.array([1.0 if f else 0.0 for f in first]).reshape(n, 1)
    out["sec_first"] = np.repeat(opens, m, axis=1) if n else np.zeros((0, m))
    return out
