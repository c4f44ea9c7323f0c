"""Markdown articles read into a Document from markdown-it tokens (CommonMark plus tables)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree
from markdown_it import MarkdownIt
from markdown_it.token import Token

from mmdocsum_desktop.document.html import (
    ArticleBuilder,
    HtmlConverter,
    caption_label,
    decode_text,
    local_name,
    normalise_space,
    parse_html_text,
    starts_abstract,
)
from mmdocsum_desktop.document.limits import ReadLimits
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.schemas.document import Block, Document

_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_FRONT_MATTER_FIELD = re.compile(r"^(title|lang|language)\s*:\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
_DISPLAY_MATH = (("$$", "$$"), ("\\[", "\\]"))
_MATH_FENCES = frozenset({"math", "latex", "tex", "katex"})
# Pandoc writes a table's caption as a paragraph "Table: ..." (or ": ...") next to the table.
_PANDOC_TABLE_CAPTION = re.compile(r"^(?:Table)?:\s+(.*)$", re.DOTALL)
# Each re-parse after markdown-it's nesting limit reads at least one more line; hostile input gets a few.
_MAX_REPARSES = 20
# A table becomes a visual with its caption; its rows are never read. markdown-it still makes some ten
# tokens per cell, and an 8 MB table took 5.5 GB (690 bytes of memory per input byte): rows past this many
# are not parsed (benchmarks/bench_memory_per_byte.py measures what every format takes).
TABLE_ROWS_PARSED = 50
_TABLE_DELIMITER = re.compile(r"^\s{0,3}\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")
_FENCE_OPENING = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
# lines that end a table in markdown-it (its "blockquote" terminators): quote, fence, heading, list, html
_ENDS_TABLE = re.compile(r"^\s{0,3}(?:>|`{3}|~{3}|#{1,6}(?:\s|$)|[-+*]\s|\d{1,9}[.)]\s|<)")


@dataclass
class _Inline:
    """A paragraph's content split into its text (line breaks kept) and the images it holds."""

    text: str = ""
    images: list[Token] = field(default_factory=list)
    html_images: list[str] = field(default_factory=list)
    emphasised_whole: bool = False

    @property
    def has_images(self) -> bool:
        return bool(self.images or self.html_images)

    @property
    def image_count(self) -> int:
        return len(self.images) + len(self.html_images)


def _front_matter(text: str) -> tuple[dict[str, str], str]:
    """YAML-style front matter's title and language (a tiny subset is enough), and the text without it."""
    match = _FRONT_MATTER.match(text)
    if not match:
        return {}, text
    fields = {key.lower(): value.strip("'\"") for key, value in _FRONT_MATTER_FIELD.findall(match.group(1))}
    return fields, text[match.end() :]


def _split_inline(token: Token) -> _Inline:
    result = _Inline()
    parts: list[str] = []
    emphasis_depth = 0
    text_outside_emphasis = False
    for child in token.children or []:
        kind = child.type
        if kind in {"softbreak", "hardbreak"}:
            parts.append("\n")
        elif kind == "image":
            result.images.append(child)
        elif kind in {"text", "code_inline"}:
            parts.append(child.content)
            text_outside_emphasis |= emphasis_depth == 0 and bool(child.content.strip())
        elif kind == "html_inline":
            if re.match(r"<img\b", child.content, re.IGNORECASE):
                result.html_images.append(child.content)
            elif re.match(r"<br\b", child.content, re.IGNORECASE):
                parts.append("\n")
        elif kind in {"em_open", "strong_open"}:
            emphasis_depth += 1
        elif kind in {"em_close", "strong_close"}:
            emphasis_depth -= 1
    result.text = "".join(parts)
    result.emphasised_whole = bool(result.text.strip()) and not text_outside_emphasis
    return result


def _caption_like(inline: _Inline) -> bool:
    """A paragraph reads as a caption when it opens like one ("Figure 2:") or is wholly in italics."""
    start = caption_label(normalise_space(inline.text))
    return (start is not None and start.strong) or inline.emphasised_whole


def _image_only(inline: _Inline) -> bool:
    return inline.has_images and not inline.text.strip()


def _first_line_and_rest(text: str) -> tuple[str, str]:
    first, _, rest = text.partition("\n")
    return first, rest


def _display_math(text: str) -> str | None:
    stripped = text.strip()
    for opening, closing in _DISPLAY_MATH:
        if (
            stripped.startswith(opening)
            and stripped.endswith(closing)
            and len(stripped) > len(opening + closing)
        ):
            return stripped[len(opening) : -len(closing)].strip()
    return None


class _MarkdownConverter:
    def __init__(self, builder: ArticleBuilder, base_dir: Path, limits: ReadLimits) -> None:
        self.builder = builder
        self.base_dir = base_dir
        self.limits = limits
        self.first_h1: str | None = None
        self._abstract_heading_level: int | None = None

    def convert(self, tokens: list[Token]) -> None:
        position = 0
        while position < len(tokens):
            self.builder.step()
            position = self._convert_at(tokens, position)

    def _convert_at(self, tokens: list[Token], position: int) -> int:
        token = tokens[position]
        kind = token.type
        if kind == "heading_open":
            self._heading(int(token.tag[1:]), tokens[position + 1])
            return position + 3
        if kind == "paragraph_open":
            return self._paragraph(tokens, position)
        if kind in {"bullet_list_open", "ordered_list_open"}:
            return self._list(tokens, position)
        if kind == "table_open":
            return self._table(tokens, position)
        if kind in {"fence", "code_block"}:
            if token.info.strip().lower() in _MATH_FENCES:
                self.builder.add_block("equation", token.content)
            else:
                self.builder.add_block("paragraph", token.content, keep_lines=True)
        elif kind == "html_block":
            self._html(token.content)
        return position + 1

    def _heading(self, level: int, inline: Token) -> None:
        text = normalise_space(_split_inline(inline).text)
        if not text:
            return
        if level == 1 and self.first_h1 is None:
            self.first_h1 = text
        if self._abstract_heading_level is not None and level <= self._abstract_heading_level:
            self._abstract_heading_level = None
            self.builder.in_abstract = False
        if starts_abstract(text):
            self._abstract_heading_level = level
            self.builder.in_abstract = True
        self.builder.add_heading(text)

    def _paragraph(self, tokens: list[Token], position: int) -> int:
        """Handle paragraph_open at ``position``; return the index after everything consumed."""
        inline = _split_inline(tokens[position + 1])
        after = position + 3
        if not inline.has_images:
            equation = _display_math(inline.text)
            if equation is not None:
                self.builder.add_block("equation", equation)
            else:
                self.builder.add_block("paragraph", inline.text)
            return after
        if _image_only(inline) or self._image_then_caption(inline):
            return self._captioned_image(inline, tokens, after)
        self.builder.add_block("paragraph", inline.text)
        self._images_with_alt_captions(inline)
        return after

    def _image_then_caption(self, inline: _Inline) -> bool:
        # "![..](..)" with the caption on the next line of the same paragraph: text only after the break.
        first_line, rest = _first_line_and_rest(inline.text)
        return not first_line.strip() and bool(rest.strip())

    def _captioned_image(self, inline: _Inline, tokens: list[Token], after: int) -> int:
        single = inline.image_count == 1
        _, same_paragraph_text = _first_line_and_rest(inline.text)
        caption_text: str | None = None
        if same_paragraph_text.strip():
            # The text under the image is its caption only if it reads like one; else it is a paragraph.
            below = _Inline(text=same_paragraph_text, emphasised_whole=inline.emphasised_whole)
            if single and _caption_like(below):
                caption_text = same_paragraph_text
            else:
                self.builder.add_block("paragraph", same_paragraph_text)
        elif single and after + 2 < len(tokens) and tokens[after].type == "paragraph_open":
            following = _split_inline(tokens[after + 1])
            if not following.has_images and _caption_like(following):
                caption_text = following.text
                after += 3
        if caption_text is None:
            self._images_with_alt_captions(inline)
            return after
        visual = self.builder.add_captioned_visual("figure", caption_text)
        if inline.images:
            source = inline.images[0].attrGet("src")
            self.builder.attach_image(visual, str(source) if source else None, self.base_dir)
        else:
            self.builder.attach_image(visual, self._html_image_source(inline.html_images[0]), self.base_dir)
        return after

    def _images_with_alt_captions(self, inline: _Inline) -> None:
        for image in inline.images:
            title = image.attrGet("title")
            caption = normalise_space(image.content) or normalise_space(str(title or ""))
            visual = self.builder.add_captioned_visual("figure", caption, caption_is_visible=False)
            source = image.attrGet("src")
            self.builder.attach_image(visual, str(source) if source else None, self.base_dir)
        for markup in inline.html_images:
            self._html(markup)

    def _list(self, tokens: list[Token], position: int) -> int:
        lines: list[str] = []
        depth = 0
        images: list[_Inline] = []
        while position < len(tokens):
            token = tokens[position]
            self.builder.step()
            if token.type in {"bullet_list_open", "ordered_list_open"}:
                depth += 1
            elif token.type in {"bullet_list_close", "ordered_list_close"}:
                depth -= 1
                if depth == 0:
                    break
            elif token.type == "list_item_open":
                lines.append("  " * (depth - 1))
            elif token.type == "inline":
                if not lines:
                    lines.append("")
                inline = _split_inline(token)
                lines[-1] = f"{lines[-1]}{' ' if lines[-1].strip() else ''}{normalise_space(inline.text)}"
                if inline.has_images:
                    images.append(inline)
            elif token.type in {"fence", "code_block"} and lines:
                lines[-1] += " " + normalise_space(token.content)
            position += 1
        self.builder.add_block("list", "\n".join(lines), keep_lines=True)
        for inline in images:
            self._images_with_alt_captions(inline)
        return position + 1

    def _table(self, tokens: list[Token], position: int) -> int:
        end = position
        while end < len(tokens) and tokens[end].type != "table_close":
            end += 1
        caption, caption_block, after = self._table_caption(tokens, position, end + 1)
        start = caption_label(caption)
        self.builder.add_visual(
            "table", caption=caption, label=start.label if start else None, caption_block=caption_block
        )
        return after

    def _table_caption(
        self, tokens: list[Token], table_start: int, after: int
    ) -> tuple[str, Block | None, int]:
        """The paragraph right before the table ("Table 2: ...") or right after it ("Table: ...")."""
        previous = self.builder.blocks[-1] if self.builder.blocks else None
        if (
            previous is not None
            and previous.type == "paragraph"
            and table_start > 0
            and tokens[table_start - 1].type == "paragraph_close"
            and (start := caption_label(previous.text)) is not None
            and start.kind == "table"
            and start.strong
        ):
            previous.type = "caption"
            return previous.text, previous, after
        if after + 2 < len(tokens) and tokens[after].type == "paragraph_open":
            following = normalise_space(_split_inline(tokens[after + 1]).text)
            pandoc = _PANDOC_TABLE_CAPTION.match(following)
            start = caption_label(following)
            if pandoc or (start is not None and start.kind == "table" and start.strong):
                caption = pandoc.group(1) if pandoc else following
                return caption, self.builder.add_block("caption", caption), after + 3
        return "", None, after

    def _html(self, markup: str) -> None:
        """Raw HTML inside Markdown is read like an HTML page."""
        body = self._parse_html(markup)
        if body is not None:
            HtmlConverter(self.builder, self.base_dir, self.limits).convert(body)

    def _html_image_source(self, markup: str) -> str | None:
        body = self._parse_html(markup)
        image = next((e for e in body.iter() if local_name(e) == "img"), None) if body is not None else None
        return image.get("src") if image is not None else None

    def _parse_html(self, markup: str) -> etree._Element | None:
        root, warnings = parse_html_text(markup)
        self.builder.warnings.extend(f"{self.builder.source.name}: {warning}" for warning in warnings)
        return next(root.iter("body"), root) if root is not None else None


def _parse_blocks(parser: MarkdownIt, text: str) -> tuple[list[Token], list[str]]:
    """The block tokens of ``text``, and warnings.

    Once lists or quotes nest deeper than markdown-it's maxNesting (about ten lists), it skips the rest
    of the document. That rest is parsed again with its indentation removed: the text is kept, the deep
    structure is lost."""
    tokens = parser.parse(text)
    nesting_limit = parser.options.maxNesting
    if not tokens or max(token.level for token in tokens) < nesting_limit - 1:
        return tokens, []
    lines = text.splitlines()
    start = 0
    for _ in range(_MAX_REPARSES):
        chunk = lines[start:]
        parsed = tokens if start == 0 else parser.parse("\n".join(line.lstrip() for line in chunk))
        if start:
            tokens = tokens + parsed
        # what was read ends with the last self-contained token (paragraph text, code, html)
        read_to = max((token.map[1] for token in parsed if token.nesting == 0 and token.map), default=0)
        if not any(line.strip() for line in chunk[read_to:]):
            break
        start += max(read_to, 1)
    else:
        return tokens, ["lists or quotes nested too deeply; the rest of the document could not be read"]
    if start == 0:  # a deep quote ends where it ends: only what is inside its deepest levels was lost
        return tokens, ["quotes or lists nested too deeply; their deepest levels were left out"]
    return tokens, ["lists or quotes nested too deeply; the rest of the document was read with them flattened"]


def shorten_tables(text: str, rows: int = TABLE_ROWS_PARSED) -> str:
    """``text`` with each table's rows after the first ``rows`` left out (fenced code untouched). A table
    runs from its delimiter row ("| --- | --- |") to a blank line, a line without "|" or a line that
    starts another block; stopping early only keeps more rows."""
    if text.count("\n") <= rows:
        return text
    kept: list[str] = []
    fence: str | None = None
    in_table, seen = False, 0
    previous = ""
    for line in text.split("\n"):
        if fence is not None:
            if line.strip().startswith(fence) and set(line.strip()) == {fence[0]}:
                fence = None
            kept.append(line)
        elif in_table and line.strip() and "|" in line and not _ENDS_TABLE.match(line):
            seen += 1
            if seen <= rows:
                kept.append(line)
        else:
            in_table, seen = False, 0
            opening = _FENCE_OPENING.match(line)
            if opening:
                fence = opening.group(1)
            elif "|" in previous and "-" in line and _TABLE_DELIMITER.match(line):
                in_table = True
            kept.append(line)
        previous = line
    return "\n".join(kept)


def read_markdown(path: Path, *, limits: ReadLimits, control: JobControl) -> Document:
    """Read a Markdown file: headings, paragraphs, lists, code, $$ math, images with captions, tables."""
    text, warnings = decode_text(path.read_bytes(), path.name)
    fields, body = _front_matter(text)
    body = shorten_tables(body)
    parser = MarkdownIt("commonmark", {"html": True}).enable("table")
    tokens, parse_warnings = _parse_blocks(parser, body)
    builder = ArticleBuilder(path, "markdown", control, len(tokens), max_chars=limits.max_text_chars)
    builder.warnings.extend(warnings)
    builder.warnings.extend(f"{path.name}: {warning}" for warning in parse_warnings)
    converter = _MarkdownConverter(builder, path.parent, limits)
    converter.convert(tokens)
    return builder.build(
        title=fields.get("title") or converter.first_h1,
        abstract=builder.abstract_text(),
        language=fields.get("lang") or fields.get("language"),
    )
