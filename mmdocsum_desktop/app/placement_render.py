"""The Markdown of placed images: the one writer for ``mmdocsum place``'s placement.md and the Authoring
view's Accept, so that the same placements on the same text give the same bytes.

An image goes after its paragraph as its own paragraph, ``![Figure 2](link)``: the alt text is the label
a reader sees ("Figure 2", brackets left out), and the figure's caption follows as one italic line
(``*Figure 2: Flow duration curves…*``, Markdown-escaped) unless the crop shows the caption printed under
the figure, where it would be read twice. The user's text stays as written around it. Where the image
file is, and so its link, is the front end's: ``mmdocsum place`` links the crops it wrote into its output
folder, the window copies the image into the project (``images/figure-2.png``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from mmdocsum_desktop.schemas.document import Document, Figure
from mmdocsum_desktop.schemas.placement import ImageCandidate
from mmdocsum_desktop.summarize.render import caption_text, escape_markdown
from mmdocsum_desktop.text.paragraphs import split_paragraphs

__all__ = ["candidate_caption", "caption_in_crop", "figure_caption", "image_alt", "image_markdown", "insert_image",
           "placements_markdown"]


def image_alt(label: str | None) -> str:
    """The alt text of a placed image: its label ("Figure 2"; "image" without one), no brackets (they
    would end the alt text, and the window finds an accepted image's line again by it)."""
    return re.sub(r"[\[\]]", "", label or "image")


def image_markdown(label: str | None, link: str, caption: str = "") -> str:
    """The Markdown of one placed image: its line and, with a caption, the caption's italic line."""
    block = f"![{image_alt(label)}]({link})"
    if caption:
        block += f"\n\n*{escape_markdown(caption)}*"
    return block


def figure_caption(document: Document | None, figure_id: str | None, label: str | None) -> str:
    """The caption line's text of a document's figure or table ("Figure 2: Flow duration curves…", on
    one line), '' when it has none, is not the document's, or its crop shows the caption."""
    if document is None or figure_id is None:
        return ""
    figure = next((visual for visual in document.visuals if visual.id == figure_id), None)
    if figure is None or caption_in_crop(document, figure):
        return ""
    return " ".join(caption_text(figure.label or label, figure.caption).split())


def caption_in_crop(document: Document | None, figure: Figure) -> bool:
    """Whether the figure's crop takes in its printed caption: the caption's block lies (mostly) inside
    the figure's region on its page."""
    if document is None or figure.caption_block is None or figure.bbox is None:
        return False
    try:
        block = document.block(figure.caption_block)
    except KeyError:
        return False
    if block.bbox is None or block.page != figure.page:
        return False
    x0, y0, x1, y1 = block.bbox
    fx0, fy0, fx1, fy1 = figure.bbox
    tolerance = 2.0  # points: a crop's edge drawn through the caption's first line still holds it
    overlap = max(0.0, min(x1, fx1 + tolerance) - max(x0, fx0 - tolerance)) * \
        max(0.0, min(y1, fy1 + tolerance) - max(y0, fy0 - tolerance))
    return overlap >= 0.8 * max(1e-6, (x1 - x0) * (y1 - y0))


def _paragraph_ends(text: str) -> list[int] | None:
    """Where each paragraph of ``text`` (as :func:`split_paragraphs` reads it) ends in ``text``, found in
    order; None when one is not there as written (an image line inside it: it is read without it)."""
    ends: list[int] = []
    start = 0
    for paragraph in split_paragraphs(text):
        position = text.find(paragraph, start)
        if position < 0:
            return None
        start = position + len(paragraph)
        ends.append(start)
    return ends


def insert_image(text: str, paragraph: int, block: str) -> str | None:
    """``text`` with ``block`` (:func:`image_markdown`) after its paragraph ``paragraph`` (0-based, as
    :func:`split_paragraphs` counts), a blank line between; None when that paragraph is not in the text."""
    ends = _paragraph_ends(text)
    if ends is None or not 0 <= paragraph < len(ends):
        return None
    end = ends[paragraph]
    return text[:end] + "\n\n" + block + text[end:]


def placements_markdown(paragraphs: str | Sequence[str], blocks: Mapping[int, str]) -> str:
    """The user's paragraphs with each image block after its paragraph (``blocks``: paragraph index →
    :func:`image_markdown`), ending in one newline.

    ``paragraphs`` as text: the text as the user wrote it, each block inserted as the window's Accept
    inserts it (so accepting every suggestion in the window gives these bytes); a list: paragraphs only,
    one blank line between them (empty ones left out)."""
    if isinstance(paragraphs, str):
        text = paragraphs.replace("\r\n", "\n").replace("\r", "\n")
        ends = _paragraph_ends(text)
        if ends is not None:
            for index in sorted(blocks, reverse=True):  # from the end: earlier positions stay where they are
                if 0 <= index < len(ends):
                    text = text[:ends[index]] + "\n\n" + blocks[index] + text[ends[index]:]
            return text.rstrip() + "\n"
        paragraphs = split_paragraphs(text)
    parts: list[str] = []
    for index, paragraph in enumerate(paragraphs):
        parts += [(paragraph or "").strip(), blocks.get(index, "")]
    return "\n\n".join(part for part in parts if part) + "\n"


def candidate_caption(candidate: ImageCandidate, document: Document | None) -> str:
    """The caption line's text of a pool's image: a document's figure's as :func:`figure_caption` gives
    it; a folder's image (no document) its caption from captions.json, on one line ('' without one)."""
    if document is not None:
        return figure_caption(document, candidate.source_id, candidate.display_name())
    return " ".join(caption_text(None, candidate.caption).split()) if candidate.caption.strip() else ""
