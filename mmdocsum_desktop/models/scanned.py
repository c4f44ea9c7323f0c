"""OCR for scanned PDF pages, in the form PDF ingestion accepts (documents never import models)."""

from __future__ import annotations

from mmdocsum_desktop.document.scanned import PageOcr
from mmdocsum_desktop.models.ocr import OcrEngine, page_reader


def page_ocr(engine: OcrEngine | None = None) -> PageOcr:
    """A callable for ``read_document(..., ocr=...)``: see :func:`mmdocsum_desktop.models.ocr.page_reader`."""
    return page_reader(engine)
