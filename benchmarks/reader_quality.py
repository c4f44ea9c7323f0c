"""What a reader sees first, measured against the publisher's JATS: the title, and words the paper never wrote.

For every pair of ``../shared/corpus/pmc`` in the chosen half (dev for tuning, test for reporting):

- **title**: the Document's title against JATS ``<article-title>``, both NFKC-folded, lower-cased and reduced
  to letters and digits separated by single spaces; right when equal.
- **foreign words per 1,000 body words**: the words (NFKC, lower case, runs of >= 4 letters) of the body
  blocks (``Block.is_body``, not captions) that occur nowhere in the JATS file's text. Broken ligatures
  ("infl uenza" gives "infl"), glued words ("smallbowel") and misread glyphs show up here; a few real words
  the XML spells differently (British/American, a hyphenated line-broken name) stay as a floor.
- **cover pages** the reader recognised and kept out of the body.

The same foreign-word measure needs a vocabulary; for ``mineru_demo1.pdf`` (no JATS) it is an English word
list (wordninja's), and the check that "zero flow days" is found by :func:`mmdocsum_desktop.document.pdf_layout.find_on_page`.

    nice -n 10 .venv/bin/python benchmarks/reader_quality.py --split test [--label after]
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import unicodedata
from collections import Counter
from pathlib import Path

from _corpus import CORPUS, PAPERS, write_result

from mmdocsum_desktop.bench.pairs_gold import read_gold
from mmdocsum_desktop.bench.pairs_split import pairs_in
from mmdocsum_desktop.document.reader import read_document
from mmdocsum_desktop.schemas.document import Document

_LETTER_RUN = re.compile(r"[^\W\d_]{4,}")


def title_key(text: str | None) -> str:
    folded = unicodedata.normalize("NFKC", text or "").lower()
    return " ".join(re.findall(r"[^\W_]+", folded))


def words(text: str) -> list[str]:
    return _LETTER_RUN.findall(unicodedata.normalize("NFKC", text).lower())


def body_words(document: Document) -> list[str]:
    found: list[str] = []
    for block in document.blocks:
        if block.is_body and block.type != "caption":
            found.extend(words(block.text))
    return found


def jats_title(xml: Path) -> str:
    """``<article-title>`` without the footnotes and cross-references some publishers put inside it."""
    from lxml import etree

    root = etree.parse(str(xml), etree.XMLParser(resolve_entities=False, no_network=True, recover=True)).getroot()
    title = next(root.iter("{*}article-title", "article-title"), None)
    if title is None:
        return ""
    title = etree.fromstring(etree.tostring(title))
    etree.strip_elements(title, "fn", "xref", "{*}fn", "{*}xref", with_tail=False)
    return " ".join("".join(title.itertext()).split())


def jats_vocabulary(xml: Path) -> set[str]:
    from lxml import etree

    root = etree.parse(str(xml), etree.XMLParser(resolve_entities=False, no_network=True, recover=True)).getroot()
    return set(words(" ".join(root.itertext())))


def measure_pairs(split: str, limit: int | None) -> dict:
    rows = []
    foreign_total = Counter()
    started = time.perf_counter()
    cpu_started = time.process_time()
    items = [item for item in pairs_in(CORPUS / "pmc", split) if item.pdf is not None][:limit]
    for item in items:
        gold = read_gold(item.xml)
        try:
            document = read_document(item.pdf)
        except Exception as error:  # noqa: BLE001 — one unreadable paper is reported, the rest measured
            rows.append({"name": item.name, "error": str(error)})
            continue
        known = jats_vocabulary(item.xml)
        body = body_words(document)
        foreign = [word for word in body if word not in known]
        foreign_total.update(foreign)
        gold_title = jats_title(item.xml) or gold.title
        title_right = title_key(document.title) == title_key(gold_title)
        rows.append(
            {
                "name": item.name,
                "title": document.title,
                "gold_title": gold_title,
                "title_right": title_right,
                "body_words": len(body),
                "foreign_words": len(foreign),
                "foreign_examples": [w for w, _ in Counter(foreign).most_common(12)],
                "cover_pages": list(getattr(document, "cover_pages", []) or []),
            }
        )
        print(
            f"{item.name:28s} title {'ok ' if title_right else 'BAD'} foreign {len(foreign):4d}/{len(body):6d}"
            + ("" if title_right else f"   got {document.title!r:.70} want {gold_title!r:.70}"),
            flush=True,
        )
    measured = [r for r in rows if "error" not in r]
    body_total = sum(r["body_words"] for r in measured) or 1
    foreign_count = sum(r["foreign_words"] for r in measured)
    return {
        "split": split,
        "papers": len(rows),
        "errors": len(rows) - len(measured),
        "titles_right": sum(r["title_right"] for r in measured),
        "titles_right_share": round(sum(r["title_right"] for r in measured) / max(1, len(measured)), 4),
        "body_words": body_total,
        "foreign_words": foreign_count,
        "foreign_per_1000": round(1000 * foreign_count / body_total, 2),
        "foreign_per_1000_median_paper": _median(
            [1000 * r["foreign_words"] / max(1, r["body_words"]) for r in measured]
        ),
        "commonest_foreign": foreign_total.most_common(40),
        "wall_s": round(time.perf_counter() - started, 1),
        "cpu_s": round(time.process_time() - cpu_started, 1),
        "rows": rows,
    }


def _median(values: list[float]) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    middle = len(ordered) // 2
    value = ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    return round(value, 2)


def english_words() -> set[str]:
    """wordninja's list of English words (Wikipedia word frequencies, a dependency of the app)."""
    import gzip

    import wordninja

    listed = Path(wordninja.__file__).parent / "wordninja" / "wordninja_words.txt.gz"
    return set(gzip.decompress(listed.read_bytes()).decode().split())


def measure_mineru_demo1() -> dict:
    """No JATS here: the vocabulary is an English word list (wordninja's), so names and rare terms stay as a
    floor and glued or broken words show above it."""
    import pymupdf

    path = PAPERS / "mineru_demo1.pdf"
    document = read_document(path)
    known = english_words()
    with pymupdf.open(path) as pdf:
        try:
            from mmdocsum_desktop.document.pdf_layout import find_on_page
        except ImportError:
            hits = None
        else:
            hits = sum(len(find_on_page(page, "zero flow days")) for page in pdf)
    body = body_words(document)
    foreign = [word for word in body if word not in known]
    body_text = " ".join(b.text for b in document.blocks if b.is_body)
    return {
        "file": path.name,
        "title": document.title,
        "body_words": len(body),
        "foreign_words": len(foreign),
        "foreign_per_1000": round(1000 * len(foreign) / max(1, len(body)), 2),
        "foreign_examples": [w for w, _ in Counter(foreign).most_common(20)],
        "zero_flow_days_in_body_text": "zero flow days" in body_text.lower(),
        "zero_flow_days_search_hits": hits,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("dev", "test", "all"), default="test")
    parser.add_argument("--label", default="", help="suffix of the result file (before, after)")
    parser.add_argument("--limit", type=int, default=None, help="first N pairs only (a quick look)")
    args = parser.parse_args()
    if not (CORPUS / "pmc").is_dir():
        print(f"no pair folder at {CORPUS / 'pmc'}", file=sys.stderr)
        return 2
    pairs = measure_pairs(args.split, args.limit)
    demo = measure_mineru_demo1()
    print(
        f"\n{args.split}: titles right {pairs['titles_right']}/{pairs['papers'] - pairs['errors']} "
        f"({100 * pairs['titles_right_share']:.1f} %), foreign words {pairs['foreign_per_1000']} per 1,000 body "
        f"words (median paper {pairs['foreign_per_1000_median_paper']}), {pairs['wall_s']} s wall, {pairs['cpu_s']} s CPU"
    )
    print("commonest foreign:", ", ".join(f"{w} {n}" for w, n in pairs["commonest_foreign"][:25]))
    print(
        f"mineru_demo1.pdf: foreign {demo['foreign_per_1000']} per 1,000, 'zero flow days' in body text "
        f"{demo['zero_flow_days_in_body_text']}, search hits {demo['zero_flow_days_search_hits']}"
    )
    name = f"reader_quality_{args.split}" + (f"_{args.label}" if args.label else "")
    if args.limit is None:
        target = write_result(name, {"pairs": pairs, "mineru_demo1": demo})
        print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
