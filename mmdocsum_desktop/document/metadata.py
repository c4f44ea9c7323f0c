"""A PDF file's own metadata (XMP packet and Info author), read behind the PyMuPDF lock.

PyMuPDF is imported when a file is read, not when this module is: the library imports this at start-up
and the window paints before the PDF library loads (issue 34).
"""

from __future__ import annotations

from pathlib import Path

from mmdocsum_desktop.document.mupdf import MUPDF_LOCK


def pdf_file_metadata(path: Path) -> tuple[str, str]:
    """The XMP packet and the Info dictionary's author; empty strings where the file has none or is unreadable."""
    try:
        import pymupdf

        with MUPDF_LOCK:
            pdf = pymupdf.open(path)
            try:
                return str(pdf.get_xml_metadata() or ""), str((pdf.metadata or {}).get("author") or "")
            finally:
                pdf.close()
    except Exception:  # noqa: BLE001 — metadata is a bonus: a file the reader took is never refused for it
        return "", ""
