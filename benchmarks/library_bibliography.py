"""Authors, year and title of folder PDFs as the library gets them from the file alone (issue 44, point 4),
against the publisher's JATS beside each PDF of ``../shared/corpus/pmc``:

- first author: the paper's first family name equals the first ``<contrib contrib-type="author">``
  ``<surname>`` (accents folded, case folded, letters only);
- year: equals the year of one of the article's publication dates (``pub-date`` epub, ppub, collection;
  PMC's own release date left out); ``year_epub`` is the stricter share against the electronic date;
- journal-name titles: the title is the journal's name (JATS ``journal-title`` of any paper of the corpus,
  or the MANIFEST's journal), compared as ``reader_quality.title_key`` compares titles.

Shares are given for all the PDFs and for the dev and test halves of ``bench.pairs_split`` (the rules of
``library.bibliography`` were looked at against dev failures only; test is the held-out number).

Two ways in the same run, on the same files:

- ``library``: what ``mmdocsum library add FOLDER`` stores (``document.reader.read_document`` without OCR,
  then ``library.bibliography.pdf_bibliography`` and ``pdf_title``, as the indexer calls them);
- ``info``: the simplest honest baseline, the PDF's Info dictionary alone (``/Author`` split on commas,
  semicolons and "and"; the year of ``/CreationDate``; ``/Title``).

    nice -n 10 .venv/bin/python benchmarks/library_bibliography.py   # writes benchmarks/results/library_bibliography.json
"""

from __future__ import annotations

import csv
import re
import sys
import time
import unicodedata
from pathlib import Path

import pymupdf  # the baseline reads the Info dictionary directly (a developer's instrument, not the package)
from _corpus import CORPUS, write_result
from lxml import etree
from reader_quality import title_key

from mmdocsum_desktop.bench.pairs_split import split_of
from mmdocsum_desktop.document.reader import read_document
from mmdocsum_desktop.library.bibliography import pdf_bibliography, pdf_title
from mmdocsum_desktop.schemas.library import Paper

GOAL = 0.90
_PUB_TYPES = {"epub", "ppub", "collection", "electronic", "print"}
_SPLIT = re.compile(r"\s*(?:,|;|&|\band\b)\s*")


def fold(text: str | None) -> str:
    return re.sub(r"[^a-z]", "", unicodedata.normalize("NFKD", text or "").encode("ascii", "ignore").decode().lower())


def jats_gold(xml: Path) -> dict:
    root = etree.parse(str(xml), etree.XMLParser(resolve_entities=False, no_network=True, recover=True)).getroot()
    surnames = [" ".join("".join(s.itertext()).split())
                for c in root.iter("{*}contrib", "contrib") if c.get("contrib-type") == "author"
                for s in c.iter("{*}surname", "surname")][:1]
    years: dict[str, int] = {}
    for date in root.iter("{*}pub-date", "pub-date"):
        kind = date.get("pub-type") or date.get("date-type") or ""
        year = next((y.text for y in date.iter("{*}year", "year") if y.text and y.text.strip().isdigit()), None)
        if year and (kind in _PUB_TYPES or not kind):
            years.setdefault(kind or "epub", int(year.strip()))
    journal = next((" ".join("".join(j.itertext()).split()) for j in root.iter("{*}journal-title", "journal-title")), "")
    return {"first_surname": surnames[0] if surnames else "", "years": sorted(set(years.values())),
            "epub_year": years.get("epub") or years.get("electronic"), "journal": journal}


def info_baseline(path: Path) -> dict:
    with pymupdf.open(path) as pdf:
        info = pdf.metadata or {}
    author = " ".join(str(info.get("author") or "").split())
    names = [p for p in _SPLIT.split(author) if p]
    first = names[0] if names else ""
    family = first.partition(",")[0] if "," in author.split(";")[0] and len(first.split()) == 1 else first
    match = re.search(r"(19|20)\d\d", str(info.get("creationDate") or ""))
    return {"first_family": family.split()[-1] if family.split() else "", "year": int(match.group(0)) if match else None,
            "title": " ".join(str(info.get("title") or "").split())}


def library_way(path: Path) -> dict:
    document = read_document(path)
    found = pdf_bibliography(path, document)
    paper = Paper(id=0, source_path=str(path), authors=list(found.authors), family_names=list(found.family_names))
    return {"first_family": paper.first_family_name(), "year": found.year, "title": pdf_title(path, document),
            "authors": list(found.authors)}


def shares(rows: list[dict], way: str) -> dict:
    n = max(1, len(rows))

    def share(key: str) -> float:
        return round(sum(r[way][key] for r in rows) / n, 4)

    both = round(sum(r[way]["author_right"] and r[way]["year_right"] for r in rows) / n, 4)
    journal = sum(r[way]["journal_title"] for r in rows)
    return {"papers": len(rows), "first_author_right": share("author_right"), "year_right": share("year_right"),
            "year_epub_right": share("year_epub_right"), "author_and_year_right": both, "journal_name_titles": journal,
            "no_title": sum(not r[way]["title"] for r in rows), "goal_met": both >= GOAL and journal == 0}


def main() -> int:
    folder = CORPUS / "pmc"
    pdfs = sorted(folder.glob("*.pdf"))
    if not pdfs:
        print(f"no PDFs in {folder}", file=sys.stderr)
        return 2
    with (folder / "MANIFEST.tsv").open(newline="") as handle:
        journals = {row["journal"] for row in csv.DictReader(handle, delimiter="\t")}
    golds = {p.stem: jats_gold(p.with_suffix(".xml")) for p in pdfs}
    journal_keys = {title_key(j) for j in journals | {g["journal"] for g in golds.values()} if j}
    ways = {"library": library_way, "info": info_baseline}
    rows: list[dict] = []
    seconds = dict.fromkeys(ways, 0.0)
    for path in pdfs:
        gold = golds[path.stem]
        row: dict = {"name": path.stem, "split": split_of(path.stem), "gold": gold}
        for name, way in ways.items():
            started = time.process_time()
            try:
                got = way(path)
            except Exception as error:  # noqa: BLE001 — an unreadable file counts as wrong, reported
                print(f"{path.name} ({name}): {error}", file=sys.stderr)
                got = {"first_family": "", "year": None, "title": ""}
            seconds[name] += time.process_time() - started
            got["author_right"] = bool(gold["first_surname"]) and fold(got["first_family"]) == fold(gold["first_surname"])
            got["year_right"] = got["year"] is not None and got["year"] in gold["years"]
            got["year_epub_right"] = got["year"] is not None and got["year"] == gold["epub_year"]
            got["journal_title"] = bool(got["title"]) and title_key(got["title"]) in journal_keys
            row[name] = got
        rows.append(row)
        mine = row["library"]
        if not (mine["author_right"] and mine["year_right"]) or mine["journal_title"]:
            print(f"{row['split']:4s} {path.stem:12s} author {mine['first_family']!r} (want {gold['first_surname']!r}) "
                  f"year {mine['year']} (want {gold['years']}) title {mine['title'][:60]!r}", flush=True)
    summary: dict = {"papers": len(rows), "goal": GOAL, "ways": {}, "halves": {}}
    for half in ("all", "dev", "test"):
        chosen = [r for r in rows if half == "all" or r["split"] == half]
        summary["halves"][half] = {name: shares(chosen, name) for name in ways}
    for name in ways:
        summary["ways"][name] = {**summary["halves"]["all"][name], "cpu_s": round(seconds[name], 1)}
    print(f"{len(rows)} folder PDFs of {folder}")
    print(f"{'':14s} {'papers':>6s} {'1st author':>10s} {'year':>6s} {'year(epub)':>10s} {'both':>6s} {'journal titles':>14s}")
    for half, got_by_way in summary["halves"].items():
        for name, got in got_by_way.items():
            print(f"{half + ' ' + name:14s} {got['papers']:6d} {got['first_author_right']:10.3f} {got['year_right']:6.3f} "
                  f"{got['year_epub_right']:10.3f} {got['author_and_year_right']:6.3f} {got['journal_name_titles']:14d}")
    mine = summary["ways"]["library"]
    print(f"goal: authors and year >= {GOAL:.0%} of folder PDFs and 0 journal-name titles: "
          f"{'met' if mine['goal_met'] else 'missed'}")
    target = write_result("library_bibliography", {**summary, "rows": rows})
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
