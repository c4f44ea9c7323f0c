"""Where a sentence is printed on its page: the rectangles of its lines, for the reader to highlight the
sentence a citation points to (issue 46, item 5) as a reader's highlight, not a flash of the page.

A summary or an answer sentence cites the block it rests on (its page and box). The sentence's words are
found among the words PyMuPDF lists in that box, in order: the longest run of the block's words that
matches the sentence's (case, accents, ligatures and punctuation folded, compared letter by letter: a
word broken by a hyphen at a line end and words printed glued match), allowing the few words a writer
changed. The run's words give one rectangle per
printed line, in PDF points with the origin at the top left, as the page is drawn. A sentence not found
in its block's box is looked for on the whole page (a paragraph the reader joined across a column or a
page break has the box of its first part). A sentence that is not on the page (a model's own words that match too little) gives no rectangles: the reader then shows
the block.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path

from mmdocsum_desktop.document.mupdf import MUPDF_LOCK

Rect = tuple[float, float, float, float]
# share of the sentence's words that must be found, in order, for the span to be the sentence
MIN_FOUND = 0.6
MARGIN = 2.0  # points around the block's box: a word whose box pokes out of it still counts
MAX_GAP = 14  # letters between two matched pieces of one sentence (a word or two the writer changed)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


@dataclass(frozen=True)
class SentenceSpan:
    """The printed lines of one sentence on its page; ``found``: the share of its words found there."""

    page: int  # 1-based
    lines: tuple[Rect, ...]
    found: float


def fold(word: str) -> str:
    """A word as matching compares it: NFKC (ligatures as letters), accents and case folded, letters and
    digits only."""
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", word))
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).casefold()
    return "".join(_WORD.findall(text))


def words_of(text: str) -> list[str]:
    return [w for w in (fold(t) for t in text.split()) if w]


def match_words(sentence: str, words: Sequence[str]) -> tuple[int, int, float] | None:
    """The run of ``words`` (as printed, in reading order) that is ``sentence``: (first, last) indices
    and the share of the sentence's letters found; None when less than MIN_FOUND is found.

    Compared letter by letter with the spaces taken out, so a word broken by a hyphen at a line's end
    ("hetero-", "geneous") and words the page prints glued ("ERαand") match the sentence's words."""
    wanted = "".join(words_of(sentence))
    if not wanted or not words:
        return None
    printed = ""
    owner: list[int] = []
    for index, word in enumerate(words):
        folded = fold(word)
        printed += folded
        owner += [index] * len(folded)
    if not printed:
        return None
    matcher = SequenceMatcher(None, wanted, printed, autojunk=False)
    hits = [(block.b, block.b + block.size - 1, block.size) for block in matcher.get_matching_blocks()
            if block.size >= 3 or (block.size and block.size == len(wanted))]
    if not hits:
        return None
    # the densest run: matched pieces joined while the gap between them is no longer than a word or two
    runs: list[tuple[int, int, int]] = []
    start, end, count = hits[0]
    for first, last, size in hits[1:]:
        if first - end <= MAX_GAP:
            end, count = last, count + size
        else:
            runs.append((start, end, count))
            start, end, count = first, last, size
    runs.append((start, end, count))
    start, end, count = max(runs, key=lambda run: run[2])
    share = count / len(wanted)
    if share < MIN_FOUND:
        return None
    return owner[start], owner[end], min(1.0, share)


def line_rects(boxes: Sequence[tuple[float, float, float, float, int, int]]) -> tuple[Rect, ...]:
    """Word boxes (x0, y0, x1, y1, block_no, line_no), in reading order, as one rectangle per line."""
    lines: dict[tuple[int, int], list[float]] = {}
    for x0, y0, x1, y1, block, line in boxes:
        box = lines.setdefault((block, line), [x0, y0, x1, y1])
        box[0], box[1], box[2], box[3] = min(box[0], x0), min(box[1], y0), max(box[2], x1), max(box[3], y1)
    return tuple((b[0], b[1], b[2], b[3]) for b in lines.values())


def sentence_span(path: str | Path, page: int, sentence: str, bbox: Sequence[float] | None = None,
                  password: str | None = None) -> SentenceSpan | None:
    """The lines of ``sentence`` on ``page`` (1-based) of the PDF at ``path``, looked for inside ``bbox``
    (the cited block's box; None: the whole page). None when the sentence is not printed there."""
    import pymupdf  # lazy: the reader loads PyMuPDF when a citation is first clicked, not at start-up

    with MUPDF_LOCK:  # one thread in PyMuPDF at a time (document/mupdf.py)
        pdf = pymupdf.open(str(path))
        try:
            if password:
                pdf.authenticate(password)
            if not 1 <= page <= pdf.page_count:
                return None
            target = pdf[page - 1]
            clip = None
            if bbox is not None and len(bbox) == 4:
                clip = pymupdf.Rect(bbox[0] - MARGIN, bbox[1] - MARGIN, bbox[2] + MARGIN, bbox[3] + MARGIN)
            words = target.get_text("words", clip=clip, sort=False)
            found = match_words(sentence, [str(w[4]) for w in words])
            if found is None and clip is not None:
                # a paragraph the reader joined across a column or a page: its box is its first part's
                words = target.get_text("words", sort=False)
                found = match_words(sentence, [str(w[4]) for w in words])
        finally:
            pdf.close()
    if found is None:
        return None
    first, last, share = found
    boxes = [(float(w[0]), float(w[1]), float(w[2]), float(w[3]), int(w[5]), int(w[6])) for w in words[first:last + 1]]
    return SentenceSpan(page, line_rects(boxes), round(share, 3))
