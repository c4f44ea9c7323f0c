"""The units evidence search ranks: the document's prose sentences, figure and table captions, and the
text read inside figures (OCR), each with where it is (page, block) and the figures or tables it rests on.

A prose sentence rests on the figures and tables it cites ("as Fig. 3 shows" → Figure 3): those are the
"sentences that cite each figure", which tell what a figure is *for* better than its caption often does.
A caption and a figure's OCR text rest on their own figure. Labels are canonical ("Figure 3", "Table 2")
so a question's "Fig. 3" and a PDF's "FIG. 3" meet.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from mmdocsum_desktop.document.labels import find_mentions, parse_caption_start
from mmdocsum_desktop.document.model import Document, Figure
from mmdocsum_desktop.text.sentences import split_sentences

PassageKind = Literal["sentence", "caption", "ocr"]
PROSE_TYPES = ("paragraph", "list")
# Sentences shorter than this are headings that lost their type or page furniture, never evidence.
MIN_SENTENCE_CHARS = 20
# OCR text longer than this is a page of tiny labels; its start says what the figure shows.
MAX_OCR_CHARS = 1500
# Back matter is never evidence for a question about the work: a reference list would otherwise answer
# every question that names an author or a year.
_BACK_MATTER = re.compile(
    r"^\s*(?:[\dIVX]+\.?\s*)*(?:references?|bibliography|literature cited|acknowledge?ments?|funding|"
    r"competing interests?|conflicts? of interests?|author(?:s'|s)? contributions?|data availability|declarations?)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Passage:
    index: int  # position in the index (document order: prose sentences, then captions, then OCR)
    kind: PassageKind
    text: str
    page: int | None
    block: str | None  # id of the block it comes from (a caption's caption block); None for OCR text
    labels: tuple[str, ...]  # the figures / tables it rests on, canonical ("Figure 3")
    section: str | None = None
    figure: str | None = None  # id of the figure a caption or OCR text belongs to


# Lower-case mentions ("shown in figure 2", "see table 3"), which the document reader's mention finder
# leaves out on purpose (it links blocks to figures and must not guess); a sentence saying "figure 2"
# still rests on Figure 2.
_LOWER_MENTION = re.compile(r"\b(?:(figures?|figs?\.?)|(tables?))\s*(\d{1,3})(?!\d)(?![.,]\d)")


def sentence_labels(sentence: str) -> list[str]:
    """The figures and tables a sentence cites, canonical, in order: "Fig. 3", "Figs. 2 and 4", "figure 5"."""
    labels = [label for _kind, label in find_mentions(sentence)]
    for match in _LOWER_MENTION.finditer(sentence):
        label = f"{'Figure' if match.group(1) else 'Table'} {match.group(3)}"
        if label not in labels:
            labels.append(label)
    return labels


def canonical_label(label: str | None) -> str | None:
    """"Fig. 3" → "Figure 3", "TABLE 2" → "Table 2"; None when it is not a figure or table label."""
    if not label:
        return None
    start = parse_caption_start(label)
    return start.label if start is not None else None


def visual_label(visual: Figure) -> str | None:
    return canonical_label(visual.label)


def document_labels(document: Document) -> dict[str, Figure]:
    """Canonical label → the document's figure or table that carries it (the first, if repeated)."""
    found: dict[str, Figure] = {}
    for visual in document.visuals:
        label = visual_label(visual)
        if label and label not in found:
            found[label] = visual
    return found


def mentioned_labels(document: Document) -> set[str]:
    """Every figure / table label the prose cites, whether or not the reader found that figure."""
    labels: set[str] = set()
    for block in document.blocks:
        if block.type in PROSE_TYPES:
            labels.update(sentence_labels(block.text))
    return labels


def build_passages(document: Document, figure_text: Mapping[str, str] | None = None) -> list[Passage]:
    """All passages of a document, in document order within each kind.

    ``figure_text`` maps a figure's id to the text OCR read inside it (optional: the CLI and the app
    pass what they already have; nothing is OCR'd here)."""
    passages: list[Passage] = []

    def add(kind: PassageKind, text: str, page, block, labels, section=None, figure=None) -> None:
        passages.append(Passage(len(passages), kind, text, page, block, tuple(labels), section, figure))

    for block in document.blocks:
        if block.type not in PROSE_TYPES or (block.section and _BACK_MATTER.match(block.section)):
            continue
        for sentence in split_sentences(block.text):
            if len(sentence) < MIN_SENTENCE_CHARS:
                continue
            labels = sentence_labels(sentence)
            add("sentence", sentence, block.page, block.id, labels, block.section)
    for visual in document.visuals:
        label = visual_label(visual)
        caption = " ".join(visual.caption.split())
        if caption:
            # The label leads the caption text so that "Table 2" in a question finds it lexically.
            shown = caption if label is None or parse_caption_start(caption) is not None else f"{label}: {caption}"
            add("caption", shown, visual.page, visual.caption_block, [label] if label else [], figure=visual.id)
        ocr = " ".join((figure_text or {}).get(visual.id, "").split())[:MAX_OCR_CHARS]
        if len(ocr) >= MIN_SENTENCE_CHARS // 2:
            add("ocr", f"Text in {label or 'the figure'}: {ocr}", visual.page, None, [label] if label else [],
                figure=visual.id)
    return passages
