"""Reading order for one- and two-column pages.

Blocks that span both columns (titles, wide captions, full-width figures' captions) cut the page into
bands; inside a band the left column is read before the right one.
"""

from __future__ import annotations

from collections.abc import Sequence

from mmdocsum_desktop.document.figures import PageGeometry
from mmdocsum_desktop.document.pdf_layout import Rect, TextBlock


def order_blocks(blocks: list[TextBlock], geometry: PageGeometry, cuts: Sequence[Rect] = ()) -> list[TextBlock]:
    """``cuts`` are regions (figures, tables) that may span both columns and so end a band."""
    if not geometry.two_columns:
        return sorted(blocks, key=lambda b: (round(b.bbox[1], 1), b.bbox[0]))
    middle = geometry.middle
    width = geometry.text_box[2] - geometry.text_box[0]

    def spans(block: TextBlock) -> bool:
        return block.bbox[0] < middle - 0.06 * width and block.bbox[2] > middle + 0.06 * width

    ordered: list[TextBlock] = []
    band: list[TextBlock] = []

    def flush_band() -> None:
        left = [b for b in band if (b.bbox[0] + b.bbox[2]) / 2 < middle]
        right = [b for b in band if (b.bbox[0] + b.bbox[2]) / 2 >= middle]
        ordered.extend(sorted(left, key=lambda b: b.bbox[1]))
        ordered.extend(sorted(right, key=lambda b: b.bbox[1]))
        band.clear()

    spanning_cuts = [c for c in cuts if c[0] < middle - 0.06 * width and c[2] > middle + 0.06 * width]
    items: list[tuple[float, float, TextBlock | None]] = [(b.bbox[1], b.bbox[0], b) for b in blocks]
    items += [(c[1], c[0], None) for c in spanning_cuts]
    for _, _, block in sorted(items, key=lambda item: (item[0], item[1])):
        if block is None:
            flush_band()
        elif spans(block):
            flush_band()
            ordered.append(block)
        else:
            band.append(block)
    flush_band()
    return ordered
