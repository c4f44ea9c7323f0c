"""HTML laid out as an A4 PDF with PyMuPDF's Story: what a summary's PDF export writes.

The caller prepares the body (the summary's HTML, its images resampled into a folder) and gets the PDF's
bytes. A figure is a block ``<div id="fig-N">`` (N from 1) and its caption an element ``id="cap-N"``
inside it: a figure whose caption would fall on the next page starts that page instead. Fonts are
subset, so the file stays small. PyMuPDF is entered under ``MUPDF_LOCK`` (document/mupdf.py).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from mmdocsum_desktop.document.mupdf import MUPDF_LOCK

_MARGIN_PT = 50  # each side of the A4 page
_MAX_PAGES = 500  # a runaway layout (an element taller than a page) stops here


def story_pdf(body: str, css: str, images: Path, *, figures: int = 0,
              metadata: dict[str, str] | None = None) -> bytes:
    """The PDF of the HTML ``body`` styled by ``css``, images read relative to the folder ``images``;
    ``figures``: how many ``fig-N`` blocks the body has; ``metadata``: the PDF's title, creator…"""
    with MUPDF_LOCK:  # PyMuPDF is not thread-safe: one thread in it at a time (document/mupdf.py)
        import pymupdf  # lazy: PyMuPDF loads only for a PDF export

        archive = pymupdf.Archive(str(images))
        breaks: set[int] = set()
        for _attempt in range(figures + 1):
            document, split = _lay_out(pymupdf, _with_breaks(body, breaks), css, archive, figures)
            if split is None or split in breaks:
                break
            document.close()
            breaks.add(split)  # the figure was cut from its caption: it starts a page instead
        try:
            document.subset_fonts()
            if metadata is not None:
                document.set_metadata(metadata)
            data: bytes = document.tobytes(garbage=3, deflate=True)
        finally:
            document.close()
            del document, archive  # freed under the lock: no MuPDF object is freed while another thread is in it
        return data


def _with_breaks(body: str, breaks: set[int]) -> str:
    for number in breaks:
        body = body.replace(f'<div id="fig-{number}">', f'<div id="fig-{number}" style="page-break-before: always">', 1)
    return body


def _lay_out(pymupdf: Any, body: str, css: str, archive: Any, figures: int) -> tuple[Any, int | None]:
    """The pages in memory, and the first figure whose caption landed on another page (None: none)."""
    story = pymupdf.Story(html=body, user_css=css, archive=archive)
    buffer = io.BytesIO()
    writer = pymupdf.DocumentWriter(buffer)
    mediabox = pymupdf.paper_rect("a4")
    where = mediabox + (_MARGIN_PT, _MARGIN_PT, -_MARGIN_PT, -_MARGIN_PT)
    pages_of: dict[str, int] = {}

    def seen(position: Any) -> None:
        if position.id and position.open_close & 1:
            pages_of.setdefault(position.id, position.page_num)

    more, page = True, 0
    while more and page < _MAX_PAGES:
        device = writer.begin_page(mediabox)
        more, _ = story.place(where)
        story.element_positions(seen, {"page_num": page})
        story.draw(device)
        writer.end_page()
        page += 1
    writer.close()
    split = next((n for n in range(1, figures + 1)
                  if f"cap-{n}" in pages_of and pages_of.get(f"fig-{n}") != pages_of[f"cap-{n}"]), None)
    return pymupdf.open("pdf", buffer.getvalue()), split
