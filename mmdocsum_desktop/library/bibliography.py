"""Authors and year of a folder PDF, from the file alone (never looked up online): the PDF's XMP metadata
(``dc:creator``, publication dates), its first page (the author line under the title; "Published ...",
the journal's header date, the copyright year, "Accepted ..." last) and the document-information
``Author`` field when it holds names. Zotero's and JATS's own metadata come first: the indexer fills in
only what a paper lacks.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from mmdocsum_desktop.document.metadata import pdf_file_metadata
from mmdocsum_desktop.schemas.document import Document

_YEAR = re.compile(r"\b(19\d\d|20\d\d)\b")
_MONTHS = ("January|February|March|April|May|June|July|August|September|October|November|December|"
           "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec")
_PUBLISHED = re.compile(rf"\b(?:Published|Publication date|Available online)(?:\s+online)?\s*:?\s*"
                        rf"(?:\d{{1,2}}\s*(?:{_MONTHS})\.?,?\s*|(?:{_MONTHS})\.?\s*\d{{0,2}},?\s*)?(19\d\d|20\d\d)\b",
                        re.IGNORECASE)
_HEADER_DATE = re.compile(rf"\b(?:{_MONTHS})\.?\s+(?:\d{{1,2}},?\s+)?(19\d\d|20\d\d)\b")
_COPYRIGHT = re.compile(r"(?:©|\(c\)|Copyright)\s*(?:©\s*)?(19\d\d|20\d\d)\b", re.IGNORECASE)
_ACCEPTED = re.compile(r"\b(?:Accepted|Received|Revised)\b", re.IGNORECASE)
_SEPARATORS = re.compile(r"\s*(?:,|&|;|\band\b|\s·\s)\s*")
_MARKERS = re.compile(r"[\d*†‡§¶#∗\s]+$")
_INITIALS = re.compile(r"^[A-Z]\.(?:-?[A-Z]\.)*$")
_PARTICLES = {"de", "van", "der", "von", "den", "da", "di", "du", "la", "le", "dos", "das", "del", "y", "ten", "ter"}
# two capitalised words that are no person: article types and journal furniture above the title
_NOT_NAMES = {"original", "article", "research", "review", "letter", "open", "access", "journal", "communication",
              "report", "brief", "paper", "editorial", "case", "short", "university", "department", "institute",
              "abstract", "introduction", "keywords", "correspondence", "received", "accepted", "published", "full",
              "text", "volume", "issue", "page", "online", "supplementary", "material", "science", "medicine"}
_XMP_CREATOR = re.compile(r"<dc:creator>(.*?)</dc:creator>", re.DOTALL)
_XMP_ITEM = re.compile(r"<rdf:li[^>]*>(.*?)</rdf:li>", re.DOTALL)
_XMP_DATE = re.compile(r"<(prism:publicationDate|prism:coverDate|dc:date)[^>]*>(.*?)</\1>", re.DOTALL)
_FIRST_BLOCKS = 20


@dataclass(frozen=True)
class Bibliography:
    authors: tuple[str, ...] = ()
    family_names: tuple[str, ...] = ()
    year: int | None = None


def pdf_bibliography(path: Path, document: Document) -> Bibliography:
    """Authors (with family names) and year of a PDF; empty where the file does not say."""
    xmp, info_author = pdf_file_metadata(path)
    names = _xmp_creators(xmp) or first_page_authors(document) or _info_authors(info_author)
    year = first_page_published(document) or _xmp_year(xmp) or first_page_year(document)
    return Bibliography(tuple(n for n, _f in names), tuple(f for _n, f in names), year)


def _plausible(year: int | None) -> int | None:
    return year if year is not None and 1900 <= year <= date.today().year + 1 else None


def _unescape(text: str) -> str:
    return " ".join(html.unescape(html.unescape(re.sub(r"<[^>]+>", " ", text))).split())


def _xmp_creators(xmp: str) -> list[tuple[str, str]]:
    block = _XMP_CREATOR.search(xmp)
    if block is None:
        return []
    names: list[tuple[str, str]] = []
    for item in _XMP_ITEM.findall(block.group(1)):
        text = _unescape(item)
        several = [p for p in _SEPARATORS.split(text) if p]
        if len(several) > 2 or (len(several) == 2 and all(_is_name(p) for p in several)):
            # every author in one item ("Laura Del Coco, Miriana Durante, ..."), not "Family, Given"
            names += [(p, _family_name(p)) for p in several if _is_name(p)]
        elif "," in text:  # "Acar, Ahmet"
            family, _, given = text.partition(",")
            family, given = family.strip(), given.strip()
            if family:
                names.append((" ".join(f"{given} {family}".split()), family))
        elif _is_name(text):
            names.append((text, _family_name(text)))
    return names


def _xmp_year(xmp: str) -> int | None:
    for _tag, value in _XMP_DATE.findall(xmp):
        match = _YEAR.search(_unescape(value))
        if match and _plausible(int(match.group(1))):
            return int(match.group(1))
    return None


def _info_authors(text: str) -> list[tuple[str, str]]:
    parts = [p for p in _SEPARATORS.split(" ".join(text.split())) if p]
    if not parts or not all(_is_name(p) for p in parts):
        return []
    return [(p, _family_name(p)) for p in parts]


def _is_name(text: str) -> bool:
    words = text.split()
    return 2 <= len(words) <= 5 and _looks_like_name(words)


def _looks_like_name(words: list[str]) -> bool:
    for word in words:
        if word.lower() in _PARTICLES or _INITIALS.match(word):
            continue
        if word.lower() in _NOT_NAMES:
            return False
        if not (word[0].isupper() and len(word) >= 2 and all(c.isalpha() or c in "-'’" for c in word)):
            return False
        if word.isupper() and len(word) > 2:  # "QUANTUM INFORMATION": a subject line, not a person
            return False
    last = words[-1]
    return not _INITIALS.match(last) and last.lower() not in _PARTICLES


def _family_name(name: str) -> str:
    """The last word with the lowercase particles before it ("van der Berg"); a guess where the source
    gives no family name."""
    words = name.split()
    start = len(words) - 1
    while start > 0 and words[start - 1].lower() in _PARTICLES and words[start - 1].islower():
        start -= 1
    return " ".join(words[start:])


def first_page_authors(document: Document) -> list[tuple[str, str]]:
    """The author line of the first page: the first block after the title (or from the top when the title
    is not found) made of names only, affiliation marks stripped ("Kelly J. Robinson1 & Sean D. Twiss2")."""
    blocks = [b for b in document.blocks[:_FIRST_BLOCKS] if b.page in (None, 1)]
    title = " ".join((document.title or "").split()).lower()
    start = next((i + 1 for i, b in enumerate(blocks) if title and " ".join(b.text.split()).lower() == title), 0)
    for block in blocks[start:]:
        text = " ".join(block.text.split())
        if not text or len(text) > 600 or ":" in text or "@" in text:
            continue
        parts = [_MARKERS.sub("", p).strip() for p in _SEPARATORS.split(text)]
        parts = [p for p in parts if p]
        if parts and all(_is_name(p) for p in parts):
            return [(p, _family_name(p)) for p in parts]
    return []


def first_page_published(document: Document) -> int | None:
    """The year the first page says the paper was published ("Published online: 20 June 2015")."""
    for block in _first_page(document):
        match = _PUBLISHED.search(block)
        if match and _plausible(int(match.group(1))):
            return int(match.group(1))
    return None


def first_page_year(document: Document) -> int | None:
    """Failing a "Published" date: the journal's header date ("…, January 2010"), the copyright year, and
    last the latest year of "Received … Accepted …"."""
    blocks = _first_page(document)
    for block in blocks:
        if len(block) < 150 and not _ACCEPTED.search(block):  # a header line, not a sentence of the abstract
            match = _HEADER_DATE.search(block)
            if match and _plausible(int(match.group(1))):
                return int(match.group(1))
    for block in blocks:
        match = _COPYRIGHT.search(block)
        if match and _plausible(int(match.group(1))):
            return int(match.group(1))
    years = [int(y) for b in blocks if _ACCEPTED.search(b) for y in _YEAR.findall(b) if _plausible(int(y))]
    return max(years) if years else None


def _first_page(document: Document) -> list[str]:
    return [" ".join(b.text.split()) for b in document.blocks[:_FIRST_BLOCKS * 2] if b.page in (None, 1)]
