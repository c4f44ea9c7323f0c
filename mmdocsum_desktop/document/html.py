"""HTML articles (saved web pages, Wikipedia) read into a Document, and pieces all article readers share.

The shared pieces live here because HTML is the most general article format: Markdown hands its raw HTML
blocks to the HTML converter, and JATS walks its XML tree with the same non-recursive walker.
"""

from __future__ import annotations

import codecs
import html.entities
import re
from collections import Counter
from collections.abc import Callable, Iterable
from html.parser import HTMLParser as _Tokenizer
from itertools import islice
from pathlib import Path
from typing import Protocol
from urllib.parse import unquote, urlsplit
from urllib.request import url2pathname

import charset_normalizer
from lxml import etree
from lxml import html as lxml_html

from mmdocsum_desktop.document.labels import CaptionStart, VisualKind, parse_caption_start
from mmdocsum_desktop.document.limits import DEFAULT_LIMITS, ReadLimits, split_oversized
from mmdocsum_desktop.errors import CorruptDocumentError, DocumentTooLargeError
from mmdocsum_desktop.fileio import protect_input
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.schemas.document import Block, BlockType, Document, DocumentKind, Figure

# --------------------------------------------------------------------------------------------------
# Decoding bytes into text
# --------------------------------------------------------------------------------------------------

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE, whose BOM is its prefix
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# Browsers read these labels as windows-1252, which is a superset; so do we.
_WINDOWS_1252_ALIASES = {"iso-8859-1", "iso8859-1", "latin-1", "latin1", "us-ascii", "ascii", "l1"}
# What a file that declares no encoding may be in (charset-normalizer's names to Python codec names):
# Windows-1252 is how browsers read Latin-1; UTF-16 without a BOM comes from some Windows editors.
_UNDECLARED = {"utf_8": "utf-8", "cp1252": "cp1252", "utf_16_le": "utf-16-le", "utf_16_be": "utf-16-be"}
# How garbled a decoding may look and still be taken (charset-normalizer's default is 0.2): at 0.2 a
# Windows-1252 page of French sentences or a French text in UTF-16 without a BOM can be rejected as garbled.
_MESS_THRESHOLD = 0.3
_CONTROL_CHARS = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f]")
_BINARY_SAMPLE_CHARS = 65536
_BINARY_BAD_RATIO = 0.05


def decode_text(data: bytes, source_name: str, declared_encoding: str | None = None) -> tuple[str, list[str]]:
    """Decode a text file (BOM first, then the declared encoding, then what charset-normalizer finds) and
    refuse binary data.

    Returns the text, without control characters, and warnings about bytes that had to be replaced.
    """
    warnings: list[str] = []
    encoding = None
    for bom, bom_encoding in _BOMS:
        if data.startswith(bom):
            encoding, data = bom_encoding, data[len(bom) :]
            break
    encoding = encoding or _usable_encoding(declared_encoding)
    undeclared = encoding is None
    if encoding is None:
        encoding = _detected_encoding(data)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError:
        text = data.decode(encoding, errors="replace")
        warnings.append(f"{source_name}: some bytes are not valid {encoding} and were replaced")
    if undeclared and encoding == "cp1252":
        # not UTF-8 at all but a legacy 8-bit file (Latin-1, Windows-1252): every accent is one bad byte
        warnings.append(f"{source_name}: not valid UTF-8; read as Windows-1252 (Latin-1)")
    if _looks_binary(text):
        raise CorruptDocumentError(f"{source_name}: not a readable text file (binary or undecodable data)")
    return _CONTROL_CHARS.sub("", text), warnings


def _usable_encoding(label: str | None) -> str | None:
    if not label:
        return None
    label = label.strip().lower()
    if label in _WINDOWS_1252_ALIASES:
        return "cp1252"
    try:
        name = codecs.lookup(label).name
    except LookupError:
        return None
    # A page that could declare its own encoding in ASCII is not UTF-16/32 (without a BOM, browsers agree).
    return None if name.startswith(("utf-16", "utf-32")) else name


def _detected_encoding(data: bytes) -> str:
    """The encoding of a file that neither starts with a BOM nor declares one. Bytes that decode as UTF-8
    and hold no NUL are UTF-8. Otherwise charset-normalizer picks the decoding that reads as text, among
    Windows-1252 and, where there are NULs (UTF-16 of Latin script has one in every other byte; without
    them a short Latin-1 text decodes as UTF-16 too), UTF-8 and UTF-16. When no decoding reads as text
    (UTF-8 with a few damaged bytes, binary data), UTF-8 with the bad bytes replaced."""
    if b"\x00" in data:
        candidates = list(_UNDECLARED)
    else:
        try:
            data.decode("utf-8")
            return "utf-8"
        except UnicodeDecodeError:
            candidates = ["cp1252"]
    found = charset_normalizer.from_bytes(data, cp_isolation=candidates, threshold=_MESS_THRESHOLD).best()
    return _UNDECLARED[found.encoding] if found is not None else "utf-8"


def _looks_binary(text: str) -> bool:
    # control characters mark binary data; replaced bytes alone do not (a text file with some bad bytes
    # is read with them replaced, as the JATS reader does)
    sample = text[:_BINARY_SAMPLE_CHARS]
    if not sample:
        return False
    return len(_CONTROL_CHARS.findall(sample)) / len(sample) > _BINARY_BAD_RATIO


# --------------------------------------------------------------------------------------------------
# Walking lxml trees without recursion
# --------------------------------------------------------------------------------------------------


class TreeVisitor(Protocol):
    def enter(self, element: etree._Element, depth: int) -> bool:
        """Called at an element's start tag; return False to skip its children (its tail is still read)."""

    def leave(self, element: etree._Element) -> None:
        """Called at the end tag of an element whose children were visited."""

    def text(self, text: str | None) -> None:
        """Character data in document order."""


def walk_tree(root: etree._Element, visitor: TreeVisitor) -> None:
    """Visit ``root``'s subtree depth first with an explicit stack: deep nesting cannot overflow Python's."""
    if not visitor.enter(root, 0):
        return
    visitor.text(root.text)
    stack = [(root, iter(root))]
    while stack:
        parent, children = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            visitor.leave(parent)
            if stack:
                visitor.text(parent.tail)
            continue
        if not isinstance(child.tag, str):
            # Comments and processing instructions carry no text; unexpanded entities may name a character.
            if child.tag is etree.Entity:
                visitor.text(html.entities.html5.get(f"{child.name};", ""))
            visitor.text(child.tail)
            continue
        if visitor.enter(child, len(stack)):
            visitor.text(child.text)
            stack.append((child, iter(child)))
        else:
            visitor.text(child.tail)


def local_name(element: etree._Element) -> str:
    """The element's tag without namespace, lower-cased; empty for comments, PIs and entities."""
    tag = element.tag
    if not isinstance(tag, str):
        return ""
    if tag.startswith("{"):
        tag = tag.split("}", 1)[1]
    return tag.lower()


class _TextCollector:
    def __init__(
        self,
        skip: Callable[[etree._Element], bool],
        substitute: Callable[[etree._Element], str | None],
        separates: Callable[[etree._Element], bool],
    ) -> None:
        self.parts: list[str] = []
        self._skip = skip
        self._substitute = substitute
        self._separates = separates

    def enter(self, element: etree._Element, depth: int) -> bool:
        if depth and self._skip(element):
            return False
        replacement = self._substitute(element)
        if replacement is not None:
            self.parts.append(replacement)
            return False
        if self._separates(element):
            self.parts.append(" ")
        return True

    def leave(self, element: etree._Element) -> None:
        if self._separates(element):
            self.parts.append(" ")

    def text(self, text: str | None) -> None:
        if text:
            self.parts.append(text)


def _never(_: etree._Element) -> bool:
    return False


def _no_substitute(_: etree._Element) -> str | None:
    return None


def collect_text(
    element: etree._Element,
    *,
    skip: Callable[[etree._Element], bool] = _never,
    substitute: Callable[[etree._Element], str | None] = _no_substitute,
    separates: Callable[[etree._Element], bool] = _never,
) -> str:
    """The element's text with whitespace collapsed; ``skip``ped descendants are left out."""
    collector = _TextCollector(skip, substitute, separates)
    walk_tree(element, collector)
    return normalise_space("".join(collector.parts))


def normalise_space(text: str) -> str:
    return " ".join(text.split())


class _ListLineCollector:
    def __init__(
        self,
        lists: frozenset[str],
        items: frozenset[str],
        skip: Callable[[etree._Element], bool],
        substitute: Callable[[etree._Element], str | None],
        separates: Callable[[etree._Element], bool],
    ) -> None:
        self.lines: list[list[str]] = []  # [indent, text parts...]
        self._lists, self._items = lists, items
        self._skip, self._substitute, self._separates = skip, substitute, separates
        self._open_items: list[int] = []
        self._list_depth = 0

    def enter(self, element: etree._Element, depth: int) -> bool:
        if depth and self._skip(element):
            return False
        replacement = self._substitute(element)
        if replacement is not None:
            self.text(replacement)
            return False
        name = local_name(element)
        if name in self._lists:
            self._list_depth += 1
        elif name in self._items:
            self.lines.append(["  " * max(self._list_depth - 1, 0)])
            self._open_items.append(len(self.lines) - 1)
        elif self._separates(element):
            self.text(" ")
        return True

    def leave(self, element: etree._Element) -> None:
        name = local_name(element)
        if name in self._lists:
            self._list_depth -= 1
        elif name in self._items and self._open_items:
            self._open_items.pop()
        elif self._separates(element):
            self.text(" ")

    def text(self, text: str | None) -> None:
        if not text:
            return
        if self._open_items:
            self.lines[self._open_items[-1]].append(text)
        elif text.strip():  # stray text between items (broken markup) keeps a line of its own
            self.lines.append(["", text])


def list_lines(
    list_element: etree._Element,
    *,
    lists: frozenset[str],
    items: frozenset[str],
    skip: Callable[[etree._Element], bool] = _never,
    substitute: Callable[[etree._Element], str | None] = _no_substitute,
    separates: Callable[[etree._Element], bool] = _never,
) -> list[str]:
    """One line per list item, nested items indented by two spaces per level."""
    collector = _ListLineCollector(lists, items, skip, substitute, separates)
    walk_tree(list_element, collector)
    lines = []
    for indent, *parts in collector.lines:
        text = normalise_space("".join(parts))
        if text:
            lines.append(indent + text)
    return lines


# --------------------------------------------------------------------------------------------------
# Building a Document: ids, sections, abstract flags, images
# --------------------------------------------------------------------------------------------------

_IMAGE_SUFFIXES = frozenset(
    {".png", ".jpg", ".jpeg", ".gif", ".tif", ".tiff", ".bmp", ".webp", ".svg", ".eps", ".jp2", ".ppm"}
)
_PROGRESS_EVERY = 100


def caption_label(caption: str) -> CaptionStart | None:
    """The label a caption opens with ("Figure 3:", "Table 2."), unless it is a continuation."""
    start = parse_caption_start(caption)
    if start is None or start.continued:
        return None
    return start


class ArticleBuilder:
    """Collects blocks and visuals in reading order, numbering them the way every article reader must.

    Readers set ``in_abstract`` while they are inside the abstract; headings set the section of what follows.
    """

    def __init__(self, source: Path, kind: DocumentKind, control: JobControl, total_steps: int, *,
                 max_chars: int = DEFAULT_LIMITS.max_text_chars) -> None:
        self.source = source
        self.max_chars = max_chars
        self._chars = 0
        self.kind: DocumentKind = kind
        self.control = control
        self.blocks: list[Block] = []
        self.figures: list[Figure] = []
        self.tables: list[Figure] = []
        self.warnings: list[str] = []
        self.section: str | None = None
        self.in_abstract = False
        self._steps = 0
        self._total_steps = max(total_steps, 1)

    def step(self) -> None:
        """Count one unit of work; report progress (and honour cancellation) every few hundred."""
        self._steps += 1
        if self._steps % _PROGRESS_EVERY == 0:
            self.control.report(min(self._steps, self._total_steps), self._total_steps, "blocks")

    def warn(self, message: str) -> None:
        self.warnings.append(message)

    def add_block(self, block_type: BlockType, text: str, *, keep_lines: bool = False) -> Block | None:
        """Append a block unless its text is empty; ``keep_lines`` keeps line breaks (lists, code)."""
        if keep_lines:
            text = "\n".join(line.rstrip() for line in text.strip("\n").splitlines() if line.strip())
        else:
            text = normalise_space(text)
        if not text:
            return None
        self._chars += len(text)
        if self._chars > self.max_chars:
            raise DocumentTooLargeError(
                f"{self.source.name}: more than {self.max_chars / 1e6:g} million characters of text (about "
                f"{self.max_chars // 6500:,} pages), over the limit for HTML, Markdown and JATS documents")
        block = None
        # a paragraph of megabytes (a file on one line) becomes blocks of bounded size (limits.py)
        for piece in split_oversized(text) if block_type in ("paragraph", "list") else [text]:
            block = Block(
                id=f"b{len(self.blocks) + 1}",
                type=block_type,
                text=piece,
                section=self.section,
                is_abstract=self.in_abstract,
            )
            self.blocks.append(block)
        return block

    def add_heading(self, text: str) -> Block | None:
        text = normalise_space(text)
        if not text:
            return None
        self.section = text
        return self.add_block("heading", text)

    def add_visual(
        self,
        kind: VisualKind,
        *,
        caption: str,
        label: str | None,
        caption_block: Block | None = None,
    ) -> Figure:
        collection = self.tables if kind == "table" else self.figures
        index = len(collection) + 1
        visual = Figure(
            id=f"{'tab' if kind == 'table' else 'fig'}{index}",
            kind=kind,
            index=index,
            label=label,
            caption=normalise_space(caption),
            caption_block=caption_block.id if caption_block else None,
        )
        collection.append(visual)
        return visual

    def add_captioned_visual(
        self, kind: VisualKind, caption: str, *, caption_is_visible: bool = True
    ) -> Figure:
        """A visual labelled from its caption's opening; a visible caption also becomes a caption block."""
        start = caption_label(caption)
        if start is not None and kind == "figure" and start.kind == "table":
            kind = "table"
        block = self.add_block("caption", caption) if caption_is_visible else None
        return self.add_visual(
            kind, caption=caption, label=start.label if start else None, caption_block=block
        )

    def attach_image(
        self,
        visual: Figure,
        reference: str | None,
        base_dir: Path,
        *,
        guess_suffixes: Iterable[str] = (),
    ) -> None:
        """Point the visual at a local image file; remote, embedded or missing images only add a warning.

        Only files in the document's folder (or below it) are read: a page that names a file elsewhere
        (``file:///home/…``, an absolute path, ``../../``) must not carry the user's private files into
        summaries, exports and project files."""
        if not reference or not reference.strip():
            return
        reference = reference.strip()
        path = self._local_path(visual, reference)
        if path is None:
            return
        candidates = [path if path.is_absolute() else base_dir / path]
        if path.suffix.lower() not in _IMAGE_SUFFIXES:
            candidates += [candidates[0].with_name(candidates[0].name + suffix) for suffix in guess_suffixes]
        outside = False
        for candidate in candidates:
            try:
                resolved = candidate.resolve()
                if not resolved.is_relative_to(base_dir.resolve()):
                    outside = True  # decided before looking: not even whether the file exists is told
                    continue
                if resolved.is_file():
                    visual.source_image = str(resolved)
                    protect_input(resolved)  # the article's own image: no output of this process replaces it
                    return
            except (OSError, RuntimeError, ValueError):  # too long or unusable; a link loop; a NUL (%00)
                continue
        if outside:
            self.warn(f"{visual.id}: image {_shorten(reference)} is outside the document's folder and was not read")
        else:
            self.warn(f"{visual.id}: image {_shorten(reference)} not found")

    def _local_path(self, visual: Figure, reference: str) -> Path | None:
        parts = urlsplit(reference)
        scheme = parts.scheme.lower()
        if reference.startswith("//") or scheme in {"http", "https", "ftp", "ftps"}:
            self.warn(f"{visual.id}: image {_shorten(reference)} is remote and was not fetched")
            return None
        if scheme == "data":
            self.warn(f"{visual.id}: embedded data: image was skipped")
            return None
        if scheme == "file":
            return Path(url2pathname(parts.path))
        if len(scheme) > 1:  # one letter is a Windows drive, not a scheme
            self.warn(f"{visual.id}: image {_shorten(reference)} is not a local file")
            return None
        if len(scheme) == 1:
            return Path(reference)
        return Path(unquote(parts.path)) if parts.path else None

    def build(self, *, title: str | None, abstract: str | None, language: str | None) -> Document:
        if not self.blocks:
            self.warn(f"{self.source.name}: no text found")
        self.control.report(self._total_steps, self._total_steps, "blocks")
        return Document(
            source=str(self.source),
            kind=self.kind,
            title=normalise_space(title) if title and title.strip() else None,
            abstract=abstract or None,
            language=language.strip() if language and language.strip() else None,
            blocks=self.blocks,
            figures=self.figures,
            tables=self.tables,
            warnings=self.warnings,
        )

    def abstract_text(self) -> str | None:
        text = "\n\n".join(
            b.text for b in self.blocks if b.is_abstract and b.type not in {"heading", "caption"}
        )
        return text or None


def _shorten(reference: str, limit: int = 120) -> str:
    return reference if len(reference) <= limit else reference[: limit - 1] + "…"


def starts_abstract(heading: str) -> bool:
    return normalise_space(heading).rstrip(":.").lower() == "abstract"


# --------------------------------------------------------------------------------------------------
# HTML parsing
# --------------------------------------------------------------------------------------------------

_META_CHARSET = re.compile(rb"""<meta[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9_.:\-]+)""", re.IGNORECASE)
_XML_ENCODING = re.compile(rb"""^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9_.:\-]+)""", re.IGNORECASE)
# libxml2 refuses to nest deeper than 256 elements and drops everything after; stay clear of that.
LIBXML_SAFE_DEPTH = 240
_VOID_ELEMENTS = frozenset("area base br col embed hr img input link meta param source track wbr".split())
_SELF_CLOSING_SIBLINGS = frozenset({"p", "li", "dt", "dd", "tr", "td", "th", "option"})
_WRITTEN_NAME = re.compile(r"<\s*([^\s/>]+)")
_XML_DOCTYPE = re.compile(r"<!DOCTYPE\b[^\[>]*(?:\[.*?\]\s*)?>", re.DOTALL | re.IGNORECASE)


def parse_html_text(text: str) -> tuple[etree._Element | None, list[str]]:
    """Parse HTML leniently, never touching the network; pathologically deep markup is flattened first."""
    root, limits_hit = _parse_html_once(text, huge=False)
    if not limits_hit:
        return root, []
    warnings: list[str] = []
    if any("excessive depth" in message.lower() for message in limits_hit):
        text = flatten_deep_markup(text, LIBXML_SAFE_DEPTH)
        warnings.append("markup nested too deeply; the deepest elements were flattened")
    # The other limits (a text or an attribute over 10 MB) drop the rest of the page. Lifting them is safe
    # here: the HTML parser expands no entities, and read_document caps the file's size.
    root, limits_hit = _parse_html_once(text, huge=True)
    if limits_hit:
        warnings.append("part of the markup could not be read")
    return root, warnings


def _parse_html_once(text: str, *, huge: bool) -> tuple[etree._Element | None, list[str]]:
    """The tree (None when nothing could be read) and the messages of the libxml2 limits it ran into."""
    parser = lxml_html.HTMLParser(
        encoding="utf-8", remove_comments=True, remove_pis=True, no_network=True, recover=True, huge_tree=huge
    )
    try:
        root = etree.fromstring(text.encode("utf-8", errors="replace"), parser)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        root = None
    return root, [entry.message for entry in parser.error_log if entry.type_name == "ERR_RESOURCE_LIMIT"]


class _DepthFlattener(_Tokenizer):
    """Re-emits markup with every tag deeper than ``max_depth`` dropped (their text is kept).

    In ``xml`` mode names keep their case, no element is void or closed by a sibling, CDATA sections
    are kept and the DOCTYPE (whose internal subset this tokenizer cannot read) is left out."""

    def __init__(self, max_depth: int, *, xml: bool = False) -> None:
        super().__init__(convert_charrefs=False)
        self.max_depth = max_depth
        self.xml = xml
        if xml:
            # <script> and <style> are ordinary elements in XML. typeshed marks the attribute Final, but
            # HTMLParser reads it from the instance, and setting it there is how it is turned off.
            self.CDATA_CONTENT_ELEMENTS = ()  # type: ignore[misc]
        self.out: list[str] = []
        # (the tokenizer's lower-cased name, the name as written: XML end tags must repeat its case)
        self._open: list[tuple[str, str]] = []
        self._open_counts: Counter[str] = Counter()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if not self.xml and tag in _SELF_CLOSING_SIBLINGS and self._open and self._open[-1][0] == tag:
            self._pop()
        start_tag = self.get_starttag_text() or ""
        if not self.xml and tag in _VOID_ELEMENTS:
            self.out.append(start_tag)
            return
        if len(self._open) >= self.max_depth:
            return
        written = _WRITTEN_NAME.match(start_tag)
        self._open.append((tag, written.group(1) if self.xml and written else tag))
        self._open_counts[tag] += 1
        self.out.append(start_tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if len(self._open) < self.max_depth or (not self.xml and tag in _VOID_ELEMENTS):
            self.out.append(self.get_starttag_text() or "")

    def handle_endtag(self, tag: str) -> None:
        # An end tag with no open element of that name is stray (or belonged to a dropped one).
        if not self._open_counts[tag]:
            return
        while self._open and self._pop() != tag:
            pass

    def _pop(self) -> str:
        tag, written = self._open.pop()
        self._open_counts[tag] -= 1
        self.out.append(f"</{written}>")
        return tag

    def close_open_elements(self) -> None:
        while self._open:
            self._pop()

    def handle_data(self, data: str) -> None:
        self.out.append(data)

    def handle_entityref(self, name: str) -> None:
        self.out.append(f"&{name};")

    def handle_charref(self, name: str) -> None:
        self.out.append(f"&#{name};")

    def handle_decl(self, decl: str) -> None:
        if not self.xml:
            self.out.append(f"<!{decl}>")

    def unknown_decl(self, data: str) -> None:
        if self.xml and data.startswith("CDATA["):
            self.out.append(f"<![{data}]]>")


def flatten_deep_markup(text: str, max_depth: int, *, xml: bool = False) -> str:
    """``text`` with no element nested deeper than ``max_depth``: deeper tags are dropped, text is kept."""
    flattener = _DepthFlattener(max_depth, xml=xml)
    flattener.feed(_XML_DOCTYPE.sub("", text, count=1) if xml else text)
    flattener.close()
    if xml:  # a truncated file: close what is open, so the XML parser need not guess
        flattener.close_open_elements()
    return "".join(flattener.out)


# --------------------------------------------------------------------------------------------------
# HTML to blocks and visuals
# --------------------------------------------------------------------------------------------------

_INLINE_TAGS = frozenset(
    """a abbr acronym b bdi bdo big cite code data del dfn em font i ins kbd label mark nobr q rp rt ruby
    s samp small span strike strong sub sup time tt u var wbr""".split()
)
_HEADING_LEVELS = {f"h{level}": level for level in range(1, 7)}
_LIST_TAGS = frozenset({"ul", "ol", "menu"})
# Never content: code, styling, embedded documents, interactive widgets and page chrome.
_IGNORED_TAGS = frozenset(
    """script style noscript template iframe frame frameset object embed applet canvas svg audio map area
    form button input select textarea option datalist dialog nav footer head title meta link base""".split()
)
_CHROME_ROLES = frozenset(
    {"navigation", "banner", "contentinfo", "search", "menu", "menubar", "toolbar", "dialog"}
)
_CHROME_CLASS_FRAGMENTS = (
    "navbox",
    "mw-editsection",
    "noprint",
    "catlinks",
    "mw-jump-link",
    "printfooter",
    "reflist",
    "mw-references",
    "mw-cite-backlink",
    "hatnote",
    "shortdescription",
    "mw-indicator",
    "mw-portlet",
    "sistersitebox",
    "side-box",
    "portalbox",
    "authority-control",
    "vector-menu",
    "vector-dropdown",
    "vector-toc",
    "vector-page-toolbar",
    "vector-body-before-content",
    "vector-sticky",
    "vector-pinnable",
    "breadcrumb",
    "skip-link",
    "sr-only",
    "visually-hidden",
)
# Matched as whole class tokens or ids: as fragments they would also hit ordinary names.
_CHROME_TOKENS = frozenset(
    {"toc", "reference", "references", "sidebar", "sitesub", "contentsub", "jump-to-nav"}
)
_VISUAL_CONTENT_TAGS = frozenset({"img", "picture", "video", "svg", "canvas", "table", "object", "embed"})
_DECORATIVE_MAX_PIXELS = 48
_MAX_ABSTRACT_HEADINGS = 3
_DISPLAYSTYLE = re.compile(r"^\{\\displaystyle\s*(.*)\}$", re.DOTALL)


def _classes_and_id(element: etree._Element) -> tuple[list[str], str]:
    return (element.get("class") or "").lower().split(), (element.get("id") or "").lower()


def is_page_chrome(element: etree._Element) -> bool:
    """Navigation, hidden and reference-marker elements that are not part of the article's text."""
    tag = local_name(element)
    if tag in _IGNORED_TAGS:
        return True
    if tag == "header" and element.find(".//h1") is None:
        return True
    if element.get("hidden") is not None or (element.get("aria-hidden") or "").lower() == "true":
        return True
    if (element.get("role") or "").lower() in _CHROME_ROLES:
        return True
    classes, element_id = _classes_and_id(element)
    if element_id in _CHROME_TOKENS or any(token in _CHROME_TOKENS for token in classes):
        return True
    return any(fragment in token for token in classes for fragment in _CHROME_CLASS_FRAGMENTS)


def _separates_text(element: etree._Element) -> bool:
    return local_name(element) not in _INLINE_TAGS


def math_text(element: etree._Element) -> str:
    """TeX for a MathML <math> when the page carries it, else the MathML's own characters."""
    for annotation in element.iter("{*}annotation"):
        if "tex" in (annotation.get("encoding") or "").lower() and annotation.text:
            return annotation.text.strip()
    alternative = (element.get("alttext") or "").strip()
    if alternative:
        match = _DISPLAYSTYLE.match(alternative)
        return match.group(1).strip() if match else alternative
    return collect_text(element, skip=lambda e: local_name(e) in {"annotation", "annotation-xml"})


def _substitute_inline(element: etree._Element) -> str | None:
    tag = local_name(element)
    if tag == "math":
        return f" {math_text(element)} "
    if tag in {"img", "br"}:
        return " "
    return None


def html_text(element: etree._Element) -> str:
    """Visible text of an HTML element, without chrome such as "[edit]" links or "[12]" reference markers."""
    return collect_text(
        element, skip=is_page_chrome, substitute=_substitute_inline, separates=_separates_text
    )


def _pixel_size(value: str | None) -> int | None:
    match = re.match(r"\s*(\d+)", value or "")
    return int(match.group(1)) if match else None


def _image_reference(element: etree._Element) -> str | None:
    """An <img>'s src (or lazy-loading data-src, or first srcset candidate); a <video>'s poster frame."""
    tag = local_name(element)
    if tag == "video":
        return element.get("poster")
    if tag == "img":
        for attribute in ("src", "data-src"):
            value = (element.get(attribute) or "").strip()
            if value:
                return value
        candidates = (element.get("srcset") or "").split()
        return candidates[0].rstrip(",") if candidates else None
    return None


class HtmlConverter:
    """Turns an HTML tree into blocks and visuals on an ArticleBuilder, in document order."""

    def __init__(self, builder: ArticleBuilder, base_dir: Path, limits: ReadLimits) -> None:
        self.builder = builder
        self.base_dir = base_dir
        self.max_depth = max(limits.max_html_depth, 1)
        self.first_h1: str | None = None
        self._paragraph: list[str] = []
        # Lists and data tables are read whole at their start; their subtree is then walked only for images.
        self._text_muted_by: etree._Element | None = None
        self._abstract_elements: list[etree._Element] = []
        self._abstract_heading_level: int | None = None

    def convert(self, root: etree._Element) -> None:
        walk_tree(root, self)
        self._flush()

    # TreeVisitor ------------------------------------------------------------------------------------

    def enter(self, element: etree._Element, depth: int) -> bool:
        self.builder.step()
        tag = local_name(element)
        if is_page_chrome(element):
            if tag not in _INLINE_TAGS:
                self._flush()
            return False
        if depth >= self.max_depth:
            # Deeper than we follow: keep the text, lose the structure.
            if self._text_muted_by is None:
                self._flush()
                self.builder.add_block("paragraph", html_text(element))
            return False
        if self._text_muted_by is not None:
            return self._enter_muted(element, tag)
        if tag in _INLINE_TAGS:
            return True
        if tag == "br":
            self._paragraph.append(" ")
            return False
        if tag == "math":
            return self._math(element)
        if tag in {"img", "video"}:
            self._loose_image(element)
            return False
        self._flush()
        opens_abstract = self._opens_abstract(element)
        if opens_abstract:
            self._abstract_elements.append(element)
            self.builder.in_abstract = True
        descend = self._enter_block(element, tag)
        if opens_abstract and not descend:
            self._leave_abstract(element)
        return descend

    def _enter_block(self, element: etree._Element, tag: str) -> bool:
        if tag in _HEADING_LEVELS:
            self._heading(element, _HEADING_LEVELS[tag])
            return False
        if tag in _LIST_TAGS:
            lines = list_lines(
                element,
                lists=_LIST_TAGS,
                items=frozenset({"li"}),
                skip=is_page_chrome,
                substitute=_substitute_inline,
                separates=_separates_text,
            )
            self.builder.add_block("list", "\n".join(lines), keep_lines=True)
            self._text_muted_by = element
            return True
        if tag == "figure" and _has_visual_content(element):
            self._figure(element)
            return False
        if tag == "table" and not _is_layout_table(element):
            self._table(element)
            self._text_muted_by = element
            return True
        if tag == "pre":
            self.builder.add_block("paragraph", "".join(element.itertext()), keep_lines=True)
            return False
        return True

    def leave(self, element: etree._Element) -> None:
        if element is self._text_muted_by:
            self._text_muted_by = None
        elif local_name(element) not in _INLINE_TAGS:
            self._flush()
        self._leave_abstract(element)

    def text(self, text: str | None) -> None:
        if text and self._text_muted_by is None:
            self._paragraph.append(text)

    # Elements ---------------------------------------------------------------------------------------

    def _leave_abstract(self, element: etree._Element) -> None:
        if self._abstract_elements and self._abstract_elements[-1] is element:
            self._abstract_elements.pop()
            self._abstract_heading_level = None  # an "Abstract" heading inside it ends with it
            self.builder.in_abstract = bool(self._abstract_elements)

    def _enter_muted(self, element: etree._Element, tag: str) -> bool:
        if tag in {"img", "video"}:
            self._loose_image(element)
            return False
        if tag == "figure" and _has_visual_content(element):
            self._figure(element)
            return False
        return tag not in _HEADING_LEVELS and tag != "math"

    def _flush(self) -> None:
        if self._paragraph:
            self.builder.add_block("paragraph", "".join(self._paragraph))
            self._paragraph = []

    def _opens_abstract(self, element: etree._Element) -> bool:
        classes, element_id = _classes_and_id(element)
        if "abstract" not in element_id and not any("abstract" in token for token in classes):
            return False
        # A wrapper around the whole article ("abstract-page") holds many sections; an abstract does not.
        headings = islice(element.iter(*_HEADING_LEVELS), _MAX_ABSTRACT_HEADINGS + 1)
        return sum(1 for _ in headings) <= _MAX_ABSTRACT_HEADINGS

    def _heading(self, element: etree._Element, level: int) -> None:
        text = html_text(element)
        if not text:
            return
        if level == 1 and self.first_h1 is None:
            self.first_h1 = text
        if self._abstract_heading_level is not None and level <= self._abstract_heading_level:
            self._abstract_heading_level = None
            self.builder.in_abstract = bool(self._abstract_elements)
        if starts_abstract(text):
            self._abstract_heading_level = level
            self.builder.in_abstract = True
        self.builder.add_heading(text)

    def _math(self, element: etree._Element) -> bool:
        formula = math_text(element)
        if (element.get("display") or "").lower() == "block":
            self._flush()
            self.builder.add_block("equation", formula)
        else:
            self._paragraph.append(f" {formula} ")
        return False

    def _figure(self, figure: etree._Element) -> None:
        caption_element = next(figure.iter("figcaption"), None)
        table = next(figure.iter("table"), None)
        image = _first_image(figure)
        if caption_element is not None:
            caption, visible = html_text(caption_element), True
        elif table is not None and (table_caption := next(table.iter("caption"), None)) is not None:
            caption, visible = html_text(table_caption), True
        else:
            caption, visible = _alternative_text(image) if image is not None else "", False
        kind: VisualKind = "table" if table is not None and image is None else "figure"
        visual = self.builder.add_captioned_visual(kind, caption, caption_is_visible=visible)
        if image is not None:
            self.builder.attach_image(visual, _image_reference(image), self.base_dir)

    def _table(self, table: etree._Element) -> None:
        caption_element = next((child for child in table if local_name(child) == "caption"), None)
        caption = html_text(caption_element) if caption_element is not None else ""
        self.builder.add_captioned_visual("table", caption)

    def _loose_image(self, image: etree._Element) -> None:
        if _is_decorative(image):
            return
        reference = _image_reference(image)
        if not reference:
            return
        visual = self.builder.add_captioned_visual(
            "figure", _alternative_text(image), caption_is_visible=False
        )
        self.builder.attach_image(visual, reference, self.base_dir)


def _first_image(container: etree._Element) -> etree._Element | None:
    for element in container.iter("img", "video"):
        if _image_reference(element):
            return element
    return None


def _alternative_text(image: etree._Element) -> str:
    return normalise_space(image.get("alt") or "") or normalise_space(image.get("title") or "")


def _is_decorative(image: etree._Element) -> bool:
    if (image.get("role") or "").lower() in {"presentation", "none"}:
        return True
    if "mwe-math" in (image.get("class") or ""):
        return True  # Wikipedia's fallback picture of a formula whose MathML we already read
    sizes = [_pixel_size(image.get("width")), _pixel_size(image.get("height"))]
    return any(size is not None and size < _DECORATIVE_MAX_PIXELS for size in sizes)


def _has_visual_content(figure: etree._Element) -> bool:
    # <figure> also wraps quotations and code listings; those are text, not visuals.
    return any(local_name(element) in _VISUAL_CONTENT_TAGS for element in figure.iter())


def _is_layout_table(table: etree._Element) -> bool:
    """Tables used to lay out a page (role=presentation, or holding headings) are read as text."""
    if (table.get("role") or "").lower() in {"presentation", "none"}:
        return True
    return next(table.iter(*_HEADING_LEVELS), None) is not None


def _content_root(root: etree._Element) -> etree._Element:
    """The page's main content when it marks one (<main>, role=main), else <body>."""
    main = next(root.iter("main"), None)
    if main is None:
        main = next((e for e in root.iter() if (e.get("role") or "").lower() == "main"), None)
    if main is not None:
        return main
    return next(root.iter("body"), root)


def _page_title(root: etree._Element, first_h1: str | None) -> str | None:
    title_element = root.find("head/title")
    title = normalise_space(title_element.text_content()) if title_element is not None else ""
    # <title> usually carries the site's name too ("Duck - Wikipedia"); the <h1> inside it does not.
    if first_h1 and (not title or first_h1.lower() in title.lower()):
        return first_h1
    return title or first_h1


def _page_language(root: etree._Element) -> str | None:
    return root.get("lang") or root.get("{http://www.w3.org/XML/1998/namespace}lang") or root.get("xml:lang")


def declared_html_encoding(data: bytes) -> str | None:
    head = data[:4096]
    match = _XML_ENCODING.match(head) or _META_CHARSET.search(head)
    return match.group(1).decode("ascii") if match else None


def count_elements(root: etree._Element) -> int:
    return sum(1 for _ in root.iter())


def read_html(path: Path, *, limits: ReadLimits, control: JobControl) -> Document:
    """Read a saved HTML page: headings, paragraphs, lists, figures, tables; never fetches anything."""
    data = path.read_bytes()
    text, warnings = decode_text(data, path.name, declared_html_encoding(data))
    root, parse_warnings = parse_html_text(text) if text.strip() else (None, [])
    content = _content_root(root) if root is not None else None
    builder = ArticleBuilder(path, "html", control, count_elements(content) if content is not None else 0,
                             max_chars=limits.max_text_chars)
    builder.warnings.extend(warnings)
    builder.warnings.extend(f"{path.name}: {warning}" for warning in parse_warnings)
    if root is None or content is None:
        return builder.build(title=None, abstract=None, language=None)
    converter = HtmlConverter(builder, path.parent, limits)
    converter.convert(content)
    return builder.build(
        title=_page_title(root, converter.first_h1),
        abstract=builder.abstract_text(),
        language=_page_language(root),
    )
