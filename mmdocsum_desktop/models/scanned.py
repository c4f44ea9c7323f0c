"""OCR for scanned PDF pages, in the form PDF ingestion accepts (documents never import models)."""

from __future__ import annotations

from mmdocsum_desktop.document.pdf import PageOcr
from mmdocsum_desktop.models.ocr import OcrEngine, ocr_page_image


def page_ocr(engine: OcrEngine | None = None) -> PageOcr:
    """A callable for ``read_document(..., ocr=...)``: page PNG in, recognised lines with pixel boxes out."""

    def recognise(png: bytes) -> list[tuple[str, tuple[float, float, float, float]]]:
        result = ocr_page_image(png, engine=engine)
        return [(line.text, line.bbox) for line in result.lines]

    return recognise
