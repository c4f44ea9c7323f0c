"""Gold read from a paper's own JATS markup: figures, tables, body paragraphs with their citations,
the abstract (and eLife digest), section titles, and everything that is not body text.

The publisher already marked what a benchmark needs: ``<fig>``/``<table-wrap>`` with ``<label>`` and
``<caption>``; ``<xref ref-type="fig|table">`` at the exact place a paragraph cites a figure; ``<sec>``
with ``<title>``; ``<abstract>``; and ``<back>`` (references, acknowledgements, contributions, funding,
competing interests). :func:`read_gold` turns one file into a :class:`PairGold`; a file that is not
well-formed XML raises :class:`GoldError` (the suite reports it per item and goes on).

The XML is parsed with the same safe settings as the app's JATS reader (no DTD, no entities, no network).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from mmdocsum_desktop.errors import MmdocsumError

# Labels as publishers write them: "Figure 1", "Fig. 2", "FIGURE 3", "Scheme 1", "Table S2", "Figure 4—figure
# supplement 1" (eLife). The canonical word matches document/labels.py so the two sides compare.
_LABEL = re.compile(
    r"^\s*(?:Supplementary\s+)?(?P<word>Figures?|Fig\.?|Scheme|Chart|Plate|Tables?|Tab\.)\s*[-‐–]?\s*"  # "Figure-1"
    r"(?P<number>S?\d{1,3}(?:[-.‐–]\d{1,3})?|[IVXL]{1,6}\b)",
    re.IGNORECASE,
)
_CANONICAL = {"figure": "Figure", "figures": "Figure", "fig": "Figure", "scheme": "Scheme", "chart": "Chart",
              "plate": "Plate", "table": "Table", "tables": "Table", "tab": "Table"}
# Back-matter parts that sit in the body or the front of some articles (author notes, declarations).
_BACK_SECTION_TITLE = re.compile(
    r"^\s*(?:\d+\.?\s*)?(?:acknowledge?ments?|funding(?: statement)?|competing interests?|conflicts? of interests?|"
    r"disclosure|declarations?|author(?:s'|s|'s)? contributions?|contributions|abbreviations|data availability|"
    r"availability of data and materials|ethics(?: approval| statement)?.*|consent.*|references|supplementary "
    r"materials?|additional files?|supporting information)\s*$",
    re.IGNORECASE,
)
_WS = re.compile(r"\s+")
# a citation of a figure or table, replaced by this mark while the paragraph text is built
XREF_MARK = "\x00"


class GoldError(MmdocsumError):
    """A JATS file that cannot serve as gold (not XML, no article)."""


@dataclass
class GoldVisual:
    """One ``<fig>`` or ``<table-wrap>``: its id (what xrefs point at), kind, canonical label and caption."""

    id: str
    kind: str  # figure | table
    label: str | None  # "Figure 3", "Table S1"; None when the publisher gave no label
    caption: str

    @property
    def key(self) -> str | None:
        return self.label.lower() if self.label else None


@dataclass
class GoldParagraph:
    """One body ``<p>`` in reading order.

    ``text`` is the paragraph as written; ``flow_text`` has every figure and table citation removed with
    its brackets and words ("(Figure 2B)", "Figs. 3 and 4"); ``cites`` are the visual ids it cites, in order.
    """

    text: str
    flow_text: str
    section: str | None
    section_path: tuple[str, ...]
    cites: list[str] = field(default_factory=list)


@dataclass
class PairGold:
    name: str
    title: str
    abstract: str
    digest: str  # eLife's plain-language summary ("executive-summary" abstract); "" elsewhere
    visuals: list[GoldVisual]
    paragraphs: list[GoldParagraph]
    section_titles: list[str]
    back_texts: list[str]  # references, acknowledgements, declarations, author notes
    caption_texts: list[str]
    table_texts: list[str]  # the cells and footnotes of tables
    front_texts: list[str]  # title, authors, affiliations, journal metadata
    # a structured abstract's (section title, text) pairs: "Background", "Methods"…; [] for a plain one
    abstract_sections: list[tuple[str, str]] = field(default_factory=list)

    @property
    def figures(self) -> list[GoldVisual]:
        return [v for v in self.visuals if v.kind == "figure"]

    @property
    def tables(self) -> list[GoldVisual]:
        return [v for v in self.visuals if v.kind == "table"]

    def first_citations(self, kinds: tuple[str, ...] = ("figure",)) -> list[str | None]:
        """The FTII gold: for each body paragraph, the visual it is the first to cite (or None).

        A paragraph that is the first to cite several takes the first of them; the others are still
        "taken" (a later paragraph citing them again is not their first citation)."""
        by_id = {v.id: v for v in self.visuals}
        seen: set[str] = set()
        gold: list[str | None] = []
        for paragraph in self.paragraphs:
            first = None
            for rid in paragraph.cites:
                visual = by_id.get(rid)
                if visual is None or visual.kind not in kinds or rid in seen:
                    continue
                seen.add(rid)
                first = first or rid
            gold.append(first)
        return gold


def canonical_label(text: str | None) -> tuple[str, str] | None:
    """("figure"|"table", "Figure 3") from a label such as "Fig. 3.", "TABLE 2", "Figure S1"; None otherwise."""
    if not text:
        return None
    match = _LABEL.match(clean(text))
    if not match:
        return None
    word = _CANONICAL[match.group("word").rstrip(".").lower()]
    number = match.group("number")
    number = re.sub(r"[‐–.]", "-", number) if re.search(r"\d[‐–.]\d", number) else number
    return ("table" if word == "Table" else "figure"), f"{word} {number.upper() if number[:1] in 'sS' else number}"


def clean(text: str) -> str:
    """Whitespace collapsed; the XML side is clean Unicode already, NFC keeps it comparable."""
    return _WS.sub(" ", unicodedata.normalize("NFC", text)).strip()


def _local(element: etree._Element) -> str:
    tag = element.tag
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1]


def _text(element: etree._Element, *, skip: frozenset[str] = frozenset(), spaced: bool = False) -> str:
    """All text under ``element``; elements named in ``skip`` contribute nothing but their tail.

    Block-like children are separated by spaces so "Title" + "Caption" do not run together; ``spaced``
    separates every element (citations are fields written without spaces: "BancroftL. W.KransdorfM.")."""
    parts: list[str] = []

    def walk(node: etree._Element) -> None:
        name = _local(node)
        if name in skip:
            return
        if node.text:
            parts.append(node.text)
        for child in node:
            walk(child)
            if child.tail:
                parts.append(child.tail)
        if spaced or name in {"p", "title", "label", "td", "th", "tr", "ref", "mixed-citation", "element-citation", "list-item"}:
            parts.append(" ")

    walk(element)
    return clean("".join(parts))


_FLOATS = frozenset({"fig", "table-wrap", "fig-group", "table-wrap-group", "supplementary-material", "disp-formula"})


_NESTED_BLOCKS = frozenset({"list", "boxed-text", "disp-quote"})


def _paragraph_texts(p: etree._Element) -> tuple[str, str, list[str]]:
    """(text, text with figure/table citations marked by XREF_MARK, cited ids) of one ``<p>``."""
    plain: list[str] = []
    marked: list[str] = []
    cites: list[str] = []

    def walk(node: etree._Element) -> None:
        name = _local(node)
        if name in _FLOATS or (node is not p and name in _NESTED_BLOCKS):
            return  # a figure, list or box set inside the paragraph is not the paragraph's own text
        if name == "xref" and node.get("ref-type") in {"fig", "table"}:
            inner = "".join(node.itertext())
            plain.append(inner)
            marked.append(XREF_MARK)
            for rid in (node.get("rid") or "").split():
                if rid not in cites:
                    cites.append(rid)
            return
        if node.text:
            plain.append(node.text)
            marked.append(node.text)
        for child in node:
            walk(child)
            if child.tail:
                plain.append(child.tail)
                marked.append(child.tail)

    walk(p)
    return clean("".join(plain)), clean("".join(marked)), cites


# The words and punctuation around removed citations: "(Figure 2B)", "(Figs. 3 and 4)", "see Table 1", "[Fig. 5a-c]".
_CITE_WORD = r"(?:(?:supplementary|additional)\s+)?(?:figures?|figs?\.?|tables?|tabs?\.|schemes?|charts?)"
_JOINER = r"(?:\s*(?:,|;|and|&|or|to|–|-|—)\s*)"
_MARK_RUN = rf"(?:{_CITE_WORD}\s*)?{XREF_MARK}(?:[A-Za-z](?![a-z]))?(?:\s*\([A-Za-z0-9,–\- ]{{1,8}}\))?(?:{_JOINER}(?:{_CITE_WORD}\s*)?{XREF_MARK}?[A-Za-z0-9]{{0,3}}(?![a-z]{{2}}))*"
_BRACKETED = re.compile(rf"\s*[(\[]\s*(?:(?:see|cf\.?|e\.g\.,?|as shown in|shown in)\s+)?{_MARK_RUN}\s*(?:,\s*)?[)\]]", re.IGNORECASE)
_BARE = re.compile(rf"(?:\b(?:see|cf\.?)\s+)?{_MARK_RUN}", re.IGNORECASE)
# Plain-text mentions the publisher did not tag ("Figure 3 shows" written without an xref).
_UNTAGGED = re.compile(rf"\s*[(\[]\s*{_CITE_WORD}\s*S?\d+[A-Za-z]?(?:{_JOINER}S?\d+[A-Za-z]?)*\s*[)\]]|\b{_CITE_WORD}\s*S?\d+[A-Za-z]?(?:{_JOINER}S?\d+[A-Za-z]?)*", re.IGNORECASE)


def strip_citations(marked: str) -> str:
    """Remove every figure and table citation (marked with XREF_MARK) with its brackets and words."""
    text = _BRACKETED.sub("", marked)
    text = _BARE.sub("", text)
    text = text.replace(XREF_MARK, "")
    text = _UNTAGGED.sub("", text)
    text = re.sub(r"[(\[]\s*[,;]?\s*[)\]]", "", text)  # brackets left empty
    text = re.sub(r"\s+([,.;:])", r"\1", text)
    text = re.sub(r"([,;])\s*([.;,])", r"\2", text)
    return clean(text)


def _parse(path: Path) -> etree._Element:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False,
                             remove_comments=True, remove_pis=True, recover=False)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise GoldError(f"{path.name}: cannot read ({error.strerror or error})") from error
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as error:
        message = clean(getattr(error, "msg", None) or str(error)) or "syntax error"
        raise GoldError(f"{path.name}: malformed XML ({message})") from error
    if _local(root) != "article":
        found = root.find(".//{*}article") if isinstance(root.tag, str) else None
        if found is None:
            raise GoldError(f"{path.name}: no JATS <article> element")
        root = found
    return root


def _children(element: etree._Element, name: str) -> list[etree._Element]:
    return [child for child in element if _local(child) == name]


def read_gold(path: str | Path) -> PairGold:
    source = Path(path)
    root = _parse(source)
    front = next(iter(root.iter("{*}article-meta", "article-meta")), None)
    title_element = next(iter(root.iter("{*}article-title", "article-title")), None)
    title = _text(title_element) if title_element is not None else ""

    abstract, digest = "", ""
    abstract_sections: list[tuple[str, str]] = []
    if front is not None:
        for element in front.iter("{*}abstract", "abstract"):
            kind = (element.get("abstract-type") or "").lower()
            text = _text(element, skip=frozenset({"title", "object-id"}))
            if kind in {"executive-summary", "summary", "lay-summary", "plain-language-summary"}:
                digest = digest or text
            elif kind in {"", "structured", "author"} and not abstract:
                abstract = text
                abstract_sections = _abstract_sections(element)

    visuals: list[GoldVisual] = []
    seen_ids: set[str] = set()
    for element in root.iter("{*}fig", "fig", "{*}table-wrap", "table-wrap"):
        if any(_local(a) in {"sub-article", "supplementary-material"} for a in element.iterancestors()):
            continue
        kind = "table" if _local(element) == "table-wrap" else "figure"
        label_element = next(iter(_children(element, "label")), None)
        label_text = _text(label_element) if label_element is not None else ""
        parsed = canonical_label(label_text)
        caption_element = next(iter(_children(element, "caption")), None)
        caption = _text(caption_element) if caption_element is not None else ""
        ident = element.get("id") or f"{kind}{len(visuals) + 1}"
        if ident in seen_ids:
            continue
        seen_ids.add(ident)
        label = parsed[1] if parsed else None
        if parsed and parsed[0] != kind:
            kind = parsed[0]  # a "Table" label on a <fig> (tables set as images) is what the PDF prints
        visuals.append(GoldVisual(ident, kind, label, caption))

    body = next(iter(_children(root, "body")), None)
    paragraphs: list[GoldParagraph] = []
    section_titles: list[str] = []
    back_texts: list[str] = []
    if body is not None:
        _walk_body(body, (), paragraphs, section_titles, back_texts)

    for back in _children(root, "back"):
        for child in back:
            text = _text(child, skip=_FLOATS, spaced=True)  # some publishers park the figures in <back>
            if text:
                back_texts.append(text)
    if front is not None:
        for name in ("author-notes", "permissions", "funding-group", "custom-meta-group"):
            for element in front.iter(f"{{*}}{name}", name):
                text = _text(element, spaced=True)
                if text:
                    back_texts.append(text)
    front_texts: list[str] = [title] if title else []
    if front is not None:
        for name in ("contrib-group", "aff", "journal-title", "kwd-group", "pub-date", "history"):
            for element in root.iter(f"{{*}}{name}", name):
                text = _text(element)
                if text:
                    front_texts.append(text)

    caption_texts = [v.caption for v in visuals if v.caption]
    table_texts = []
    for element in root.iter("{*}table-wrap", "table-wrap"):
        text = _text(element, skip=frozenset({"caption", "label"}))
        if text:
            table_texts.append(text)
    return PairGold(
        name=source.stem,
        title=title,
        abstract=abstract,
        digest=digest,
        visuals=visuals,
        paragraphs=paragraphs,
        section_titles=section_titles,
        back_texts=back_texts,
        caption_texts=caption_texts,
        table_texts=table_texts,
        front_texts=front_texts,
        abstract_sections=abstract_sections,
    )


def _abstract_sections(abstract: etree._Element) -> list[tuple[str, str]]:
    """(title, text) of each titled ``<sec>`` of a structured abstract ("Background", "Methods:"…)."""
    sections = []
    for sec in _children(abstract, "sec"):
        title_element = next(iter(_children(sec, "title")), None)
        title = _text(title_element) if title_element is not None else ""
        text = _text(sec, skip=frozenset({"title"}))
        if title and text:
            sections.append((title, text))
    return sections


def _walk_body(
    element: etree._Element,
    path: tuple[str, ...],
    paragraphs: list[GoldParagraph],
    titles: list[str],
    back_texts: list[str],
) -> None:
    for child in element:
        name = _local(child)
        if name in _FLOATS or name in {"sub-article", "ref-list"}:
            continue
        if name == "sec":
            title_element = next(iter(_children(child, "title")), None)
            title = _text(title_element) if title_element is not None else ""
            if title and _BACK_SECTION_TITLE.match(title) and not path:
                # declarations written as body sections are back matter all the same
                back_texts.append(_text(child))
                continue
            if title:
                titles.append(title)
            _walk_body(child, (*path, title) if title else path, paragraphs, titles, back_texts)
        elif name == "p":
            text, marked, cites = _paragraph_texts(child)
            if text:
                paragraphs.append(
                    GoldParagraph(text, strip_citations(marked), path[-1] if path else None, path, cites)
                )
            # a list or a box nested in a paragraph carries paragraphs of its own
            for nested in child:
                if _local(nested) in _NESTED_BLOCKS:
                    _walk_body(nested, path, paragraphs, titles, back_texts)
        elif name in {"list", "list-item", "boxed-text", "disp-quote", "statement", "def-list", "def-item", "def"}:
            _walk_body(child, path, paragraphs, titles, back_texts)
