"""The units evidence search ranks: the document's prose sentences, figure and table captions, the rows
of each table and the text inside each figure (from the PDF's text layer, or OCR the caller read), each
with where it is (page, block) and the figures or tables it rests on.

A prose sentence rests on the figures and tables it cites ("as Fig. 3 shows" → Figure 3): those are the
"sentences that cite each figure", which tell what a figure is *for* better than its caption often does.
A sentence that cites nothing but sits in a paragraph that does rests on the figure its paragraph is
about (the nearest citation before it in the paragraph, else the first after it; ``inherited`` says so).
A caption, a table's rows and a figure's text rest on their own figure. Labels are canonical
("Figure 3", "Table 2") so a question's "Fig. 3" and a PDF's "FIG. 3" meet.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from mmdocsum_desktop.document.labels import find_mentions, parse_caption_start
from mmdocsum_desktop.retrieval.visual_text import RegionText
from mmdocsum_desktop.schemas.document import Document, Figure
from mmdocsum_desktop.text.sentences import split_sentences

PassageKind = Literal["sentence", "caption", "ocr", "cells", "figure-text"]
# Kinds that hold what is inside a figure or table (its content, not what the prose says about it).
CONTENT_KINDS = ("cells", "figure-text", "ocr")
# Figure text (the words a PDF has inside a figure, or what OCR read off it) helps the search find the
# figure, but it is no sentence: an answer shows it only as a short cleaned quote, and only when it is what
# answers the question (the best evidence, or the figure the question names); elsewhere the figure's
# caption stands for it, or nothing does (issue 46, item 4; answer/ask.py and the library's citations).
FIGURE_TEXT_KINDS = ("figure-text", "ocr")
QUOTE_WORDS = 12
MIN_QUOTE_WORDS = 3
_GLUED = re.compile(r"(?<=[a-z%)\]])(?=[A-Z])|(?<=[)\]%])(?=[A-Za-z])|(?<=\d)(?=[A-Za-z]{3})|(?<=[A-Za-z]{3})(?=\d)")
_QUOTE_WORD = re.compile(r"^[^\W\d_](?:[^\W\d_]|['’-](?=[^\W\d_]))*$")
PROSE_TYPES = ("paragraph", "list")
# Sentences shorter than this are headings that lost their type or page furniture, never evidence.
MIN_SENTENCE_CHARS = 20
# OCR text longer than this is a page of tiny labels; its start says what the figure shows.
MAX_OCR_CHARS = 1500
# A table row is read with the table's header line, cut to this many characters, so that "12.4" means
# something to the cross-encoder ("Mortality (%) | ... : Group B | 12.4").
MAX_HEADER_CHARS = 160
# Rows beyond this many are merged two by two, three by three..., so one long table does not flood the
# index (a 60-row composition table still gives every compound's name to BM25).
MAX_ROW_PASSAGES = 40
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
    inherited: bool = False  # the labels come from the paragraph the sentence sits in, not the sentence


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


def build_passages(
    document: Document,
    figure_text: Mapping[str, str] | None = None,
    region_text: Mapping[str, RegionText] | None = None,
) -> list[Passage]:
    """All passages of a document, in document order within each kind.

    ``figure_text`` maps a figure's id to the text OCR read inside it (optional: the CLI and the app
    pass what they already have; nothing is OCR'd here). ``region_text``: the words printed inside each
    figure and table region (:func:`~mmdocsum_desktop.retrieval.visual_text.read_region_text`)."""
    passages: list[Passage] = []

    def add(kind: PassageKind, text: str, page, block, labels, section=None, figure=None, inherited=False) -> None:
        passages.append(Passage(len(passages), kind, text, page, block, tuple(labels), section, figure, inherited))

    for block in document.blocks:
        if block.type not in PROSE_TYPES or (block.section and _BACK_MATTER.match(block.section)):
            continue
        sentences = [s for s in split_sentences(block.text) if len(s) >= MIN_SENTENCE_CHARS]
        cited = [sentence_labels(s) for s in sentences]
        for position, sentence in enumerate(sentences):
            labels, inherited = cited[position], False
            if not labels:
                labels = _paragraph_labels(cited, position)
                inherited = bool(labels)
            add("sentence", sentence, block.page, block.id, labels, block.section, inherited=inherited)
    for visual in document.visuals:
        label = visual_label(visual)
        own = [label] if label else []
        caption = " ".join(visual.caption.split())
        if caption:
            # The label leads the caption text so that "Table 2" in a question finds it lexically.
            shown = caption if label is None or parse_caption_start(caption) is not None else f"{label}: {caption}"
            add("caption", shown, visual.page, visual.caption_block, own, figure=visual.id)
        region = (region_text or {}).get(visual.id)
        if region is not None:
            name = label or ("the table" if visual.kind == "table" else "the figure")
            if visual.kind == "table":
                for text in table_row_texts(name, region.lines, caption):
                    add("cells", text, visual.page, None, own, figure=visual.id)
            else:
                words = without_caption(" ".join(region.text.split()), caption)[:MAX_OCR_CHARS]
                if len(words) >= MIN_SENTENCE_CHARS:
                    add("figure-text", f"Text in {name}: {words}", visual.page, None, own, figure=visual.id)
        ocr = without_caption(" ".join((figure_text or {}).get(visual.id, "").split()), caption)[:MAX_OCR_CHARS]
        if len(ocr) >= MIN_SENTENCE_CHARS // 2:
            add("ocr", f"Text in {label or 'the figure'}: {ocr}", visual.page, None, own, figure=visual.id)
    return passages


def _word_key(word: str) -> str:
    return re.sub(r"\W+", "", word.lower())


def without_caption(text: str, caption: str) -> str:
    """``text`` (the words inside a figure's region, or read there by OCR) without the figure's caption
    when the region took it in: the caption is a passage of its own, and repeated as "Text in Figure 2:
    Fig. 2 …" it was answered twice. The caption is found by its first words; from there the words of the
    caption are dropped (in any order: a line break or a hyphen can reorder or split them)."""
    caption_keys = [k for k in (_word_key(w) for w in caption.split()) if k]
    if len(caption_keys) < 2 or not text:
        return text
    words = text.split()
    keyed = [(position, key) for position, key in enumerate(_word_key(w) for w in words) if key]
    keys = [key for _, key in keyed]
    head = caption_keys[:min(4, len(caption_keys))]
    vocabulary = set(caption_keys)
    for start in range(len(keys) - len(head) + 1):
        if keys[start:start + len(head)] != head:
            continue
        end = start + len(head)
        while end < len(keys) and end - start < len(caption_keys) + 3 and keys[end] in vocabulary:
            end += 1
        first = keyed[start][0]
        last = keyed[end - 1][0]
        return " ".join(words[:first] + words[last + 1:])
    return text


def _paragraph_labels(cited: list[list[str]], position: int) -> list[str]:
    """The labels of the nearest citing sentence before ``position`` in its paragraph, else after it."""
    for before in range(position - 1, -1, -1):
        if cited[before]:
            return cited[before]
    for after in range(position + 1, len(cited)):
        if cited[after]:
            return cited[after]
    return []


def table_row_texts(name: str, lines: tuple[str, ...] | list[str], caption: str = "") -> list[str]:
    """One passage per table row: "Table 2 (header): row", rows merged in groups when there are many.

    The first line that is not the caption's own text is taken for the header."""
    caption_start = " ".join(caption.split()[:6]).lower()
    body = [line for line in lines if not (caption_start and line.lower().startswith(caption_start[:30]))]
    if not body:
        return []
    header, rows = body[0], body[1:]
    if not rows:
        return [f"{name}: {header}"]
    header = header if len(header) <= MAX_HEADER_CHARS else header[:MAX_HEADER_CHARS].rsplit(" ", 1)[0] + " …"
    per = -(-len(rows) // MAX_ROW_PASSAGES)  # ceiling: rows per passage
    texts = []
    for start in range(0, len(rows), per):
        texts.append(f"{name} ({header}): {' ; '.join(rows[start:start + per])}")
    return texts


def figure_text_quote(text: str) -> str | None:
    """The figure-text passage ``Text in Figure 2: Medical Profession of Respondents Institutional Safety
    Other 5 (3%)Pharmacist…`` as a reader can read it: ``Figure 2 reads: “Medical Profession of Respondents
    Institutional Safety Other Pharmacist”``: glued runs split, numbers, symbols and one-letter scraps left
    out, at most ``QUOTE_WORDS`` words; None when fewer than ``MIN_QUOTE_WORDS`` words are left."""
    head, sep, body = text.partition(": ")
    if not (sep and head.startswith("Text in ")):
        head, body = "Text in the figure", text
    name = head[len("Text in "):].strip()
    words = [word for token in body.split() for piece in _GLUED.split(token)
             if len(word := piece.strip(".,;:()[]{}\"'“”")) > 1 and _QUOTE_WORD.match(word)]
    if len(words) < MIN_QUOTE_WORDS:
        return None
    more = "…" if len(words) > QUOTE_WORDS else ""
    return f"{name[:1].upper()}{name[1:]} reads: “{' '.join(words[:QUOTE_WORDS])}{more}”"
