"""Titles as a reader gets them (issue 35, point 4), read the way every command reads a file
(``Session.read``: scanned or unreadable pages with OCR), against the publisher's JATS:

- ``pmc-test``: every PDF of the test half of ``../shared/corpus/pmc`` (bench.pairs_split), against JATS
  ``<article-title>`` (reader_quality.jats_title: footnotes and cross-references left out);
- ``pmc-test-bundled``: the 16 papers of the pmc-test split committed with the package;
- ``multilingual``: the four SciELO PDFs against the title of the article in the PDF's language, and the
  36 JATS/TEI files against their own title (multilingual.jats_gold).

Right: equal after NFKC, case folding and reducing to letters and digits (reader_quality.title_key).

    nice -n 10 .venv/bin/python benchmarks/titles.py [--no-ocr]   # writes benchmarks/results/titles[_no_ocr].json
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from _corpus import CORPUS, REPO_ROOT, write_result
from multilingual import jats_gold, manifest
from reader_quality import jats_title, title_key

from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.bench.pairs_gold import read_gold
from mmdocsum_desktop.bench.pairs_split import pairs_in

BUNDLED = REPO_ROOT / "mmdocsum_desktop" / "resources" / "splits" / "pmc-test" / "papers"


def items() -> dict[str, list[tuple[str, Path, str]]]:
    """Per set: (name, file to read, gold title)."""
    sets: dict[str, list[tuple[str, Path, str]]] = {"pmc-test": [], "pmc-test-bundled": [], "multilingual": []}
    for pair in pairs_in(CORPUS / "pmc", "test"):
        if pair.pdf is not None:
            sets["pmc-test"].append((pair.name, pair.pdf, jats_title(pair.xml) or read_gold(pair.xml).title or ""))
    for pdf in sorted(BUNDLED.glob("*.pdf")):
        xml = pdf.with_suffix(".xml")
        sets["pmc-test-bundled"].append((pdf.stem, pdf, jats_title(xml) or read_gold(xml).title or ""))
    folder = CORPUS / "multilingual"
    languages = manifest()
    for name, language in sorted(languages.items()):
        pdf, beside = folder / f"{name}.pdf", folder / f"{name}.xml"
        if pdf.is_file() and beside.is_file():
            sets["multilingual"].append((name, pdf, jats_gold(beside, language=language)["title"] or ""))
        xml = folder / "jats" / f"{name}.xml"
        if xml.is_file():
            sets["multilingual"].append((f"{name}.xml", xml, jats_gold(xml)["title"] or ""))
    return sets


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-ocr", action="store_true", help="read as --no-ocr does (no OCR of any page)")
    args = parser.parse_args()
    if not (CORPUS / "pmc").is_dir():
        print(f"no corpus at {CORPUS}", file=sys.stderr)
        return 2
    result: dict = {"ocr": not args.no_ocr, "sets": {}}
    started = time.perf_counter()
    with Session() as session:
        for set_name, entries in items().items():
            rows = []
            for name, path, gold in entries:
                try:
                    title = session.read(path, ocr=not args.no_ocr).title
                except Exception as error:  # noqa: BLE001 — an unreadable file is a wrong title, reported
                    title, gold = None, gold or ""
                    print(f"{name}: {error}", file=sys.stderr)
                right = bool(gold) and title_key(title) == title_key(gold)
                rows.append({"name": name, "title": title, "gold": gold, "right": right})
                if not right:
                    print(f"{set_name:17s} {name:40s} BAD  got {title!r:.80} want {gold!r:.80}", flush=True)
            right = sum(r["right"] for r in rows)
            result["sets"][set_name] = {"papers": len(rows), "right": right,
                                        "share": round(right / max(1, len(rows)), 4), "rows": rows}
            print(f"{set_name}: {right}/{len(rows)} titles right ({100 * right / max(1, len(rows)):.1f} %)", flush=True)
    result["wall_s"] = round(time.perf_counter() - started, 1)
    print("written", write_result("titles_no_ocr" if args.no_ocr else "titles", result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
