"""Sentences of a Document with where they came from (block id, page, section), shared by the
extractive engine and by citations.

The splitter is rule-based and knows the abbreviations of scientific prose ("Fig. 3", "et al.",
"e.g.", "Eq. (2)", initials), so figure mentions and author lists do not end sentences.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mmdocsum_desktop.document.model import Block, Document

_ABBREVIATIONS = {
    "fig", "figs", "eq", "eqs", "tab", "ref", "refs", "sec", "sect", "secs", "al", "e.g", "i.e", "cf",
    "vs", "approx", "no", "nos", "dr", "mr", "mrs", "ms", "prof", "st", "vol", "pp", "p", "ch", "chap",
    "resp", "etc", "viz", "ca", "inc", "ltd", "co", "jan", "feb", "mar", "apr", "jun", "jul", "aug",
    "sep", "sept", "oct", "nov", "dec", "min", "max", "avg", "est", "dept", "univ", "eqn",
    "suppl", "supp", "incl", "mt", "u.s", "a.k.a", "ph.d", "var",
}
_BOUNDARY = re.compile(r"([.!?…])([\"'”’)\]]*)\s+(?=[\"'“‘(\[]?[A-Z0-9])")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)$")
_SPACE = re.compile(r"\s+")

TEXT_TYPES = ("paragraph", "list")


@dataclass(frozen=True)
class Sentence:
    text: str
    block: str  # id of the block it comes from
    page: int | None
    section: str | None
    position: int  # order in the document (0-based over all sentences)
    block_index: int  # position of its block in document.blocks
    in_abstract: bool = False

    @property
    def words(self) -> int:
        return len(self.text.split())


def split_sentences(text: str) -> list[str]:
    """Split prose into sentences; whitespace is normalised, nothing else is changed."""
    text = _SPACE.sub(" ", text).strip()
    if not text:
        return []
    sentences: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        end = match.end(2)
        candidate = text[start:end]
        if match.group(1) == "." and _is_abbreviation(candidate):
            continue
        if match.group(1) == "." and _ends_with_initial(candidate):
            continue
        sentences.append(candidate.strip())
        start = match.end()
    tail = text[start:].strip()
    if tail:
        sentences.append(tail)
    return [s for s in sentences if s]


def _is_abbreviation(candidate: str) -> bool:
    stripped = candidate.rstrip("\"'”’)]")
    match = _WORD_BEFORE.search(stripped[:-1]) if stripped.endswith(".") else None
    if not match:
        return False
    word = match.group(1).lower().rstrip(".")
    return word in _ABBREVIATIONS


def _ends_with_initial(candidate: str) -> bool:
    """"J. Smith": a single capital letter before the full stop is an initial."""
    stripped = candidate.rstrip()
    return len(stripped) >= 2 and stripped[-1] == "." and stripped[-2].isupper() and (
        len(stripped) == 2 or not stripped[-3].isalnum()
    )


def document_sentences(document: Document, *, include_abstract: bool = True) -> list[Sentence]:
    """Every sentence of the document's prose blocks (paragraphs and lists), in reading order."""
    result: list[Sentence] = []
    for index, block in enumerate(document.blocks):
        if block.type not in TEXT_TYPES:
            continue
        if block.is_abstract and not include_abstract:
            continue
        for text in split_sentences(block.text):
            result.append(_sentence(text, block, index, len(result)))
    return result


def _sentence(text: str, block: Block, index: int, position: int) -> Sentence:
    return Sentence(
        text=text,
        block=block.id,
        page=block.page,
        section=block.section,
        position=position,
        block_index=index,
        in_abstract=block.is_abstract,
    )
