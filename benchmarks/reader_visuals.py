"""The figures and tables the PDF reader lists, against the publisher's JATS (issue 37, points 1-3).

For every PDF + JATS pair of ``../shared/corpus/pmc`` (all of it, or ``--split``) and the multilingual
PDFs with their JATS (``multilingual/*.pdf``), the Document's visuals are compared with the JATS
``<fig>``/``<table-wrap>`` of the article (not its sub-articles; a bilingual paper's translated floats are
one visual each, keyed by their canonical label: "Figura 1" and "Figure 1" are both "Figure 1"):

- **listed, not the paper's**: visuals the reader lists that are no figure or table of the paper, i.e.
  uncaptioned pictures that do not stand where a JATS visual the reader missed is printed (adverts,
  logos, "Check for updates" badges, page frames, cover images), plus labelled ones whose label the JATS
  does not have. Uncaptioned pictures on a page that holds a captioned visual are counted apart
  (**uncaptioned beside captioned**: mostly a panel of that figure split off, sometimes a logo). Where a JATS caption is found on the page (its first words, searched with the reader's
  own search) an uncaptioned picture on that page next to it is counted as **misnamed** instead (a table
  printed as an image listed as "Figure on p. 3"), and that JATS visual as missed.
- **missed**: JATS visuals with no listed visual of the same kind and label.
- **no region**: labelled visuals listed with no crop (a caption found, its figure or table not).
- **duplicates**: a label listed twice that is no "continued" part (a bilingual caption read as two).
- **cut crops**: tables whose crop leaves out most words of the JATS table's first or last row (a header
  left out; a landscape table whose edge is cut). Rows are compared as sets of words of 3+ letters or
  digits; a row counts as cut when under half of its words are in the crop's text (words shorter or
  absent from the page's text layer, a table printed as an image, are not measured).
- **sideways crops**: crops whose text is mostly set sideways (a landscape table): shown upright only
  when the rendered PNG is turned (the PNG is rendered here and its text direction checked by how the
  reader renders it).

    nice -n 10 .venv/bin/python benchmarks/reader_visuals.py --label before
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import unicodedata
from pathlib import Path

import pymupdf
from _corpus import CORPUS, write_result
from lxml import etree

from mmdocsum_desktop.bench.pairs_gold import canonical_label
from mmdocsum_desktop.bench.pairs_split import pairs_in
from mmdocsum_desktop.document.labels import parse_caption_start
from mmdocsum_desktop.document.pdf_layout import find_on_page
from mmdocsum_desktop.document.reader import read_document
from mmdocsum_desktop.schemas.document import Document, Figure

try:
    from mmdocsum_desktop.document.pdf import crop_rotation
except ImportError:  # the reader before issue 37 rendered every crop as the page lies

    def crop_rotation(page: pymupdf.Page, bbox: tuple) -> int:
        return 0


_WORD = re.compile(r"[^\W_]{3,}")


def _local(element: etree._Element) -> str:
    return element.tag.rsplit("}", 1)[-1] if isinstance(element.tag, str) else ""


def _text(element: etree._Element | None) -> str:
    return " ".join("".join(element.itertext()).split()) if element is not None else ""


def words(text: str) -> set[str]:
    return set(_WORD.findall(unicodedata.normalize("NFKC", text).lower()))


def gold_visuals(xml: Path) -> list[dict]:
    """The article's figures and tables: kind, canonical label, caption, first and last table rows."""
    root = etree.parse(str(xml), etree.XMLParser(resolve_entities=False, no_network=True, recover=True)).getroot()
    found: dict[tuple[str, str], dict] = {}
    unlabelled = 0
    for element in root.iter("{*}fig", "fig", "{*}table-wrap", "table-wrap"):
        if any(_local(a) in {"sub-article", "supplementary-material"} for a in element.iterancestors()):
            continue
        kind = "table" if _local(element) == "table-wrap" else "figure"
        label_element = next(element.iter("{*}label", "label"), None)
        label_text = _text(label_element)
        start = parse_caption_start(label_text) if label_text else None
        label = start.label if start is not None else None
        if label is None:
            canonical = canonical_label(label_text)
            label = canonical[1] if canonical else None
        if label is not None and re.match(r"\s*supplementa", label_text, re.IGNORECASE):
            # "Supplemental Figure-1" is the paper's Figure S1, whatever the reader under test calls it
            word, number = label.split(maxsplit=1)
            label = f"{word} {number if number.upper().startswith('S') else 'S' + number}"
        if label is None:
            unlabelled += 1
            label = f"unlabelled {kind} {unlabelled}"
        if start is not None:
            kind = start.kind
        caption = _text(next(element.iter("{*}caption", "caption"), None))
        rows = [r for r in element.iter("{*}tr", "tr")]
        key = (kind, label.lower())
        if key in found:  # the same float again in the other language ("Figura 1" / "Figure 1")
            continue
        found[key] = {
            "kind": kind,
            "label": label,
            "caption": caption,
            "first_row": _text(rows[0]) if rows else "",
            "last_row": _text(rows[-1]) if rows else "",
        }
    return list(found.values())


def caption_page(pdf: pymupdf.Document, caption: str) -> tuple[int, tuple] | None:
    """Where the JATS caption is printed: its first words found by the reader's own search."""
    tokens = caption.split()
    for skip in (0, 1, 2):
        query = " ".join(tokens[skip : skip + 6])
        if len(query) < 15:
            continue
        for number in range(pdf.page_count):
            hits = find_on_page(pdf.load_page(number), query)
            if hits:
                return number + 1, hits[0]
    return None


def sideways_share(page: pymupdf.Page, bbox: tuple) -> float:
    """The share of the crop's characters set sideways."""
    upright = sideways = 0
    for block in page.get_text("dict", clip=pymupdf.Rect(bbox))["blocks"]:
        for line in block.get("lines", ()):
            count = sum(len(s["text"].strip()) for s in line["spans"])
            if abs(line["dir"][0]) > 0.99:
                upright += count
            else:
                sideways += count
    return sideways / max(1, upright + sideways)


def measure_paper(name: str, pdf_path: Path, xml: Path) -> dict:
    gold = gold_visuals(xml)
    try:
        document = read_document(pdf_path)
    except Exception as error:  # noqa: BLE001 — one unreadable paper is reported, the rest measured
        return {"name": name, "error": str(error)}
    listed: list[Figure] = document.visuals
    by_key: dict[tuple[str, str], list[Figure]] = {}
    for visual in listed:
        if visual.label:
            by_key.setdefault((visual.kind, visual.label.lower()), []).append(visual)
    gold_keys = {(g["kind"], g["label"].lower()) for g in gold}
    missed = [g for g in gold if (g["kind"], g["label"].lower()) not in by_key]
    duplicates = [
        f"p{v.page} {v.label}"
        for key, visuals in by_key.items()
        for v in visuals[1:]
        if not v.continues and key in gold_keys
    ]
    foreign_labelled = [f"p{v.page} {v.label}" for key, vs in by_key.items() if key not in gold_keys for v in vs]
    uncaptioned = [v for v in listed if not v.label]
    misnamed: list[str] = []
    beside: list[str] = []  # uncaptioned, on a page with a captioned visual: most are parts of it
    captioned_pages = {v.page for v in listed if v.label and v.bbox is not None}
    no_region = [f"p{v.page} {v.label}" for v in listed if v.label and v.bbox is None]
    not_paper: list[str] = list(foreign_labelled)
    cut: list[str] = []
    sideways: list[str] = []
    with pymupdf.open(pdf_path) as pdf:
        missed_places = [(g, caption_page(pdf, g["caption"])) for g in missed]
        for visual in uncaptioned:
            near = [
                g["label"]
                for g, place in missed_places
                if place is not None
                and place[0] == visual.page
                and visual.bbox is not None
                and _gap(place[1], visual.bbox) < 120
            ]
            if near:
                misnamed.append(f"p{visual.page} uncaptioned, where {near[0]} is printed")
            elif visual.page in captioned_pages:
                beside.append(f"p{visual.page} uncaptioned {_size(visual, document)}")
            else:
                not_paper.append(f"p{visual.page} uncaptioned {_size(visual, document)}")
        for g in gold:
            visuals = by_key.get((g["kind"], g["label"].lower()))
            if not visuals or g["kind"] != "table":
                continue
            visual = visuals[0]
            if visual.bbox is None or visual.page is None:
                continue
            page = pdf.load_page(visual.page - 1)
            page_words = words(page.get_text())
            inside = words(" ".join(page.get_text("text", clip=pymupdf.Rect(v.bbox)) for v in visuals
                                    if v.bbox is not None and v.page == visual.page))
            for part in ("first_row", "last_row"):
                wanted = words(g[part]) & page_words  # only what the text layer of that page prints
                if len(wanted) >= 2 and len(wanted & inside) < 0.5 * len(wanted):
                    cut.append(f"p{visual.page} {visual.label} {part.replace('_', ' ')}")
                    break
        for visual in listed:
            if visual.bbox is None or visual.page is None:
                continue
            page = pdf.load_page(visual.page - 1)
            if sideways_share(page, visual.bbox) > 0.6 and crop_rotation(page, visual.bbox) == 0:
                sideways.append(f"p{visual.page} {visual.label or 'uncaptioned'}")
    row = {
        "name": name,
        "gold_figures": sum(g["kind"] == "figure" for g in gold),
        "gold_tables": sum(g["kind"] == "table" for g in gold),
        "listed_figures": len(document.figures),
        "listed_tables": len(document.tables),
        "not_paper": not_paper,
        "misnamed": misnamed,
        "uncaptioned_beside_captioned": beside,
        "no_region": no_region,
        "missed": [g["label"] for g in missed],
        "duplicates": duplicates,
        "cut": cut,
        "sideways": sideways,
    }
    print(
        f"{name:34s} gold {row['gold_figures']:2d}F {row['gold_tables']:2d}T listed {row['listed_figures']:2d}F "
        f"{row['listed_tables']:2d}T | not paper {len(not_paper)} misnamed {len(misnamed)} missed {len(missed)} "
        f"dup {len(duplicates)} cut {len(cut)} sideways {len(sideways)} beside {len(beside)} no region {len(no_region)}",
        flush=True,
    )
    return row


def _gap(a: tuple, b: tuple) -> float:
    dx = max(0.0, max(a[0], b[0]) - min(a[2], b[2]))
    dy = max(0.0, max(a[1], b[1]) - min(a[3], b[3]))
    return max(dx, dy)


def _size(visual: Figure, document: Document) -> str:
    if visual.bbox is None or visual.page is None or not document.page_sizes:
        return ""
    width, height = document.page_sizes[visual.page - 1]
    x0, y0, x1, y1 = visual.bbox
    return f"{100 * (x1 - x0) * (y1 - y0) / (width * height):.0f}% of page at y {y0:.0f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("dev", "test", "all"), default="all")
    parser.add_argument("--label", default="", help="suffix of the result file (before, after)")
    parser.add_argument("--limit", type=int, default=None, help="first N pairs only (a quick look)")
    parser.add_argument("--only", default=None, help="papers whose name contains this")
    args = parser.parse_args()
    if not (CORPUS / "pmc").is_dir():
        print(f"no pair folder at {CORPUS / 'pmc'}", file=sys.stderr)
        return 2
    items = [(i.name, i.pdf, i.xml) for i in pairs_in(CORPUS / "pmc", args.split) if i.pdf is not None]
    multilingual = CORPUS / "multilingual"
    items += [(f"multilingual/{p.stem}", p, p.with_suffix(".xml")) for p in sorted(multilingual.glob("*.pdf"))
              if p.with_suffix(".xml").is_file()]
    if args.only:
        items = [i for i in items if args.only in i[0]]
    items = items[: args.limit]
    started, cpu_started = time.perf_counter(), time.process_time()
    rows = [measure_paper(name, pdf, xml) for name, pdf, xml in items]
    measured = [r for r in rows if "error" not in r]
    totals = {
        key: sum(len(r[key]) for r in measured)
        for key in ("not_paper", "uncaptioned_beside_captioned", "misnamed", "missed", "no_region", "duplicates",
                    "cut", "sideways")
    }
    totals["gold_visuals"] = sum(r["gold_figures"] + r["gold_tables"] for r in measured)
    totals["listed_visuals"] = sum(r["listed_figures"] + r["listed_tables"] for r in measured)
    totals["gold_tables"] = sum(r["gold_tables"] for r in measured)
    summary = {
        "split": args.split,
        "papers": len(rows),
        "errors": len(rows) - len(measured),
        **totals,
        "papers_with_not_paper": sum(bool(r["not_paper"]) for r in measured),
        "wall_s": round(time.perf_counter() - started, 1),
        "cpu_s": round(time.process_time() - cpu_started, 1),
    }
    print("\n" + ", ".join(f"{k} {v}" for k, v in summary.items()))
    if args.limit is None and args.only is None:
        name = "reader_visuals" + (f"_{args.label}" if args.label else "")
        target = write_result(name, {"summary": summary, "rows": rows})
        print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
