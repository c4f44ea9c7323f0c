"""A PDF's pages as pictures and words: what the reader's pane, its render process, evidence search and
the benchmarks need of a PDF besides reading it into a Document.

:class:`PdfPages` opens a PDF for rendering: its page count, each page's size and metadata, a page or a
clip of it rasterised (:class:`Pixels`, or PNG bytes), and the words of a page or of a region of it, as
PyMuPDF's ``get_text("words")`` gives them. :func:`page_words` reads the words of some pages of a file in
one go. Every call into PyMuPDF holds ``MUPDF_LOCK`` (document/mupdf.py), and the MuPDF objects a call
makes (pages, pixmaps) are freed before it lets the lock go. Pages are numbered from 0 here, as PyMuPDF
numbers them.

PyMuPDF is imported by the first call, not with this module: the window imports it at start-up, and
importing PyMuPDF (with its layout model) costs a second there.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from types import TracebackType
from typing import Any

from mmdocsum_desktop.document.mupdf import MUPDF_LOCK

Rect = tuple[float, float, float, float]
# x0, y0, x1, y1 (points, origin top-left), the word, its block, its line in the block, its place in the line
WordBox = tuple[float, float, float, float, str, int, int, int]


@dataclass(frozen=True)
class Pixels:
    """A rendered page or clip: ``samples`` are rows of ``stride`` bytes, RGB (or one gray byte a pixel),
    no alpha; ``png`` is the same picture as a PNG file."""

    width: int
    height: int
    stride: int
    samples: bytes
    png: bytes | None = None


class PdfPages:
    """One PDF opened for rendering and for its words. Safe to share between threads: each call holds the
    process's PyMuPDF lock. ``password`` opens an encrypted PDF (a wrong one leaves its pages blank)."""

    def __init__(self, path: str | Path, password: str | None = None) -> None:
        import pymupdf  # lazy: the window imports this module at start-up, before any PDF is opened

        self._pymupdf: Any = pymupdf
        self.path = str(path)
        with MUPDF_LOCK:  # one thread in PyMuPDF at a time (document/mupdf.py)
            self._pdf: Any = pymupdf.open(self.path)
            if self._pdf.needs_pass and password:
                self._pdf.authenticate(password)
            self.page_count: int = self._pdf.page_count

    @cached_property
    def sizes(self) -> list[tuple[float, float]]:
        """Every page's size in points (width, height), for a layout made before any page is rendered."""
        with MUPDF_LOCK:
            return [(page.rect.width, page.rect.height) for page in self._pdf.pages()]

    @cached_property
    def metadata(self) -> dict[str, str]:
        """Title, author, subject…: only the fields the file fills in, as text."""
        with MUPDF_LOCK:
            return {k: str(v) for k, v in (self._pdf.metadata or {}).items() if v}

    def words(self, page: int, *, clip: Rect | None = None) -> list[WordBox]:
        """The words of page ``page`` (those inside ``clip``, when given) in the file's order."""
        with MUPDF_LOCK:
            if clip is None:
                return list(self._pdf.load_page(page).get_text("words", sort=False))
            return list(self._pdf.load_page(page).get_text("words", clip=self._pymupdf.Rect(clip), sort=False))

    def clip(self, page: int, box: Rect) -> Rect | None:
        """``box`` cut to the page's edges; None when nothing of it is on the page."""
        with MUPDF_LOCK:
            rect = self._pymupdf.Rect(box) & self._pdf.load_page(page).rect
            return None if rect.is_empty else (rect.x0, rect.y0, rect.x1, rect.y1)

    def render(self, page: int, zoom: float = 1.0, *, clip: Rect | None = None, dpi: int | None = None,
               gray: bool = False, png: bool = False) -> Pixels:
        """Page ``page`` (or ``clip`` of it) at ``zoom`` pixels per point (``dpi``, when given, instead),
        in RGB or ``gray``; with ``png``, the PNG file's bytes too."""
        pymupdf = self._pymupdf
        options: dict[str, Any] = {"matrix": pymupdf.Matrix(zoom, zoom), "alpha": False}
        if clip is not None:
            options["clip"] = pymupdf.Rect(clip)
        if dpi is not None:
            options["dpi"] = dpi
        if gray:
            options["colorspace"] = pymupdf.csGRAY
        with MUPDF_LOCK:
            pixmap = self._pdf.load_page(page).get_pixmap(**options)
            pixels = Pixels(pixmap.width, pixmap.height, pixmap.stride, bytes(pixmap.samples),
                            pixmap.tobytes("png") if png else None)
            del pixmap  # freed under the lock: no MuPDF object is freed while another thread is in MuPDF
        return pixels

    def close(self) -> None:
        with MUPDF_LOCK:
            self._pdf.close()

    def __enter__(self) -> PdfPages:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()


def preload() -> None:
    """Import PyMuPDF now: a process that will render pages does it while nothing waits for a page."""
    import pymupdf  # noqa: F401 — lazy, and the import is the point: it is slow, and done here ahead of need


def page_words(path: str | Path, pages: Iterable[int]) -> dict[int, list[WordBox]]:
    """The words of each of ``pages`` (0-based) of the PDF at ``path``, read under one hold of the lock.
    A page past the end is left out; a page whose text cannot be read has no words. Opening raises what
    PyMuPDF raises for a damaged or encrypted file (RuntimeError, ValueError, OSError)."""
    with MUPDF_LOCK, PdfPages(path) as pdf:
        found: dict[int, list[WordBox]] = {}
        for page in sorted(set(pages)):
            if not 0 <= page < pdf.page_count:
                continue
            try:
                found[page] = pdf.words(page)
            except (RuntimeError, ValueError):
                found[page] = []
        return found
