"""Paragraphs of the user's own text: the one splitter that the authoring view, ``mmdocsum place`` and
the summary code share, so that the window and the command line see the same paragraphs."""

from __future__ import annotations

import re

# a blank line: only spaces or tabs (or nothing) between two line ends
_BLANK_LINE = re.compile(r"\n\s*\n")
# a line that is only a Markdown image: ![alt](link)
_IMAGE_LINE = re.compile(r"\s*!\[[^\]]*\]\([^)]*\)\s*")
# one italic line (*...*): how an accepted placement writes the caption under its image
_CAPTION_LINE = re.compile(r"\s*\*[^*\n].*\*\s*")


def split_paragraphs(text: str) -> list[str]:
    """The paragraphs of ``text`` (plain text or Markdown), in order, each stripped of surrounding
    white space; empty ones are left out.

    - Paragraphs are separated by one or more blank lines (a line of only spaces or tabs is blank);
      Windows (``\\r\\n``) and old Mac (``\\r``) line ends count as ``\\n``.
    - A single newline does not end a paragraph: it stays inside the paragraph's text as written.
      So a list whose items are not separated by blank lines, or a heading line directly above its
      text, is part of one paragraph; a heading or list item set off by blank lines is a paragraph of
      its own. Nothing is removed from the text of a paragraph except image lines (below).
    - A line that is only a Markdown image (``![alt](link)``) is not text: it is left out, and a
      paragraph made only of images disappears. One italic line (``*...*``) alone in the paragraph right
      after an image is that image's caption (as an accepted placement writes it) and is left out too;
      the user's own italic paragraphs elsewhere are kept.
    """
    normalised = (text or "").replace("\r\n", "\n").replace("\r", "\n")
    paragraphs: list[str] = []
    after_image = False
    for chunk in _BLANK_LINE.split(normalised):
        lines = chunk.strip().split("\n")
        if after_image and len(lines) == 1 and _CAPTION_LINE.fullmatch(lines[0]):
            after_image = False
            continue
        kept = [line for line in lines if not _IMAGE_LINE.fullmatch(line)]
        after_image = bool(chunk.strip()) and _IMAGE_LINE.fullmatch(lines[-1]) is not None
        paragraph = "\n".join(kept).strip()
        if paragraph:
            paragraphs.append(paragraph)
    return paragraphs
