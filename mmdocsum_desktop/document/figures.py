"""Figure and table regions on one page, found caption-first and paired globally.

The approach follows what the best extractors do:
- captions are found by their start (labels.py), as pdffigures2 does;
- graphics (raster placements, clustered vector drawings, the text labels inside them) are grouped
  into pictures, and pictures are paired with captions by a global assignment over all captions of
  the page (Hungarian, as deepfigures pairs and Docling matches), not greedily;
- a region never grows across body text; sub-figures under one caption join its region;
- a caption with no graphics (most tables, code listings) takes the non-body text next to it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment

from mmdocsum_desktop.document.pdf_layout import (
    Rect,
    TextBlock,
    area,
    gap,
    intersection_area,
    merge_rects,
    union,
    x_overlap,
    y_overlap,
)

INFEASIBLE = 1e6
MAX_CAPTION_GAP = 260.0


@dataclass
class PageRegions:
    """What figures.py found on a page: each caption with its region, and uncaptioned pictures."""

    captioned: list[tuple[TextBlock, Rect | None]] = field(default_factory=list)
    uncaptioned: list[Rect] = field(default_factory=list)
    absorbed: set[int] = field(default_factory=set)  # ids of text blocks that belong inside a region


@dataclass
class PageGeometry:
    rect: Rect
    text_box: Rect  # the area the body text occupies
    two_columns: bool
    # where anything is printed (all text, headers and footers too): a figure as wide as the page's
    # type area is cut to this, not to the body text of a page that holds one narrow paragraph
    print_box: Rect | None = None

    @property
    def middle(self) -> float:
        return (self.text_box[0] + self.text_box[2]) / 2

    def column_span(self, rect: Rect) -> tuple[float, float]:
        """The horizontal band a caption or region belongs to: one column, or the full text width."""
        left, right = self.text_box[0], self.text_box[2]
        if not self.two_columns:
            return left, right
        width = right - left
        if rect[0] < self.middle - 0.08 * width and rect[2] > self.middle + 0.08 * width:
            return left, right
        if (rect[0] + rect[2]) / 2 < self.middle:
            return left, self.middle
        return self.middle, right


def find_regions(
    blocks: list[TextBlock],
    graphics: list[Rect],
    rules: list[Rect],
    geometry: PageGeometry,
) -> PageRegions:
    regions = PageRegions()
    captions = [b for b in blocks if b.role == "caption"]
    pictures = merge_rects(graphics, tolerance=6.0)
    pictures = [
        p
        for p in pictures
        if not _is_text_box(p, blocks) and not _is_page_frame(p, blocks, geometry) and not _is_caption_bar(p, captions)
    ]
    pictures = _absorb_labels(pictures, blocks, regions)
    obstacles = [b for b in blocks if b.role in {"body", "caption"}]

    assigned: dict[int, list[Rect]] = {}
    if captions and pictures:
        cost = np.full((len(captions), len(pictures)), INFEASIBLE)
        for i, caption in enumerate(captions):
            if _table_rows_top(caption, blocks, rules, geometry) is not None:
                # the table is the text right under its caption, not a picture past its rows or above it
                # (panel (a) of Figure 6 below Table 2's rows, panel (a) of Figure 3 above Table 1's caption)
                continue
            for j, picture in enumerate(pictures):
                cost[i, j] = _pair_cost(caption, picture, obstacles)
        rows, cols = linear_sum_assignment(cost)
        for i, j in zip(rows, cols):
            if cost[i, j] < INFEASIBLE:
                assigned[i] = [pictures[j]]
    used = {id(rect) for parts in assigned.values() for rect in parts}
    _attach_subfigures(captions, assigned, pictures, used, obstacles)

    taken = [r for parts in assigned.values() for r in parts]
    # Text regions in two passes: every caption's own zone first, then each widens without
    # reaching into a zone that belongs to another caption (tables side by side).
    zones = {
        i: _text_zone(caption, blocks, rules, geometry, taken)
        for i, caption in enumerate(captions)
        if not assigned.get(i) and caption.lines[0].horizontal
    }
    _settle_shared_zones(captions, zones, blocks, rules, geometry, taken)
    for i, caption in enumerate(captions):
        parts = assigned.get(i)
        if not caption.lines[0].horizontal:
            regions.captioned.append((caption, _rotated_region(caption, blocks, regions, parts)))
        elif parts:
            regions.captioned.append((caption, _within_text_area(union(parts), geometry)))
        else:
            others = [_zone_rect(members) for j, members in zones.items() if j != i and members]
            region = _text_region(caption, zones[i], blocks, geometry, regions, taken, others)
            regions.captioned.append((caption, region))

    page_area = area(geometry.rect)
    for picture in pictures:
        if id(picture) in used:
            continue
        if (
            _is_decoration(picture, page_area, geometry)
            or _is_masthead(picture, page_area, geometry, blocks)
            or _is_framed_text(picture, blocks)
        ):
            continue
        regions.uncaptioned.append(_within_text_area(picture, geometry))
    return regions


def _within_text_area(region: Rect, geometry: PageGeometry, margin: float = 15.0) -> Rect:
    """Graphics may run past the page edge or their clip path; the visible figure does not."""
    box = geometry.text_box
    if geometry.print_box is not None:
        box = union([box, geometry.print_box])
    page = geometry.rect
    x0 = max(region[0], box[0] - margin, page[0])
    x1 = min(region[2], box[2] + margin, page[2])
    if x1 - x0 < 0.5 * (region[2] - region[0]):
        return region
    return (x0, max(region[1], page[1]), x1, min(region[3], page[3]))


def _absorb_labels(pictures: list[Rect], blocks: list[TextBlock], regions: PageRegions) -> list[Rect]:
    """Text inside a picture, or short non-body text touching it (axis labels, legends), is part of it."""
    pictures = list(pictures)
    text_size = _text_size(blocks)
    changed = True
    while changed:
        changed = False
        for block in blocks:
            if block.role in {"caption", "furniture", "figure-text"}:
                continue
            for position, picture in enumerate(pictures):
                inside = intersection_area(block.bbox, picture) / max(area(block.bbox), 1e-6)
                if block.role == "body":
                    inside = 0.0  # running text on a shaded box stays text
                # a label is smaller than what it labels: a title or an author line beside a small
                # badge or ORCID icon is not the icon's label (and would chain the page's head into it)
                near_label = (
                    block.role != "body"
                    and not (_is_icon(picture) and block.size > text_size + 0.5)
                    and len(block.lines) <= 4
                    and area(block.bbox) <= area(picture)
                    and gap(block.bbox, picture) <= max(8.0, 0.8 * block.size)
                )
                if inside >= 0.6 or near_label:
                    block.role = "figure-text"
                    regions.absorbed.add(id(block))
                    grown = union([picture, block.bbox])
                    if grown != picture:
                        pictures[position] = grown
                        changed = True
                    break
        if changed:
            pictures = merge_rects(pictures, tolerance=6.0)
    return pictures


ICON_SIDE = 60.0  # points: a badge, an ORCID or licence icon, a "Check for updates" mark


def _text_size(blocks: list[TextBlock]) -> float:
    """The type size most of the page's text is set in."""
    sizes: dict[float, int] = {}
    for block in blocks:
        if block.role != "furniture":
            sizes[block.size] = sizes.get(block.size, 0) + len(block.text)
    return max(sizes, key=lambda size: sizes[size]) if sizes else 10.0


def _is_icon(picture: Rect) -> bool:
    """Too small to be labelled by type larger than the page's text: a badge or an icon beside a title
    takes no such text near it (taking "Open Access" beside a "Check for updates" badge chained the whole
    title block into a picture). Small labels (a reagent over a reaction arrow) and text printed inside
    it are still its own."""
    return max(picture[2] - picture[0], picture[3] - picture[1]) < ICON_SIDE


def _is_page_frame(picture: Rect, blocks: list[TextBlock], geometry: PageGeometry) -> bool:
    """Rules or panels around the page's text (SciELO's tinted sidebar): a drawing from the page's top
    edge to its bottom edge, or one nearly as tall that holds body text or more than one caption, is the
    page's layout, not a figure on it."""
    top, bottom = geometry.rect[1], geometry.rect[3]
    if picture[3] - picture[1] < 0.8 * (bottom - top):
        return False
    if picture[1] <= top + 0.03 * (bottom - top) and picture[3] >= bottom - 0.03 * (bottom - top):
        return True  # from the page's top edge to its bottom edge: a sidebar or a frame, never a figure's bleed
    inside = [b for b in blocks if intersection_area(b.bbox, picture) > 0.8 * max(area(b.bbox), 1e-6)]
    return any(b.role == "body" for b in inside) or sum(b.role == "caption" for b in inside) > 1


def _is_caption_bar(picture: Rect, captions: list[TextBlock]) -> bool:
    """A coloured bar or tab a caption's label is printed on ("Table 1" on a tinted strip): it is the
    caption's background, no more than a line or two high, not the table or figure it heads."""
    for caption in captions:
        first = caption.lines[0]
        height = first.bbox[3] - first.bbox[1]
        if (
            intersection_area(first.bbox, picture) > 0.6 * max(area(first.bbox), 1e-6)
            and picture[3] - picture[1] < 2.5 * max(height, caption.size)
        ):
            return True
    return False


def _is_framed_text(picture: Rect, blocks: list[TextBlock]) -> bool:
    """An uncaptioned frame around lines of words ("Cite this article as ...", "Additional file 1. ...",
    a referee report's box, an advert's list of promises): text in a box is no figure. A chart's or a
    flowchart's labels cover little of it, in lines of a few words."""
    inside = [
        b
        for b in blocks
        if b.role != "furniture" and intersection_area(b.bbox, picture) > 0.6 * max(area(b.bbox), 1e-6)
    ]
    lines = [line for b in inside for line in b.lines if line.horizontal]
    if not lines:
        return False
    covered = sum(area(line.bbox) for line in lines) / max(area(picture), 1e-6)
    words_per_line = sum(len(line.text.split()) for line in lines) / len(lines)
    # or a list of short lines set flush left in one column ("Article history: Received ...", "Additional
    # file 1.", "Additional file 2."); a flowchart centres its words in boxes at many places, a chart's
    # labels cover little of it
    starts = sorted(line.bbox[0] for line in lines)
    median = starts[len(starts) // 2]
    flush_left = len(lines) >= 2 and sum(abs(x - median) <= 3 for x in starts) >= 0.7 * len(lines)
    # a list under its heading: the lines start at two left edges (the items indented or bulleted,
    # "Keywords:" and "· Blending oil"), as text in a box does; a chart's labels start everywhere
    edges = _left_edges(starts)
    listed = len(lines) >= 6 and len(edges) <= 2 and sum(count for _, count in edges) >= 0.9 * len(lines)
    return covered > 0.3 and words_per_line >= 5 or covered > 0.1 and (flush_left or listed)


def _left_edges(starts: list[float], tolerance: float = 3.0) -> list[tuple[float, int]]:
    """The left edges lines start at (within ``tolerance``) with how many lines start there; only the
    edges of at least two lines."""
    edges: list[list[float]] = []
    for x in sorted(starts):
        if edges and x - edges[-1][-1] <= tolerance:
            edges[-1].append(x)
        else:
            edges.append([x])
    return [(group[0], len(group)) for group in edges if len(group) >= 2]


def _is_text_box(picture: Rect, blocks: list[TextBlock]) -> bool:
    """A filled or framed box whose content is mostly running text (a sidebar, a table background, an
    abstract printed on a shaded panel in a font other than the body's)."""
    covered = sum(intersection_area(b.bbox, picture) for b in blocks if b.role == "body" or _reads_as_prose(b))
    return covered > 0.25 * area(picture)


def _reads_as_prose(block: TextBlock) -> bool:
    """Lines of running sentences, not figure labels or table cells: many words to a line, few wide gaps."""
    if block.role not in {"text", "body"} or not block.lines[0].horizontal:
        return False
    lines = len(block.lines)
    if sum(line.gappy for line in block.lines) > 0.3 * lines:
        return False
    words = len(block.text.split())
    return words >= 12 and words >= 7 * lines


def _table_rows_top(
    caption: TextBlock, blocks: list[TextBlock], rules: list[Rect], geometry: PageGeometry
) -> float | None:
    """Where the rows of a table set as text start under its caption (None when the caption is no
    table's or no rows follow it): a picture further down belongs to a figure (its panel (a) was taken
    for Table 2 under which it stood)."""
    if caption.caption is None or caption.caption.kind != "table" or not caption.lines[0].horizontal:
        return None
    for span in (geometry.column_span(caption.bbox), (caption.bbox[0], caption.bbox[2])):
        members = _collect_zone(caption, blocks, rules, span, "below", [])
        rows = [m for m in members if isinstance(m, TextBlock)]
        if rows and (_tabular_evidence(members) >= 3 or len(rows) >= 4):
            return _zone_rect(members)[1]
    return None


def _relation(caption: Rect, picture: Rect) -> tuple[str, float]:
    if intersection_area(caption, picture) > 0.8 * max(area(caption), 1e-6):
        return "inside", 0.0  # a figure printed in a frame with its caption (Frontiers)
    # a picture may overlap the caption's first line a little (an image placed with a white margin that
    # the caption is printed over): still above or below it
    overlap = max(4.0, min(14.0, 0.3 * (caption[3] - caption[1])))
    if picture[3] <= caption[1] + overlap and picture[1] < caption[1]:
        return "above", max(0.0, caption[1] - picture[3])
    if picture[1] >= caption[3] - overlap and picture[3] > caption[3]:
        return "below", max(0.0, picture[1] - caption[3])
    return "side", max(0.0, max(caption[0] - picture[2], picture[0] - caption[2]))


def _pair_cost(caption: TextBlock, picture: Rect, obstacles: list[TextBlock]) -> float:
    relation, distance = _relation(caption.bbox, picture)
    if distance > MAX_CAPTION_GAP:
        return INFEASIBLE
    if relation == "inside":
        return 0.0
    if relation == "side":
        if y_overlap(caption.bbox, picture) < 0.3 * min(
            caption.bbox[3] - caption.bbox[1], picture[3] - picture[1]
        ):
            return INFEASIBLE
    else:
        narrow = min(caption.width, picture[2] - picture[0])
        centre = (caption.bbox[0] + caption.bbox[2]) / 2
        if x_overlap(caption.bbox, picture) < 0.3 * narrow and not picture[0] <= centre <= picture[2]:
            return INFEASIBLE
    if _blocked(caption.bbox, picture, obstacles, exclude=caption):
        return INFEASIBLE
    kind = caption.caption.kind if caption.caption else "figure"
    preferred = "below" if kind == "table" else "above"
    if relation == preferred:
        penalty = 0.0
    elif relation == "side":
        penalty = 40.0
    else:
        # a table's caption is printed above it: a picture above a table caption is more likely the
        # figure whose caption stands beside it (Springer) than the table, which is text below
        penalty = 60.0 if kind == "table" else 15.0
    return distance + penalty


def _blocked(a: Rect, b: Rect, obstacles: list[TextBlock], exclude: TextBlock | None = None) -> bool:
    """True when body text or another caption lies between two rectangles."""
    between = _between(a, b)
    if between is None:
        return False
    for block in obstacles:
        if block is exclude:
            continue
        inter = intersection_area(block.bbox, between)
        if inter > 0.5 * area(block.bbox) and inter > 20:
            return True
    return False


def _between(a: Rect, b: Rect) -> Rect | None:
    """The band that separates two rectangles, spanning their common horizontal (or vertical) extent."""
    if a[3] <= b[1] or b[3] <= a[1]:
        top, bottom = (a, b) if a[3] <= b[1] else (b, a)
        return (min(a[0], b[0]), top[3], max(a[2], b[2]), bottom[1])
    if a[2] <= b[0] or b[2] <= a[0]:
        left, right = (a, b) if a[2] <= b[0] else (b, a)
        return (left[2], min(a[1], b[1]), right[0], max(a[3], b[3]))
    return None


def _attach_subfigures(
    captions: list[TextBlock],
    assigned: dict[int, list[Rect]],
    pictures: list[Rect],
    used: set[int],
    obstacles: list[TextBlock],
) -> None:
    """Pictures left over after pairing join the captioned region they sit next to (sub-figures)."""
    changed = True
    while changed:
        changed = False
        for picture in pictures:
            if id(picture) in used:
                continue
            best, best_distance = None, 40.0
            for i, parts in assigned.items():
                region = union(parts)
                distance = gap(region, picture)
                if distance > best_distance:
                    continue
                grown = union([region, picture])
                caption = captions[i].bbox
                if intersection_area(grown, caption) > 0.3 * area(caption):
                    continue
                if any(
                    intersection_area(o.bbox, grown) > 0.5 * area(o.bbox)
                    for o in obstacles
                    if o is not captions[i]
                ):
                    continue
                best, best_distance = i, distance
            if best is not None:
                assigned[best].append(picture)
                used.add(id(picture))
                changed = True


def _rotated_region(
    caption: TextBlock, blocks: list[TextBlock], regions: PageRegions, parts: list[Rect] | None
) -> Rect | None:
    """A caption set sideways heads a landscape table or figure: the region is everything on the page
    written in the caption's direction, plus any graphics paired with it."""
    members = [b for b in blocks if b is not caption and b.role in {"figure-text", "text"} and not b.lines[0].horizontal]
    for member in members:
        member.role = "figure-text"
        regions.absorbed.add(id(member))
    rects = [m.bbox for m in members] + list(parts or [])
    return union(rects) if rects else None


def _text_zone(
    caption: TextBlock, blocks: list[TextBlock], rules: list[Rect], geometry: PageGeometry, taken: list[Rect]
) -> list:
    """The non-body text (and table rules) next to a caption, on the side that looks most tabular."""
    kind = caption.caption.kind if caption.caption else "figure"
    listing = caption.caption is not None and caption.caption.label.startswith("Example")
    directions = ["below", "above"] if kind == "table" or listing else ["above", "below"]
    column = geometry.column_span(caption.bbox)
    spans = [(column, 0)]
    printed = geometry.print_box or geometry.text_box
    if column != (printed[0], printed[2]):
        # a table across both columns under a caption set in the left one (Trials, Medicine): its rows
        # run across the gutter, so the whole width is tried too and the more tabular zone is taken
        spans.append(((printed[0], printed[2]), 2))
    if caption.bbox[2] < column[0] + 0.7 * (column[1] - column[0]):
        # the page taken for one column (little body text on it) while the table under the caption sits in
        # the left one: the caption's own width keeps the other column's text out
        spans.append(((caption.bbox[0], caption.bbox[2]), 1))
    proposals = []
    for span, wide in spans:
        for rank, direction in enumerate(directions):
            members = _collect_zone(caption, blocks, rules, span, direction, taken)
            if members and wide == 2 and _beside_other_caption(caption, _zone_rect(members), blocks, column):
                continue  # the other column holds a table or figure of its own at that height
            if members:
                proposals.append((_tabular_evidence(members), -rank, -wide, members))
    if not proposals:
        return []
    return max(proposals, key=lambda p: (p[0], p[1], p[2]))[3]


def _beside_other_caption(caption: TextBlock, zone: Rect, blocks: list[TextBlock], column: tuple[float, float]) -> bool:
    """Another caption outside this caption's column, level with the zone (or just above it): the zone
    across the whole width would take that caption's rows too."""
    for other in blocks:
        if other is caption or other.role != "caption":
            continue
        outside = other.bbox[2] <= column[0] + 2 or other.bbox[0] >= column[1] - 2
        if outside and x_overlap(other.bbox, zone) > 0 and zone[1] - 40 <= other.bbox[3] and other.bbox[1] <= zone[3]:
            return True
    return False


def _preferred_side(caption: TextBlock, rect: Rect) -> bool:
    """Is ``rect`` on the side where this caption's content is printed (tables and listings below their
    caption, figures above it)?"""
    kind = caption.caption.kind if caption.caption else "figure"
    below = kind == "table" or (caption.caption is not None and caption.caption.label.startswith("Example"))
    return rect[1] >= caption.bbox[3] - 2 if below else rect[3] <= caption.bbox[1] + 2


def _settle_shared_zones(
    captions: list[TextBlock],
    zones: dict[int, list],
    blocks: list[TextBlock],
    rules: list[Rect],
    geometry: PageGeometry,
    taken: list[Rect],
) -> None:
    """Two captions must not share text: Table 2's caption under Table 1's cells would otherwise take them
    as its own zone "above". Each shared piece goes to the caption it follows in reading (below a table
    caption, above a figure caption), the nearest if both; a caption left with nothing looks on its other
    side, stopping at what the others hold."""
    claims: dict[int, list[int]] = {}
    items: dict[int, TextBlock | Rect] = {}  # a zone holds text blocks and table rules
    for i, members in zones.items():
        for member in members:
            claims.setdefault(id(member), []).append(i)
            items[id(member)] = member
    shared = {key: owners for key, owners in claims.items() if len(owners) > 1}
    if not shared:
        return
    losers: set[int] = set()
    for key, owners in shared.items():
        member = items[key]
        rect = member.bbox if isinstance(member, TextBlock) else member

        def rank(i: int, rect: Rect = rect) -> tuple[int, float]:
            return (0 if _preferred_side(captions[i], rect) else 1, gap(captions[i].bbox, rect))

        winner = min(owners, key=rank)
        for i in owners:
            if i != winner:
                zones[i] = [m for m in zones[i] if id(m) != key]
                losers.add(i)
    held = [(m.bbox if isinstance(m, TextBlock) else m) for i, members in zones.items() for m in members]
    for i in losers:
        if any(isinstance(m, TextBlock) for m in zones[i]):
            continue
        caption = captions[i]
        span = geometry.column_span(caption.bbox)
        for direction in ("below", "above"):
            members = _collect_zone(caption, blocks, rules, span, direction, [*taken, *held])
            if members:
                zones[i] = members
                break
        else:
            zones[i] = []


def _text_region(
    caption: TextBlock,
    members: list,
    blocks: list[TextBlock],
    geometry: PageGeometry,
    regions: PageRegions,
    taken: list[Rect],
    others: list[Rect],
) -> Rect | None:
    """A region made of non-body text next to a caption: tables, code listings, text-only figures."""
    if not members:
        return None
    members = _widen_zone(members, blocks, taken, others)
    members = _fill_to_caption(caption, members, blocks, taken, others)
    left, right = geometry.column_span(caption.bbox)
    region = union([m.bbox if isinstance(m, TextBlock) else m for m in members])
    listing = caption.caption is not None and caption.caption.label.startswith("Example")
    if listing and region[2] - region[0] > 0.4 * (right - left):
        region = (min(region[0], left), region[1], max(region[2], right), region[3])
    for member in members:
        if isinstance(member, TextBlock):
            member.role = "figure-text"
            regions.absorbed.add(id(member))
    return region


def _tabular_evidence(members: list) -> float:
    """How much a zone looks like a table or listing: gappy rows, rules, many short lines."""
    score = 0.0
    for member in members:
        if isinstance(member, TextBlock):
            score += sum(1.0 for line in member.lines if line.gappy) + 0.3 * len(member.lines)
        else:
            score += 1.0
    return score


def _zone_rect(members: list) -> Rect:
    return union([m.bbox if isinstance(m, TextBlock) else m for m in members])


def _widen_zone(members: list, blocks: list[TextBlock], taken: list[Rect], others: list[Rect]) -> list:
    """A table may be wider than its caption's column: take in the non-body text beside the zone."""
    members = list(members)
    region = union([m.bbox if isinstance(m, TextBlock) else m for m in members])
    changed = True
    while changed:
        changed = False
        for block in blocks:
            if block in members or block.role in {"body", "caption", "furniture", "figure-text"}:
                continue
            if block.bbox[1] < region[1] - 2 or block.bbox[3] > region[3] + 2:
                continue
            distance = gap(block.bbox, region)
            if distance > 30 or any(gap(block.bbox, other) < distance for other in others):
                continue
            if any(intersection_area(block.bbox, t) > 0.3 * max(area(block.bbox), 1e-6) for t in taken):
                continue
            if _heads_body_text(block, blocks):
                continue
            members.append(block)
            region = union([region, block.bbox])
            changed = True
    return members


def _fill_to_caption(
    caption: TextBlock, members: list, blocks: list[TextBlock], taken: list[Rect], others: list[Rect]
) -> list:
    """A table under or beside its caption takes every line of non-body text between the caption's top and
    the zone, across the zone's width: the first rows of a table whose caption stands at its left (BMC),
    a header row set above the rows the zone started from. Without them the crop loses its header."""
    region = _zone_rect(members)
    if region[1] <= caption.bbox[1]:
        return members  # the zone is above the caption (a figure of text): nothing to fill
    members = list(members)
    for block in blocks:
        if block in members or block is caption or block.role in {"body", "caption", "furniture", "figure-text"}:
            continue
        if not block.lines[0].horizontal or block.bbox[1] < caption.bbox[1] - 2 or block.bbox[3] > region[1] + 2:
            continue
        if x_overlap(block.bbox, region) < 0.6 * block.width:
            continue
        if any(intersection_area(block.bbox, t) > 0.3 * max(area(block.bbox), 1e-6) for t in [*taken, *others]):
            continue
        if _heads_body_text(block, blocks):
            continue
        members.append(block)
    return members


def _heads_body_text(block: TextBlock, blocks: list[TextBlock]) -> bool:
    """A section heading of the column beside a table: set right above a paragraph of body text, on the
    same left edge. It belongs to the text flow, not to the table that reaches across the gutter."""
    return any(
        other.role == "body"
        and abs(other.bbox[0] - block.bbox[0]) <= 3
        and -2 <= other.bbox[1] - block.bbox[3] <= 1.5 * block.size
        for other in blocks
    )


def _collect_zone(
    caption: TextBlock,
    blocks: list[TextBlock],
    rules: list[Rect],
    span: tuple[float, float],
    direction: str,
    taken: list[Rect],
) -> list:
    left, right = span
    candidates: list = []
    for block in blocks:
        if block is caption or block.role in {"furniture"}:
            continue
        if x_overlap(block.bbox, (left - 2, 0, right + 2, 0)) < 0.6 * block.width:
            continue
        if direction == "below" and block.bbox[1] >= caption.bbox[3] - 2:
            candidates.append(block)
        elif direction == "above" and block.bbox[3] <= caption.bbox[1] + 2:
            candidates.append(block)
    for rule in rules:
        if x_overlap(rule, (left - 2, 0, right + 2, 0)) < 0.6 * (rule[2] - rule[0]):
            continue
        if direction == "below" and rule[1] >= caption.bbox[3] - 2:
            candidates.append(rule)
        elif direction == "above" and rule[3] <= caption.bbox[1] + 2:
            candidates.append(rule)

    def edge(item) -> float:
        rect = item.bbox if isinstance(item, TextBlock) else item
        return rect[1] if direction == "below" else -rect[3]

    candidates.sort(key=edge)
    members: list = []
    frontier = caption.bbox[3] if direction == "below" else caption.bbox[1]
    for item in candidates:
        rect = item.bbox if isinstance(item, TextBlock) else item
        distance = rect[1] - frontier if direction == "below" else frontier - rect[3]
        if distance > 28:
            break
        if isinstance(item, TextBlock) and (item.role in {"body", "caption", "figure-text"} or _heads_body_text(item, blocks)):
            break
        if any(intersection_area(rect, t) > 0.3 * max(area(rect), 1e-6) for t in taken):
            break
        members.append(item)
        frontier = max(frontier, rect[3]) if direction == "below" else min(frontier, rect[1])
    if not any(isinstance(m, TextBlock) for m in members):
        return []
    return members


def _is_decoration(picture: Rect, page_area: float, geometry: PageGeometry) -> bool:
    """Logos, icons, rules and page ornaments are not figures."""
    width, height = picture[2] - picture[0], picture[3] - picture[1]
    if max(width, height) < 40 or area(picture) < 0.012 * page_area:
        return True
    if min(width, height) < 8:
        return True
    top, bottom = geometry.rect[1], geometry.rect[3]
    page_height = bottom - top
    in_margin = picture[3] < top + 0.09 * page_height or picture[1] > bottom - 0.09 * page_height
    if in_margin and area(picture) < 0.05 * page_area:
        return True
    # a banner printed off the page's top or bottom edge (a journal's head on the first page, a footer
    # band): figures stay inside the margins
    bleeds_top = picture[1] <= top + 2 and picture[3] < top + 0.3 * page_height
    bleeds_bottom = picture[3] >= bottom - 2 and picture[1] > bottom - 0.15 * page_height
    return bleeds_top or bleeds_bottom


MASTHEAD_BAND = 0.25  # of the page's height, from its top: where journals print their logos and banners
MASTHEAD_AREA = 0.06  # of the page's area: a logo or a banner, not a figure


def _is_masthead(picture: Rect, page_area: float, geometry: PageGeometry, blocks: list[TextBlock]) -> bool:
    """A publisher's logo, a journal masthead or a "CASE REPORT" banner: an uncaptioned small picture in
    the top band of the page with no body paragraph above it (a real figure at a page's top sits under
    the running head, and nearly always has a caption; these never do)."""
    top, bottom = geometry.rect[1], geometry.rect[3]
    if picture[3] > top + MASTHEAD_BAND * (bottom - top):
        return False
    # a banner across the page (a journal's name on a picture) may be larger than a logo: wide and short
    width = geometry.rect[2] - geometry.rect[0]
    banner = picture[2] - picture[0] >= 0.7 * width and picture[3] - picture[1] <= 0.12 * (bottom - top)
    if area(picture) >= MASTHEAD_AREA * page_area and not banner:
        return False
    return not any(block.role == "body" and block.bbox[3] <= picture[1] and len(block.text.split()) > 25
                   for block in blocks)
