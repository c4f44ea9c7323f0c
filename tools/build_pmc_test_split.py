"""Build the bundled ``pmc-test`` and ``elife-digests`` splits: their gold from the committed papers, or
the papers themselves chosen again from the evaluation corpus.

    .venv/bin/python tools/build_pmc_test_split.py [--check]                  # from a clone
    .venv/bin/python tools/build_pmc_test_split.py --corpus ../shared/corpus [--check]

Without ``--corpus`` nothing outside the repository is read: the gold files, ``papers.json`` and
``ATTRIBUTION.md`` are rewritten from the papers committed in the splits (``pmc-test/papers/``,
``elife-digests/articles/``), every licence checked again in the committed JATS. With ``--corpus`` the
papers are chosen again from the corpus (``pmc/``, ``elife/``) and copied in, then everything is rebuilt.

``pmc-test`` (``mmdocsum_desktop/resources/splits/pmc-test/``): the split the package ships, papers
committed in ``papers/`` (about 21 MB), so a clone, a wheel and the desktop bundle all carry them. It
holds 16 papers of the TEST half of ``pmc/`` (``bench.pairs_split``; a dev paper is refused), each as the
published PDF and its JATS, chosen so:

* every test-half paper whose abstract is structured (titled Background / Methods / Results /
  Conclusions sections, or their variants) is in (8 papers): they carry the M-DocSum gold;
* 8 more, fixed below, with several figures or tables, from other journals, small PDFs.

Every paper must be CC BY or CC0 twice over: in ``MANIFEST.tsv`` and in the JATS ``<license>``; the
build stops otherwise. The folder must stay under :data:`SIZE_BUDGET_BYTES` (25 MB).

Written beside the papers: ``papers.json`` (attribution and what each paper serves), ``ATTRIBUTION.md``,
``mdocsum.jsonl`` (gold per role: the structured abstract's sections and the figure or table first cited
in that role's body sections, by label; the loader turns labels into the app's image numbers),
``rouge.jsonl`` (abstracts), ``ftii.json`` (body paragraphs with citations removed, the visual each one is
the first to cite) and ``mcite.jsonl`` (generated questions whose answer is one figure or table).

``elife-digests`` (``resources/splits/elife-digests/``): the first 40 articles, by file name, of the TEST
half of ``elife/`` (the same hash split by file stem) as gzipped JATS (CC BY / CC0, checked the same
way) with their eLife digest as the ROUGE reference; about 1.4 MB.

``--check`` builds into a temporary folder and fails when anything differs from what is committed:
from a clone that checks the gold, the attribution and the licences against the committed papers; with
``--corpus`` also that the committed papers are the corpus's, byte for byte, and that the choice is the same.
"""

from __future__ import annotations

import argparse
import csv
import filecmp
import gzip
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

from lxml import etree

from mmdocsum_desktop.bench.metrics.pairs import abstract_role
from mmdocsum_desktop.bench.pairs_gold import PairGold, clean, read_gold
from mmdocsum_desktop.bench.pairs_split import split_of

PROJECT = Path(__file__).resolve().parents[1]
SPLITS = PROJECT / "mmdocsum_desktop" / "resources" / "splits"
ROLES = ("background", "method", "results", "conclusion")
SIZE_BUDGET_BYTES = 25 * 1024 * 1024
ELIFE_DIGESTS = 40

# Test-half papers without a structured abstract, bundled for the ftii, mcite and rouge suites: several
# figures or tables each, journals other than the structured ones, PDFs under 1.6 MB.
EXTRA_PAPERS = (
    "PMC4238170",  # The Scientific World Journal, 4 figures
    "PMC4706934",  # Gastroenterology Research and Practice, 3 figures 2 tables
    "PMC5203915",  # Oxidative Medicine and Cellular Longevity, 4 figures 2 tables
    "PMC5426739",  # Advanced Pharmaceutical Bulletin, 1 figure 5 tables
    "PMC5745208",  # Nanoscale Research Letters, 8 figures 4 tables
    "article-3-190",  # F1000Research, 2 figures 2 tables
    "atoms4010009",  # Atoms (MDPI), 7 figures
    "molecules21020189",  # Molecules (MDPI), 4 figures 1 table
)

# Questions per paper for mcite, and text paragraphs shown beside the figures and tables.
MCITE_PER_PAPER = 3
MCITE_TEXT_SOURCES = 4

_ACCEPTED_LICENCE = re.compile(
    r"creativecommons\.org/(?:licenses/by/|publicdomain/zero/)|Creative Commons Attribution(?! ?-? ?Non)"
    r"(?! ?-? ?No ?Deriv)(?! ?-? ?Share)|\bCC[ -]BY(?![ -](?:NC|ND|SA))\b|\bCC0\b",
    re.IGNORECASE,
)
_REFUSED_LICENCE = re.compile(r"by-nc|by-nd|by-sa|NonCommercial|NoDerivatives|ShareAlike", re.IGNORECASE)
_SECTION_NUMBER = re.compile(r"^\s*(?:[0-9]+|[IVX]+)(?:\.[0-9]+)*\.?\s+")
_SIMPLE_LABEL = re.compile(r"^(Figure|Table) (\d+)$")


class BuildError(Exception):
    """A paper that may not or cannot be bundled; the build stops with this message."""


# --------------------------------------------------------------------------------------------- reading


def _parse(path: Path) -> etree._Element:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, recover=False)
    return etree.fromstring(path.read_bytes(), parser)


def _first_text(root: etree._Element, xpath: str) -> str:
    found = root.xpath(xpath)
    return clean("".join(found[0].itertext())) if found else ""


def attribution(xml: Path, manifest: dict[str, str]) -> dict[str, object]:
    """Title, authors, journal, year, DOI and licence from the JATS; source and licence from MANIFEST."""
    root = _parse(xml)
    meta = root.xpath("//*[local-name()='article-meta']")
    meta = meta[0] if meta else root
    authors = []
    for contrib in meta.xpath(".//*[local-name()='contrib'][@contrib-type='author']"):
        surname = _first_text(contrib, ".//*[local-name()='surname']")
        given = _first_text(contrib, ".//*[local-name()='given-names']")
        collab = _first_text(contrib, ".//*[local-name()='collab']")
        name = " ".join(p for p in (given, surname) if p) or collab
        if name:
            authors.append(name)
    licence_elements = root.xpath("//*[local-name()='license']")
    licence_text = " ".join(
        [e.get("{http://www.w3.org/1999/xlink}href") or "" for e in licence_elements]
        + [clean(" ".join(e.itertext())) for e in licence_elements]
    ).strip()
    licence_url = next(
        (e.get("{http://www.w3.org/1999/xlink}href") for e in licence_elements if e.get("{http://www.w3.org/1999/xlink}href")),
        None,
    ) or next(iter(re.findall(r"https?://creativecommons\.org/\S+?(?=[\s\"<)]|$)", licence_text)), None)
    year = _first_text(meta, ".//*[local-name()='pub-date']/*[local-name()='year']")
    doi = _first_text(meta, ".//*[local-name()='article-id'][@pub-id-type='doi']")
    pmcid = _first_text(meta, ".//*[local-name()='article-id'][@pub-id-type='pmc' or @pub-id-type='pmcid']")
    return {
        "id": xml.stem,
        "title": _first_text(meta, ".//*[local-name()='article-title']"),
        "authors": authors,
        "journal": _first_text(root, "//*[local-name()='journal-title']") or manifest.get("journal", ""),
        "year": year,
        "doi": doi,
        "pmcid": (f"PMC{pmcid}" if pmcid and not pmcid.startswith("PMC") else pmcid) or None,
        "licence": manifest.get("licence", ""),
        "licence_url": licence_url,
        "licence_statement": licence_text[:400],
        "source": {
            "corpus": "../shared/corpus/pmc/ (mmdocsum-desktop's shared test corpus)",
            "repository": manifest.get("repository", ""),
            "commit": manifest.get("commit", ""),
            "path": manifest.get("path_of_pdf", ""),
        },
    }


def check_licence(info: dict[str, object], what: str) -> None:
    """CC BY or CC0 in MANIFEST *and* in the JATS licence; anything else stops the build."""
    manifest_licence = str(info["licence"])
    statement = f"{info.get('licence_url') or ''} {info['licence_statement']}"
    if manifest_licence not in ("CC BY", "CC0"):
        raise BuildError(f"{what}: MANIFEST gives the licence {manifest_licence!r}, not CC BY or CC0")
    if not _ACCEPTED_LICENCE.search(statement) or _REFUSED_LICENCE.search(statement):
        raise BuildError(f"{what}: the JATS licence is not CC BY or CC0 ({statement[:120]!r})")


def _roles_of_title(title: str) -> list[str]:
    """Roles a section title stands for: "Methodology/Principal findings" is both method and results."""
    title = _SECTION_NUMBER.sub("", title)
    roles = [abstract_role(part) for part in title.split("/")]
    return [r for r in dict.fromkeys(roles) if r is not None]


def structured_roles(gold: PairGold) -> dict[str, list[str]] | None:
    """The abstract's section titles per role, or None when the abstract is not structured (no titled
    sections, or fewer than three of the four roles)."""
    by_role: dict[str, list[str]] = {}
    for title, _ in gold.abstract_sections:
        for role in _roles_of_title(title):
            by_role.setdefault(role, []).append(title)
    return by_role if len(by_role) >= 3 else None


def mdocsum_item(name: str, gold: PairGold) -> dict[str, object]:
    """Gold per role: the abstract sections of that role joined (empty when the abstract has none, e.g.
    the results of a study protocol), and the label of the figure or table first cited in that role's
    body sections. A visual belongs to the role of the body section that cites it first anywhere in the
    paper, so no two roles share one; a role's gold is the first of its visuals in reading order."""
    texts: dict[str, list[str]] = {role: [] for role in ROLES}
    sections: dict[str, list[str]] = {role: [] for role in ROLES}
    for title, text in gold.abstract_sections:
        for role in _roles_of_title(title):
            texts[role].append(text)
            sections[role].append(title.rstrip(": "))
    by_id = {v.id: v for v in gold.visuals}
    first_role: dict[str, str | None] = {}
    order: list[str] = []
    for paragraph in gold.paragraphs:
        top = paragraph.section_path[0] if paragraph.section_path else ""
        roles = _roles_of_title(top)
        role = roles[0] if roles else None
        for rid in paragraph.cites:
            if rid in by_id and rid not in first_role:
                first_role[rid] = role
                order.append(rid)
    roles_out = []
    for role in ROLES:
        label = next((by_id[rid].label for rid in order if first_role[rid] == role and by_id[rid].label), None)
        roles_out.append({
            "role": role,
            "abstract_sections": sections[role],
            "summary": " ".join(texts[role]),
            "image_label": label,
        })
    return {"id": name, "document": f"papers/{name}.pdf", "title": gold.title, "gold_from": "abstract",
            "roles": roles_out}


def ftii_article(name: str, gold: PairGold) -> dict[str, object]:
    """Flow insertion: body paragraphs with citations removed; gold = the labelled figure or table each
    paragraph is the first to cite ("" otherwise), as the visual's label."""
    by_id = {v.id: v for v in gold.visuals}
    firsts = gold.first_citations(("figure", "table"))
    content, truth = [], []
    for paragraph, first in zip(gold.paragraphs, firsts):
        if not paragraph.flow_text.strip():
            continue
        content.append(paragraph.flow_text)
        label = by_id[first].label if first and by_id[first].label else None
        truth.append(label or "")
    labels = [v.label for v in gold.visuals if v.label]
    return {"id": name, "content": content, "groundtruth": truth, "labels": list(dict.fromkeys(labels))}


def _claim(caption: str, label: str) -> str:
    """The caption's first sentence without its label: what the figure or table shows."""
    text = re.sub(rf"^\s*{re.escape(label)}\s*[.:|\-–]?\s*", "", caption, flags=re.IGNORECASE)
    text = re.sub(r"^(?:Supplementary\s+)?(?:Figure|Fig\.?|Table)\s*\d+\s*[.:|\-–]?\s*", "", text, flags=re.IGNORECASE)
    first = re.split(r"(?<=[.!?])\s+(?=[A-Z(])", text.strip(), maxsplit=1)[0]
    return first.rstrip(". ").strip()


def _lower_first(text: str) -> str:
    """"Kaplan-Meier curves" -> "kaplan-Meier curves"; an acronym ("ROS production") keeps its case."""
    return text[0].lower() + text[1:] if len(text) > 1 and text[1].islower() else text


def mcite_records(name: str, gold: PairGold) -> list[dict[str, object]]:
    """Generated MCiteBench-style questions whose answer is one figure or table: the caption's first
    sentence turned into "Which figure or table shows ...?". Sources: every numbered figure and table of
    the paper (images the loader cuts from the PDF as the app reads it) and the first body paragraphs
    that cite none of the gold visual, as text. Marked ``generated`` with the rule that made them."""
    visuals = [v for v in gold.visuals if v.label and _SIMPLE_LABEL.match(v.label)]
    cited_first = {rid for rid in gold.first_citations(("figure", "table")) if rid}
    records = []
    image_2_idx, table_2_idx = {}, {}
    for visual in visuals:
        number = _SIMPLE_LABEL.match(visual.label).group(2)
        path = f"images/{visual.label.lower().replace(' ', '-')}.png"
        (table_2_idx if visual.kind == "table" else image_2_idx)[path] = number
    candidates = [v for v in visuals if v.id in cited_first and len(_claim(v.caption, v.label).split()) >= 4]
    for visual in candidates[:MCITE_PER_PAPER]:
        claim = _claim(visual.caption, visual.label)
        texts = [p.flow_text for p in gold.paragraphs if visual.id not in p.cites and len(p.flow_text.split()) >= 25]
        texts = texts[:MCITE_TEXT_SOURCES]
        idx_2_text = {str(k + 1): t for k, t in enumerate(texts)}
        gold_path = f"images/{visual.label.lower().replace(' ', '-')}.png"
        others = [p for p in (*image_2_idx, *table_2_idx) if p != gold_path]
        records.append({
            "question_id": f"{name}-{visual.label.lower().replace(' ', '-')}",
            "pdf_id": name,
            "question_type": "explanation",
            "generated": True,
            "generator": "caption's first sentence as 'Which figure or table shows ...?' (tools/build_pmc_test_split.py)",
            "question": f"Which figure or table of the paper shows {_lower_first(claim)}?",
            "answer": f"{visual.label}: {claim}.",
            "evidence_keys": [visual.label],
            "evidence_contents": [gold_path],
            "evidence_modal": "table" if visual.kind == "table" else "figure",
            "evidence_count": 1,
            "distractor_contents": [*texts, *others],
            "idx_2_text": idx_2_text,
            "text_2_idx": {t: k for k, t in idx_2_text.items()},
            "image_2_idx": image_2_idx,
            "table_2_idx": table_2_idx,
        })
    return records


# ---------------------------------------------------------------------------------------------- build


def _manifest(folder: Path) -> dict[str, dict[str, str]]:
    with (folder / "MANIFEST.tsv").open(encoding="utf-8", newline="") as handle:
        return {row["file"]: row for row in csv.DictReader(handle, delimiter="\t")}


def _jsonl(path: Path, rows: list[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows), encoding="utf-8")


def _dump(path: Path, value: object) -> None:
    path.write_text(json.dumps(value, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")


class PaperSource(NamedTuple):
    """Where the papers of the pmc-test split are read from, which they are, and their MANIFEST lines."""

    folder: Path  # holds NAME.pdf and NAME.xml
    names: list[str]  # in the split's order: the structured abstracts, then EXTRA_PAPERS
    structured: list[str]
    golds: dict[str, PairGold]
    manifest: dict[str, dict[str, str]]


def _choose(candidates: list[str], golds: dict[str, PairGold]) -> tuple[list[str], list[str]]:
    """Every candidate with a structured abstract (sorted), then EXTRA_PAPERS."""
    for name in EXTRA_PAPERS:
        if split_of(name) != "test":
            raise BuildError(f"{name} is a dev paper: the bundled split takes test-half papers only")
    structured = [n for n in sorted(candidates) if structured_roles(golds[n])]
    return structured + [n for n in EXTRA_PAPERS if n not in structured], structured


def corpus_papers(corpus: Path) -> PaperSource:
    """The split chosen from the corpus's pmc/: every test-half paper with a structured abstract, and more."""
    pmc = corpus / "pmc"
    test_names = sorted(p.stem for p in pmc.glob("*.xml") if split_of(p.stem) == "test")
    golds = {name: read_gold(pmc / f"{name}.xml") for name in test_names}
    names, structured = _choose(test_names, golds)
    return PaperSource(pmc, names, structured, golds, _manifest(pmc))


def committed_papers(split: Path) -> PaperSource:
    """The split's committed papers, with the MANIFEST lines its papers.json recorded when it was built."""
    index = json.loads((split / "papers.json").read_text(encoding="utf-8"))["papers"]
    folder = split / "papers"
    recorded = [paper["id"] for paper in index]
    missing = [f"{name}{suffix}" for name in recorded for suffix in (".pdf", ".xml")
               if not (folder / f"{name}{suffix}").is_file()]
    if missing:
        raise BuildError(f"pmc-test: {len(missing)} paper file(s) missing from {folder}: {', '.join(missing[:4])}")
    golds = {name: read_gold(folder / f"{name}.xml") for name in recorded}
    names, structured = _choose(recorded, golds)
    if names != recorded:
        raise BuildError(f"pmc-test: papers.json lists {recorded}, the rules choose {names} from them")
    manifest = {
        paper["id"]: {"licence": paper["licence"], "journal": paper["journal"], "pages": str(paper["pages"]),
                      "repository": paper["source"]["repository"], "commit": paper["source"]["commit"],
                      "path_of_pdf": paper["source"]["path"]}
        for paper in index
    }
    return PaperSource(folder, names, structured, golds, manifest)


def build_pmc_test(source: PaperSource, out: Path) -> dict[str, object]:
    pmc, manifest, golds, names, structured = source.folder, source.manifest, source.golds, source.names, source.structured
    papers_dir = out / "papers"
    papers_dir.mkdir(parents=True, exist_ok=True)
    papers, mdocsum, rouge_rows, ftii, mcite = [], [], [], [], []
    for name in names:
        if split_of(name) != "test":
            raise BuildError(f"{name} is a dev paper")
        pdf, xml = pmc / f"{name}.pdf", pmc / f"{name}.xml"
        if not pdf.is_file() or name not in manifest:
            raise BuildError(f"{name}: no PDF or no MANIFEST line")
        info = attribution(xml, manifest[name])
        check_licence(info, name)
        gold = golds[name]
        for original in (pdf, xml):
            shutil.copyfile(original, papers_dir / original.name)
        uses = ["rouge", "ftii", "mcite"]
        if name in structured:
            mdocsum.append(mdocsum_item(name, gold))
            uses.insert(0, "mdocsum")
        rouge_rows.append({"id": name, "document": f"papers/{name}.pdf", "abstract": gold.abstract})
        ftii.append(ftii_article(name, gold))
        mcite.extend(mcite_records(name, gold))
        papers.append({**info, "uses": uses, "structured_abstract": name in structured,
                       "pdf_bytes": pdf.stat().st_size, "xml_bytes": xml.stat().st_size,
                       "pages": int(manifest[name].get("pages") or 0),
                       "figures": len(gold.figures), "tables": len(gold.tables)})
    _dump(out / "papers.json", {
        "split": "pmc-test",
        "half": "test (mmdocsum_desktop.bench.pairs_split: sha256 of the file stem, first 8 hex digits mod 100 >= 60)",
        "size_budget_bytes": SIZE_BUDGET_BYTES,
        "papers": papers,
    })
    _jsonl(out / "mdocsum.jsonl", mdocsum)
    _jsonl(out / "rouge.jsonl", rouge_rows)
    _dump(out / "ftii.json", ftii)
    _jsonl(out / "mcite.jsonl", mcite)
    (out / "ATTRIBUTION.md").write_text(attribution_markdown("pmc-test", papers), encoding="utf-8")
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    if size > SIZE_BUDGET_BYTES:
        raise BuildError(f"pmc-test is {size / 1e6:.1f} MB, over its budget of {SIZE_BUDGET_BYTES / 1e6:.1f} MB")
    return {"papers": len(papers), "structured": len(mdocsum), "mcite": len(mcite), "bytes": size}


def committed_elife(split: Path, scratch: Path) -> Path:
    """The split's committed articles ungzipped into ``scratch`` (the gzip bytes are kept as they are)."""
    for packed in sorted((split / "articles").glob("*.xml.gz")):
        (scratch / packed.name.removesuffix(".gz")).write_bytes(gzip.decompress(packed.read_bytes()))
    return scratch


def build_elife_digests(elife: Path, out: Path, *, limit: int | None = ELIFE_DIGESTS) -> dict[str, object]:
    names = sorted(p.stem for p in elife.glob("*.xml") if split_of(p.stem) == "test")[:limit]
    docs = out / "articles"
    docs.mkdir(parents=True, exist_ok=True)
    rows, papers = [], []
    for name in names:
        xml = elife / f"{name}.xml"
        gold = read_gold(xml)
        if not gold.digest:
            raise BuildError(f"{name}: no eLife digest")
        info = attribution(xml, {"licence": "", "repository": "elifesciences/elife-articles",
                                 "commit": "6c97171e3855cb82db35beea99d5ef6260212e2a", "path_of_pdf": xml.name})
        statement = f"{info.get('licence_url') or ''} {info['licence_statement']}"
        info["licence"] = "CC0" if "publicdomain/zero" in statement else "CC BY"
        info["source"]["corpus"] = "../shared/corpus/elife/"  # type: ignore[index]
        check_licence(info, name)
        # mtime 0: the gzip bytes depend on the article only, so a rebuild is byte-for-byte the same
        with (docs / f"{name}.xml.gz").open("wb") as raw, gzip.GzipFile(
            filename=f"{name}.xml", mode="wb", fileobj=raw, mtime=0, compresslevel=9
        ) as handle:
            handle.write(xml.read_bytes())
        rows.append({"id": name, "document": f"articles/{name}.xml.gz", "abstract": gold.digest})
        papers.append({**info, "uses": ["rouge"], "xml_bytes": xml.stat().st_size})
    _jsonl(out / "rouge.jsonl", rows)
    _dump(out / "papers.json", {
        "split": "elife-digests",
        "half": "test (the same hash split as pmc/, by file stem); the first 40 by file name",
        "papers": papers,
    })
    (out / "ATTRIBUTION.md").write_text(attribution_markdown("elife-digests", papers), encoding="utf-8")
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    return {"articles": len(rows), "bytes": size}


_COMMITTED_AS = {
    "pmc-test": "the PDF and the JATS XML as published, in `papers/`",
    "elife-digests": "the JATS XML as published, gzipped, in `articles/`",
}


def attribution_markdown(split: str, papers: list[dict[str, object]]) -> str:
    lines = [
        f"# Attribution: the `{split}` benchmark split",
        "",
        f"These articles are redistributed unchanged: {_COMMITTED_AS[split]}, committed in the",
        "repository and shipped in the package, under their open licences, which allow it with attribution.",
        "mmdocsum-desktop uses them only to measure itself. Built by `tools/build_pmc_test_split.py`, which",
        "checks every licence.",
        "",
    ]
    for paper in papers:
        authors = list(paper["authors"])  # type: ignore[arg-type]
        shown = ", ".join(authors[:6]) + (f" and {len(authors) - 6} more" if len(authors) > 6 else "")
        source = paper["source"]  # type: ignore[index]
        lines += [
            f"## {paper['id']}",
            "",
            f"- Title: {paper['title']}",
            f"- Authors: {shown or 'not given'}",
            f"- Journal: {paper['journal']} ({paper['year']})",
            f"- DOI: {paper['doi'] or 'not given'}" + (f"; {paper['pmcid']}" if paper.get("pmcid") else ""),
            f"- Licence: {paper['licence']}" + (f" ({paper['licence_url']})" if paper.get("licence_url") else ""),
            f"- Source: {source['corpus']}; taken from {source['repository']} at {source['commit']}, {source['path']}",
            "",
        ]
    return "\n".join(lines)


def _same_tree(a: Path, b: Path) -> list[str]:
    left = {p.relative_to(a) for p in a.rglob("*") if p.is_file()}
    right = {p.relative_to(b) for p in b.rglob("*") if p.is_file()}
    differ = sorted(str(p) for p in left ^ right)
    differ += sorted(str(p) for p in left & right if not filecmp.cmp(a / p, b / p, shallow=False))
    return differ


def build(split: str, corpus: Path | None, out: Path, scratch: Path) -> dict[str, object]:
    """One split built into ``out``: from the corpus when given, else from what is committed."""
    if split == "pmc-test":
        return build_pmc_test(corpus_papers(corpus) if corpus else committed_papers(SPLITS / split), out)
    if corpus:
        return build_elife_digests(corpus / "elife", out)
    return build_elife_digests(committed_elife(SPLITS / split, scratch), out, limit=None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=None,
                        help="choose the papers again from this corpus (e.g. ../shared/corpus) and copy them in")
    parser.add_argument("--check", action="store_true", help="build in a temporary folder and compare")
    args = parser.parse_args(argv)
    if args.corpus is not None and not (args.corpus / "pmc" / "MANIFEST.tsv").is_file():
        print(f"build_pmc_test_split: {args.corpus}/pmc/MANIFEST.tsv not found", file=sys.stderr)
        return 2
    try:
        with tempfile.TemporaryDirectory(prefix="mmdocsum-splits-") as tmp:
            for split in ("pmc-test", "elife-digests"):
                folder, scratch = Path(tmp) / split, Path(tmp) / f"{split}-sources"
                folder.mkdir()
                scratch.mkdir()
                summary = build(split, args.corpus, folder, scratch)
                print(f"{split}: {summary}")
                if args.check:
                    differ = _same_tree(folder, SPLITS / split)
                    if differ:
                        print(f"{split}: differs from the committed split: {', '.join(differ[:10])}", file=sys.stderr)
                        return 1
                else:  # built whole first: a failed build leaves the committed split as it was
                    shutil.rmtree(SPLITS / split)
                    shutil.copytree(folder, SPLITS / split)
    except BuildError as error:
        print(f"build_pmc_test_split: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
