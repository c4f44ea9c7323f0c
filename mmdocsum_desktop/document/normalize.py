"""Text normalisation for what PDFs hand out: ligatures, soft hyphens, words hyphenated across lines,
columns and pages, and glyphs that have no Unicode at all.

- Ligature glyphs (U+FB00–U+FB06: "ﬁ", "ﬂ", "ﬀ") and mathematical styled letters ("𝜅") become their
  letters by NFKC. Only those: NFKC of the whole text would also turn "m²" into "m2" and "µ" into "μ",
  which changes what a paper says.
- Soft hyphens (U+00AD) are removed; one at the end of a line joins the two halves of the word.
- A word split by a hyphen and a break that PyMuPDF did not join ("extracel- lular") is joined using the
  document's own vocabulary (:func:`join_split_words`): "extracellular" elsewhere in the paper → joined,
  "long-term" elsewhere → hyphen kept, neither half a word of the paper → joined; otherwise left alone
  ("subjects- compared" in a table is two words).
- U+FFFD and private-use code points mean the PDF's font maps a glyph to no character (a degree sign, a
  "+" in "Ca2+" drawn from a symbol font). The text cannot be recovered from the text layer, so blocks
  holding them are marked (``Block.unmapped_glyphs``) for later stages to avoid.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mmdocsum_desktop.document.model import Block

LIGATURES = {chr(code): unicodedata.normalize("NFKC", chr(code)) for code in range(0xFB00, 0xFB07)}
# Mathematical italic/bold letters ("𝜅 > 0.85", U+1D400–U+1D7FF) are a font's styling of plain letters
# and digits that equation typesetting leaves in the text layer; a reader, a search and the embedders
# want the letter itself
MATH_LETTERS = {
    chr(code): folded
    for code in range(0x1D400, 0x1D800)
    if (folded := unicodedata.normalize("NFKC", chr(code))) != chr(code)
}
_LIGATURE_TABLE = str.maketrans({**LIGATURES, **MATH_LETTERS})
SOFT_HYPHEN = "\u00ad"
_UNMAPPED = re.compile("[\ufffd\ue000-\uf8ff]")
# "extracel- lular", "hy- drogen"; not "pre- and post-", "2- or 3-fold"
_SPLIT_WORD = re.compile(r"\b([^\W\d_]{2,})- ([^\W\d_]{2,})\b")
_CONJUNCTIONS = frozenset({"and", "or", "to", "nor", "versus", "vs", "und", "et", "ou"})
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


def normalize_line(text: str) -> str:
    """One line of PDF text: ligatures to letters, soft hyphens that are not at the line end removed."""
    text = text.translate(_LIGATURE_TABLE)
    if SOFT_HYPHEN in text:
        ends_soft = text.rstrip().endswith(SOFT_HYPHEN)
        text = text.replace(SOFT_HYPHEN, "")
        if ends_soft:
            text = text.rstrip() + SOFT_HYPHEN  # kept for join_lines: the word goes on on the next line
    return text


def normalize_text(text: str) -> str:
    """Any text: ligatures to letters; a soft hyphen before a break joins the word, others are removed."""
    text = text.translate(_LIGATURE_TABLE)
    if SOFT_HYPHEN in text:
        text = re.sub(SOFT_HYPHEN + r"\s+(?=[^\W\d_])", "", text).replace(SOFT_HYPHEN, "")
    return text


def has_unmapped_glyphs(text: str) -> bool:
    """The text holds glyphs the PDF gave no Unicode for (U+FFFD or private-use code points)."""
    return _UNMAPPED.search(text) is not None


def vocabulary(texts: Iterable[str]) -> set[str]:
    """Lower-cased words, hyphenated compounds both whole and in parts."""
    words: set[str] = set()
    for text in texts:
        for word in _WORD.findall(text):
            lowered = word.lower()
            words.add(lowered)
            if "-" in lowered:
                words.update(lowered.split("-"))
    return words


def join_split_words(text: str, known: set[str]) -> str:
    """Join "extracel- lular" into "extracellular" when the paper's vocabulary ``known`` says so."""
    if "- " not in text:
        return text

    def join(match: re.Match[str]) -> str:
        head, tail = match.group(1), match.group(2)
        if tail.lower() in _CONJUNCTIONS:
            return match.group(0)
        whole = (head + tail).lower()
        if whole in known:
            return head + tail
        if f"{head}-{tail}".lower() in known:
            return f"{head}-{tail}"
        if head.lower() not in known and tail.lower() not in known:
            return head + tail  # two fragments that are no words of this paper: one word broken in two
        return match.group(0)

    return _SPLIT_WORD.sub(join, text)


# a hyphen at a line end that line joining marked with a soft hyphen ("paired\u00adcatchments")
_MARKED_BREAK = re.compile(rf"([^\W\d_]+){SOFT_HYPHEN}([^\W\d_]+)")


def _compound_written(head: str, tail: str, known: set[str]) -> bool:
    """The paper writes ``head-tail`` with its hyphen elsewhere (a plural or singular of it counts:
    "paired-catchment" vouches for "paired-catchments") and never as one word."""
    whole = (head + tail).lower()
    if whole in known or whole.rstrip("s") in known:
        return False
    hyphenated = f"{head}-{tail}".lower()
    return hyphenated in known or hyphenated.rstrip("s") in known or f"{hyphenated}s" in known


def keep_compound_hyphens(texts: Sequence[str]) -> list[str]:
    """Texts whose line-end hyphens were marked by line joining: the hyphen is kept where the paper
    writes that compound with it elsewhere, else the soft hyphen stays and joins the word when the text
    is normalised (what a typesetter's hyphenation needs, "extracel-/lular")."""
    if not any(SOFT_HYPHEN in text for text in texts):
        return list(texts)
    # the marked words themselves are left out, or a compound broken at its hyphen would vouch for itself
    known = vocabulary(_MARKED_BREAK.sub(" ", text) for text in texts)

    def keep(match: re.Match[str]) -> str:
        head, tail = match.group(1), match.group(2)
        return f"{head}-{tail}" if _compound_written(head, tail, known) else match.group(0)

    return [_MARKED_BREAK.sub(keep, text) if SOFT_HYPHEN in text else text for text in texts]


def normalize_blocks(blocks: Sequence[Block]) -> None:
    """Normalise every block's text in place, join split words with the document's own vocabulary, and
    mark blocks whose text holds unmapped glyphs."""
    for block, text in zip(blocks, keep_compound_hyphens([block.text for block in blocks])):
        block.text = normalize_text(text)
    # the vocabulary leaves out the split words themselves, or "extracel" would vouch for itself
    known = vocabulary(_SPLIT_WORD.sub(" ", block.text) for block in blocks)
    for block in blocks:
        block.text = join_split_words(block.text, known)
        block.unmapped_glyphs = has_unmapped_glyphs(block.text)


def join_across_break(head: str, tail: str, known: set[str]) -> str:
    """The word "head-" at the end of one block and "tail" at the start of the next: one word, or a
    hyphenated compound when the paper writes it so ("long-term")."""
    if f"{head}-{tail}".lower() in known and (head + tail).lower() not in known:
        return f"{head}-{tail}"
    return head + tail
