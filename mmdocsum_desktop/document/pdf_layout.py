"""Page layout from PyMuPDF primitives: text lines grouped into blocks, graphics grouped into pictures.

Nothing here decides what a figure is; it prepares the pieces (lines, blocks, graphic rectangles)
that figures.py pairs with captions and reading_order.py puts in order.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pymupdf

from mmdocsum_desktop.document.labels import CaptionStart, parse_caption_start
from mmdocsum_desktop.document.normalize import SOFT_HYPHEN, normalize_line, search_key

Rect = tuple[float, float, float, float]

TEXT_FLAGS = (
    pymupdf.TEXT_PRESERVE_LIGATURES
    | pymupdf.TEXT_PRESERVE_WHITESPACE
    | pymupdf.TEXT_MEDIABOX_CLIP
    | pymupdf.TEXT_DEHYPHENATE
)


@dataclass(eq=False)
class Line:
    bbox: Rect
    text: str
    size: float
    font: str
    bold: bool
    italic: bool
    first_span_font: str
    first_span_bold: bool
    horizontal: bool
    block_number: int
    gappy: bool  # wide gaps between spans: a table row or figure labels, not running prose
    upward: bool = False  # set sideways, read bottom to top (a rotated table's caption): lines stack rightwards


@dataclass(eq=False)  # blocks are compared by identity: two identical-looking blocks are still two
class TextBlock:
    lines: list[Line]
    caption: CaptionStart | None = None
    role: str = "text"  # text | body | caption | furniture | figure-text
    bbox: Rect = field(init=False)

    def __post_init__(self) -> None:
        self.refresh()

    def refresh(self) -> None:
        self.bbox = union([line.bbox for line in self.lines])

    @property
    def text(self) -> str:
        return join_lines([line.text for line in self.lines])

    @property
    def size(self) -> float:
        weights: Counter[float] = Counter()
        for line in self.lines:
            weights[round(line.size, 1)] += max(1, len(line.text))
        return weights.most_common(1)[0][0]

    @property
    def bold(self) -> bool:
        return all(line.bold for line in self.lines)

    @property
    def width(self) -> float:
        return self.bbox[2] - self.bbox[0]


def union(rects: list[Rect]) -> Rect:
    return (
        min(r[0] for r in rects),
        min(r[1] for r in rects),
        max(r[2] for r in rects),
        max(r[3] for r in rects),
    )


def area(rect: Rect) -> float:
    return max(0.0, rect[2] - rect[0]) * max(0.0, rect[3] - rect[1])


def intersection_area(a: Rect, b: Rect) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def gap(a: Rect, b: Rect) -> float:
    """Distance between two rectangles (0 when they touch or overlap)."""
    dx = max(0.0, max(a[0], b[0]) - min(a[2], b[2]))
    dy = max(0.0, max(a[1], b[1]) - min(a[3], b[3]))
    return max(dx, dy) if min(dx, dy) == 0 else (dx * dx + dy * dy) ** 0.5


def x_overlap(a: Rect, b: Rect) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0]))


def y_overlap(a: Rect, b: Rect) -> float:
    return max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


# a hyphen (also U+2010 and the non-breaking U+2011 that some typesetters break lines at) after a letter
_HYPHEN_END = re.compile(r"[^\W\d_][-\u2010\u2011]$")


def join_lines(texts: list[str], *, mark_breaks: bool = False) -> str:
    """Join text lines, removing hyphens that PyMuPDF left at line ends before a lowercase word.

    ``mark_breaks``: such a hyphen becomes a soft hyphen (U+00AD) instead of nothing, so that
    :func:`~mmdocsum_desktop.document.normalize.normalize_blocks` can keep it where the paper writes the
    compound with its hyphen ("paired-catchment") and join it everywhere else (the soft hyphen is
    removed, as any other)."""
    out = ""
    for text in texts:
        text = text.strip()
        if not text:
            continue
        if not out:
            out = text
        elif out.endswith(SOFT_HYPHEN):
            out = out[:-1] + text  # a discretionary hyphen at the line end: one word
        elif _HYPHEN_END.search(out, len(out) - 2) and text[:1].islower():  # the end only, not all of it again
            out = out[:-1] + (SOFT_HYPHEN if mark_breaks else "") + text
        elif _HYPHEN_END.search(out, len(out) - 2) and text[:1].isdigit():
            out += text  # a name with a number broken after its hyphen ("HEK-/293", "COVID-/19") keeps both
        else:
            out += " " + text
    return out


def extract_lines(page: pymupdf.Page) -> list[Line]:
    lines: list[Line] = []
    # rawdict: every glyph with its box, so that word spaces follow what the page shows (spans_from_glyphs)
    page_dict = page.get_text("rawdict", flags=TEXT_FLAGS, sort=False)
    for block in page_dict["blocks"]:
        for line in block.get("lines", ()):
            horizontal = abs(line.get("dir", (1, 0))[0] - 1) < 0.01
            for span in line["spans"]:
                span["text"] = text_from_glyphs(span["chars"], span["size"], horizontal=horizontal)
    # the spans' text is read first and the few spans of misread fonts read again: most pages have none
    misread = misread_fonts(page_dict["blocks"])
    for block in page_dict["blocks"]:
        for line in block.get("lines", ()):
            horizontal = abs(line.get("dir", (1, 0))[0] - 1) < 0.01
            for span in line["spans"]:
                chars = span.pop("chars", ())
                whole_font = span["font"] in misread
                if whole_font or _is_math_font(span["font"]) and _NOT_IN_MATH.search(span["text"]):
                    chars = [_unreadable_if_misread(char, whole_font) for char in chars]
                    span["text"] = text_from_glyphs(chars, span["size"], horizontal=horizontal)
    _drop_hidden_white_text(page_dict["blocks"])
    for block in page_dict["blocks"]:
        if block.get("type") != 0:
            continue
        for raw in _join_baseline_pieces(block["lines"]):
            spans = [s for s in raw["spans"] if s["text"].strip()]
            if not spans:
                continue
            text = normalize_line(_spans_text(raw["spans"]))
            sizes: Counter[float] = Counter()
            for span in spans:
                sizes[round(span["size"], 1)] += len(span["text"])
            bold = all(_is_bold(s) for s in spans)
            italic = all(s["flags"] & 2 for s in spans)
            direction = raw.get("dir", (1, 0))
            gappy = any(
                b["bbox"][0] - a["bbox"][2] > 2.2 * max(a["size"], 1.0) for a, b in zip(spans, spans[1:])
            )
            lines.append(
                Line(
                    bbox=tuple(raw["bbox"]),
                    text=text,
                    size=sizes.most_common(1)[0][0],
                    font=Counter({s["font"]: len(s["text"]) for s in spans}).most_common(1)[0][0],
                    bold=bold,
                    italic=italic,
                    first_span_font=spans[0]["font"],
                    first_span_bold=_is_bold(spans[0]),
                    horizontal=abs(direction[0] - 1) < 0.01,
                    block_number=block["number"],
                    gappy=gappy,
                    upward=abs(direction[1] + 1) < 0.01,
                )
            )
    return lines


# Word spaces from the glyphs' own positions. PyMuPDF's text decides spaces by its own rule, which loses
# the tight spaces of some typesetters ("willberecordedinthe": the words stand 0.15 em apart, no space
# character between them) and keeps spaces next to ligatures that take no room on the page ("fi rst",
# "infl uenza": the ligature is set as its own glyph run). Between two glyphs of a span:
# - no space character and a gap of at least _MISSING_SPACE_EM of the type size: a space is printed there;
# - a space character next to a ligature (or its letters f, i, l) with the two glyphs around it less than
#   _NO_ROOM_EM apart: the space is not printed, the word goes on.
_MISSING_SPACE_EM = 0.12
_NO_ROOM_EM = 0.05
_OPENS = frozenset("([{")
_CLOSES = frozenset(".,;:)]}%")
_LIGATURE_SIDE = frozenset("fil\ufb00\ufb01\ufb02\ufb03\ufb04\ufb05\ufb06")


def text_from_glyphs(chars: list[dict] | tuple, size: float, *, horizontal: bool = True) -> str:
    """A span's text from its glyphs (PyMuPDF rawdict ``chars``), with word spaces where the page shows them."""
    text = "".join([char["c"] for char in chars])
    if not horizontal or not text:
        return text
    # most spans have neither a gap between their glyphs nor glyphs set over each other (a space that
    # takes no room): their glyphs' widths add up to the span's extent, and they are read as they come
    extent = chars[-1]["bbox"][2] - chars[0]["bbox"][0]
    no_room = _NO_ROOM_EM * size
    if abs(extent - sum([char["bbox"][2] - char["bbox"][0] for char in chars])) < no_room and all(
        chars[position]["bbox"][2] - chars[position]["bbox"][0] >= no_room
        for position, glyph in enumerate(text)
        if glyph == " "
    ):
        return text
    out: list[str] = []
    previous: dict | None = None  # the last glyph that is not a space
    pending_space = ""
    for char in chars:
        glyph = char["c"]
        if glyph.isspace():
            pending_space = pending_space or glyph
            continue
        if previous is not None:
            gap = char["bbox"][0] - previous["bbox"][2]
            if pending_space:
                joins_ligature = previous["c"] in _LIGATURE_SIDE or glyph in _LIGATURE_SIDE
                if not (joins_ligature and glyph.isalpha() and previous["c"].isalpha() and gap < _NO_ROOM_EM * size):
                    out.append(pending_space)
            elif (
                gap >= _MISSING_SPACE_EM * size
                and (glyph.isalnum() or glyph in _OPENS)
                and (previous["c"].isalnum() or previous["c"] in _CLOSES)
            ):
                out.append(" ")
        elif pending_space:
            out.append(pending_space)
        pending_space = ""
        out.append(glyph)
        previous = char
    if pending_space:
        out.append(pending_space)
    return "".join(out)


def find_on_page(page: pymupdf.Page, query: str) -> list[Rect]:
    """Where ``query`` is printed on ``page``: one rectangle per occurrence (the union of its glyphs' boxes),
    found in the page's text as the reader normalises it (:func:`search_key`: ligatures as letters, case,
    hyphen and quote forms and word spaces set aside, words hyphenated at a line end joined). The GUI's
    search calls this, so that what the summary quotes is found on the page."""
    wanted = search_key(query)
    if not wanted:
        return []
    keys: list[str] = []  # one folded character each, beside the box of the glyph it comes from
    boxes: list[Rect] = []
    page_dict = page.get_text("rawdict", flags=TEXT_FLAGS, sort=False)
    for block in page_dict["blocks"]:
        for line in block.get("lines", ()):
            glyphs = [char for span in line["spans"] for char in span["chars"]]
            ends_hyphen = bool(glyphs) and glyphs[-1]["c"] in "-\u2010\u2011\u00ad"
            for position, char in enumerate(glyphs):
                if ends_hyphen and position == len(glyphs) - 1:
                    break  # "extracel-" / "lular": the hyphen at a line end is not searched for
                for folded in search_key(char["c"]):
                    keys.append(folded)
                    boxes.append(tuple(char["bbox"]))
    text = "".join(keys)
    found: list[Rect] = []
    start = text.find(wanted)
    while start >= 0:
        found.append(union(boxes[start : start + len(wanted)]))
        start = text.find(wanted, start + len(wanted))
    return found


# Glyphs a font maps to the wrong characters. Symbol fonts of some typesetters give their glyphs the codes
# of ASCII or Latin-1 characters with no Unicode of their own: Elsevier's "AdvPS..." draws "<" at the code of
# "!" ("flowing !20%"), TeX math fonts re-encoded by Springer draw "(", ")", "+", "=" at "ð", "Þ", "þ", "¼".
# The glyph names say nothing either ("exclam", "Thorn"), so these glyphs cannot be read from the text
# layer: they become U+FFFD, which marks their block as holding unmapped glyphs (never quoted as prose).
# A font is taken for such a font when one of its punctuation glyphs is far wider or narrower than that
# character is in any text face (the "!" above is 1 em wide, a text "!" a third of that).
_REFERENCE_FACE = pymupdf.Font("tiro")
_PUNCTUATION = frozenset("!\"#$%&'()*+,./:;<=>?@[]^_`{}~")  # not "|": bars are set with room around them
_MONOSPACED = 8  # PyMuPDF span flag, not set by every font: the name tells too
_MONO_NAME = re.compile(r"mono|courier|nimbusmon|consol|menlo|typewriter|cmtt", re.IGNORECASE)
_MATH_FONT = re.compile(r"math|symbol|mathpi|cmsy|mtsy|msam|msbm", re.IGNORECASE)
# Latin-1 letters and fractions ("ð", "Þ", "¼"), not the signs "×" and "÷" that math fonts do print
_NOT_IN_MATH = re.compile("[\u00bc-\u00be\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff]")


def misread_fonts(blocks: list[dict]) -> set[str]:
    """Fonts of the page (rawdict ``blocks``, spans with their ``text`` read) whose punctuation glyphs are
    sized unlike that punctuation. Monospaced fonts and text fonts (twenty letters or more on the page) are
    not symbol fonts."""
    fonts: set[str] = set()
    characters: dict[str, set[str]] = {}
    for block in blocks:
        for line in block.get("lines", ()):
            if abs(line.get("dir", (1, 0))[0] - 1) >= 0.01:
                continue
            for span in line["spans"]:
                text = span["text"]
                characters.setdefault(span["font"], set()).update(text)
                if _PUNCTUATION.isdisjoint(text) or span["font"] in fonts or span["size"] <= 0:
                    continue
                if span["flags"] & _MONOSPACED or _MONO_NAME.search(span["font"]):
                    continue
                for char in span.get("chars", ()):
                    glyph = char["c"]
                    if glyph not in _PUNCTUATION:
                        continue
                    width = (char["bbox"][2] - char["bbox"][0]) / span["size"]
                    expected = _reference_advance(glyph)
                    if width > max(2.2 * expected, expected + 0.35):
                        fonts.add(span["font"])
                        break
    return {font for font in fonts if sum(ch.isalpha() for ch in characters.get(font, ())) < 20}


@functools.lru_cache(maxsize=256)
def _is_math_font(name: str) -> bool:
    return _MATH_FONT.search(name) is not None


@functools.lru_cache(maxsize=64)
def _reference_advance(glyph: str) -> float:
    return _REFERENCE_FACE.glyph_advance(ord(glyph))


def _unreadable_if_misread(char: dict, whole_font: bool) -> dict:
    glyph = char["c"]
    if glyph.isspace() or not (whole_font or _NOT_IN_MATH.match(glyph)):
        return char
    return {**char, "c": "\ufffd"}


_WHITE = 0xFFFFFF


def _drop_hidden_white_text(blocks: list[dict]) -> None:
    """White text lying under other text cannot be seen (metadata some typesetters hide on the first
    page: "JCBN Journal of Clinical Biochemistry ..." under the title); drop it. White text on its own
    (a title on a dark banner) is kept."""
    spans = [s for b in blocks if b.get("type") == 0 for line in b["lines"] for s in line["spans"]]
    white = [s for s in spans if s.get("color") == _WHITE and s["text"].strip()]
    if not white:
        return
    shown = [s["bbox"] for s in spans if s.get("color") != _WHITE and s["text"].strip()]
    hidden = {
        id(span)
        for span in white
        if any(intersection_area(span["bbox"], other) > 0.3 * max(area(span["bbox"]), 1e-6) for other in shown)
    }
    if not hidden:
        return
    for block in blocks:
        if block.get("type") != 0:
            continue
        for line in block["lines"]:
            line["spans"] = [s for s in line["spans"] if id(s) not in hidden]


def _join_baseline_pieces(raw_lines: list[dict]) -> list[dict]:
    """PyMuPDF sometimes cuts one printed line into pieces ("Table" | "1." | "HPO ..."); rejoin them."""
    joined: list[dict] = []
    for raw in raw_lines:
        if joined:
            last = joined[-1]
            same_direction = tuple(last.get("dir", (1, 0))) == tuple(raw.get("dir", (1, 0)))
            height = min(last["bbox"][3] - last["bbox"][1], raw["bbox"][3] - raw["bbox"][1])
            size = max((s["size"] for s in raw["spans"]), default=10.0)
            overlap = min(last["bbox"][3], raw["bbox"][3]) - max(last["bbox"][1], raw["bbox"][1])
            horizontal_gap = raw["bbox"][0] - last["bbox"][2]
            if same_direction and overlap > 0.7 * height and -1 <= horizontal_gap <= 1.5 * size:
                last["spans"] = last["spans"] + raw["spans"]
                last["bbox"] = (
                    min(last["bbox"][0], raw["bbox"][0]),
                    min(last["bbox"][1], raw["bbox"][1]),
                    max(last["bbox"][2], raw["bbox"][2]),
                    max(last["bbox"][3], raw["bbox"][3]),
                )
                continue
        joined.append(dict(raw))
    return joined


# between two spans (a symbol in italics, a word in another font) the gap that is a word space
_SPAN_SPACE_EM = 0.12


def _spans_text(spans: list[dict]) -> str:
    parts: list[str] = []
    previous = None
    for span in spans:
        if previous is not None and span["bbox"][0] - previous["bbox"][2] > _SPAN_SPACE_EM * span["size"]:
            if parts and not parts[-1].endswith(" ") and not span["text"].startswith(" "):
                parts.append(" ")
        parts.append(span["text"])
        previous = span
    return re.sub(r"[ \t]+", " ", "".join(parts)).strip()


_BOLD_SUFFIX = re.compile(r"[a-z](?:B|Bd|BD|Bold)$")  # "TimesB", "HelveticaBd": weight in the name's tail


def _is_bold(span: dict) -> bool:
    font = span["font"]
    lowered = font.lower()
    return (
        bool(span["flags"] & 16)
        or any(weight in lowered for weight in ("bold", "black", "heavy", "semibold", "demibold"))
        or lowered.endswith(("-b", ".b", "-bd", "bx"))
        or _BOLD_SUFFIX.search(font) is not None
    )


def group_blocks(lines: list[Line]) -> list[TextBlock]:
    """Group lines by PyMuPDF's blocks, starting a new block at every caption start and at lines
    that sit beside rather than below the previous one (two captions set side by side)."""
    blocks: list[TextBlock] = []
    current: list[Line] = []
    current_caption: CaptionStart | None = None

    def flush() -> None:
        nonlocal current, current_caption
        if current:
            blocks.append(TextBlock(current, current_caption))
        current, current_caption = [], None

    for line in lines:
        previous = current[-1] if current else None
        new_pymupdf_block = previous is None or line.block_number != previous.block_number
        beside = previous is not None and not new_pymupdf_block and _beside(previous, line)
        # a caption's bold title line is not a heading: captions end by their own rule (_caption_ended)
        heading_edge = (
            previous is not None and not new_pymupdf_block and current_caption is None and _heading_edge(previous, line)
        )
        caption = _caption_start(line, previous, starts_block=new_pymupdf_block or beside or heading_edge)
        if new_pymupdf_block or beside or heading_edge or caption is not None:
            flush()
            current_caption = caption
        elif current_caption is not None and previous is not None and _caption_ended(previous, line):
            flush()
        current.append(line)
    flush()
    return blocks


def _short_line(line: Line) -> bool:
    return len(line.text.split()) <= 10 and any(ch.isalpha() for ch in line.text)


def _stands_out(line: Line, other: Line) -> bool:
    """Set in bold where the other line is not, or in type clearly larger."""
    return (line.bold and not other.bold) or line.size >= other.size + 1.0


def _heading_edge(previous: Line, line: Line) -> bool:
    """A section heading PyMuPDF put in one block with the text around it ("...of EOs." / "Conclusions" /
    "The results ..."): a short line in bold or larger type starts a block, and so does the line after it."""
    if not (previous.horizontal and line.horizontal):
        return False
    starts = _short_line(line) and _stands_out(line, previous) and previous.text.rstrip()[-1:] in ".:;!?)"
    # "Keywords:" / "Subject Areas:" in bold with their value on the next line: a label, not a heading
    ends = _short_line(previous) and _stands_out(previous, line) and not previous.text.rstrip().endswith(":")
    return starts or ends


def _beside(previous: Line, line: Line) -> bool:
    return y_overlap(previous.bbox, line.bbox) > 0.5 * (line.bbox[3] - line.bbox[1]) and (
        line.bbox[0] > previous.bbox[2] + 2 * line.size
    )


def _caption_ended(previous: Line, line: Line) -> bool:
    """A caption block continues while lines stay aligned, close and in the caption's type size."""
    vertical_gap = line.bbox[1] - previous.bbox[3]
    return vertical_gap > 1.2 * line.size or abs(line.size - previous.size) > 1.5


def _caption_start(line: Line, previous: Line | None, *, starts_block: bool) -> CaptionStart | None:
    start = parse_caption_start(line.text)
    if start is None:
        return None
    if starts_block or previous is None:
        return start
    # Mid-block: only when the label is set apart from the text before it, since prose often
    # breaks a line right before "Fig. 2." ("... as shown in / Fig. 2. The ...").
    if line.first_span_bold != previous.first_span_bold or line.first_span_font != previous.font:
        return start
    if start.strong and (abs(line.size - previous.size) > 0.4 or previous.gappy):
        return start
    return None


def drawing_rects(page: pymupdf.Page, page_rect: Rect) -> tuple[list[Rect], list[Rect], list[Rect]]:
    """Vector graphics clustered into candidate figure parts, thin rules (table lines) apart, and
    the clip rectangles in force, so that what PyMuPDF reports is cut to what is actually visible."""
    try:
        # the C-level paths: get_drawings would convert every path item to Point/Rect objects, which this
        # function never reads (only each path's rectangle, clip, type and colours)
        drawings = page.get_cdrawings(extended=True)
    except Exception:  # noqa: BLE001 — a broken content stream should cost the drawings, not the page
        return [], [], []
    page_area = area(page_rect)
    rules: list[Rect] = []
    visible: list[dict] = []
    scissors: list[Rect] = []
    stack: list[tuple[int, Rect]] = []
    for drawing in drawings:
        level = drawing.get("level", 0)
        while stack and stack[-1][0] >= level:
            stack.pop()
        kind = drawing.get("type")
        if kind == "clip":
            scissor = clip(tuple(drawing["scissor"]), page_rect)
            if scissor is None:
                scissor = (0.0, 0.0, 0.0, 0.0)
            elif area(scissor) < 0.9 * page_area:
                scissors.append(scissor)
            stack.append((level, scissor))
            continue
        if kind == "group":
            continue
        rect: Rect | None = tuple(drawing["rect"])
        for _, scissor in stack:
            rect = clip(rect, scissor) if rect is not None else None
        rect = clip(rect, page_rect) if rect is not None else None
        if rect is None and not (pymupdf.Rect(drawing["rect"]).width < 1 or pymupdf.Rect(drawing["rect"]).height < 1):
            continue
        if rect is None:
            rect = tuple(drawing["rect"])
        if area(rect) > 0.85 * page_area:
            continue  # page background
        width, height = rect[2] - rect[0], rect[3] - rect[1]
        if (width < 2.5 or height < 2.5) and kind != "f" or (width < 2.5 and height < 2.5):
            rules.append(rect)
        if kind == "f" and drawing.get("fill") in ((1.0, 1.0, 1.0), [1.0, 1.0, 1.0]) and not drawing.get("color"):
            continue  # white fills erase; they show nothing of their own
        visible.append({"rect": pymupdf.Rect(rect)})
    clusters: list[Rect] = []
    if visible:
        try:
            # clipped to the page as laid out: PyMuPDF's default, page.rect, is the page as shown, which a
            # /Rotate turns (a landscape page's drawings would fall outside it)
            clustered = page.cluster_drawings(
                clip=pymupdf.Rect(page_rect), drawings=visible, x_tolerance=4, y_tolerance=4
            )
        except Exception:  # noqa: BLE001
            clustered = []
        for cluster in clustered:
            rect = tuple(cluster)
            if rect[2] - rect[0] < 6 or rect[3] - rect[1] < 6:
                continue
            clusters.append(rect)
    return clusters, rules, scissors


def image_rects(page: pymupdf.Page, page_rect: Rect, scissors: Sequence[Rect] = ()) -> list[Rect]:
    """Placed images, cut to the clip rectangle they mostly fall in (tiles often overhang it)."""
    rects: list[Rect] = []
    try:
        infos = page.get_image_info()
    except Exception:  # noqa: BLE001
        return rects
    # Pages drawn as thousands of image tiles under thousands of clip paths made this a quadratic loop in
    # Python (most of the reading time): the clip rectangles are deduplicated (the first match wins, so
    # repeats change nothing) and each image is tested against all of them at once.
    candidates = list(dict.fromkeys(s for s in scissors if area(s) > 900))
    boxes = np.array(candidates, dtype=float).reshape(-1, 4)
    for info in infos:
        rect = clip(tuple(info["bbox"]), page_rect)
        if rect is None or rect[2] - rect[0] < 4 or rect[3] - rect[1] < 4:
            continue  # clipping only shrinks it: too small already
        if len(boxes):
            width = np.minimum(boxes[:, 2], rect[2]) - np.maximum(boxes[:, 0], rect[0])
            height = np.minimum(boxes[:, 3], rect[3]) - np.maximum(boxes[:, 1], rect[1])
            inside = np.maximum(width, 0.0) * np.maximum(height, 0.0)
            own = area(rect)
            hits = np.flatnonzero((inside >= 0.5 * own) & (inside < own))
            if len(hits):
                rect = clip(rect, candidates[hits[0]]) or rect
        if rect[2] - rect[0] < 4 or rect[3] - rect[1] < 4:
            continue
        rects.append(rect)
    return rects


def clip(rect: Rect, bounds: Rect) -> Rect | None:
    clipped = (max(rect[0], bounds[0]), max(rect[1], bounds[1]), min(rect[2], bounds[2]), min(rect[3], bounds[3]))
    if clipped[2] <= clipped[0] or clipped[3] <= clipped[1]:
        return None
    return clipped


def merge_rects(rects: list[Rect], tolerance: float) -> list[Rect]:
    """Union rectangles that overlap or lie within ``tolerance`` of each other, until stable."""
    merged = list(rects)
    changed = True
    while changed:
        changed = False
        result: list[Rect] = []
        for rect in merged:
            for position, other in enumerate(result):
                if gap(rect, other) <= tolerance:
                    result[position] = union([rect, other])
                    changed = True
                    break
            else:
                result.append(rect)
        merged = result
    return merged
