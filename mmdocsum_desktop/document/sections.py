"""Where each block belongs: front matter, body, back matter, references, or journal furniture.

Readers that see no markup (PDF) call :func:`mark_section_kinds` once the blocks are in reading order.
It sets ``Block.section_kind``; the text later stages summarise is the body (``Block.is_body``).

- **Back matter** starts at a heading such as "Acknowledgements", "Conflicts of Interest", "Author
  Contributions", "Funding", "Abbreviations", "Data Availability", "References" — or at a paragraph that
  opens with one of them as a run-in heading ("Competing interests None.", "Funding: This work ...").
  A back-matter heading in the first part of the paper (an abbreviation list before the Introduction) holds
  until the next heading; late ones hold until a body heading ("Introduction", "2. Methods").
- **References** are recognised with or without a heading: a block is reference-like by its start
  ("[12]", "12.", "Smith J,") and its content (years, "et al.", volume(issue):pages, DOIs, journal
  abbreviations); a run of reference-like blocks after the body makes a reference list, numbered or
  author-year, in one column or two.
- **Furniture** is what a journal prints around the article: licence and copyright lines, "Open Access",
  received/accepted dates, "To cite this article", "Academic Editor", DOIs and journal lines, "Page 3 of 9".
- **Front matter**: the title, affiliations, correspondence lines, keywords.

Cue lists were written from the dev half of the pairs benchmark (``bench/pairs_split.py``) only. The
English regular expressions below are those tuned cues; headings in the other languages (Portuguese "Resumo",
"Referências", Spanish "Agradecimientos", Korean "참고문헌" …) come from the language tables
(``resources/languages/*.toml``, through ``text.languages``) and are matched by :func:`heading_roles`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache

from mmdocsum_desktop.schemas.document import Block, Document
from mmdocsum_desktop.text.languages import BACK_MATTER_ROLES, language_tables

_BACK_WORDS = (
    r"acknowledge?ments?|acknowledge?ment|funding(?:\s+(?:statement|information|sources?))?|sources? of funding|"
    r"financial (?:support|disclosure)|conflicts? of interests?|competing (?:financial )?interests?|"
    r"declaration of (?:competing )?interests?|declarations?|disclosures?(?: statement)?|"
    r"authors?['’]?s?['’]? contributions?|contributions|contributors|author details|authors' information|"
    r"abbreviations(?: used)?|list of abbreviations|data availability(?: statement)?|"
    r"availability of (?:data|supporting data)(?: and materials?)?|data accessibility|"
    r"ethics(?: approval)?(?: and consent to participate)?|ethical (?:approval|statement|considerations)|"
    r"consent for publication|informed consent(?: statement)?|institutional review board statement|"
    r"supplementary (?:materials?|information|data)|supporting information|additional files?|"
    r"publisher['’]?s note|open access|orcid|notes|note added in proof|appendix(?: [a-z0-9]+)?|appendices"
)
_REFERENCE_WORDS = r"references(?: and notes)?|bibliography|literature cited|references cited|works cited|cited literature"
_NUMBERING = r"(?:(?:\d+(?:\.\d+)*\.?|[IVX]+\.|[A-Z]\.)\s+)?"
BACK_HEADING = re.compile(rf"^\s*{_NUMBERING}(?:{_BACK_WORDS})(?:\s+statements?)?\s*[:.]?\s*$", re.IGNORECASE)
REFERENCES_HEADING = re.compile(rf"^\s*{_NUMBERING}(?:{_REFERENCE_WORDS})\s*[:.]?\s*$", re.IGNORECASE)
# "Competing interests None.", "Funding: This study ...", "Acknowledgments. We thank ..." — a run-in heading.
_RUN_IN_BACK = re.compile(
    r"^\s*(?:acknowledge?ments?|funding|conflicts? of interests?|competing interests?|declaration of (?:competing )?interests?|"
    r"disclosures?|authors?['’]?s?['’]? contributions?|author contributions|abbreviations|data availability(?: statement)?|"
    r"availability of data(?: and materials?)?|ethics approval(?: and consent to participate)?|consent for publication|"
    r"informed consent statement|institutional review board statement|supplementary materials?|ethics(?= ?[.:])|"
    r"publisher['’]?s note|author details|financial support|sources? of funding)\b\s*[:.—–-]?\s+\S",
    re.IGNORECASE,
)
# Declarations written without a heading: "The authors declare no conflict of interest.", "This work was
# supported by ...", "All relevant data are within the paper."
_DECLARATION = re.compile(
    r"^\s*(?:the authors? (?:declared?|declares|report(?:s|ed)?|have|has|state[sd]?|disclosed?)\b.{0,80}"
    r"(?:conflicts?|competing|interests?|disclose)|no (?:potential )?(?:conflicts?|competing)|none declared|"
    r"data sharing (?:is )?not applicable|all (?:relevant )?data (?:are|is) (?:within|available|included)|"
    r"this (?:work|study|research|project|article) (?:was|is|has been) (?:\w+ )?(?:supported|funded|financed)|"
    r"the (?:datasets?|data) (?:generated|used|analy[sz]ed|supporting)\b.{0,80}\bavailable|"
    r"the views expressed (?:in this|herein|are those)|"
    r"funding for this)",
    re.IGNORECASE,
)
# "Competing interests: ..." with its colon is back matter wherever it is printed (PLOS puts it on page 1)
_RUN_IN_COLON = re.compile(
    r"^\s*(?:competing interests?|conflicts? of interests?|funding|data availability(?: statement)?|author contributions?|"
    r"abbreviations)\s*:",
    re.IGNORECASE,
)
_RUN_IN_REFERENCES = re.compile(rf"^\s*(?:{_REFERENCE_WORDS})\s+(?:\[?1\]?[.\s]|[A-Z][a-z]+,?\s+[A-Z])")
_BODY_HEADING = re.compile(
    r"^\s*(?:(?:\d+(?:\.\d+)*\.?|[IVX]+\.)\s+)?(?:introduction|background|materials? and methods|methods?|methodology|"
    r"results?(?: and discussion)?|discussion|conclusions?|case (?:report|presentation|description)|"
    r"experimental(?: section)?|patients and methods)\b",
    re.IGNORECASE,
)
_NUMBERED_HEADING = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?|[IVX]+\.)\s+[A-Z]")

# Journal furniture: whole lines a publisher prints on every article.
_FURNITURE = re.compile(
    r"^\s*(?:©|\(c\)\s|copyright\b|this (?:is an open[- ]access|article is (?:an open access|distributed|licensed|published))|"
    r"open access\b|licensee\b|distributed under the terms|creative commons|published by\b|"
    r"received:?\s+(?:\d|[a-z]+ \d)|accepted:?\s+\d|revised:?\s+\d|published(?: online)?:?\s+\d|"
    r"(?:academic |handling )?editor:|edited by:?|reviewed by:?|"
    r"(?:to )?cite this article|how to cite(?: this article)?|citation:|"
    r"doi:\s*10\.|https?://(?:dx\.)?doi\.org/|page \d+ of \d+|"
    r"(?:research|original|review) article\s*$|case report\s*$|"
    r"hindawi publishing|[a-z .]+ volume \d+, article id|submit your (?:next )?manuscript|"
    r"check for updates|vol\.? ?\d+,? no\.? ?\d+|"
    # the stamp PMC sets on an author manuscript ("HHS Public Access", "Author manuscript")
    r"(?:hhs|nih) public access\s*$|(?:nih-pa |pmc canada |europe pmc funders )?author manuscripts?\s*$|"
    r"europe pmc funders group\s*$)",
    re.IGNORECASE,
)
_FURNITURE_ANYWHERE = re.compile(
    r"author manuscript; available in pmc|published in final edited form as|creative commons attribution|this is an open[- ]access article|distributed under the terms of the|"
    r"licensee (?:mdpi|biomed central|springer)|all rights reserved|\breceived\b.{0,40}\baccepted\b|"
    r"specialty section|this article was submitted to|a section of the journal",
    re.IGNORECASE,
)
# a short line carrying a DOI or an e-mail address: a journal line, a correspondence line
_SHORT_DOI = re.compile(r"\bdoi\b|doi\.org|\b10\.\d{4,}/\S", re.IGNORECASE)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")
_CONTRIBUTED_EQUALLY = re.compile(r"contributed equally|equal contributors?|these authors (?:have )?contributed", re.IGNORECASE)
_NAME = re.compile(r"^(?:[A-Z][\w'’.\-]*|[a-z]{1,3}|de|van|von|da|di|la|le)(?:\s+(?:[A-Z][\w'’.\-]*|de|van|von|da|di|del|la|le|dos)){1,4}$")
_DEGREES = re.compile(
    r"(?<![\w.])(?:PhD|Ph\.D\.|MD|M\.D\.|MB|MBBS|MM|MS|MSc|BSc|BS|MA|BA|MPH|DrPH|DVM|RN|PharmD|DDS|DMD|FRCP|FRCS|MRCP)"
    r"[a-z]?(?:,[a-z])*(?![\w])"
)
# a journal's running head on the first page: "Kwak et al. BMC Complementary and Alternative Medicine 2014, 14:419
# http://www.biomedcentral.com/1472-6882/14/419"
_RUNNING_HEAD = re.compile(r"^\s*[A-Z][\w'’\-]+(?:\s+and\s+[A-Z][\w'’\-]+)?\s+et\s*al\.?\s+[A-Z].*(?:https?://|www\.|\b\d{1,4}:\d+\b)")
_PERSON_WITH_PLACE = re.compile(r"^\s*[A-Z][\w'’\-]+(?:\s+(?:[A-Z]\.|[A-Z][\w'’\-]+)){1,3},\s+[A-Z]")
_URL_ONLY = re.compile(r"^\s*(?:https?://|www\.)\S+\s*$|^\s*(?:doi:?\s*)?10\.\d{4,}/\S+\s*$", re.IGNORECASE)
_FRONT = re.compile(
    r"^\s*(?:\*\s*)?(?:correspondence\b|corresponding author|authors? to whom correspondence|e-?mail:|tel(?:ephone)?[.:]|fax[.:]|"
    r"keywords?\b|key words\b|index terms\b|subject (?:category|areas):|to whom correspondence|"
    r"†\s*equal contributors?|these authors contributed equally)",
    re.IGNORECASE,
)
_AFFILIATION = re.compile(
    r"\b(?:department|faculty|school|institute|laboratory|division|centre|center|college|university|hospital|"
    r"academy|unit)\b",
    re.IGNORECASE,
)

# Reference-likeness
_REF_START = re.compile(
    r"^\s*(?:\[\d{1,3}\]|\d{1,3}\.\s+[A-Z\u00c0-\u024f]|\d{1,3}\s+[A-Z][\w'’-]+,?\s+[A-Z]{1,3}\b|"
    r"[A-Z][\w'’-]+,?\s+(?:[A-Z]\.\s?){1,3}[,;(]|[A-Z][\w'’-]+\s+[A-Z]{1,3}[,.]\s)"
)
_YEAR = re.compile(r"\b(?:19|20)\d{2}[a-z]?\b")
_REF_EVIDENCE = re.compile(
    r"\bet al\b|\bvol\.\s*\d|\bpp\.\s*\d|\d+\s*\(\d+\)\s*:\s*\d+|;\s*\d+\s*(?:\(\d+\))?:\s*\d+|\bdoi\b|doi\.org|"
    r"\bj\.\s|journal of\b|\bproc\.|\bpress\b|\d+[–-]\d+\.\s*$|”,|\bpmid\b|\bisbn\b",
    re.IGNORECASE,
)


# A heading's numbering: "2.", "II.", "Ⅱ.", "一、", "(3)"; a trailing colon or full stop
_HEADING_NUMBER = re.compile(r"^\s*(?:\(?(?:\d+(?:\.\d+)*|[IVXivx]+|[\u2160-\u217f]+|[一二三四五六七八九十]+)[.)、．]?\s*|[A-Z][.)]\s+)")
_HEADING_END = re.compile(r"[\s:：.．。]+$")
BODY_ROLES = frozenset({"introduction", "methods", "results", "discussion", "conclusions"})


@dataclass(frozen=True)
class HeadingRole:
    role: str  # one of text.languages.SECTION_ROLES
    languages: frozenset[str]  # the languages whose table names this heading so


def _heading_key(text: str) -> str:
    text = unicodedata.normalize("NFKC", text or "").replace("’", "'")
    text = _HEADING_END.sub("", _HEADING_NUMBER.sub("", text, count=1))
    return " ".join(text.split()).casefold()


@cache
def _heading_index() -> dict[str, HeadingRole]:
    found: dict[str, tuple[str, set[str]]] = {}
    for code, table in language_tables().items():
        for role, names in table.sections.items():
            for name in names:
                key = _heading_key(name)
                known_role, languages = found.setdefault(key, (role, set()))
                if known_role == role:
                    languages.add(code)
    return {key: HeadingRole(role, frozenset(languages)) for key, (role, languages) in found.items()}


def heading_roles(text: str | None) -> HeadingRole | None:
    """The role of a section heading in any tabled language ("Resumo" → abstract in pt; "Referencias" →
    references in es; "2. Métodos" → methods in pt and es), numbering and a final colon ignored."""
    if not text or len(text) > 120:
        return None
    return _heading_index().get(_heading_key(text))


# The summary's part for each heading role ("skip": never summarised), in the vocabulary of
# summarize.roles.section_role, whose own cues are English (it falls back to this for the others).
_SUMMARY_PARTS = {
    "introduction": "background",
    "methods": "method",
    "results": "results",
    "discussion": "conclusion",
    "conclusions": "conclusion",
    "abstract": "skip",
    "keywords": "skip",
    "references": "skip",
    **{role: "skip" for role in BACK_MATTER_ROLES},
}


def summary_part(heading: str | None) -> str | None:
    """ "background", "method", "results", "conclusion" or "skip" for a heading in any tabled language
    ("Introdução", "Métodos", "Resultados", "Discussão", "Referências", "서론" …); None for a heading that
    names no known section."""
    found = heading_roles(heading)
    if found is None and heading:
        # "Metodologia da pesquisa", "Resultados obtidos": a body section's name followed by more words
        key = _heading_key(heading)
        prefixes = [name for name, role in _heading_index().items() if role.role in BODY_ROLES and key.startswith(name + " ")]
        found = _heading_index()[max(prefixes, key=len)] if prefixes and len(key) <= 80 else None
    return _SUMMARY_PARTS.get(found.role) if found is not None else None


# the block types that hold prose (a paragraph, a list), as opposed to headings, captions, tables, equations
PROSE_TYPES = ("paragraph", "list")


def is_body_prose(block: Block) -> bool:
    """A paragraph or list of the body, as the reader marked it (``Block.is_body``: not front or back
    matter, references, furniture or a translation): the text summaries quote and take evidence from.
    The one definition of body text; whether the abstract counts is the caller's choice."""
    return block.type in PROSE_TYPES and block.is_body


def is_abstract_heading(text: str | None) -> bool:
    """Whether the text is an abstract's heading in any language ("Abstract", "Resumo", "Résumé", "요약"):
    never a title. PDF title selection calls this to pass over it."""
    found = heading_roles(text)
    return found is not None and found.role == "abstract"


@cache
def _run_in_pattern() -> re.Pattern[str]:
    names = sorted(_heading_index(), key=len, reverse=True)
    return re.compile(r"^\s*(" + "|".join(re.escape(n) for n in names) + r")\s*[:：]\s*(?=\S)", re.IGNORECASE)


def run_in_heading(text: str) -> HeadingRole | None:
    """A section name printed at the start of a paragraph with a colon ("Métodos: Estudo transversal…",
    "Palavras-chave: diabetes; …", "Conclusão: …"), in any tabled language; None otherwise."""
    match = _run_in_pattern().match(unicodedata.normalize("NFKC", text or "")[:200])
    return heading_roles(match.group(1)) if match else None


def strip_run_in_heading(text: str) -> str:
    """The paragraph without its run-in section name ("Conclusão: O estudo…" → "O estudo…")."""
    normalised = unicodedata.normalize("NFKC", text or "")
    match = _run_in_pattern().match(normalised[:200])
    return normalised[match.end():] if match else text


def is_references_heading(text: str) -> bool:
    """A reference list's heading ("References", "4. Bibliography", "Referências"), in any tabled language."""
    found = heading_roles(text)
    return bool(REFERENCES_HEADING.match(text)) or (found is not None and found.role == "references")


def _is_back_heading(text: str) -> bool:
    found = heading_roles(text)
    return bool(BACK_HEADING.match(text)) or (found is not None and found.role in BACK_MATTER_ROLES)


def _is_body_heading(text: str) -> bool:
    found = heading_roles(text)
    return bool(_BODY_HEADING.match(text)) or (found is not None and found.role in BODY_ROLES)


def _is_localised_front(text: str) -> bool:
    """ "Palavras-chave: …", "Mots-clés : …", "주요어: …": keywords in any language are front matter."""
    found = run_in_heading(text)
    return found is not None and found.role == "keywords"


def _is_localised_run_in_back(text: str) -> bool:
    found = run_in_heading(text)
    return found is not None and found.role in BACK_MATTER_ROLES


# Back-matter headings in the first half of a paper are sections of it ("Ethics approval" in the Methods,
# an abbreviation list before the Introduction); the reference list is recognised anywhere.
EARLIEST_BACK = 0.5


def _is_prose(text: str) -> bool:
    return len(text.split()) >= 30 and reference_score(text) < 0.3 and not _REF_START.match(text)


def reference_score(text: str) -> float:
    """How much a block reads like reference-list entries (0 none; ≥ 1 clearly)."""
    chars = max(len(text), 1)
    years = len(_YEAR.findall(text))
    evidence = len(_REF_EVIDENCE.findall(text))
    score = 0.0
    if _REF_START.match(text):
        score += 0.5
    # entries are dense in years and bibliographic marks; running text rarely is
    score += min(1.0, (years + evidence) * 120 / chars)
    return score if years or evidence >= 2 else score * 0.5


def is_reference_like(text: str) -> bool:
    return reference_score(text) >= 0.9


def furniture_kind(block: Block, *, first_page: bool) -> str | None:
    """"furniture" or "front" for a block a journal prints around the article, else None."""
    text = block.text.strip()
    if not text:
        return None
    if _FURNITURE.match(text) or _URL_ONLY.match(text):
        return "furniture"
    if len(text) < 600 and _FURNITURE_ANYWHERE.search(text):
        return "furniture"
    if len(text) < 160 and _SHORT_DOI.search(text) and not _REF_START.match(text):
        return "furniture"
    if len(text) < 200 and _RUNNING_HEAD.match(text):
        return "furniture"
    if _FRONT.match(text) or _CONTRIBUTED_EQUALLY.search(text) and len(text) < 300:
        return "front"
    if len(text) < 600 and _is_localised_front(text):
        return "front"
    if len(text) < 250 and _EMAIL.search(text):
        return "front"
    if first_page and _looks_like_authors(text):
        return "front"
    if first_page and _looks_like_affiliations(text):
        return "front"
    if first_page and len(text) < 120 and _PERSON_WITH_PLACE.match(text) and _AFFILIATION.search(text):
        return "front"  # an editor or reviewer line: "Bernard R. Glick, University of Waterloo, Canada"
    return None


def _looks_like_affiliations(text: str) -> bool:
    """"1Department of ..., Faculty of ..., University of ...; 2 ...": institution words throughout (a long
    list of several affiliations keeps one every couple of hundred characters), no years."""
    if text.endswith(("?", "!")) or _YEAR.search(text):
        return False
    found = len(_AFFILIATION.findall(text))
    if found < 2 or (len(text) >= 400 and found < len(text) / 150):
        return False
    return re.match(r"^\s*(?:\d{1,2}\.?|[a-z*†‡§])?\s*[A-Z]", text) is not None


def _looks_like_authors(text: str) -> bool:
    """"Roberto Postacchini,1 Stefano Carbone,2 and Marco Mastantuono3": names with affiliation marks."""
    if len(text) > 400 or text.rstrip().endswith((".", ":", "?")) and not re.search(r"[A-Z]\.$", text.rstrip()):
        return False
    cleaned = re.sub(r"[\d*∗†‡§¶#]+|\(\s*\)", " ", text)
    # degrees after the names ("Emelie Strandberg, PhDa,∗, Olav Vikmoen, MD, PhD") with affiliation letters
    cleaned = _DEGREES.sub(" ", cleaned)
    parts = [p.strip() for p in re.split(r",|;|\band\b|&", cleaned) if p.strip()]
    if len(parts) < 2:
        return False
    names = sum(bool(_NAME.match(" ".join(p.split()))) for p in parts)
    return names >= 0.7 * len(parts)


def mark_section_kinds(document: Document) -> None:
    """Set ``section_kind`` on every block (see the module docstring)."""
    blocks = document.blocks
    if not blocks:
        return
    total = sum(len(b.text) for b in blocks) or 1
    seen = 0
    state = "body"
    back_is_early = False
    title = (document.title or "").strip().lower()
    reference_run = _reference_runs(blocks)
    for position, block in enumerate(blocks):
        text = block.text.strip()
        share_before = seen / total
        seen += len(block.text)
        if block.type == "caption":
            continue  # a caption belongs to its figure wherever the journal prints it
        kind = furniture_kind(block, first_page=(block.page or 1) == 1)
        if kind is not None:
            block.section_kind = kind  # type: ignore[assignment]
            continue
        if block.type == "heading" and title and text.lower() == title and (block.page or 1) == 1:
            block.section_kind = "front"
            continue
        if block.type == "heading":
            if is_references_heading(text):
                state, back_is_early = "references", False
            elif _is_back_heading(text) and share_before >= EARLIEST_BACK:
                state, back_is_early = "back", False
            elif state in ("back", "references") and (
                back_is_early or _is_body_heading(text) or (state == "back" and _NUMBERED_HEADING.match(text))
            ):
                state = "body"
            block.section_kind = state  # type: ignore[assignment]
            continue
        if _RUN_IN_REFERENCES.match(text):
            state, back_is_early = "references", False
            block.section_kind = "references"
            continue
        if (_RUN_IN_BACK.match(text) or _is_localised_run_in_back(text)) and (
            share_before >= EARLIEST_BACK or _RUN_IN_COLON.match(text)
        ):
            block.section_kind = "back"
            if state == "body" and share_before >= EARLIEST_BACK:
                state, back_is_early = "back", False
            continue
        if len(text) < 500 and _DECLARATION.match(text) and (share_before >= EARLIEST_BACK or block.page == 1):
            block.section_kind = "back"
            continue
        if _is_glossary(text):
            block.section_kind = "back"  # an abbreviation list, wherever the journal prints it
            continue
        if state == "body" and reference_run[position]:
            state = "references"
        if state == "body" and share_before >= EARLIEST_BACK and _is_reference_fragment(text):
            # a piece of the reference list that the reading order put among the last body paragraphs
            block.section_kind = "references"
            continue
        if state == "back" and is_reference_like(text):
            state = "references"
        if state == "references" and _is_prose(text) and not _next_is_reference(blocks, position):
            # a reference list holds no running prose: this paragraph is body text the reading order
            # (a column read out of turn) put after the references heading
            block.section_kind = "body"
            continue
        block.section_kind = state  # type: ignore[assignment]


_AUTHOR_INITIALS = re.compile(r"(?:^|[.;]\s+|\d\s+)[A-Z][\w'’\-]+\s+[A-Z]{1,3},")
_GLOSSARY_ENTRY = re.compile(r"(?:^|[,;]\s*)[A-Za-z0-9α-ω][\w\-/αβγκ]{0,11}\s*(?:=|:)\s+[A-Za-z]")


def _is_reference_fragment(text: str) -> bool:
    """Reference entries without their heading: dense in years and bibliographic marks, and naming authors
    the way reference lists do ("Nair DN, Padmavathy S."), which running text citing them does not."""
    return is_reference_like(text) and not _is_prose(text) and len(_AUTHOR_INITIALS.findall(text)) >= 3


def _is_glossary(text: str) -> bool:
    """"SWA = sensewear armband, TNF-a = tumor necrosis factor alpha, ..." or "4D-CT: Four-dimensional
    computed tomography; BOP-2: ...": a list of definitions, not sentences."""
    entries = len(_GLOSSARY_ENTRY.findall(text))
    return entries >= 5 and entries * 60 >= len(text)


def _next_is_reference(blocks: list[Block], position: int) -> bool:
    """Is the next block of text (captions and furniture aside) a reference entry? Then a block between
    two entries is one too, however it reads (an entry's long title cut off by a page break)."""
    for block in blocks[position + 1 : position + 4]:
        if block.type == "caption" or furniture_kind(block, first_page=False):
            continue
        return is_reference_like(block.text)
    return False


def _reference_runs(blocks: list[Block], run: int = 3) -> list[bool]:
    """True for blocks inside a run of ``run`` or more reference-like blocks (captions and furniture
    between them do not break the run) in the second half of the paper: a list without a heading."""
    total = sum(len(b.text) for b in blocks) or 1
    flags = [False] * len(blocks)
    seen = 0
    current: list[int] = []

    def close() -> None:
        if len(current) >= run:
            for index in current:
                flags[index] = True
        current.clear()

    for position, block in enumerate(blocks):
        share = seen / total
        seen += len(block.text)
        if block.type == "caption" or furniture_kind(block, first_page=(block.page or 1) == 1):
            continue
        if share > 0.4 and is_reference_like(block.text):
            current.append(position)
        else:
            close()
    close()
    return flags
