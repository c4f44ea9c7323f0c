"""PDF ingestion on PyMuPDF: text in reading order, headings, abstract, figures, tables and captions."""

from __future__ import annotations

import io
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pymupdf
from PIL import Image

from mmdocsum_desktop.document.figures import PageGeometry, PageRegions, find_regions
from mmdocsum_desktop.document.labels import VisualKind
from mmdocsum_desktop.document.language import guess_language
from mmdocsum_desktop.document.limits import ReadLimits
from mmdocsum_desktop.document.mupdf import MUPDF_LOCK
from mmdocsum_desktop.document.normalize import (
    SOFT_HYPHEN,
    join_across_break,
    keep_compound_hyphens,
    normalize_blocks,
    normalize_text,
    unreadable_text,
    vocabulary,
)
from mmdocsum_desktop.document.pdf_layout import (
    Line,
    Rect,
    TextBlock,
    area,
    drawing_rects,
    extract_lines,
    group_blocks,
    image_rects,
    intersection_area,
    join_lines,
    union,
    x_overlap,
)
from mmdocsum_desktop.document.reading_order import order_blocks
from mmdocsum_desktop.document.recognised import PageOcr
from mmdocsum_desktop.document.scanned import (
    OCR_FONT,
    ScannedPage,
    looks_scanned,
    read_scanned_page,
    scanned_refusal,
    scanned_summary,
)
from mmdocsum_desktop.document.sections import mark_section_kinds
from mmdocsum_desktop.errors import (
    CorruptDocumentError,
    DocumentTooLargeError,
    EncryptedDocumentError,
    JobCancelled,
    MmdocsumError,
    ScannedDocumentError,
)
from mmdocsum_desktop.fileio import write_bytes_atomic
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.schemas.document import Block, BlockType, Document, Figure

# Scanned pages are read by document/scanned.py with a text recogniser the caller injects (PageOcr), so
# that documents know nothing of models.

_SAMPLE_PAGES = 40
_MARGIN = 0.085  # share of the page height where running headers and footers live


@dataclass
class DocumentStyle:
    body_size: float
    body_fonts: set[str]
    furniture: set[str]  # normalised texts of running headers and footers


pymupdf.TOOLS.mupdf_display_errors(False)
pymupdf.TOOLS.mupdf_display_warnings(False)


def open_pdf(path: Path, password: str | None = None) -> pymupdf.Document:
    try:
        pdf = pymupdf.open(path, filetype="pdf")
    except Exception as error:  # noqa: BLE001 — MuPDF raises several types for damaged files
        raise CorruptDocumentError(f"{path.name}: not a readable PDF ({_short(error)})") from error
    if pdf.needs_pass:
        if not password:
            pdf.close()
            raise EncryptedDocumentError(f"{path.name}: the PDF is encrypted; give its password with --password")
        if not pdf.authenticate(password):
            pdf.close()
            raise EncryptedDocumentError(f"{path.name}: wrong password for the encrypted PDF")
    return pdf


def _short(error: Exception) -> str:
    return str(error).splitlines()[0][:120] if str(error) else type(error).__name__


def read_pdf(
    path: Path,
    *,
    password: str | None = None,
    limits: ReadLimits,
    control: JobControl,
    ocr: PageOcr | None = None,
) -> Document:
    with MUPDF_LOCK:  # PyMuPDF is not thread-safe: one thread in it at a time (document/mupdf.py)
        pdf = open_pdf(path, password)
        try:
            return _read(pdf, path, limits=limits, control=control, ocr=ocr)
        finally:
            pdf.close()


def _read(
    pdf: pymupdf.Document, path: Path, *, limits: ReadLimits, control: JobControl, ocr: PageOcr | None
) -> Document:
    try:
        page_count = pdf.page_count
    except Exception as error:  # noqa: BLE001
        raise CorruptDocumentError(f"{path.name}: the page tree is damaged ({_short(error)})") from error
    if page_count == 0:
        raise CorruptDocumentError(f"{path.name}: the PDF has no pages")
    if page_count > limits.max_pages:
        raise DocumentTooLargeError(
            f"{path.name}: {page_count} pages is over the limit of {limits.max_pages} (--max-pages)"
        )
    document = Document(source=str(path.resolve()), kind="pdf", page_count=page_count)
    page_sizes: list[tuple[float, float]] = []
    style, cached_lines = _document_style(pdf, control)
    document.cover_pages = _cover_pages(pdf)
    collected: list[tuple[int, TextBlock]] = []
    visuals: list[tuple[int, VisualKind, TextBlock | None, Rect | None]] = []
    text_chars = 0
    scanned_pages: dict[int, ScannedPage] = {}
    ocr_failure: str | None = None
    title_page_blocks: list[TextBlock] | None = None
    for number in range(page_count):
        control.report(number, page_count, f"page {number + 1}")
        try:
            page = pdf.load_page(number)
            page_sizes.append((round(page.rect.width, 2), round(page.rect.height, 2)))
            page_text_blocks: list[TextBlock] = []
            page_blocks, regions, page_chars = _read_page(
                page, style, cached_lines.pop(number, None), every_block=page_text_blocks
            )
        except Exception as error:  # noqa: BLE001 — one broken page must not cost the document
            document.warnings.append(f"page {number + 1}: could not be read ({_short(error)})")
            continue
        # a scan, or a text layer of glyphs mapped to no character (its title and text only OCR can read)
        unreadable = unreadable_text("".join(block.text for block in page_text_blocks))
        if ocr is not None and (page_chars < 20 and looks_scanned(page) or unreadable):
            control.report(number, page_count, f"OCR page {number + 1}")
            try:
                scanned = read_scanned_page(page, ocr, number=number + 1, body_size=style.body_size, limits=limits)
            except JobCancelled:
                raise
            except MmdocsumError as error:  # a missing OCR model, a page image over the limit: read the rest
                ocr_failure = str(error)
                document.warnings.append(f"page {number + 1}: scanned page not read: {error}")
                continue
            document.warnings.extend(scanned.warnings)
            scanned_pages[number + 1] = scanned
            page_blocks, regions, page_chars = scanned.blocks, scanned.regions, scanned.chars
            page_text_blocks = list(scanned.blocks)  # the title is looked for in what OCR read
        text_chars += page_chars
        if number + 1 in document.cover_pages:
            continue  # a publisher's cover: counted as a page, its text and logos are not the paper's
        if title_page_blocks is None:
            # the title is looked for among every line of the first page of the article, also those the
            # page's graphics took (a title set on a coloured banner)
            title_page_blocks = [b for b in page_text_blocks if b.role != "furniture"] or page_blocks
        collected.extend((number + 1, block) for block in page_blocks)
        for caption, region in regions.captioned:
            kind: VisualKind = caption.caption.kind if caption.caption else "figure"
            visuals.append((number + 1, kind, caption, _as_shown(page, region)))
        page_area = max(page.rect.width * page.rect.height, 1.0)
        for picture in regions.uncaptioned:
            if number in {0, page_count - 1} and _is_advert(picture, page_text_blocks):
                continue
            if number == 0 and _is_front_panel(picture, page_text_blocks):
                continue
            if not regions.captioned and area(picture) < SMALL_UNCAPTIONED * page_area:
                continue
            visuals.append((number + 1, "figure", None, _as_shown(page, picture)))
    control.report(page_count, page_count, "done")
    document.page_sizes = page_sizes
    if text_chars < 20 * page_count and text_chars < 2000:
        raise ScannedDocumentError(scanned_refusal(path.name, page_count, text_chars, ocr is not None,
                                                  len(scanned_pages), ocr_failure))
    document.warnings.extend(scanned_summary(scanned_pages))
    _build_document(document, pdf, collected, visuals, style, title_page_blocks or [])
    return document


# What a publisher's advert for itself says ("Submit your next manuscript to BioMed Central and take full
# advantage of: Convenient online submission, Thorough peer review ..."; "Ready to submit your research?
# Choose BMC and benefit from: ..."; a journal cover's "Subscribe", "Sign up for alerts").
_ADVERT = re.compile(
    r"submit your (?:next )?(?:manuscript|research|paper|article|work)|ready to submit|"
    r"(?:convenient|fast,? convenient) online submission|thorough peer review|"
    r"(?:rapid|immediate) publication on acceptance|no space constraints|choose \w+ and benefit|"
    r"submit (?:your manuscript )?(?:at|online at) (?:www\.|https?://)|subscribe (?:now|today|online)|"
    r"sign up for (?:e-?mail |table of contents )?alerts|free (?:e-?mail )?(?:alerts|subscription)",
    re.IGNORECASE,
)


# An uncaptioned picture smaller than this share of its page, on a page with no captioned figure or table,
# is no figure of the paper: a chemical structure drawn in an experimental section, an equation or a
# symbol set as a graphic, an icon (issue 46, item 3). Pictures beside a captioned one (its panels) and
# larger ones (a figure whose caption is on another page, "Figure 6. Cont.") are kept.
SMALL_UNCAPTIONED = 0.15


def _is_front_panel(picture: Rect, blocks: list[TextBlock]) -> bool:
    """An uncaptioned box of short lines on the first page: the publisher's article information, a
    peer-review status panel, a "Check for updates" badge with its words. The first page's figures
    have captions; its boxes of text are no figures."""
    lines = [line for b in blocks if intersection_area(b.bbox, picture) > 0.6 * max(area(b.bbox), 1e-6)
             for line in b.lines if line.horizontal and line.text.strip()]
    words = [len(line.text.split()) for line in lines]
    return len(lines) >= 5 and sum(words) / len(lines) <= 6 and sum(words) >= 8


def _is_advert(picture: Rect, blocks: list[TextBlock]) -> bool:
    """An uncaptioned picture on a paper's first or last page whose text is a publisher's advert."""
    inside = [
        b.text
        for b in blocks
        if intersection_area(b.bbox, picture) > 0.6 * max(area(b.bbox), 1e-6)
    ]
    return bool(_ADVERT.search(" ".join(" ".join(inside).split())))


def _document_style(
    pdf: pymupdf.Document, control: JobControl
) -> tuple[DocumentStyle, dict[int, list[Line]]]:
    """Body type size and fonts, and running headers/footers, from a sample of pages.

    The sampled pages' lines are returned too: for documents short enough to be sampled whole, the
    main pass reuses them instead of extracting every page twice."""
    count = pdf.page_count
    step = max(1, count // _SAMPLE_PAGES)
    sizes: Counter[float] = Counter()
    margin_texts: Counter[str] = Counter()
    sampled: dict[int, list[Line]] = {}
    for number in range(0, count, step):
        control.check()
        try:
            page = pdf.load_page(number)
            lines = extract_lines(page)
        except Exception:  # noqa: BLE001
            continue
        sampled[number] = lines
        top_band, bottom_band = _edge_bands(lines, unrotated_rect(page)[3])
        seen: set[str] = set()
        # the body type is voted on the pages before the back of the paper: a long reference list in its
        # own type would otherwise outvote the body of a review
        votes = number < max(2, round(0.6 * count))
        for line in lines:
            if not line.horizontal:
                continue
            if votes:
                sizes[line.size] += len(line.text)
            if line.bbox[1] < top_band or line.bbox[3] > bottom_band:
                key = _furniture_key(line.text)
                if key and key not in seen:
                    seen.add(key)
                    margin_texts[key] += 1
    body_size = sizes.most_common(1)[0][0] if sizes else 10.0
    fonts: Counter[str] = Counter()
    for lines in sampled.values():
        for line in lines:
            if abs(line.size - body_size) <= 0.6:
                fonts[line.font] += len(line.text)
    total = sum(fonts.values()) or 1
    body_fonts = {font for font, chars in fonts.items() if chars >= 0.12 * total}
    repeat = max(2, int(0.3 * len(sampled)))
    furniture = {text for text, seen_on in margin_texts.items() if seen_on >= repeat} if len(sampled) > 1 else set()
    reusable = sampled if step == 1 else {}
    return DocumentStyle(body_size, body_fonts, furniture), reusable


def _cover_pages(pdf: pymupdf.Document) -> list[int]:
    texts = []
    for number in range(min(3, pdf.page_count)):
        try:
            texts.append(pdf.load_page(number).get_text())
        except Exception:  # noqa: BLE001 — a broken page is no cover
            texts.append("")
    return cover_pages(texts) if pdf.page_count > 1 else []


def _furniture_key(text: str) -> str:
    """Running headers differ from page to page only in numbers, and the page number sits before or
    after them depending on the side of the spread."""
    key = re.sub(r"\d+", "#", text.strip().lower())
    stripped = re.sub(r"^(?:#\s+)+|(?:\s+#)+$", "", key)
    return (stripped or key)[:80]


_PAGE_NUMBER = re.compile(r"^(?:page\s*)?[#\divxlc-]{1,7}(?:\s*(?:of|/)\s*#+)?$", re.IGNORECASE)


def _read_page(
    page: pymupdf.Page,
    style: DocumentStyle,
    lines: list[Line] | None = None,
    every_block: list[TextBlock] | None = None,
) -> tuple[list[TextBlock], PageRegions, int]:
    """The page's blocks to read, in reading order, its figure and table regions, and its characters;
    ``every_block`` receives all the page's text blocks, those inside figures and the furniture too."""
    page_rect = unrotated_rect(page)
    lines = extract_lines(page) if lines is None else lines
    blocks = group_blocks(lines)
    height = page_rect[3] - page_rect[1]
    bands = _edge_bands(lines, height)
    for block in blocks:
        _classify(block, style, bands)
    blocks = _join_translated_captions(_complete_bare_captions(blocks))
    if every_block is not None:
        every_block.extend(blocks)
    clusters, rules, scissors = drawing_rects(page, page_rect)
    graphics = [g for g in image_rects(page, page_rect, scissors) + clusters if not _in_margin_band(g, page_rect)]
    geometry = _geometry(page_rect, blocks)
    regions = find_regions(blocks, graphics, rules, geometry)
    # Captions are kept as text blocks; text inside figures and tables and page furniture are not.
    kept = [b for b in blocks if b.role in {"body", "text", "caption"} and id(b) not in regions.absorbed]
    kept = [b for b in kept if b.lines[0].horizontal or b.role == "caption"]
    cuts = [region for _, region in regions.captioned if region is not None] + regions.uncaptioned
    return order_blocks(kept, geometry, cuts), regions, sum(len(line.text) for line in lines)


def _complete_bare_captions(blocks: list[TextBlock]) -> list[TextBlock]:
    """A label set on a line of its own ("Table 2", title in another font on the next line) is a caption
    without its text: the short block right below it, in the same column, is that text."""
    absorbed: set[int] = set()
    for block in blocks:
        start = block.caption
        if block.role != "caption" or start is None or re.sub(r"[\W_]", "", start.rest):
            continue
        below = [
            (step, other)
            for other in blocks
            if other is not block
            and id(other) not in absorbed
            # sideways lines are taken for text inside a figure; beside a sideways label they are its title
            and (other.role in {"text", "body"} or other.role == "figure-text" and not block.lines[0].horizontal)
            and other.caption is None
            and (step := _next_line_step(block, other)) is not None
            and 0 <= step[0] <= 1.6 * block.size
            and step[1] <= 3 * block.size
            and len(other.lines) <= 4
        ]
        if not below:
            continue
        title = min(below, key=lambda stepped: stepped[0][0])[1]
        block.lines = block.lines + title.lines
        block.refresh()
        absorbed.add(id(title))
    return [b for b in blocks if id(b) not in absorbed] if absorbed else blocks


def _join_translated_captions(blocks: list[TextBlock]) -> list[TextBlock]:
    """A caption printed in two languages, one under the other ("Figura 1. ..." then "Figure 1. ...",
    SciELO): both name the same visual, so the second joins the first and the figure is listed once."""
    captions = [b for b in blocks if b.role == "caption" and b.caption is not None and b.lines[0].horizontal]
    joined: set[int] = set()
    for block in captions:
        if id(block) in joined or block.caption is None:
            continue
        for other in captions:
            if other is block or id(other) in joined or other.caption is None:
                continue
            if (other.caption.kind, other.caption.label) != (block.caption.kind, block.caption.label):
                continue
            step = other.bbox[1] - block.bbox[3]
            if -2 <= step <= 2.5 * block.size and x_overlap(block.bbox, other.bbox) > 0.5 * min(block.width, other.width):
                block.lines = block.lines + other.lines
                block.refresh()
                joined.add(id(other))
    return [b for b in blocks if id(b) not in joined] if joined else blocks


def _next_line_step(block: TextBlock, other: TextBlock) -> tuple[float, float] | None:
    """How far ``other`` starts after ``block`` in reading order (the gap to the next line), and how far
    their line starts differ, in the direction the two are set; None when they are set differently. A
    sideways table's caption ("Table 1" / its title, read bottom to top) stacks its lines rightwards."""
    first, following = block.lines[0], other.lines[0]
    if first.horizontal and following.horizontal:
        return other.bbox[1] - block.bbox[3], abs(other.bbox[0] - block.bbox[0])
    if first.horizontal or following.horizontal or first.upward != following.upward:
        return None
    if first.upward:
        return other.bbox[0] - block.bbox[2], abs(other.bbox[3] - block.bbox[3])
    return block.bbox[0] - other.bbox[2], abs(other.bbox[1] - block.bbox[1])


def unrotated_rect(page: pymupdf.Page) -> Rect:
    """The page as its content is laid out: text, drawings and images are placed in these coordinates
    whatever the page's /Rotate, which only turns the page when it is shown."""
    rect = page.rect * page.derotation_matrix if page.rotation else page.rect
    return (rect.x0, rect.y0, rect.x1, rect.y1)


def _as_shown(page: pymupdf.Page, region: Rect | None) -> Rect | None:
    """A region in the coordinates of the page as shown (what page.rect, the page's picture and a crop's
    clip use): a landscape page printed with /Rotate turns its content with it, or the crop of its table
    was cut at the portrait page's edge."""
    if region is None or not page.rotation:
        return region
    shown = pymupdf.Rect(region) * page.rotation_matrix
    return (shown.x0, shown.y0, shown.x1, shown.y1)


def crop_rotation(page: pymupdf.Page, bbox: Rect) -> int:
    """Degrees (clockwise) to turn the crop of ``bbox`` (coordinates of the page as shown) so that its
    text reads from left to right: a table set sideways on a portrait page is shown upright. 0 when most
    of its text already reads so, or it has none."""
    clip = pymupdf.Rect(bbox) * page.derotation_matrix if page.rotation else pymupdf.Rect(bbox)
    turn = page.rotation_matrix
    votes: Counter[int] = Counter()
    for block in page.get_text("dict", clip=clip, flags=0)["blocks"]:
        for line in block.get("lines", ()):
            chars = sum(len(span["text"].strip()) for span in line["spans"])
            dx, dy = line["dir"]
            # the reading direction as shown: the page's /Rotate turns it too
            across, down = dx * turn.a + dy * turn.c, dx * turn.b + dy * turn.d
            if down < -0.7:
                votes[90] += chars  # read upwards: turn clockwise
            elif down > 0.7:
                votes[270] += chars
            elif across < -0.7:
                votes[180] += chars
            else:
                votes[0] += chars
    total = sum(votes.values())
    if not total:
        return 0
    degrees, count = votes.most_common(1)[0]
    return degrees if count > 0.6 * total else 0


def _in_margin_band(rect: Rect, page_rect: Rect) -> bool:
    """Running header banners and footer logos live entirely inside the top or bottom margin."""
    height = page_rect[3] - page_rect[1]
    return rect[3] <= page_rect[1] + _MARGIN * height or rect[1] >= page_rect[3] - _MARGIN * height


def _edge_bands(lines: list[Line], page_height: float) -> tuple[float, float]:
    """Where running headers and footers can be: the page margins, or the first and last line of
    text when the page box has wide empty margins (journals often put the header well inside)."""
    horizontal = [line for line in lines if line.horizontal]
    top_band, bottom_band = _MARGIN * page_height, (1 - _MARGIN) * page_height
    if horizontal:
        first = min(line.bbox[1] for line in horizontal)
        last = max(line.bbox[3] for line in horizontal)
        top_band = max(top_band, min(first + 10, 0.2 * page_height))
        bottom_band = min(bottom_band, max(last - 10, 0.8 * page_height))
    return top_band, bottom_band


def _classify(block: TextBlock, style: DocumentStyle, bands: tuple[float, float]) -> None:
    top, bottom = block.bbox[1], block.bbox[3]
    in_margin = top < bands[0] or bottom > bands[1]
    text = block.text.strip()
    # a caption at the top of a page ("Table 2" on several pages) repeats like a running header but is not one
    if in_margin and block.caption is None and (
        _furniture_key(text) in style.furniture
        or _PAGE_NUMBER.match(_furniture_key(text))
        or len(text) <= 2
        # a running header of two lines ("Page 2 of 10" / the journal's address): each line repeats
        or len(block.lines) > 1 and all(_is_furniture_line(line.text, style) for line in block.lines)
    ):
        block.role = "furniture"
        return
    if not block.lines[0].horizontal and block.caption is None:
        block.role = "figure-text"
        return
    if block.caption is None and _CONTINUED_NOTE.match(text):
        block.role = "furniture"  # "(Continued on next page)", "Continued Table 1": the typesetter's, not the text
        return
    if block.caption is not None:
        if _accept_caption(block, style):
            block.role = "caption"
            return
        block.caption = None
    if _is_body(block, style):
        block.role = "body"


_CONTINUED_NOTE = re.compile(
    r"^\(?\s*continued(?:\s+(?:on|from)\s+(?:the\s+)?(?:next|previous|following)\s+page)?\s*\)?\.?"
    r"(?:\s*(?:table|figure|fig\.)\s*\d+[a-z]?\.?)?\s*$",
    re.IGNORECASE,
)


def _is_furniture_line(text: str, style: DocumentStyle) -> bool:
    key = _furniture_key(text)
    return key in style.furniture or bool(_PAGE_NUMBER.match(key))


def _accept_caption(block: TextBlock, style: DocumentStyle) -> bool:
    start = block.caption
    if start is None:
        return False
    first = block.lines[0]
    set_apart = (
        first.first_span_bold
        or first.first_span_font not in style.body_fonts
        or abs(first.size - style.body_size) > 0.6
    )
    if start.strong:
        # "Table 1. Results" in running prose is rare; "Fig. 2. shows" is not a caption.
        return set_apart or not re.match(r"^\s*(shows?|presents?|illustrates?|depicts?)\b", start.rest)
    if start.rest[:1].islower():
        # "Table 3-1 summarizes ..." is prose; so is a paragraph in the body's type that starts with a
        # cross-reference set in bold ("**Figure 1** illustrates the ...", Frontiers)
        return bool(first.first_span_bold) and not _is_body(block, style)
    return set_apart


def _is_body(block: TextBlock, style: DocumentStyle) -> bool:
    if abs(block.size - style.body_size) > 0.8:
        return False
    if sum(line.gappy for line in block.lines) > 0.3 * len(block.lines):
        return False
    if not any(line.font in style.body_fonts for line in block.lines) and style.body_fonts:
        return False
    words = len(block.text.split())
    return words >= 8 and ((len(block.lines) >= 2 and block.width >= 140) or len(block.text) >= 160)


def _geometry(page_rect: Rect, blocks: list[TextBlock]) -> PageGeometry:
    geometry = _text_geometry(page_rect, blocks)
    printed = [b.bbox for b in blocks if b.lines[0].horizontal]
    geometry.print_box = union(printed) if printed else None
    return geometry


def _text_geometry(page_rect: Rect, blocks: list[TextBlock]) -> PageGeometry:
    body = [b for b in blocks if b.role == "body"] or [b for b in blocks if b.role != "furniture"]
    if not body:
        return PageGeometry(page_rect, page_rect, two_columns=False)
    text_box = union([b.bbox for b in body])
    middle = (text_box[0] + text_box[2]) / 2
    width = text_box[2] - text_box[0]
    chars_left = sum(len(b.text) for b in body if b.bbox[2] < middle + 0.03 * width)
    chars_right = sum(len(b.text) for b in body if b.bbox[0] > middle - 0.03 * width)
    total = sum(len(b.text) for b in body) or 1
    two_columns = chars_left > 0.2 * total and chars_right > 0.2 * total
    if not two_columns:
        gutter_box = _gutter_columns(blocks)
        if gutter_box is not None:
            return PageGeometry(page_rect, gutter_box, True)
    return PageGeometry(page_rect, text_box, two_columns)


def _gutter_columns(blocks: list[TextBlock]) -> Rect | None:
    """Two columns that the body-text test misses: one column of body text beside one of smaller type
    (the references, a long footnote). Both sides carry text and no block of prose crosses the gutter."""
    text = [b for b in blocks if b.role in {"body", "text"} and b.lines[0].horizontal and len(b.text) >= 40]
    if len(text) < 2:
        return None
    box = union([b.bbox for b in text])
    middle = (box[0] + box[2]) / 2
    width = box[2] - box[0]
    if any(b.bbox[0] < middle - 0.03 * width and b.bbox[2] > middle + 0.03 * width for b in text):
        return None
    total = sum(len(b.text) for b in text)
    left = sum(len(b.text) for b in text if b.bbox[2] <= middle + 0.03 * width)
    right = total - left
    return box if left > 0.2 * total and right > 0.2 * total else None


_HEADING_NUMBER = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[IVX]+\.|[A-Z]\.)\s+\S")
_ABSTRACT_START = re.compile(r"^\s*(?:a\s?b\s?s\s?t\s?r\s?a\s?c\s?t|summary)\b[\s.:—–-]*", re.IGNORECASE)
_BULLET = re.compile(r"^\s*(?:[•●▪◦‣∙·–—-]|\(?\d{1,2}[.)]|\(?[a-z][.)])\s+\S")
_EQUATION_CHARS = set("=+−×∑∫∂√≤≥≈∈∀∃αβγδεθλμπσφψω^_{}()[]|/")


def _block_type(block: TextBlock, style: DocumentStyle) -> BlockType:
    text = block.text.strip()
    if block.role == "caption":
        return "caption"
    if _is_heading(block, style):
        return "heading"
    if block.size < style.body_size - 1.2 and len(text) > 3 and (text[:1].isdigit() or text[:1] in "*†‡§¶"):
        return "footnote"
    if _BULLET.match(text) and not _HEADING_NUMBER.match(text):
        return "list"
    # both equation tests want a short block: long ones are not scanned character by character
    symbols = sum(ch in _EQUATION_CHARS for ch in text) if len(text) < 200 else 0
    if len(text) < 200 and symbols >= max(3, 0.15 * len(text.replace(" ", ""))) or re.search(r"\(\d{1,3}\)\s*$", text) and len(text) < 120 and symbols >= 2:
        return "equation"
    return "paragraph"


_SECTION_NAME = re.compile(
    r"^(?:(?:\d+(?:\.\d+)*\.?|[IVX]+\.)\s+)?(?:abstract|introduction|background|related work|preliminaries|"
    r"methods?|methodology|materials and methods|approach|experiments?|experimental setup|evaluation|"
    r"results?(?: and discussion)?|discussion|conclusions?(?: and future work)?|summary|limitations|"
    r"future work|acknowledge?ments?|references|bibliography|appendix)\s*$",
    re.IGNORECASE,
)


def _is_heading(block: TextBlock, style: DocumentStyle) -> bool:
    text = block.text.strip()
    words = text.split()
    if not words or len(block.lines) > 3 or len(words) > 16 or len(text) < 2:
        return False
    letters = sum(ch.isalpha() for ch in text)
    if not re.search(r"[^\W\d_]{3,}", text) or letters < 0.5 * len(text.replace(" ", "")) or "©" in text:
        return False  # "E Z 1:0 K", ISBN and copyright lines: not headings
    if _SECTION_NAME.match(text) and len(block.lines) == 1:
        return True
    if block.role == "body" and len(words) > 8:
        return False
    if text.endswith((".", ",", ";")) and not _HEADING_NUMBER.match(text):
        return False
    if not any(ch.isalpha() for ch in text):
        return False
    larger = block.size >= style.body_size + 0.9
    own_font = bool(style.body_fonts) and all(line.font not in style.body_fonts for line in block.lines)
    numbered = bool(_HEADING_NUMBER.match(text)) and (block.bold or larger or text.isupper() or own_font)
    return larger or block.bold or numbered or (text.isupper() and len(words) <= 6 and len(text) > 3)


def _build_document(
    document: Document,
    pdf: pymupdf.Document,
    collected: list[tuple[int, TextBlock]],
    visuals: list[tuple[int, VisualKind, TextBlock | None, Rect | None]],
    style: DocumentStyle,
    title_page_blocks: list[TextBlock],
) -> None:
    section: str | None = None
    first_page = min((page for page, _ in collected), default=1)
    title_lines, title_block = _title_lines(title_page_blocks)
    caption_ids: dict[int, str] = {}
    body_started = False
    for page_number, text_block in collected:
        block_type = _block_type(text_block, style)
        text = text_block.text.strip()
        if not text:
            continue
        # Author names and affiliations above the abstract are set large or bold, but they are
        # front matter, not sections; the title is the one heading there.
        # ("1. The Notch Signalling Pathway" is the first section, though not a usual section name)
        opens_body = bool(_SECTION_NAME.match(text) or block_type == "heading" and _FIRST_SECTION.match(text))
        if block_type == "heading" and not body_started and text_block is not title_block:
            block_type = "paragraph" if not opens_body else block_type
        if text_block.role == "body" or opens_body or page_number > first_page:
            body_started = True
        block_id = f"b{len(document.blocks) + 1}"
        if block_type == "heading":
            section = text
        else:
            # hyphens at line ends marked, for normalize_blocks to keep those of the paper's compounds
            text = join_lines([line.text for line in text_block.lines], mark_breaks=True).strip()
        document.blocks.append(
            Block(
                id=block_id,
                type=block_type,
                text=text,
                page=page_number,
                bbox=_rounded(text_block.bbox),
                section=section if block_type != "heading" else text,
                ocr=all(line.font == OCR_FONT for line in text_block.lines),
            )
        )
        if block_type == "caption":
            caption_ids[id(text_block)] = block_id
    _join_hyphenation(document.blocks)
    _join_continuations(document.blocks)
    document.blocks = [block for block in document.blocks if block.text.strip()]
    glyph_readings = normalize_blocks(document.blocks)
    page_title = None
    if title_lines:
        # a hyphen at the end of a title line is kept where the paper writes that compound with it
        marked = join_lines([line.text for line in title_lines], mark_breaks=True)
        page_title = normalize_text(keep_compound_hyphens([marked, *(b.text for b in document.blocks)])[0])
        # footnote marks after the title ("...batteries†") point to a note, they are not the title's
        page_title = re.sub(r"[\s*†‡§¶#]+$", "", page_title).strip() or None
    document.title = _title(pdf, page_title)
    mark_section_kinds(document)
    _mark_dedications(document.blocks)
    _mark_abstract(document)
    document.language = _metadata_language(pdf) or guess_language(document.body_text())
    _add_visuals(document, _without_back_matter_pictures(visuals, document.blocks), caption_ids)
    if glyph_readings:
        table = str.maketrans(glyph_readings)
        for visual in document.visuals:
            visual.caption = visual.caption.translate(table)


def _join_hyphenation(blocks: list[Block]) -> None:
    """A word hyphenated across a column or page break is joined into the block where it starts (a
    compound the paper writes with its hyphen elsewhere keeps it)."""
    known = vocabulary(b.text for b in blocks)
    # captions and footnotes the page break puts between the two halves do not separate them
    flow = [b for b in blocks if b.type not in {"caption", "footnote"}]
    for previous, current in zip(flow, flow[1:]):
        if previous.type not in {"paragraph", "list"} or current.type != "paragraph":
            continue
        match = re.search(rf"([^\W\d_]+)[-\u2010\u2011{SOFT_HYPHEN}]$", previous.text)
        if match and current.text[:1].islower():
            tail, _, rest = current.text.partition(" ")
            word = re.match(r"[^\W\d_]+", tail)
            if word is None:
                continue
            joined = join_across_break(match.group(1), word.group(0), known)
            previous.text = previous.text[: match.start()] + joined + tail[word.end() :]
            current.text = rest


# a sentence ends here: its stop, then closing quotes or brackets and citation numbers ("... cases.[12]")
_SENTENCE_END = re.compile(r"[.!?:;…][\"'’”)\]]*(?:\s*\[?[\d,–\s-]*\]?)?$")
_OPEN_ENDING = re.compile(
    r"(?:,|\b(?:the|a|an|of|in|on|at|to|from|with|by|for|and|or|but|as|than|that|which|through|between|"
    r"during|into|were|was|is|are|be|been|this|these|its|their))$",
    re.IGNORECASE,
)
# the first sentence of a text: up to a stop that is not an abbreviation's ("cf.", "e.g.", "Fig."), with
# its closing quotes or brackets and citation, before a capital or the end
_FIRST_SENTENCE = re.compile(
    r"^.*?(?<!\bcf)(?<!\be\.g)(?<!\bi\.e)(?<!\bal)(?<!\bFig)(?<!\bFigs)(?<!\bvs)(?<!\bet)(?<!\bNo)(?<!\bca)"
    r"(?<!\bapprox)(?<!\bresp)(?<!\b[A-Z])[.!?][\"'’”)\]]*(?:\s?\[[\d,–\s-]+\])?(?=\s+[A-Z“\"]|\s*$)",
    re.DOTALL,
)


_DEDICATION = re.compile(
    r"^\s*(?:in (?:loving |fond )?memory of|dedicated to|this (?:paper|article|work|study|review) is dedicated)\b",
    re.IGNORECASE,
)


def _mark_dedications(blocks: list[Block]) -> None:
    """A dedication ("In memory of ...") belongs to the front matter, not the prose to summarise."""
    for block in blocks:
        if block.type == "paragraph" and len(block.text) < 400 and _DEDICATION.match(block.text):
            block.section_kind = "front"


_LONE_ADDRESS = re.compile(r"^\s*(?:https?://|doi:|www\.)\S+\s*$", re.IGNORECASE)


def _join_continuations(blocks: list[Block]) -> None:
    """A sentence a page or column break cut in two: the part at the top of the next page or column is
    moved up to the block where the sentence starts ("... from" / "December 2008 through January 2009,
    participants wore ..."), so that no sentence starts in its middle. Only where the first part plainly
    goes on (no stop at its end, and it ends on a comma or a word like "from", or the next part starts in
    lower case)."""
    # a figure's DOI line or an address set between the two parts ("https://doi.org/...g001") is no prose
    flow = [b for b in blocks if b.type not in {"caption", "footnote"} and not _LONE_ADDRESS.match(b.text)]
    previous = flow[0] if flow else None
    for current in flow[1:]:
        if previous is not None and not previous.text:
            previous = current
            continue  # its text went up to the block before: the chain goes on from there
        if previous is None or previous.type != "paragraph" or current.type != "paragraph" or not current.text:
            previous = current if current.text else previous
            continue
        at_break = current.page != previous.page or (
            current.bbox is not None
            and previous.bbox is not None
            and (current.bbox[1] < previous.bbox[1] - 5 or current.bbox[0] > previous.bbox[2] - 5)
        )
        ending = previous.text.rstrip()
        goes_on = not (len(ending.split()) < 6 or _SENTENCE_END.search(ending)) and (
            # a part in lower case goes on the sentence wherever it is (PyMuPDF also cuts paragraphs in
            # two within a column); a capital after a break only after a comma or a word like "from"
            current.text[:1].islower() or at_break and _OPEN_ENDING.search(ending)
        )
        if not goes_on:
            previous = current
            continue
        match = _FIRST_SENTENCE.match(current.text)
        moved = match.group(0) if match else current.text
        previous.text = f"{ending} {moved.strip()}"
        current.text = current.text[len(moved) :].strip()
        if current.text:
            previous = current


def _mark_abstract(document: Document) -> None:
    blocks = document.blocks
    for position, block in enumerate(blocks[:60]):
        if block.page and block.page > 3:
            break
        match = _ABSTRACT_START.match(block.text)
        if not match:
            continue
        parts: list[Block] = []
        if block.type == "heading" or len(block.text) - match.end() < 20:
            following = blocks[position + 1 :]
        else:
            parts.append(block)
            following = blocks[position + 1 :]
        for candidate in following:
            # the keywords (or the abbreviations) close the abstract even though they are not body text
            if re.match(
                r"^\s*(?:keywords?|key words|index terms|abbreviations\s*:|1\.?\s+introduction)\b",
                candidate.text,
                re.IGNORECASE,
            ) or (parts and candidate.section_kind in {"back", "references"}):
                break
            if not candidate.is_body:
                continue  # a licence line or an affiliation printed between the abstract's paragraphs
            if candidate.type in {"heading", "caption"}:
                break
            if candidate.type not in {"paragraph", "list"}:
                continue
            parts.append(candidate)
            if len(parts) >= 6:
                break
        if not parts:
            continue
        block.is_abstract = True
        for part in parts:
            part.is_abstract = True
        text = join_lines([p.text for p in parts])
        document.abstract = _ABSTRACT_START.sub("", text, count=1).strip() if parts[0] is block else text
        return
    _mark_unheaded_abstract(document)


_FIRST_SECTION = re.compile(r"^\s*(?:1\.?\s+|I\.\s+)?(?:introduction|background)\b|^\s*1\.?\s+[A-Z]", re.IGNORECASE)


def _mark_unheaded_abstract(document: Document) -> None:
    """Many journals print the abstract without a heading: it is then the body paragraphs just before the
    first section ("Introduction", "Background", "1. ...") on the first two pages, once the front matter
    and the journal's furniture are set aside."""
    blocks = document.blocks
    first = next(
        (
            i
            for i, b in enumerate(blocks[:80])
            if (b.page or 1) <= 2 and b.type == "heading" and b.is_body and _FIRST_SECTION.match(b.text)
        ),
        None,
    )
    if first is None:
        return
    parts: list[Block] = []
    for block in reversed(blocks[:first]):
        if not block.is_body or block.type in {"caption", "footnote", "equation"}:
            continue
        if block.type == "heading" or len(parts) >= 4:
            break
        if block.type == "paragraph" and len(block.text.split()) >= 12:
            parts.insert(0, block)
        elif parts:
            break
    words = sum(len(p.text.split()) for p in parts)
    if not parts or words < 60 or words > 600:
        return
    for part in parts:
        part.is_abstract = True
    document.abstract = join_lines([p.text for p in parts])


# Words a journal prints above the title to say what kind of article it is ("Research Article" in the
# title's own type on Hindawi pages): part of the title block, never part of the title
_ARTICLE_TYPE = re.compile(
    r"^\s*(?:original|research|review|clinical|case|brief|short|rapid|special|invited|full|mini|systematic|"
    r"technical|methods?|perspective|opinion|editorial|letter|commentary|communication|report|study|article|"
    r"paper|note|articles?|reviews?|reports?|studies|protocol|update|trial|hypothesis|highlight|focus|"
    r"feature|correspondence|open access|open|access|primary|the|a|an|and|\W)+\s*$",
    re.IGNORECASE,
)


# A journal's name set large above the title on the first page only ("Iranian Journal of Basic Medical Sciences")
_JOURNAL_NAME = re.compile(
    r"^\s*(?:the\s+)?(?:[\w&,-]+\s+){0,6}(?:journal|proceedings|transactions|annals|archives|bulletin|"
    r"letters|reports|review|reviews|research|medicine|science|sciences)\b(?:\s+(?:of|on|in|for|&|and)\s+[\w&,\s-]+)?\s*$",
    re.IGNORECASE,
)


# The banner of an author manuscript deposited in PMC, set above the title in larger type than it:
# "HHS Public Access" / "Author manuscript" (NIHMS since 2015), "NIH Public Access" / "Author Manuscript"
# (before), "Europe PMC Funders Group", "PMC Canada Author Manuscript", and the citation lines under them
_MANUSCRIPT_BANNER = re.compile(
    r"^\s*(?:(?:HHS|NIH)\s+Public\s+Access|(?:NIH-PA\s+|PMC\s+Canada\s+|Europe\s+PMC\s+Funders\s+)?Author\s+"
    r"Manuscripts?|Europe\s+PMC\s+Funders\s+Group|Published\s+in\s+final\s+edited\s+form\s+as:?|"
    r"Accepted\s+Manuscript|.*\bAuthor\s+manuscript;\s+available\s+in\s+PMC\b.*|"
    # F1000Research's review panel beside the title ("Referee Status:" in larger type than the title)
    r"Referee\s+Status:?|Open\s+Peer\s+Review|Invited\s+Referees)\s*$",
    re.IGNORECASE,
)


def _masthead(line: Line) -> bool:
    """A line above the title that labels the article or the journal, not the paper's own title (a running
    header is no sign: many journals run the title itself at the top of every page)."""
    text = line.text.strip()
    return bool(
        _ARTICLE_TYPE.match(text)
        or _MANUSCRIPT_BANNER.match(text)
        or re.search(r"\bjournal\b|\bproceedings\b", text, re.IGNORECASE) and _JOURNAL_NAME.match(text)
    )


def _capitals_label(lines: list[tuple[Line, TextBlock]]) -> bool:
    """A short line in capitals above a title that is not in capitals ("EDGE ARTICLE", "REVIEW"): a label."""
    first = lines[0][0].text.strip()
    if len(lines) < 2 or not first.isupper() or len(first.split()) > 3:
        return False
    return not lines[1][0].text.strip().isupper()


def _size_tolerance(line: Line, size: float) -> float:
    """How far a line's size may be from the title's and still be the title's type: a font's size is
    exact, a size OCR measured from a line's height varies by a tenth (13.0, 13.7 and 14.3 for one title
    whose last line has a descender)."""
    return 0.1 * size if line.font == OCR_FONT else 0.3


def _title_lines(blocks: list[TextBlock]) -> tuple[list[Line], TextBlock | None]:
    """The title as a reader finds it: the lines of the largest type near the top of the first content
    page, read down while the type stays that size and the lines stay close (a title broken over two
    blocks is one title). An article-type label above it ("Research Article") and a drop cap are not it;
    a size that only labels or single letters are set in gives way to the next smaller one.
    Returns the lines and the block holding the first of them."""
    candidates = [
        (line, block)
        for block in blocks
        if block.role != "caption"
        for line in block.lines
        if line.horizontal and sum(ch.isalpha() for ch in line.text) >= 2
    ]
    if not candidates:
        return [], None
    top = min(line.bbox[1] for line, _ in candidates)
    bottom = max(line.bbox[3] for line, _ in candidates)
    # the title sits in the upper part of the page (below a publisher's banner on some)
    upper = [(line, block) for line, block in candidates if line.bbox[1] < top + 0.6 * (bottom - top)]
    for size in sorted({round(line.size, 1) for line, _ in upper}, reverse=True):
        # by the line's foot: a superscript ("LuminoMark™") raises a line's top, never its foot
        at_size = sorted(
            ((line, block) for line, block in upper if abs(line.size - size) <= _size_tolerance(line, size)),
            key=lambda item: (round(item[0].bbox[3], 1), item[0].bbox[0]),
        )
        while at_size and (_masthead(at_size[0][0]) or _capitals_label(at_size)):
            at_size.pop(0)
        if not at_size:
            continue
        title = [at_size[0][0]]
        for line, _ in at_size[1:]:
            previous = title[-1]
            # the step from foot to foot: a tall glyph ("™" from a math font) stretches a line's box upwards
            step = line.bbox[3] - previous.bbox[3]
            same_row = abs(step) < 0.3 * size
            if same_row or 0.8 * size <= step <= 2.2 * size and x_overlap(line.bbox, previous.bbox) > 0:
                title.append(line)
            else:
                break
        text = join_lines([line.text for line in title])
        if len(re.findall(r"[^\W\d_]{2,}", text)) >= 2 and len(text) <= 400:
            return title, at_size[0][1]
    return [], None


_JUNK_METADATA_TITLE = re.compile(
    r"\.(?:docx?|pdf|tex|dvi|indd|fm|qxd|qxp|rtf|ps|eps|p65|xml|sgml)\b|^untitled|^microsoft|^doi:|^\d|"
    r"\d+\.\.\d+\s*$|^[\w.-]+$|#_#|^_",
    re.IGNORECASE,
)


def _title_key(text: str) -> str:
    return " ".join(re.findall(r"[^\W_]+", normalize_text(text).lower()))


# F1000Research prints the version and its review status after the title, in the title's type:
# "... direct age estimates [v2; ref status: indexed, http://f1000r.es/4fj]"; it ends the title (a line
# OCR read after it, the authors', is not the title either)
_TITLE_STATUS = re.compile(r"\s*\[v\d+;\s*ref\s+status:[^\]]*\].*$", re.IGNORECASE | re.DOTALL)


def _title(pdf: pymupdf.Document, page_title: str | None) -> str | None:
    """The title printed on the page; the metadata title only when the page offers none and the metadata
    looks like a title (not a file name, a job number, a journal's name in capitals or a one-word label).
    A version and review status printed after it is not the title's."""
    if page_title:
        return _TITLE_STATUS.sub("", page_title) or page_title
    metadata_title = ((pdf.metadata or {}).get("title", "") or "").strip()
    if (
        12 <= len(metadata_title) <= 300
        and len(metadata_title.split()) >= 3
        and not _JUNK_METADATA_TITLE.search(metadata_title)
        and not metadata_title.isupper()
    ):
        return metadata_title
    return None


# Pages a publisher or an archive puts before the article ("Since January 2020 Elsevier has created a
# COVID-19 resource centre ...", Taylor & Francis' "Full Terms & Conditions", JSTOR's and ResearchGate's
# download pages): their text is not the paper's
_COVER_PAGE = re.compile(
    r"resource cent(?:re|er) with free information|has created a COVID-19 resource|"
    r"this (?:article|paper|chapter) is (?:part of|included in|brought to you)|"
    r"full terms (?:&|and) conditions of (?:access|use)|please scroll down for (?:the )?article|"
    r"your use of the jstor archive|see discussions, stats,? and author profiles|"
    r"this content (?:was )?downloaded from|for personal use only\.? not for distribution|"
    r"terms and conditions of use(?:,| are)? (?:available|can be found)|"
    r"the publisher'?s? (?:final|version of record) (?:is|was) available|"
    r"this is a pdf file of an (?:unedited|article that has undergone)",
    re.IGNORECASE,
)


_ARTICLE_PAGE = re.compile(r"\b(?:abstract|introduction|background|summary|keywords)\b", re.IGNORECASE)


def cover_pages(page_texts: list[str]) -> list[int]:
    """1-based numbers of the publisher or archive cover pages at the front of a PDF: pages, before any
    page of the article, whose text is short and says what such pages say. A PDF of one page has none."""
    covers: list[int] = []
    for number, text in enumerate(page_texts[:3], start=1):
        if number == len(page_texts):
            break
        flat = " ".join(text.split())
        # the article's own first page may say it belongs to a collection (F1000's "This article is included
        # in the ... Collection"), but it carries the abstract or the first section
        if len(flat) < 3500 and _COVER_PAGE.search(flat) and not _ARTICLE_PAGE.search(flat):
            covers.append(number)
        else:
            break
    return covers


def _metadata_language(pdf: pymupdf.Document) -> str | None:
    try:
        kind, value = pdf.xref_get_key(pdf.pdf_catalog(), "Lang")
    except Exception:  # noqa: BLE001
        return None
    if kind == "string" and value:
        return value.strip("()").split("-")[0].lower() or None
    return None


def _rounded(rect: Rect) -> Rect:
    return (round(rect[0], 2), round(rect[1], 2), round(rect[2], 2), round(rect[3], 2))


def _add_visuals(
    document: Document,
    visuals: list[tuple[int, VisualKind, TextBlock | None, Rect | None]],
    caption_ids: dict[int, str],
) -> None:
    visuals = _without_stray_labels(visuals)
    first_by_label: dict[tuple[str, str], Figure] = {}
    for page, kind, caption, region in visuals:
        if region is None and caption is None:
            continue
        target = document.tables if kind == "table" else document.figures
        prefix = "tab" if kind == "table" else "fig"
        start = caption.caption if caption is not None else None
        label = start.label if start is not None else None
        visual = Figure(
            id=f"{prefix}{len(target) + 1}",
            kind=kind,
            index=len(target) + 1,
            label=label,
            caption=normalize_text(caption.text.strip()) if caption is not None else "",
            caption_block=caption_ids.get(id(caption)) if caption is not None else None,
            page=page,
            bbox=_rounded(region) if region is not None else None,
        )
        if start is not None:
            key = (kind, start.label.lower())
            first = first_by_label.get(key)
            if first is not None and (start.continued or _repeated_caption(first, visual)):
                visual.continues = first.id
            first_by_label.setdefault(key, visual)
        if region is None:
            document.warnings.append(f"{visual.id} ({label}) on page {page}: caption found but no region")
        target.append(visual)


_BACK_KINDS = frozenset({"references", "back"})


def _without_back_matter_pictures(
    visuals: list[tuple[int, VisualKind, TextBlock | None, Rect | None]], blocks: list[Block]
) -> list[tuple[int, VisualKind, TextBlock | None, Rect | None]]:
    """Uncaptioned pictures on pages of the references and back matter are the publisher's (BMC's "Ready
    to submit your research?" advert, drawn as outlines with no text to read; F1000's referee-report
    boxes), not the paper's figures, which are captioned there if anywhere. So are those on pages after
    the last page with any text."""
    kinds: dict[int, set[str]] = {}
    for block in blocks:
        if block.page is not None and block.section_kind not in {None, "furniture"}:
            kinds.setdefault(block.page, set()).add(block.section_kind)
    if not kinds:
        return visuals
    last_text = max(kinds)
    back = {page for page, found in kinds.items() if found <= _BACK_KINDS}

    def publisher_page(page: int) -> bool:
        return page in back or page > last_text and (last_text in back)

    return [v for v in visuals if v[2] is not None or not publisher_page(v[0])]


def _caption_key(text: str) -> str:
    return " ".join(re.findall(r"[^\W_]+", normalize_text(text).lower()))[:120]


_CONTINUED_TAIL = re.compile(r"\s*\b(?:continued|cont d|cont|continuação|continuación|suite)$")


def _repeated_caption(first: Figure, later: Figure) -> bool:
    """A table or figure continued on the next pages under its caption printed again, word for word (with
    no "continued", or with it at the end, BMC, Springer): one visual in parts, not two with the same
    label."""
    if first.page is None or later.page is None or later.page < first.page:
        return False
    if later.page == first.page and not _CONTINUED_TAIL.search(_caption_key(later.caption)):
        return False  # on the same page only when it says so: "Table 5 ... (Continued)" in the next column
    keys = sorted(
        (_CONTINUED_TAIL.sub("", _caption_key(v.caption)) for v in (first, later)), key=len
    )
    return len(keys[0]) >= 20 and keys[1].startswith(keys[0])


def _without_stray_labels(
    visuals: list[tuple[int, VisualKind, TextBlock | None, Rect | None]],
) -> list[tuple[int, VisualKind, TextBlock | None, Rect | None]]:
    """A label the paper prints twice, once where a region was found and once where none was (a bare
    "Table 1." at a page foot, a caption's other language printed apart), is one visual: the one with a
    region is kept."""
    placed: set[tuple[str, str]] = set()
    for _, kind, caption, region in visuals:
        if caption is not None and caption.caption is not None and region is not None:
            placed.add((kind, caption.caption.label.lower()))
    return [
        visual
        for visual in visuals
        if visual[3] is not None
        or visual[2] is None
        or visual[2].caption is None
        or (visual[1], visual[2].caption.label.lower()) not in placed
    ]


def _rendered_pixels(clip: pymupdf.Rect, dpi: int) -> int:
    # get_pixmap renders the clip scaled by dpi/72 and rounded outwards to whole pixels
    box = (clip * pymupdf.Matrix(dpi / 72, dpi / 72)).irect
    return box.width * box.height


def _dpi_within_limit(clip: pymupdf.Rect, dpi: int, max_pixels: int) -> int:
    """A poster-sized page would make a crop of billions of pixels; lower the resolution instead.
    0 when even 1 dpi is over the limit."""
    pixels = _rendered_pixels(clip, dpi)
    if pixels <= max_pixels:
        return dpi
    # the square-root estimate ignores the rounding to whole pixels; step down until it fits
    lowered = max(1, int(dpi * (max_pixels / pixels) ** 0.5))
    while lowered >= 1 and _rendered_pixels(clip, lowered) > max_pixels:
        lowered -= 1
    return lowered


def png_bytes(pixmap: pymupdf.Pixmap) -> bytes:
    """The pixmap as PNG, deflated at level 1 by Pillow: MuPDF's own writer deflates at the default level,
    which took more time than rendering the crop, for files only about 5% smaller
    (benchmarks/bench_png_encoder.py)."""
    mode = {1: "L", 3: "RGB"}.get(pixmap.n) if not pixmap.alpha else None
    if mode is None:  # CMYK or with alpha: no crop is rendered so, MuPDF writes what PNG can hold
        return pixmap.tobytes("png")
    # frombuffer reads the samples in place; the stride covers rows padded past width * channels
    image = Image.frombuffer(mode, (pixmap.width, pixmap.height), pixmap.samples_mv, "raw", mode, pixmap.stride, 1)
    encoded = io.BytesIO()
    image.save(encoded, format="PNG", compress_level=1)
    return encoded.getvalue()


def render_visuals(
    document: Document,
    figures_dir: Path,
    *,
    dpi: int,
    password: str | None,
    limits: ReadLimits,
    control: JobControl,
) -> None:
    """Render every figure and table region to PNG with get_pixmap(clip=...), never from raw streams."""
    with MUPDF_LOCK:  # one thread in PyMuPDF at a time
        _render_visuals(document, figures_dir, dpi=dpi, password=password, limits=limits, control=control)


def _render_visuals(document: Document, figures_dir: Path, *, dpi: int, password: str | None,
                    limits: ReadLimits, control: JobControl) -> None:
    pdf = open_pdf(Path(document.source), password)
    try:
        visuals = document.visuals
        # one display list per page serves all the crops on it (a page is interpreted once, not per crop)
        shown: tuple[int, pymupdf.Page, pymupdf.DisplayList] | None = None
        in_page_order = sorted(visuals, key=lambda v: v.page or 0)  # figures and tables of a page together
        for position, visual in enumerate(in_page_order):
            control.report(position, len(visuals), visual.label or visual.id)
            visual.image = None
            if visual.bbox is None or visual.page is None:
                continue
            if shown is None or shown[0] != visual.page:
                page = pdf.load_page(visual.page - 1)
                shown = (visual.page, page, page.get_displaylist())
            page, display = shown[1], shown[2]
            clip = pymupdf.Rect(visual.bbox) + (-2, -2, 2, 2)
            clip &= page.rect
            if clip.is_empty:
                continue
            crop_dpi = _dpi_within_limit(clip, dpi, limits.max_render_pixels)
            if crop_dpi == 0:
                document.warnings.append(f"{visual.id}: not rendered, over the pixel limit even at 1 dpi")
                continue
            if crop_dpi < dpi:
                document.warnings.append(f"{visual.id}: rendered at {crop_dpi} dpi to stay under the pixel limit")
            zoom = crop_dpi / 72
            matrix = pymupdf.Matrix(zoom, zoom).prerotate(crop_rotation(page, tuple(clip)))
            pixmap = display.get_pixmap(matrix=matrix, clip=clip, alpha=False)
            target = figures_dir / f"{visual.id}.png"
            write_bytes_atomic(target, png_bytes(pixmap), durable=False)
            visual.image = f"figures/{target.name}"
        control.report(len(visuals), len(visuals), "done")
    finally:
        pdf.close()
