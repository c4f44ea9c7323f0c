"""Authors, year and title of a folder PDF, from the file alone (never looked up online): the PDF's XMP
metadata (``dc:creator``, publication dates), its first page (the author line under the title; "Published
...", the journal's header date, the copyright year, "Accepted ..." last) and the document-information
``Author`` field when it holds names. Zotero's and JATS's own metadata come first: the indexer fills in
only what a paper lacks.

A title is never the journal's name. The reader takes the largest type near the top of the first page,
which on many journals' pages ("BMC Public Health", "PLoS ONE", "Emerging Infectious Diseases") is the
journal's banner; and some files' metadata title is the journal's name. A title is taken for a journal's
name when the file says so (XMP ``prism:publicationName``, the head of the Info ``Subject``, "BMC Public
Health 2010, 10:123"), when a line of its first pages cites it as the journal (the name with a volume, a
year, a DOI or the journal's web address: "Emerging Infectious Diseases • www.cdc.gov/eid • Vol. 16"), or
by its shape (a short name in capitals opening with "BMC", "PLoS", "Journal of"…, a well-known journal).
The real title then comes from the metadata title (when it is none of those and stands on the first page),
else from the first page: the block in the largest type, among those above the abstract that are neither
the journal's name, an article-type label, an author line, a date nor an affiliation; else the metadata
title; else none (the file's name is shown), never the journal's name.
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from mmdocsum_desktop.document.metadata import PdfFileMetadata, pdf_file_metadata
from mmdocsum_desktop.schemas.document import Document

_YEAR = re.compile(r"\b(19\d\d|20\d\d)\b")
_MONTHS = ("January|February|March|April|May|June|July|August|September|October|November|December|"
           "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec")
_PUBLISHED = re.compile(rf"\b(?:Published|Publication date|Available online)(?:\s+online)?\s*:?\s*"
                        rf"(?:\d{{1,2}}\s*(?:{_MONTHS})\.?,?\s*|(?:{_MONTHS})\.?\s*\d{{0,2}},?\s*)?(19\d\d|20\d\d)\b",
                        re.IGNORECASE)
_HEADER_DATE = re.compile(rf"\b(?:{_MONTHS})\.?\s+(?:\d{{1,2}},?\s+)?(19\d\d|20\d\d)\b")
_COPYRIGHT = re.compile(r"(?:©|\(c\)|Copyright)\s*(?:©\s*)?(?:the\s+authors?(?:\(s\))?\.?,?\s*)?(19\d\d|20\d\d)\b",
                        re.IGNORECASE)
# "BMC Cancer (2020) 20:1045", "Materials 2017, 10, 45;", "2015;16(3):e123" — a year with a volume after it
_CITED_YEAR = re.compile(r"\((19\d\d|20\d\d)\)\s*\d+\s*:\s*e?\d|\b(19\d\d|20\d\d)\s*[,;]\s*\d+\s*(?:[,:]\s*e?\d|\(\d)")
_XMP_CREATED = re.compile(r"<xmp:CreateDate>(.*?)</xmp:CreateDate>|\bxmp:CreateDate=\"([^\"]*)\"", re.DOTALL)
# academic degrees after a name ("Lukas Lambert, PhDa,∗"), with an affiliation letter: not names
_DEGREE = re.compile(r"^(?:Ph\.?D|M\.?D|MSc|BSc|MPH|MS|MA|BA|MB|MM|RN|DVM|DDS|DMD|MBBS|MBChB|FRCP|FRCS|FRACS|"
                     r"PharmD|DrPH|MPhil|BS|BM|MBA|MRCP|FRCPC)[a-z]?$")
_ACCEPTED = re.compile(r"\b(?:Accepted|Received|Revised)\b", re.IGNORECASE)
_SEPARATORS = re.compile(r"\s*(?:,|&|;|\band\b|\s·\s)\s*")
_MARKERS = re.compile(r"[\d*†‡§¶#∗⁎·\s]+$")
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
    title: str = ""  # never a journal's name; "" where the file offers no title but that


def pdf_bibliography(path: Path, document: Document) -> Bibliography:
    """Authors (with family names), year and title of a PDF; empty where the file does not say."""
    meta = pdf_file_metadata(path)
    names = _authors(_xmp_creators(meta.xmp), first_page_authors(document)) or _info_authors(meta.author)
    year = (first_page_published(document) or first_page_cited_year(document) or _xmp_year(meta.xmp)
            or first_page_year(document) or _created_year(meta))
    return Bibliography(tuple(n for n, _f in names), tuple(f for _n, f in names), year, paper_title(document, meta))


def _authors(xmp: list[tuple[str, str]], page: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The XMP creators, unless the first page's author line names more people, the XMP's first among
    them (a file whose metadata names only the corresponding author)."""
    if xmp and page and len(page) > len(xmp):
        families = {_fold(f) for _n, f in page}
        if _fold(xmp[0][1]) in families:
            return page
    return xmp or page


def _fold(text: str) -> str:
    return re.sub(r"[^a-z]", "", unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower())


def _created_year(meta: PdfFileMetadata) -> int | None:
    """Last of all, the year the file was made (the Info CreationDate, else XMP's CreateDate): a
    publisher's PDF is made when the paper comes out."""
    match = re.match(r"^\s*(?:D:)?(19\d\d|20\d\d)", meta.created or "")
    if match is None:
        found = _XMP_CREATED.search(meta.xmp)
        match = _YEAR.search(found.group(1)) if found else None
    return _plausible(int(match.group(1))) if match else None


def pdf_title(path: Path, document: Document) -> str:
    """The PDF's title, never its journal's name (see the module's docstring)."""
    return paper_title(document, pdf_file_metadata(path))


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
        if not (word[0].isupper() and len(word) >= 2 and all(c.isalpha() or c in "-'’¸˘´`¨ˇ˛" for c in word)):
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
    texts = [" ".join(b.text.split()) for b in blocks[start:]]
    for index, text in enumerate(texts):
        if title and len(text.split()) >= 2 and text.lower() in title:
            continue  # a line of the title ("Food Packaging"), not two names
        # an author line broken over several blocks: the longest run of blocks that is names only
        for length in range(_AUTHOR_BLOCKS, 0, -1):
            names = _names_of(" ".join(texts[index:index + length]))
            if names and index + length <= len(texts):
                return names
    return []


_AUTHOR_BLOCKS = 4


def _names_of(text: str) -> list[tuple[str, str]]:
    """The names of an author line, or none when it holds anything else."""
    if not text or len(text) > 900 or ":" in text or "@" in text:
        return []
    parts = [_MARKERS.sub("", p).strip() for p in _SEPARATORS.split(text)]
    # degrees ("PhDa") and affiliation letters standing alone between commas ("PhDa,b,") are no names
    parts = [p for p in parts if p and not _DEGREE.match(p.strip("∗*†‡· ")) and not re.fullmatch(r"[a-z]{1,2}[∗*†‡·]*", p)]
    if parts and all(_is_name(p) for p in parts):
        return [(p, _family_name(p)) for p in parts]
    return []


def first_page_cited_year(document: Document) -> int | None:
    """The year of the journal's citation line on the first page: "Chia et al. BMC Cancer (2020) 20:1045",
    "Materials 2017, 10, 45; doi:…", "2015;16(3):e123"."""
    for block in _first_page(document):
        if len(block) < 250:
            match = _CITED_YEAR.search(block)
            if match and _plausible(int(match.group(1) or match.group(2))):
                return int(match.group(1) or match.group(2))
    return None


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



# ------------------------------------------------------------------------------------ titles

# journals whose name alone gives no sign of being one (a short list of the most common; the file's own
# words find the others)
_KNOWN_JOURNALS = {
    "plos one", "plos biology", "plos medicine", "plos genetics", "plos pathogens", "plos computational biology",
    "plos neglected tropical diseases", "emerging infectious diseases", "nature", "science", "cell", "the lancet",
    "lancet", "bmj", "elife", "peerj", "f1000research", "scientific reports", "nature communications",
    "science advances", "medicine", "molecules", "nutrients", "cancers", "viruses", "sensors", "plants", "foods",
    "antioxidants", "pathogens", "vaccines", "cells", "genes", "animals", "insects", "materials", "polymers",
    "heliyon", "oncotarget", "circulation", "blood", "neuron", "gut", "thorax", "pediatrics", "radiology",
    "eurosurveillance", "malaria journal", "parasites & vectors", "parasites and vectors", "trials",
    "morbidity and mortality weekly report", "stem cells international", "case reports in dentistry",
    "evidence-based complementary and alternative medicine", "royal society open science", "cureus",
}
_JOURNAL_START = re.compile(
    r"^(?:the\s+)?(?:bmc|plos|journal\s+of|annals\s+of|archives\s+of|proceedings\s+of|acta|frontiers\s+in|"
    r"international\s+journal|american\s+journal|european\s+journal|british\s+journal|bulletin\s+of|"
    r"transactions\s+on|advances\s+in|current\s+opinion\s+in|trends\s+in|clinical\s+and)\b", re.IGNORECASE)
_JOURNAL_END = re.compile(r"\b(?:journal|letters|reports|communications)$", re.IGNORECASE)
# what follows a journal's name where a page cites it: a volume, a year, a DOI, an address, an issue
# (a year alone is no sign: a running title may be followed by one)
_CITING = re.compile(r"\b(?:vol(?:ume)?\.?\s*\d|no\.\s*\d|issue\s*\d|doi|www\.|https?://|e?-?issn)|"
                     r"\b(?:19|20)\d\d\s*[,;]?\s*\d+\s*[:(]|\b\d+\s*\(\s*\d+\s*\)|\b\d+\s*:\s*e?\d",
                     re.IGNORECASE)
_XMP_PUBLICATION = re.compile(r"<prism:publicationName[^>]*>(.*?)</prism:publicationName>", re.DOTALL)
_SUBJECT_HEAD = re.compile(r"^\s*([^\d,;:(|•·]+?)\s*(?:[\d,;:(|•·]|\bdoi\b|$)", re.IGNORECASE)
_LABEL = re.compile(r"^\s*(?:original|research|review|clinical|case|brief|short|rapid|special|invited|full|mini|"
                    r"systematic|technical|methods?|perspective|opinion|editorial|letter|commentary|communication|"
                    r"report|study|article|paper|note|articles?|reviews?|reports?|studies|protocol|update|trial|"
                    r"open access|open|access|primary|the|a|an|and|\W)+\s*$", re.IGNORECASE)
_NOT_TITLE = re.compile(r"@|\bdoi\b|https?://|www\.|©|\bcopyright\b|\b(?:university|department|institute|hospital|"
                        r"faculty|school of|college|centre|center|laborator(?:y|ies))\b|\b(?:received|accepted|"
                        r"published|citation|correspondence|keywords?|edited by|reviewed by|academic editor)\b",
                        re.IGNORECASE)
_ABSTRACT = re.compile(r"^\s*(?:abstract|summary|background|objectives?|introduction)\b", re.IGNORECASE)
_SMALL_WORDS = {"of", "in", "on", "and", "for", "the", "&", "to", "de", "la", "et"}


def _key(text: str | None) -> str:
    return " ".join(re.findall(r"[^\W_]+", " ".join((text or "").split()).lower()))


def _names_in_file(meta: PdfFileMetadata) -> set[str]:
    """The journal's name as the file's own metadata gives it: XMP ``prism:publicationName``, the head of
    the Info ``Subject`` ("BMC Public Health 2010, 10:123. doi:…")."""
    names = {_key(_unescape(n)) for n in _XMP_PUBLICATION.findall(meta.xmp)}
    head = _SUBJECT_HEAD.match(meta.subject or "")
    if head and len(head.group(1).split()) <= 8 and len(meta.subject.split()) > len(head.group(1).split()):
        names.add(_key(head.group(1)))  # a subject that cites (more than a name alone: a name is no citation)
    return {n for n in names if n}


def _title_case(text: str) -> bool:
    words = [w for w in text.split() if w.lower() not in _SMALL_WORDS]
    return bool(words) and all(w[0].isupper() or w[0].isdigit() for w in words)


def looks_like_journal(text: str) -> bool:
    """A journal's name by its shape alone: a well-known one, or a short name in capitals that opens as
    journals' names do ("BMC …", "PLoS …", "Journal of …") or ends "… Journal"."""
    key = _key(text)
    if not key:
        return False
    if key in _KNOWN_JOURNALS or key.replace(" and ", " & ") in _KNOWN_JOURNALS:
        return True
    words = text.split()
    return len(words) <= 8 and _title_case(text) and bool(_JOURNAL_START.match(text) or _JOURNAL_END.search(text))


def is_journal_name(text: str, document: Document, meta: PdfFileMetadata) -> bool:
    """Whether ``text`` is the paper's journal's name rather than its title (see the module's docstring)."""
    key = _key(text)
    if not key:
        return False
    if key in _names_in_file(meta) or looks_like_journal(text):
        return True
    if len(text.split()) > 8 or not _title_case(text):  # journals' names are short and in capitals
        return False
    # a line of the first pages (running headers and footers too) that cites the text as the journal: the
    # name, then a volume, a year, a DOI…
    lines = [" ".join(b.text.split()) for b in document.blocks[:_FIRST_BLOCKS * 4] if b.page in (None, 1, 2)]
    for line in [*lines, *(" ".join(line.split()) for line in meta.page_lines)]:
        if len(line) <= 250 and _key(line) != key and _cites_after(line, text):
            return True
    return False


def _cites_after(line: str, name: str) -> bool:
    """The name stands in ``line`` followed (or preceded) by what cites a journal, not inside a sentence."""
    folded, target = line.lower(), " ".join(name.split()).lower()
    at = folded.find(target)
    if at < 0:
        return False
    rest, before = line[at + len(target):], line[:at]
    if before.strip() and not re.search(r"[|•·]\s*$", before):
        return False  # inside a sentence or a running title, not a journal's line
    return bool(_CITING.match(rest.lstrip(" ,.;:|•·-–—")) or (not rest.strip() and _CITING.search(before)))


def _plausible_title(text: str) -> bool:
    words = text.split()
    return (3 <= len(words) <= 40 and len(text) <= 350 and not _NOT_TITLE.search(text) and not _LABEL.match(text)
            and not text.isupper() and not re.search(r"\.(?:docx?|pdf|tex|indd|qxd|rtf)\b", text, re.IGNORECASE))


def _type_size(block_text: str, bbox: tuple[float, float, float, float] | None) -> float:
    """The type size a block is set in, estimated from its box and its characters (area ≈ 0.6·chars·size²)."""
    if bbox is None or not block_text:
        return 0.0
    area = max(0.0, bbox[2] - bbox[0]) * max(0.0, bbox[3] - bbox[1])
    return float((area / (0.6 * len(block_text))) ** 0.5) if area else 0.0


def first_page_title(document: Document, meta: PdfFileMetadata) -> str:
    """The title the first page prints, when the reader's was a journal's name: of the blocks above the
    abstract, the one in the largest type that is none of the journal's name, a label, an author line,
    a date, an affiliation."""
    candidates: list[tuple[float, int, str]] = []
    for index, block in enumerate(document.blocks[:_FIRST_BLOCKS]):
        if block.page not in (None, 1) or block.section_kind in ("furniture", "references", "back"):
            continue
        text = " ".join(block.text.split())
        if _ABSTRACT.match(text) or block.is_abstract:
            break
        if not _plausible_title(text) or is_journal_name(text, document, meta):
            continue
        parts = [_MARKERS.sub("", p).strip() for p in _SEPARATORS.split(text)]
        if all(_is_name(p) for p in parts if p):  # the author line
            continue
        candidates.append((_type_size(text, block.bbox), -index, text))
    return max(candidates)[2] if candidates else ""


def paper_title(document: Document, meta: PdfFileMetadata) -> str:
    """The paper's title, never its journal's name: the reader's, else the metadata title standing on the
    first page, else the first page's, else the metadata title; "" when none is more than a journal's name."""
    title = " ".join((document.title or "").split())
    if title and not is_journal_name(title, document, meta):
        return title
    metadata_title = " ".join(_unescape(meta.title).split())
    usable = metadata_title if _plausible_title(metadata_title) and not is_journal_name(
        metadata_title, document, meta) else ""
    page_text = _key(" ".join(b.text for b in document.blocks[:_FIRST_BLOCKS] if b.page in (None, 1)))
    if usable and _key(usable) in page_text:
        return usable
    return first_page_title(document, meta) or usable


_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>]+[^\s\"<>.,;)\]])")
_DOI_BLOCKS = 40  # the DOI is printed on the first page or in the page's furniture near the start


def document_doi(document: Document) -> str | None:
    """The DOI the paper prints near its start (its first 40 blocks), as the library records it."""
    for block in document.blocks[:_DOI_BLOCKS]:
        match = _DOI.search(block.text)
        if match:
            return match.group(1)
    return None


def reading_citation(document: Document, info_author: str = "") -> tuple[list[str], int | None, str]:
    """Who wrote the open paper, when and its DOI, from what the reader read — the first page's author
    line and dates, as folder PDFs get theirs (no file is opened); the PDF's author field when the page
    names nobody: (family names, year, DOI or "")."""
    names = [family or name.split()[-1] for name, family in first_page_authors(document)]
    if not names:
        names = [family for _name, family in _info_authors(info_author)]
    year = first_page_published(document) or first_page_cited_year(document) or first_page_year(document)
    return names, _plausible(year), document_doi(document) or ""
