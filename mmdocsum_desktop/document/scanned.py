"""Scanned PDF pages: recognised text lines → text blocks, captions and figure regions, as a page with a
text layer gives them.

The text recognition itself is injected (``PageOcr``: page image in, :class:`RecognisedPage` out; the
application passes ``models.ocr.page_reader()``), so documents know nothing of models. The page is
rendered once, one page at a time (a 300-page book never holds more than one page image), and:

- lines on one row are joined, then stacked into blocks column by column;
- captions are recognised by their start with the same patterns as on born-digital pages
  (labels.parse_caption_start); body text by its length and type size; running headers by the margins;
- figures are the ink of the page image that no recognised text covers (plots, drawings, photographs),
  cut into connected parts, and handed to the same caption pairing as born-digital graphics
  (figures.find_regions): a region is the non-text area of the page that belongs to its caption;
- a page scanned sideways or upside down is read upright (the OCR hook says how it turned it) and its
  boxes are mapped back to the page's own coordinates.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pymupdf
from scipy import ndimage

from mmdocsum_desktop.document.figures import PageGeometry, PageRegions, find_regions
from mmdocsum_desktop.document.labels import parse_caption_start
from mmdocsum_desktop.document.limits import ReadLimits
from mmdocsum_desktop.document.pdf_layout import Line, Rect, TextBlock, area, union, x_overlap, y_overlap
from mmdocsum_desktop.document.reading_order import order_blocks
from mmdocsum_desktop.document.recognised import PageOcr, RecognisedLine, as_recognised_page
from mmdocsum_desktop.errors import ImageTooLargeError

OCR_DPI = 200
# A scanned poster rendered at OCR_DPI could take gigabytes; larger pages are rendered at a lower dpi.
OCR_MAX_PIXELS = 40_000_000
OCR_FONT = "ocr"  # the font name of every recognised line: how the PDF reader marks blocks as OCR'd
# A page whose recognised characters are on average less sure than this is reported: words are misread.
LOW_CONFIDENCE = 0.85
# Scans coarser than this lose small type: the reader says so (PP-OCR reads 150-300 dpi scans well).
LOW_SCAN_DPI = 110
_MARGIN = 0.07  # share of the page height where running headers, footers and page numbers live




@dataclass
class ScannedPage:
    """What one scanned page gave: its text blocks in reading order and its figure regions."""

    blocks: list[TextBlock]
    regions: PageRegions
    chars: int
    confidence: float | None  # character-weighted mean of the lines' recognition confidence
    quarter_turns: int = 0
    warnings: list[str] = field(default_factory=list)


def looks_scanned(page: pymupdf.Page) -> bool:
    """A page more than half covered by pictures is a scan: one picture, or a scan some producers cut
    into strips or tiles (a few characters of text beside them, a page number, do not make it text)."""
    rect = page.rect
    if rect.is_empty:
        return False
    grid = 64  # coverage measured on a 64 x 64 grid over the page: the union of the pictures, linear in their number
    covered = np.zeros((grid, grid), dtype=bool)
    for info in page.get_image_info():
        x0, y0, x1, y1 = (float(v) for v in info["bbox"])
        columns = [round((x - rect.x0) / rect.width * grid) for x in (x0, x1)]
        rows = [round((y - rect.y0) / rect.height * grid) for y in (y0, y1)]
        c0, c1 = (min(max(c, 0), grid) for c in sorted(columns))
        r0, r1 = (min(max(r, 0), grid) for r in sorted(rows))
        covered[r0:r1, c0:c1] = True
    return covered.mean() > 0.5


def read_scanned_page(
    page: pymupdf.Page, ocr: PageOcr, *, number: int, body_size: float, limits: ReadLimits
) -> ScannedPage:
    """OCR one scanned page (``number`` is 1-based, for messages) into blocks and figure regions.

    Raises ImageTooLargeError when the page's scanned image is over the pixel limit (decoding it could
    take gigabytes); errors of the OCR hook (a missing model) go to the caller, which reads on."""
    warnings = _scan_warnings(page, number, limits)
    dpi = _dpi_within(page.rect, OCR_DPI, min(limits.max_image_pixels, OCR_MAX_PIXELS))
    if dpi < OCR_DPI:
        warnings.append(f"page {number}: read by OCR at {dpi} dpi to stay under the pixel limit")
    pixmap = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)
    png = pixmap.tobytes("png")
    gray = np.frombuffer(pixmap.samples, dtype=np.uint8).reshape(pixmap.height, pixmap.stride)[:, : pixmap.width]
    del pixmap
    recognised = as_recognised_page(ocr(png))
    turns = recognised.quarter_turns % 4
    if turns:
        gray = np.rot90(gray, turns)
        warnings.append(f"page {number}: scanned {_TURN_WORDS[turns]}; read turned upright")
    scale = 72.0 / dpi
    upright_rect: Rect = (0.0, 0.0, gray.shape[1] * scale, gray.shape[0] * scale)
    lines, confidence = _lines(recognised.lines, scale, body_size)
    if not lines:
        warnings.append(f"page {number}: scanned, but OCR found no text on it (a blank page?)")
        return ScannedPage([], PageRegions(), 0, None, turns, warnings)
    blocks = _group(lines)
    for block in blocks:
        _classify(block, body_size, upright_rect)
    graphics, rules = _ink_regions(gray, [line.bbox for line in recognised.lines], scale)
    geometry = _geometry(upright_rect, blocks)
    regions = find_regions(blocks, graphics, rules, geometry)
    kept = [b for b in blocks if b.role in {"body", "text", "caption"} and id(b) not in regions.absorbed]
    cuts = [region for _, region in regions.captioned if region is not None] + regions.uncaptioned
    ordered = order_blocks(kept, geometry, cuts)
    if turns:
        _to_page_frame(ordered, regions, turns, upright_rect)
    chars = sum(len(line.text) for line in lines)
    return ScannedPage(ordered, regions, chars, confidence, turns, warnings)


_TURN_WORDS = {1: "turned a quarter clockwise", 2: "upside down", 3: "turned a quarter counter-clockwise"}


def scanned_summary(pages: dict[int, ScannedPage]) -> list[str]:
    """The document-level notes on its scanned pages: how many, and where the OCR was unsure."""
    if not pages:
        return []
    notes = [f"{len(pages)} scanned page(s) read with OCR; their text is marked as OCR'd"]
    unsure = {n: p.confidence for n, p in sorted(pages.items()) if p.confidence is not None and p.confidence < LOW_CONFIDENCE}
    if unsure:
        listed = ", ".join(f"{n} ({c:.2f})" for n, c in list(unsure.items())[:12])
        more = f" and {len(unsure) - 12} more" if len(unsure) > 12 else ""
        notes.append(
            f"low OCR confidence on page(s) {listed}{more}: words there may be misread; "
            "a cleaner scan at 300 dpi reads better"
        )
    return notes


def scanned_refusal(
    name: str, page_count: int, text_chars: int, ocr_on: bool, read_pages: int, failure: str | None
) -> str:
    """Why a PDF gave (almost) no text, and what to do about it, in one line."""
    found = f"{name}: no text layer ({page_count} pages, {text_chars} characters of text)"
    if not ocr_on:
        return (f"{found}; it looks scanned and OCR was turned off (--no-ocr): run the command again "
                "without --no-ocr to read it with OCR")
    if failure is not None and read_pages == 0:
        return f"{found}; its scanned pages could not be read with OCR: {failure}"
    if read_pages:
        return f"{found}; OCR found no text on its {read_pages} scanned page(s) (blank pages?)"
    return f"{found}, and no page is a scanned image that OCR could read (text drawn as outlines?)"


# ------------------------------------------------------------------------------------------ the scan


def _scan_warnings(page: pymupdf.Page, number: int, limits: ReadLimits) -> list[str]:
    """Refuse a page image too large to decode; warn about a coarse scan."""
    warnings: list[str] = []
    images = [info for info in page.get_image_info() if info.get("width") and info.get("height")]
    if not images:
        return warnings
    largest = max(images, key=lambda info: area(tuple(info["bbox"])))
    width, height = int(largest["width"]), int(largest["height"])
    if width * height > limits.max_image_pixels:
        raise ImageTooLargeError(
            f"its scanned image is {width:,} x {height:,} pixels, over the limit of "
            f"{limits.max_image_pixels:,} pixels; the page was not read (scale the scan down to 300 dpi)"
        )
    shown_width = largest["bbox"][2] - largest["bbox"][0]
    if shown_width > 0:
        scan_dpi = width / (shown_width / 72.0)
        if scan_dpi < LOW_SCAN_DPI:
            warnings.append(
                f"page {number}: scanned at about {scan_dpi:.0f} dpi; small type is often misread at "
                "that resolution (scan at 300 dpi)"
            )
    return warnings


def _dpi_within(rect: pymupdf.Rect, dpi: int, max_pixels: int) -> int:
    """The highest dpi up to ``dpi`` at which the page renders within ``max_pixels`` (at least 1)."""
    pixels = (rect.width * dpi / 72.0) * (rect.height * dpi / 72.0)
    if pixels <= max_pixels:
        return dpi
    return max(1, int(dpi * (max_pixels / pixels) ** 0.5) - 1)


# ----------------------------------------------------------------------------------------- the text


def _scaled(rect: Rect, scale: float) -> Rect:
    return (rect[0] * scale, rect[1] * scale, rect[2] * scale, rect[3] * scale)


def _lines(recognised: Sequence[RecognisedLine], scale: float, body_size: float) -> tuple[list[Line], float | None]:
    """Recognised boxes in points, boxes on one row joined into a line, type sizes relative to the
    page's usual line height (so a heading set larger reads as larger)."""
    boxes: list[tuple[Rect, str, float]] = [
        (_scaled(line.bbox, scale), line.text.strip(), line.confidence)
        for line in recognised
        if line.text.strip()
    ]
    if not boxes:
        return [], None
    weight = sum(len(text) for _, text, _ in boxes)
    confidence = sum(len(text) * conf for _, text, conf in boxes) / max(1, weight)
    boxes.sort(key=lambda item: ((item[0][1] + item[0][3]) / 2, item[0][0]))
    rows: list[list[tuple[Rect, str, float]]] = []
    for box in boxes:
        for row in reversed(rows[-6:]):
            last = row[-1][0]
            height = min(last[3] - last[1], box[0][3] - box[0][1])
            same_row = y_overlap(last, box[0]) >= 0.6 * height
            near = -0.2 * height <= box[0][0] - last[2] <= 0.6 * height  # a column gutter is wider
            if same_row and near:
                row.append(box)
                break
        else:
            rows.append([box])
    # boxes that share a row but stay apart are table cells or figure labels, not running prose
    row_boxes = [union([b for b, _, _ in row]) for row in rows]
    gappy = [
        any(
            j != i and y_overlap(other, box) >= 0.6 * min(box[3] - box[1], other[3] - other[1])
            and (box[0] - other[2] > 0 or other[0] - box[2] > 0)
            and min(abs(box[0] - other[2]), abs(other[0] - box[2])) < 4 * (box[3] - box[1])
            for j, other in enumerate(row_boxes)
        )
        for i, box in enumerate(row_boxes)
    ]
    heights = [r[0][0][3] - r[0][0][1] for r in rows if len(" ".join(t for _, t, _ in r).split()) >= 4]
    usual = statistics.median(heights) if heights else statistics.median(r[0][0][3] - r[0][0][1] for r in rows)
    lines = []
    for row, bbox, apart in zip(rows, row_boxes, gappy):
        text = " ".join(t for _, t, _ in row)
        size = round(body_size * (bbox[3] - bbox[1]) / max(usual, 1e-6), 1)
        lines.append(Line(bbox, text, size, OCR_FONT, False, False, OCR_FONT, False, True, -1, apart))
    lines.sort(key=lambda line: (line.bbox[1], line.bbox[0]))
    return lines, confidence


def _group(lines: list[Line]) -> list[TextBlock]:
    """Stack lines into blocks column by column: a line continues the block whose last line sits just
    above it, overlaps it across and is about as tall; a caption's first line always starts a block."""
    blocks: list[TextBlock] = []
    for line in lines:
        height = line.bbox[3] - line.bbox[1]
        line.text = _recase_label(line.text)
        start = parse_caption_start(line.text)
        target = None
        if start is None:
            for block in reversed(blocks[-12:]):
                last = block.lines[-1]
                last_height = last.bbox[3] - last.bbox[1]
                gap = line.bbox[1] - last.bbox[3]
                narrow = min(line.bbox[2] - line.bbox[0], last.bbox[2] - last.bbox[0])
                if last.gappy != line.gappy and not (block.caption is not None and len(block.lines) == 1):
                    continue  # table cells stack with cells, prose with prose
                if (
                    -0.4 * last_height <= gap <= 0.9 * last_height
                    and x_overlap(line.bbox, last.bbox) >= 0.5 * narrow
                    and abs(height - last_height) <= 0.35 * max(height, last_height)
                ):
                    target = block
                    break
        if target is None:
            blocks.append(TextBlock([line], caption=start))
        else:
            target.lines.append(line)
            target.refresh()
    return _join_hanging_labels(blocks)


# OCR mixes the case of small capitals ("FIGuRE 4:") and reads a 1 as l or I ("Figure l."): a line that
# starts like a label is given the label's usual spelling before the caption patterns look at it.
_OCR_LABEL = re.compile(
    r"^(\s*)(figure|fig\.?|table|scheme|chart|plate)(\s*)([0-9lIO]{1,3})(?=[\s:.|—–-]|$)", re.IGNORECASE
)
_LABEL_WORDS = {"figure": "Figure", "fig": "Fig", "fig.": "Fig.", "table": "Table", "scheme": "Scheme",
                "chart": "Chart", "plate": "Plate"}


def _recase_label(text: str) -> str:
    match = _OCR_LABEL.match(text)
    if match is None:
        return text
    word, printed = match.group(2), match.group(4)
    if word.isupper() or word in _LABEL_WORDS.values():
        if printed.isdigit() or word.isupper():
            return text  # as printed: "FIGURE 4", "Table 2", "TABLE I" (a Roman numeral)
    number = printed.replace("l", "1").replace("I", "1").replace("O", "0")
    if not number.isdigit():
        return text
    fixed = _LABEL_WORDS.get(word.lower(), word)
    return f"{match.group(1)}{fixed}{match.group(3)}{number}{text[match.end():]}"


def _join_hanging_labels(blocks: list[TextBlock]) -> list[TextBlock]:
    """A caption whose label stands alone in the margin ("Fig. 2." left of the caption text) takes the
    block that starts on its row just to its right: that block is the caption's text."""
    absorbed: set[int] = set()
    for block in blocks:
        start = block.caption
        if start is None or len(start.rest) > 3 or len(block.lines) > 1:
            continue
        label = block.lines[0]
        height = label.bbox[3] - label.bbox[1]
        beside = [
            other for other in blocks
            if other is not block and id(other) not in absorbed and other.caption is None
            and y_overlap(other.lines[0].bbox, label.bbox) >= 0.5 * height
            and 0 <= other.bbox[0] - label.bbox[2] <= 4 * height
        ]
        if not beside:
            continue
        text = min(beside, key=lambda other: other.bbox[0])
        block.lines.extend(text.lines)
        block.refresh()
        block.caption = parse_caption_start(block.text) or start
        absorbed.add(id(text))
    return [b for b in blocks if id(b) not in absorbed]


def _classify(block: TextBlock, body_size: float, page_rect: Rect) -> None:
    text = block.text.strip()
    words = len(text.split())
    height = page_rect[3] - page_rect[1]
    in_margin = block.bbox[3] < page_rect[1] + _MARGIN * height or block.bbox[1] > page_rect[3] - _MARGIN * height
    if in_margin and words <= 12:
        block.role = "furniture"
        return
    if block.caption is not None:
        start = block.caption
        prose = start.rest[:1].islower() or start.rest.lower().startswith(
            ("shows", "show ", "presents", "illustrates", "depicts", "summarizes", "summarises", "lists")
        )
        if (start.strong or start.rest[:1].isupper() or start.rest == "") and not prose:
            block.role = "caption"
            return
        block.caption = None
    usual = abs(block.size - body_size) <= 0.25 * body_size
    if usual and words >= 8 and ((len(block.lines) >= 2 and block.width >= 140) or len(text) >= 160):
        block.role = "body"


def _geometry(page_rect: Rect, blocks: list[TextBlock]) -> PageGeometry:
    body = [b for b in blocks if b.role == "body"] or [b for b in blocks if b.role != "furniture"]
    if not body:
        return PageGeometry(page_rect, page_rect, False)
    text_box = union([b.bbox for b in body])
    middle = (text_box[0] + text_box[2]) / 2
    width = text_box[2] - text_box[0]
    total = sum(len(b.text) for b in body) or 1
    left = sum(len(b.text) for b in body if b.bbox[2] < middle + 0.03 * width)
    right = sum(len(b.text) for b in body if b.bbox[0] > middle - 0.03 * width)
    return PageGeometry(page_rect, text_box, left > 0.2 * total and right > 0.2 * total)


# ---------------------------------------------------------------------------------------- the figures

_WORK_DPI = 50  # the ink map is read at about this resolution: enough for figure outlines, and fast
_INK = 70  # grey levels darker than the paper that count as ink
_CLOSE_PT = 9.0  # parts of one figure closer than this are joined (bars, dots and axes of a plot)
_MIN_SIDE_PT = 12.0
_MIN_GRAPHIC_SHARE = 0.008  # of the page area: a figure, or a panel of one, is larger


def _ink_regions(gray: np.ndarray, text_boxes: list[Rect], scale: float) -> tuple[list[Rect], list[Rect]]:
    """(graphics, rules) in points: the connected ink of the page that no recognised text covers.

    Thin long runs (table rules, underlines) are rules; everything else large enough is a graphic, for
    figures.find_regions to pair with captions as it pairs a born-digital page's drawings and images."""
    dpi = 72.0 / scale
    factor = max(1, int(round(dpi / _WORK_DPI)))
    height, width = (gray.shape[0] // factor) * factor, (gray.shape[1] // factor) * factor
    if height == 0 or width == 0:
        return [], []
    # darkest pixel of each factor x factor cell: a one-pixel line survives the reduction
    small = gray[:height, :width].reshape(height // factor, factor, width // factor, factor).min(axis=(1, 3))
    paper = float(np.percentile(small, 90))
    ink = small < paper - _INK
    cell = factor * scale  # points per cell
    page_area = gray.shape[0] * gray.shape[1] * scale * scale
    for box in text_boxes:
        pad = 0.2 * (box[3] - box[1])
        x0, y0 = int((box[0] - pad) / factor), int((box[1] - pad) / factor)
        x1, y1 = int(np.ceil((box[2] + pad) / factor)), int(np.ceil((box[3] + pad) / factor))
        ink[max(0, y0) : max(0, y1), max(0, x0) : max(0, x1)] = False
    if not ink.any():
        return [], []
    reach = max(1, int(round(_CLOSE_PT / cell)))
    joined = ndimage.binary_closing(ink, structure=np.ones((reach, reach), dtype=bool), border_value=0) | ink
    labels, count = ndimage.label(joined)
    graphics: list[Rect] = []
    rules: list[Rect] = []
    for piece in ndimage.find_objects(labels)[:count]:
        if piece is None:
            continue
        rows, cols = piece
        rect = (cols.start * cell, rows.start * cell, cols.stop * cell, rows.stop * cell)
        w, h = rect[2] - rect[0], rect[3] - rect[1]
        if max(w, h) < _MIN_SIDE_PT:
            continue  # specks, dust, stray dots
        if min(w, h) <= 2.5 * cell and max(w, h) >= 30:
            rules.append(rect)
            continue
        if w * h < _MIN_GRAPHIC_SHARE * page_area or min(w, h) < 2 * _MIN_SIDE_PT:
            continue  # characters the OCR did not read (a symbol, a faint cell): not a picture to pair
        graphics.append(rect)
    return graphics, rules


# -------------------------------------------------------------------------------------------- turns


def _to_page_frame(blocks: list[TextBlock], regions: PageRegions, turns: int, upright: Rect) -> None:
    """Map boxes read on the upright image back to the page as it is in the PDF."""
    width, height = upright[2], upright[3]

    def point(x: float, y: float) -> tuple[float, float]:
        # inverse of numpy rot90(k=turns) on an image of the page's size (original width = upright
        # height for a quarter turn)
        if turns == 1:
            return height - y, x
        if turns == 2:
            return width - x, height - y
        return y, width - x

    def rect(box: Rect) -> Rect:
        (ax, ay), (bx, by) = point(box[0], box[1]), point(box[2], box[3])
        return (min(ax, bx), min(ay, by), max(ax, bx), max(ay, by))

    seen: set[int] = set()
    for block in [*blocks, *(caption for caption, _ in regions.captioned)]:
        if id(block) in seen:
            continue
        seen.add(id(block))
        for line in block.lines:
            line.bbox = rect(line.bbox)
        block.refresh()
    regions.captioned = [(caption, rect(region) if region is not None else None) for caption, region in regions.captioned]
    regions.uncaptioned = [rect(region) for region in regions.uncaptioned]


# ------------------------------------------------------------------------------------- scanned copies


def scan_copy(
    source: str | Path,
    target: str | Path,
    *,
    dpi: int = 150,
    pages: Sequence[int] | None = None,
    quarter_turns: int = 0,
    gray: bool = True,
    only: Collection[int] | None = None,
) -> Path:
    """An image-only PDF of ``source`` (0-based ``pages``, default all): each page rendered at ``dpi``
    and placed as one picture on a page of the same size, as a scanner makes it. ``quarter_turns``
    turns every page image counter-clockwise (a page fed into the scanner sideways); ``only`` scans those
    pages and copies the others as they are, text layer and all (a mixed document). Benchmarks and tests
    make scanned papers this way, so that the gold of the born-digital original still applies."""
    target = Path(target)
    with pymupdf.open(source) as pdf, pymupdf.open() as out:
        for number in pages if pages is not None else range(pdf.page_count):
            if only is not None and number not in only:
                out.insert_pdf(pdf, from_page=number, to_page=number)
                continue
            page = pdf.load_page(number)
            pixmap = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY if gray else pymupdf.csRGB, alpha=False)
            rect = page.rect
            if quarter_turns % 2:
                rect = pymupdf.Rect(0, 0, rect.height, rect.width)
            if quarter_turns % 4:
                rows = np.frombuffer(pixmap.samples, dtype=np.uint8).reshape(pixmap.height, pixmap.stride)
                pixels = rows[:, : pixmap.width * pixmap.n].reshape(pixmap.height, pixmap.width, pixmap.n)
                turned = np.ascontiguousarray(np.rot90(pixels, quarter_turns % 4))
                pixmap = pymupdf.Pixmap(pixmap.colorspace, turned.shape[1], turned.shape[0], turned.tobytes(), False)
            sheet = out.new_page(width=rect.width, height=rect.height)
            sheet.insert_image(sheet.rect, stream=pixmap.tobytes("jpeg" if not gray else "png"))
        out.save(target, garbage=3, deflate=True)
    return target
