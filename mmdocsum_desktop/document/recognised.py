"""What text recognition hands the scanned-page reader (recognised lines with their boxes, per page), and
the reader's notes about scanned pages that a summary repeats.

Its own light module: the model layer (``models.ocr``) produces these, and the application reads the
notes, without importing the reader of scanned pages (``document.scanned``), which needs PyMuPDF and SciPy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mmdocsum_desktop.document.injection import WARNING_PREFIX as INJECTION_WARNING

Rect = tuple[float, float, float, float]  # as document.pdf_layout.Rect: (x0, y0, x1, y1)


@dataclass(frozen=True)
class RecognisedLine:
    text: str
    bbox: Rect  # (x0, y0, x1, y1) in pixels of the upright page image
    confidence: float = 1.0


@dataclass(frozen=True)
class RecognisedPage:
    lines: tuple[RecognisedLine, ...]
    # numpy rot90 turns (counter-clockwise) the OCR applied to the page image to read it upright
    quarter_turns: int = 0
    width: int = 0
    height: int = 0


# Text recognition for scanned pages, injected by the caller: PNG bytes of the page rendered at OCR_DPI
# (less for huge pages) -> RecognisedPage; a list of (text, box) or (text, box, confidence) is accepted too.
PageOcr = Callable[[bytes], "RecognisedPage | Sequence[tuple]"]


def as_recognised_page(result: RecognisedPage | Sequence[tuple]) -> RecognisedPage:
    if isinstance(result, RecognisedPage):
        return result
    lines = []
    for row in result:
        text, box = row[0], row[1]
        confidence = float(row[2]) if len(row) > 2 else 1.0
        x0, y0, x1, y1 = (float(v) for v in box)
        lines.append(RecognisedLine(str(text), (x0, y0, x1, y1), confidence))
    return RecognisedPage(tuple(lines))


def scan_notes(warnings: Sequence[str]) -> list[str]:
    """The reader's warnings about scanned pages (read with OCR, low confidence, coarse, not read): what a
    summary of the document repeats, since its sentences may rest on misread words; and about text
    addressed to a language model that was left out (document/injection.py)."""
    return [w for w in warnings if "OCR" in w or "scanned" in w or w.startswith(INJECTION_WARNING)]
