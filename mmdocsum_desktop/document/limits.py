"""Limits that keep hostile or accidental inputs from exhausting memory or time."""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image


@dataclass(frozen=True)
class ReadLimits:
    max_file_bytes: int = 2 * 1024**3
    # HTML, Markdown and JATS are held whole as text and as a tree: about 20 bytes of memory per byte read.
    max_text_bytes: int = 128 * 1024**2
    max_pages: int = 10_000
    # Decompression-bomb guard for article images and for rendered crops (about 16k x 16k).
    max_image_pixels: int = 268_000_000
    max_html_depth: int = 200


DEFAULT_LIMITS = ReadLimits()


def configure_pillow(limits: ReadLimits) -> None:
    # Pillow warns above MAX_IMAGE_PIXELS and raises above twice that; we want the error at our limit.
    Image.MAX_IMAGE_PIXELS = limits.max_image_pixels // 2
