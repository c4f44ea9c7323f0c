"""JATS (NLM/PMC) article XML read into a Document: front matter, sections, figures, tables, back matter."""

from __future__ import annotations

import html.entities
import re
from pathlib import Path

from lxml import etree

from mmdocsum_desktop.document.html import (
    LIBXML_SAFE_DEPTH,
    ArticleBuilder,
    collect_text,
    count_elements,
    decode_text,
    flatten_deep_markup,
    list_lines,
    local_name,
    normalise_space,
    walk_tree,
)
from mmdocsum_desktop.document.labels import VisualKind, parse_caption_start
from mmdocsum_desktop.document.limits import ReadLimits
from mmdocsum_desktop.errors import CorruptDocumentError
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.schemas.document import BlockType, Document
from mmdocsum_desktop.text.languages import language_table, primary_subtag

_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
# JATS graphics often name the file without its extension ("elife-56337-fig1").
_GRAPHIC_SUFFIXES = (".jpg", ".png", ".tif", ".gif", ".jpeg", ".tiff")
_XML_DECLARATION = re.compile(rb"^\s*<\?xml[^>]*\?>")
_XML_ENCODING = re.compile(rb"""^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9_.:\-]+)""")
_HTML_ENTITY = re.compile(r"&([A-Za-z][A-Za-z0-9]{1,31});")
_XML_PREDEFINED_ENTITIES = frozenset({"amp", "lt", "gt", "quot", "apos"})

_VISUALS = frozenset({"fig", "table-wrap"})
# Never article text: the reference list, peer-review sub-articles, data files and machine metadata.
_SKIPPED = frozenset(
    {
        "ref-list",
        "sub-article",
        "response",
        "supplementary-material",
        "object-id",
        "alt-text",
        "long-desc",
        "processing-meta",
        "permissions",
        "counts",
        "kwd-group",
        "inline-graphic",
        "graphic",
        "media",
        "institution-id",
    }
)
# Citation-like parts (names, years, titles) that JATS writes without spaces between them.
_SPACED_INLINE = frozenset(
    {
        "name",
        "string-name",
        "surname",
        "given-names",
        "person-group",
        "collab",
        "etal",
        "year",
        "source",
        "data-title",
        "article-title",
        "pub-id",
        "institution",
        "funding-source",
        "award-id",
        "element-citation",
        "mixed-citation",
    }
)
_HEADING_PARENTS = frozenset(
    {
        "sec",
        "app",
        "ack",
        "boxed-text",
        "abstract",
        "trans-abstract",
        "glossary",
        "notes",
        "fn-group",
        "statement",
    }
)
# Elements whose start and end break the running paragraph; everything else is inline text.
_BLOCK_CONTAINERS = frozenset(
    {
        "body",
        "back",
        "floats-group",
        "sec",
        "app",
        "app-group",
        "ack",
        "abstract",
        "trans-abstract",
        "boxed-text",
        "disp-quote",
        "statement",
        "glossary",
        "notes",
        "fn-group",
        "fig-group",
        "caption",
        "verse-group",
        "verse-line",
        "speech",
        "def-list",
        "list-item",
        "title-group",
        "table-wrap-foot",
        "address",
    }
)
_LISTS = frozenset({"list", "def-list"})
_LIST_ITEMS = frozenset({"list-item", "def-item"})
_PREFORMATTED = frozenset({"preformat", "code"})
_FORMULAS = frozenset({"disp-formula", "disp-formula-group"})


def _parser(*, recover: bool) -> etree.XMLParser:
    # The safe configuration: no entity expansion (billion laughs), no DTD, no network, no huge trees.
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        huge_tree=False,
        load_dtd=False,
        dtd_validation=False,
        remove_comments=True,
        remove_pis=True,
        recover=recover,
    )


def _parse(data: bytes, source_name: str) -> tuple[etree._Element, list[str]]:
    try:
        return etree.fromstring(data, _parser(recover=False)), []
    except etree.XMLSyntaxError as error:
        # libxml2's messages can hold a line break ("...out of allowed range\n, line 2"); ours are one line
        first_error = normalise_space(getattr(error, "msg", None) or str(error)).replace(" ,", ",") or "syntax error"
    declared = _XML_ENCODING.match(data[:1024])
    text, warnings = decode_text(data, source_name, declared.group(1).decode("ascii") if declared else None)
    cleaned = _XML_DECLARATION.sub(b"", _HTML_ENTITY.sub(_numeric_reference, text).encode("utf-8"), count=1)
    # Often the only fault is an HTML entity (&eacute;) whose declaration lives in the DTD we do not load.
    parser = _parser(recover=False)
    try:
        return etree.fromstring(cleaned, parser), warnings
    except etree.XMLSyntaxError:
        pass
    if _nested_too_deeply(parser):
        # libxml2 stops at 256 levels and the recovering parser drops everything after; keep the text.
        flattened = flatten_deep_markup(cleaned.decode("utf-8"), LIBXML_SAFE_DEPTH, xml=True)
        cleaned = flattened.encode("utf-8")
        warnings.append(f"{source_name}: markup nested too deeply; the deepest elements were flattened")
        try:
            return etree.fromstring(cleaned, _parser(recover=False)), warnings
        except etree.XMLSyntaxError:
            pass
    # Malformed (often truncated) XML: read what the parser can recover.
    try:
        root = etree.fromstring(cleaned, _parser(recover=True)) if cleaned.strip() else None
    except etree.XMLSyntaxError:
        root = None
    if root is None:
        raise CorruptDocumentError(f"{source_name}: not well-formed XML ({first_error})")
    return root, [*warnings, f"{source_name}: malformed XML ({first_error}); read what could be recovered"]


def _nested_too_deeply(parser: etree.XMLParser) -> bool:
    # The parser's own log: an XMLSyntaxError's error_log also holds earlier parses' errors of this thread.
    return any("excessive depth" in (entry.message or "").lower() for entry in parser.error_log)


def _numeric_reference(match: re.Match[str]) -> str:
    name = match.group(1)
    if name in _XML_PREDEFINED_ENTITIES:
        return match.group(0)
    characters = html.entities.html5.get(f"{name};")
    return "".join(f"&#{ord(c)};" for c in characters) if characters else match.group(0)


def _parent_name(element: etree._Element) -> str:
    parent = element.getparent()
    return local_name(parent) if parent is not None else ""


def _children(element: etree._Element, name: str) -> list[etree._Element]:
    return [child for child in element if local_name(child) == name]


def _child(element: etree._Element | None, name: str) -> etree._Element | None:
    if element is None:
        return None
    return next((child for child in element if local_name(child) == name), None)


def _skip_in_text(element: etree._Element) -> bool:
    return local_name(element) in _SKIPPED or local_name(element) in _VISUALS


def _substitute_in_text(element: etree._Element) -> str | None:
    name = local_name(element)
    if name in {"inline-formula", "disp-formula"}:
        return f" {formula_text(element)} "
    if name == "break":
        return " "
    return None


def _separates(element: etree._Element) -> bool:
    name = local_name(element)
    return (
        name in _BLOCK_CONTAINERS
        or name in _SPACED_INLINE
        or name in {"p", "title", "label", "td", "th", "term", "def"}
    )


def jats_text(element: etree._Element) -> str:
    """Text of a JATS element with inline markup flattened and nested floats and data files left out."""
    return collect_text(element, skip=_skip_in_text, substitute=_substitute_in_text, separates=_separates)


def formula_text(formula: etree._Element) -> str:
    """TeX when the formula carries it, else MathML's alttext, else the characters of its markup."""
    for element in formula.iter():
        if local_name(element) == "tex-math" and (text := "".join(element.itertext()).strip()):
            return text
    for element in formula.iter():
        if local_name(element) == "math" and (alternative := (element.get("alttext") or "").strip()):
            return alternative
    return collect_text(
        formula,
        skip=lambda e: local_name(e) in {"label", "graphic", "annotation", "annotation-xml"},
    )


class _JatsConverter:
    """Walks abstracts, body and back matter, feeding paragraphs, lists, formulas and floats to a builder."""

    def __init__(self, builder: ArticleBuilder, base_dir: Path) -> None:
        self.builder = builder
        self.base_dir = base_dir
        self.back_matter = False
        self.translation = False  # inside a translated sub-article: its floats are the original's
        self._paragraph: list[str] = []
        self._appendices: list[etree._Element] = []

    def convert(self, root: etree._Element, *, back_matter: bool = False) -> None:
        self.back_matter = back_matter
        walk_tree(root, self)
        self._flush()

    # TreeVisitor ------------------------------------------------------------------------------------

    def enter(self, element: etree._Element, depth: int) -> bool:
        self.builder.step()
        name = local_name(element)
        if name in _SKIPPED:
            return False
        if name == "label" and _parent_name(element) in _HEADING_PARENTS:
            return False  # read together with the section's title
        if name in {"inline-formula", "break"}:
            self._paragraph.append(_substitute_in_text(element) or " ")
            return False
        # Figure and table captions never get here (floats are read whole); a boxed text's caption does.
        if name == "title" and (
            _parent_name(element) in _HEADING_PARENTS or _parent_name(element) == "caption"
        ):
            self._flush()
            self._heading(element)
            return False
        if name in _VISUALS or name == "table":
            self._flush()
            if not self.translation:
                self._visuals(element)
            return False
        if name in _FORMULAS:
            self._flush()
            self.builder.add_block("equation", formula_text(element))
            return False
        if name in _LISTS:
            self._flush()
            lines = list_lines(
                element,
                lists=_LISTS,
                items=_LIST_ITEMS,
                skip=_skip_in_text,
                substitute=_substitute_in_text,
                separates=_separates,
            )
            self.builder.add_block("list", "\n".join(lines), keep_lines=True)
            return False
        if name == "fn":
            self._flush()
            self.builder.add_block("footnote", jats_text(element))
            return False
        if name in _PREFORMATTED:
            self._flush()
            self.builder.add_block(self._text_type(), "".join(element.itertext()), keep_lines=True)
            return False
        if name in {"app", "app-group"}:
            self._appendices.append(element)
        if name == "p" or name in _BLOCK_CONTAINERS:
            self._flush()
        if name == "ack" and _child(element, "title") is None:
            self.builder.add_heading("Acknowledgements")
        if name in _SPACED_INLINE:
            self._paragraph.append(" ")
        return True

    def leave(self, element: etree._Element) -> None:
        name = local_name(element)
        if name == "p" or name in _BLOCK_CONTAINERS:
            self._flush()
        elif name in _SPACED_INLINE:
            self._paragraph.append(" ")
        if self._appendices and self._appendices[-1] is element:
            self._appendices.pop()

    def text(self, text: str | None) -> None:
        if text:
            self._paragraph.append(text)

    # Elements ---------------------------------------------------------------------------------------

    def _text_type(self) -> BlockType:
        # Back matter (acknowledgements, funding, notes) is not the article's body; appendices are.
        return "footnote" if self.back_matter and not self._appendices else "paragraph"

    def _flush(self) -> None:
        if self._paragraph:
            self.builder.add_block(self._text_type(), "".join(self._paragraph))
            self._paragraph = []

    def _heading(self, title: etree._Element) -> None:
        label = _child(title.getparent(), "label")
        text = jats_text(title)
        if label is not None and (label_text := jats_text(label)) and text:
            text = f"{label_text} {text}"
        self.builder.add_heading(text)

    def _visuals(self, container: etree._Element) -> None:
        """A fig or table-wrap, and the figure supplements nested in it (eLife), each as its own visual."""
        if local_name(container) == "table":  # a bare table with no table-wrap: no label, no caption
            self.builder.add_visual("table", caption="", label=None)
            return
        for element in container.iter():
            if local_name(element) in _VISUALS and not _inside_skipped(element, container):
                self._visual(element)

    def _visual(self, element: etree._Element) -> None:
        name = local_name(element)
        kind: VisualKind = "figure" if name == "fig" else "table"
        label_element = _child(element, "label")
        caption_element = _child(element, "caption")
        label_text = jats_text(label_element) if label_element is not None else ""
        caption_text = jats_text(caption_element) if caption_element is not None else ""
        caption = normalise_space(f"{label_text} {caption_text}")
        caption_block = self.builder.add_block("caption", caption)
        visual = self.builder.add_visual(
            kind, caption=caption, label=_normalised_label(label_text), caption_block=caption_block
        )
        graphic = _own_graphic(element)
        if graphic is not None:
            self.builder.attach_image(
                visual, graphic.get(_XLINK_HREF), self.base_dir, guess_suffixes=_GRAPHIC_SUFFIXES
            )
        for footer in _children(element, "table-wrap-foot"):
            for note in footer:
                self.builder.add_block("footnote", jats_text(note))


def _normalised_label(label_text: str) -> str | None:
    """ "Fig 1" -> "Figure 1"; a sub-item such as "Figure 1—figure supplement 1" gets no label of its own,
    or mentions of Figure 1 would be linked to it."""
    start = parse_caption_start(label_text)
    if start is None or start.rest.strip(" .:"):
        return None
    return start.label


def _inside_skipped(element: etree._Element, container: etree._Element) -> bool:
    """Whether a nested float sits inside something we never read (a data file's description)."""
    parent = element.getparent()
    while parent is not None and parent is not container:
        if local_name(parent) in _SKIPPED:
            return True
        parent = parent.getparent()
    return False


def _own_graphic(visual: etree._Element) -> etree._Element | None:
    """The visual's image: its first <graphic> that does not belong to a nested figure or a data file."""
    for element in visual.iter():
        if local_name(element) != "graphic":
            continue
        owner = element.getparent()
        while owner is not None and owner is not visual:
            if local_name(owner) in _VISUALS or local_name(owner) == "supplementary-material":
                break
            owner = owner.getparent()
        if owner is visual:
            return element
    return None


def _abstract_heading(abstract: etree._Element) -> str:
    abstract_type = (abstract.get("abstract-type") or "").strip()
    return abstract_type.replace("-", " ").capitalize() if abstract_type else "Abstract"


def read_jats(path: Path, *, limits: ReadLimits, control: JobControl) -> Document:
    """Read JATS XML (PMC .nxml): title, abstracts, sections, figures and tables; references are skipped."""
    data = path.read_bytes()
    if not data.strip():
        return ArticleBuilder(path, "jats", control, 0).build(title=None, abstract=None, language=None)
    root, warnings = _parse(data, path.name)
    if local_name(root) == "tei":
        return read_tei(root, path, warnings, control=control)
    if local_name(root) != "article":
        raise CorruptDocumentError(f"{path.name}: not a JATS article (root element <{local_name(root)}>)")
    article_meta = _child(_child(root, "front"), "article-meta")
    abstracts = _children(article_meta, "abstract") if article_meta is not None else []
    parts = [
        (part, name == "back") for name in ("body", "back", "floats-group") for part in _children(root, name)
    ]
    total_steps = sum(count_elements(element) for element in [*abstracts, *(part for part, _ in parts)])
    builder = ArticleBuilder(path, "jats", control, total_steps)
    builder.warnings.extend(warnings)
    converter = _JatsConverter(builder, path.parent)

    title_element = _child(_child(article_meta, "title-group"), "article-title")
    title = jats_text(title_element) if title_element is not None else None

    main_abstract: str | None = None
    builder.in_abstract = True
    for abstract in abstracts:
        first_block = len(builder.blocks)
        if _child(abstract, "title") is None:
            builder.add_heading(_abstract_heading(abstract))
        converter.convert(abstract)
        is_main = (abstract.get("abstract-type") or "abstract") == "abstract"
        if main_abstract is None and is_main:
            text = "\n\n".join(b.text for b in builder.blocks[first_block:] if b.type != "heading")
            main_abstract = text or None
    builder.in_abstract = False
    main_abstract = main_abstract or builder.abstract_text()
    language = root.get(_XML_LANG)
    trans_abstracts = _children(article_meta, "trans-abstract") if article_meta is not None else []
    for abstract in trans_abstracts:
        _read_translation(builder, converter, abstract, abstract.get(_XML_LANG), heading_role="abstract")

    for part, is_back_matter in parts:
        converter.convert(part, back_matter=is_back_matter)

    for sub_article in _children(root, "sub-article"):
        if (sub_article.get("article-type") or "") == "translation":
            _read_translated_article(builder, converter, sub_article)

    return builder.build(title=title, abstract=main_abstract, language=language)


def _read_translation(
    builder: ArticleBuilder,
    converter: _JatsConverter,
    element: etree._Element,
    language: str | None,
    *,
    heading_role: str | None = None,
) -> None:
    """Read a <trans-abstract> or a translated article's part as blocks marked ``is_translation`` in
    their own language: kept for reading and search, never summarised (document/language.py)."""
    first_block = len(builder.blocks)
    code = primary_subtag(language)
    if heading_role and _child(element, "title") is None:
        names = language_table(code).sections.get(heading_role) or ("Abstract",)
        builder.add_heading(names[0])
    converter.translation = True
    try:
        converter.convert(element)
    finally:
        converter.translation = False
    for block in builder.blocks[first_block:]:
        block.is_translation = True
        block.is_abstract = False
        block.language = code


def _read_translated_article(builder: ArticleBuilder, converter: _JatsConverter, sub_article: etree._Element) -> None:
    """A <sub-article article-type="translation">: its title, abstracts and body, as translation blocks."""
    language = sub_article.get(_XML_LANG)
    front = _child(sub_article, "front-stub")
    front = front if front is not None else _child(sub_article, "front")
    if front is not None:
        meta = _child(front, "article-meta")
        meta = meta if meta is not None else front
        title = _child(_child(meta, "title-group"), "article-title")
        if title is not None:
            first_block = len(builder.blocks)
            builder.add_heading(jats_text(title))
            for block in builder.blocks[first_block:]:
                block.is_translation, block.language = True, primary_subtag(language)
        for abstract in [*_children(meta, "abstract"), *_children(meta, "trans-abstract")]:
            _read_translation(builder, converter, abstract, abstract.get(_XML_LANG) or language, heading_role="abstract")
    body = _child(sub_article, "body")
    if body is not None:
        _read_translation(builder, converter, body, language)


# TEI (OpenEdition, HAL): the other XML scholarly articles arrive in --------------------------------------


def _tei_children(element: etree._Element | None, name: str) -> list[etree._Element]:
    return [] if element is None else [child for child in element if local_name(child) == name]


def _tei_first(root: etree._Element, name: str, **attributes: str) -> etree._Element | None:
    for element in root.iter():
        if local_name(element) == name and all(element.get(k) == v for k, v in attributes.items()):
            return element
    return None


def _tei_text(element: etree._Element) -> str:
    return normalise_space(" ".join(element.itertext()))


def read_tei(root: etree._Element, path: Path, warnings: list[str], *, control: JobControl) -> Document:
    """Read a TEI article (OpenEdition's schema): title, abstracts and keywords in each language, sections,
    lists, figures with their "figure-title" captions. The bibliography is left out, as JATS reference lists."""
    text = _tei_first(root, "text")
    builder = ArticleBuilder(path, "jats", control, count_elements(text) if text is not None else 0)
    builder.warnings.extend(warnings)
    header = _tei_first(root, "teiheader")
    title_element = _tei_first(header, "title", type="main") if header is not None else None
    title = _tei_text(title_element) if title_element is not None else None
    language = (text.get(_XML_LANG) if text is not None else None) or root.get(_XML_LANG)
    keywords = {k.get(_XML_LANG): [_tei_text(i) for i in k.iter() if local_name(i) == "item"]
                for k in (header.iter() if header is not None else []) if local_name(k) == "keywords"}
    front = _tei_children(text, "front")
    for abstract in [d for f in front for d in f.iter() if local_name(d) == "div" and d.get("type") == "abstract"]:
        code = primary_subtag(abstract.get(_XML_LANG))
        table = language_table(code)
        builder.in_abstract = True
        builder.add_heading((table.sections.get("abstract") or ("Abstract",))[0])
        for paragraph in abstract.iter():
            if local_name(paragraph) == "p":
                builder.add_block("paragraph", _tei_text(paragraph))
        builder.in_abstract = False
        if keywords.get(abstract.get(_XML_LANG)):
            name = (table.sections.get("keywords") or ("Keywords",))[0]
            builder.add_block("paragraph", f"{name}: {'; '.join(keywords[abstract.get(_XML_LANG)])}")
    main_abstract = builder.abstract_text()
    for body in _tei_children(text, "body"):
        _tei_walk(body, builder)
    return builder.build(title=title, abstract=main_abstract, language=language)


def _tei_walk(element: etree._Element, builder: ArticleBuilder) -> None:
    caption: str | None = None
    for child in element:
        builder.step()
        name = local_name(child)
        if name == "head":
            builder.add_heading(_tei_text(child))
        elif name == "div":
            _tei_walk(child, builder)
        elif name == "p" and (child.get("rend") or "").startswith(("figure-title", "figure-legend")):
            caption = normalise_space(f"{caption or ''} {_tei_text(child)}")
        elif name == "p" and any(local_name(e) in ("figure", "table") for e in child.iter()) or name in ("figure", "table"):
            start = parse_caption_start(caption or "")
            builder.add_captioned_visual(start.kind if start else "figure", caption or "")
            caption = None
        elif name == "list":
            lines = [_tei_text(item) for item in child.iter() if local_name(item) == "item"]
            builder.add_block("list", "\n".join(line for line in lines if line), keep_lines=True)
        elif name in ("p", "quote", "q"):
            builder.add_block("paragraph", _tei_text(child))
