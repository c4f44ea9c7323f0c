"""A PDF file's own metadata (XMP packet and Info dictionary), read behind the PyMuPDF lock.

PyMuPDF is imported when a file is read, not when this module is: the library imports this at start-up
and the window paints before the PDF library loads (issue 34).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mmdocsum_desktop.document.mupdf import MUPDF_LOCK

_PAGES = 2
_MAX_LINES = 400


@dataclass(frozen=True)
class PdfFileMetadata:
    """What the file says of itself: the XMP packet and the Info dictionary's author, title and subject;
    and every text line of its first two pages as printed, running headers and footers included (the
    reader drops those from the document's blocks; a journal's name with its volume stands there)."""

    xmp: str = ""
    author: str = ""
    title: str = ""
    subject: str = ""
    created: str = ""  # the Info CreationDate ("D:20151012174147+05'30'")
    page_lines: tuple[str, ...] = ()


def pdf_file_metadata(path: Path) -> PdfFileMetadata:
    """The file's XMP packet and Info fields; empty strings where the file has none or is unreadable."""
    try:
        import pymupdf  # lazy: the library and the window import this module at start-up, before any PDF opens

        with MUPDF_LOCK:
            pdf = pymupdf.open(path)
            try:
                info = pdf.metadata or {}
                lines = tuple(line.strip() for page in list(pdf.pages())[:_PAGES]
                              for line in str(page.get_text("text") or "").splitlines() if line.strip())
                return PdfFileMetadata(str(pdf.get_xml_metadata() or ""), str(info.get("author") or ""),
                                       str(info.get("title") or ""), str(info.get("subject") or ""),
                                       str(info.get("creationDate") or ""), lines[:_MAX_LINES])
            finally:
                pdf.close()
    except Exception:  # noqa: BLE001 — metadata is a bonus: a file the reader took is never refused for it
        return PdfFileMetadata()
