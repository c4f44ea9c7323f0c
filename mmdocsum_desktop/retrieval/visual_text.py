"""The text printed inside a PDF's figure and table regions, read from the page's own text layer.

The document reader keeps captions but leaves out the words inside figures and tables (they are not
prose). Evidence search wants them back: a table's cells say which group had the highest mortality,
a chart's axis and legend say what was measured. The page service (document/pages.py, PyMuPDF's
``get_text("words")``) gives a page's words in a few milliseconds, without OCR; those inside a region
are grouped here into lines by their vertical position, and the cells of a line are kept apart by
" | " where the gap between two words is wider than a space.

Only PDFs whose file is still where the document says are read; anything else gives no text (the
caller goes on with captions and citing sentences).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mmdocsum_desktop.document.pages import page_words
from mmdocsum_desktop.schemas.document import Document, Figure

# Two words more than this many points apart on one line sit in different cells.
CELL_GAP_PT = 6.0
# A region with more words than this is a full-page table or a dense diagram: its first lines suffice.
MAX_REGION_WORDS = 3000


@dataclass(frozen=True)
class RegionText:
    """The lines of text inside one figure or table region, top to bottom, cells joined by " | "."""

    visual_id: str
    lines: tuple[str, ...]

    @property
    def text(self) -> str:
        return " ".join(self.lines)


def read_region_text(document: Document) -> dict[str, RegionText]:
    """Visual id → the text inside its region, for every figure and table of a PDF with a bbox."""
    if document.kind != "pdf" or not document.visuals:
        return {}
    path = Path(document.source)
    if not path.is_file():
        return {}
    regions = [v for v in document.visuals if v.bbox is not None and v.page is not None]
    try:  # the words of the pages with a region, read under the PyMuPDF lock (document/pages.py)
        pages = page_words(path, {v.page - 1 for v in regions if v.page is not None})
    except (RuntimeError, ValueError, OSError):  # damaged or encrypted: the reader already said so
        return {}
    found: dict[str, RegionText] = {}
    for visual in regions:
        words = pages.get(visual.page - 1) if visual.page is not None and visual.page >= 1 else None
        if words is None:  # past the last page
            continue
        lines = _lines_in(words, visual)
        if lines:
            found[visual.id] = RegionText(visual.id, tuple(lines))
    return found


def _lines_in(words: list[tuple], visual: Figure) -> list[str]:
    x0, y0, x1, y1 = visual.bbox  # type: ignore[misc]
    inside = []
    for word in words:
        cx, cy = (word[0] + word[2]) / 2, (word[1] + word[3]) / 2
        if x0 - 1 <= cx <= x1 + 1 and y0 - 1 <= cy <= y1 + 1:
            inside.append(word)
            if len(inside) >= MAX_REGION_WORDS:
                break
    if not inside:
        return []
    if _sideways(inside):
        # a table set sideways on a portrait page reads bottom to top: turn it upright (x ← -y, y ← x)
        inside = [(-w[3], w[0], -w[1], w[2], w[4]) for w in inside]
    # PyMuPDF numbers the lines of each text block; a table's cells are often separate blocks that
    # share a baseline, so lines are rebuilt from the words' vertical centres instead.
    inside.sort(key=lambda w: ((w[1] + w[3]) / 2, w[0]))
    rows: list[list[tuple]] = []
    for word in inside:
        centre, height = (word[1] + word[3]) / 2, max(1.0, word[3] - word[1])
        if rows:
            last = rows[-1]
            last_centre = sum((w[1] + w[3]) / 2 for w in last) / len(last)
            if abs(centre - last_centre) <= 0.45 * height:
                last.append(word)
                continue
        rows.append([word])
    lines = []
    for row in rows:
        row.sort(key=lambda w: w[0])
        parts = [row[0][4]]
        for before, word in zip(row, row[1:]):
            parts.append((" | " if word[0] - before[2] > CELL_GAP_PT else " ") + word[4])
        line = "".join(parts).strip()
        if line:
            lines.append(line)
    return lines


def _sideways(words: list[tuple]) -> bool:
    """Most words of three or more letters are taller than wide: the region is set sideways."""
    long_words = [w for w in words if len(w[4]) >= 3]
    if len(long_words) < 5:
        return False
    tall = sum(1 for w in long_words if (w[3] - w[1]) > 1.5 * (w[2] - w[0]))
    return tall > len(long_words) / 2
