"""A PDF's pages for the front ends: the page service of ``document/pages.py`` (page count and sizes, a
page or a clip of it rendered, the words of a page), each call under the process's PyMuPDF lock.

A light module on purpose: the reader's render process imports it and nothing else of the application,
and PyMuPDF itself loads with the first PDF opened.
"""

from __future__ import annotations

from mmdocsum_desktop.document.highlight import line_rects, match_words
from mmdocsum_desktop.document.pages import PdfPages, Pixels, WordBox, preload

__all__ = ["PdfPages", "Pixels", "WordBox", "line_rects", "match_words", "preload"]
