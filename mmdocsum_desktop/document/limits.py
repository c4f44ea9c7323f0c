"""Limits that keep hostile or accidental inputs from exhausting memory or time."""

from __future__ import annotations

import re
from dataclasses import dataclass

from PIL import Image


@dataclass(frozen=True)
class ReadLimits:
    max_file_bytes: int = 2 * 1024**3
    # HTML, Markdown and JATS are held whole as text and as a tree: about 20 bytes of memory per byte read.
    max_text_bytes: int = 128 * 1024**2
    max_pages: int = 10_000
    # Decompression-bomb guard for article images and scanned page images (about 16k x 16k).
    max_image_pixels: int = 268_000_000
    # Figure crops rendered from a PDF: a poster-sized page at 150 dpi would be billions of pixels, and
    # one crop at the decoding limit above took 3.4 GB (the pixmap, its samples and the PNG scanlines);
    # 25 million pixels (5000 x 5000) keep a crop under 300 MB and are more than a summary shows.
    max_render_pixels: int = 25_000_000
    max_html_depth: int = 200
    # A paragraph longer than this (a 20 MB file on one line) is cut into blocks of at most this many
    # characters, at sentence ends where there are any, else between words: every later step (sentences,
    # language, evidence, summary) then works on bounded pieces and its time grows linearly with the file.
    max_block_chars: int = 10_000
    # Text an HTML, Markdown or JATS document may hold: about 600,000 words, some 2,000 pages. Beyond it a
    # summary's evidence search alone takes minutes per megabyte; the reader stops with a clear message.
    max_text_chars: int = 4_000_000


DEFAULT_LIMITS = ReadLimits()


def configure_pillow(limits: ReadLimits) -> None:
    # Pillow warns above MAX_IMAGE_PIXELS and raises above twice that; we want the error at our limit.
    Image.MAX_IMAGE_PIXELS = limits.max_image_pixels // 2


_SENTENCE_END = re.compile(r"[.!?。！？][\"')\]]*\s")


def split_oversized(text: str, max_chars: int = DEFAULT_LIMITS.max_block_chars) -> list[str]:
    """``text`` in pieces of at most ``max_chars`` characters: cut after the last sentence end of each
    window, else at its last space, else (one enormous word) at the limit. Short text is one piece."""
    if len(text) <= max_chars:
        return [text]
    pieces: list[str] = []
    start = 0
    while len(text) - start > max_chars:
        window = text[start : start + max_chars]
        ends = [match.end() for match in _SENTENCE_END.finditer(window, max_chars // 2)]
        cut = ends[-1] if ends else window.rfind(" ", max_chars // 2) + 1 or max_chars
        pieces.append(text[start : start + cut].strip())
        start += cut
    pieces.append(text[start:].strip())
    return [piece for piece in pieces if piece]
