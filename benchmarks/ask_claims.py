"""Ask the paper on a pairs-derived MCiteBench-style split: Source F1 / EM of the cited figures.

For each figure of each paper in ``../shared/corpus/pmc/`` (PDF + JATS pairs), the first sentence of the
JATS body that cites it (``<xref ref-type="fig">``), with every figure/table citation removed, is a
claim; the question asks for the evidence that supports it; gold = that figure ("Figure N"). The
document the app answers from is the **PDF as the app reads it** (not the JATS). Source F1 / EM are
MCiteBench's: the set of figure and table labels the answer cites against the gold set.

Two variants, both reported:

* ``as_is`` — the document is left whole, so the sentence the claim came from is still in it, with its
  citation; finding it is finding the figure (the split as the issue defines it).
* ``masked`` — passages that are the claim's own sentence (token Jaccard ≥ 0.5 with the claim) are
  hidden from retrieval: the answer must rest on the caption, figure text and the *other* sentences
  that cite the figure. This is the harder and more telling number.

Halves come from ``mmdocsum_desktop.bench.pairs_split`` (fixed hash of the file name): tune on dev,
report test. Engines: extractive (no language model), and a llama GGUF (``--engine llama --model
smollm2-135m``). Writes ``benchmarks/results/ask_claims_<engine>_<split>.json``.

    .venv/bin/python benchmarks/ask_claims.py --split test --engine extractive
    .venv/bin/python benchmarks/ask_claims.py --split test --engine llama --model smollm2-135m --limit 60
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from pathlib import Path

from _corpus import CORPUS, write_result
from lxml import etree

from mmdocsum_desktop.bench.pairs_gold import XREF_MARK, read_gold, strip_citations
from mmdocsum_desktop.bench.pairs_split import pairs_in
from mmdocsum_desktop.text.sentences import split_sentences

PMC = CORPUS / "pmc"
DOC_CACHE = Path("/tmp/mmdocsum-ask-bench-docs")
QUESTION = 'What evidence in the paper supports this claim: "{claim}"?'
_FLOATS = {"fig", "table-wrap", "fig-group", "table-wrap-group", "caption", "supplementary-material"}


def _local(node) -> str:
    return etree.QName(node).localname if isinstance(node.tag, str) else ""


def _marked_paragraph(p) -> tuple[str, list[list[str]]]:
    """The paragraph's text with each figure/table xref replaced by XREF_MARK, and the rids of each mark."""
    parts: list[str] = []
    marks: list[list[str]] = []

    def walk(node) -> None:
        name = _local(node)
        if name in _FLOATS:
            return
        if name == "xref" and node.get("ref-type") in {"fig", "table"}:
            parts.append(XREF_MARK)
            marks.append((node.get("rid") or "").split())
            return
        if node.text and name:
            parts.append(node.text)
        for child in node:
            walk(child)
            if child.tail:
                parts.append(child.tail)

    walk(p)
    return " ".join("".join(parts).split()), marks


def claims_of(xml: Path) -> list[dict]:
    """One claim per labelled figure: its first citing sentence, citations removed."""
    gold = read_gold(xml)
    figures = {v.id: v for v in gold.visuals if v.kind == "figure" and v.label}
    root = etree.parse(str(xml), etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)).getroot()
    body = next((e for e in root.iter() if _local(e) == "body"), None)
    claims: dict[str, dict] = {}
    if body is None:
        return []
    for p in body.iter():
        if _local(p) != "p" or any(_local(a) in _FLOATS for a in p.iterancestors()):
            continue
        text, marks = _marked_paragraph(p)
        if not marks:
            continue
        mark_index = 0
        for sentence in split_sentences(text):
            count = sentence.count(XREF_MARK)
            cited = [rid for group in marks[mark_index : mark_index + count] for rid in group]
            mark_index += count
            for rid in cited:
                if rid in figures and rid not in claims:
                    claim = strip_citations(sentence)
                    if len(claim.split()) >= 5:
                        claims[rid] = {"figure": rid, "gold": figures[rid].label, "claim": claim}
    order = [v.id for v in gold.visuals]
    return sorted(claims.values(), key=lambda c: order.index(c["figure"]))


def read_cached(pdf: Path):
    """The app's reading of a PDF, kept between runs of this script (reading is not what is measured)."""
    from mmdocsum_desktop.document.reader import read_document
    from mmdocsum_desktop.schemas.document import Document

    DOC_CACHE.mkdir(parents=True, exist_ok=True)
    cached = DOC_CACHE / f"{pdf.stem}.json"
    if cached.is_file() and cached.stat().st_mtime >= pdf.stat().st_mtime:
        return Document.load(cached)
    document = read_document(pdf)
    document.save(cached)
    return document


def _words(text: str) -> set[str]:
    return set(re.findall(r"[^\W_]{3,}", text.lower()))


def masker(claim: str):
    """A ``keep`` filter that hides the claim's own sentence (and near copies) from retrieval."""
    claim_words = _words(claim)

    def keep(passage) -> bool:
        words = _words(passage.text)
        if not words or not claim_words:
            return True
        return len(words & claim_words) / len(words | claim_words) < 0.5

    return keep


def source_scores(gold: set[str], predicted: set[str]) -> dict[str, float]:
    """MCiteBench's Source F1 / EM on label sets (as bench/mcite.py's source_scores computes them)."""
    correct = len(gold & predicted)
    recall = correct / len(gold) if gold else 0.0
    precision = correct / len(predicted) if predicted else 0.0
    f1 = 2 * recall * precision / (recall + precision) if recall + precision else 0.0
    return {"source_f1": f1, "source_em": float(bool(gold) and gold == predicted),
            "source_precision": precision, "source_recall": recall}


def result_name(args) -> str:
    engine = args.engine if args.engine == "extractive" else f"{args.engine}-{Path(args.model or 'default').stem}"
    return f"ask_claims_{engine}_{args.split}{args.tag}"


def summarise(rows, variants, items, index_seconds, options, search, args) -> dict:

    def median(values):
        values = [v for v in values if v is not None]
        return round(statistics.median(values), 3) if values else None

    results = {}
    for variant in variants:
        data = rows[variant]
        results[variant] = {
            "n": len(data),
            "source_f1": round(statistics.mean(r["source_f1"] for r in data), 4) if data else None,
            "source_em": round(statistics.mean(r["source_em"] for r in data), 4) if data else None,
            "source_precision": round(statistics.mean(r["source_precision"] for r in data), 4) if data else None,
            "source_recall": round(statistics.mean(r["source_recall"] for r in data), 4) if data else None,
            "not_in_document": sum(r["not_in_document"] for r in data),
            "median_retrieval_s": median([r["timings"].get("retrieval_s") for r in data]),
            "median_first_token_s": median([r["timings"].get("first_token_s") for r in data]),
            "median_total_s": median([r["timings"].get("total_s") for r in data]),
            "repairs": {k: sum(k in r["repairs"] for r in data) for k in sorted({k for r in data for k in r["repairs"]})},
        }
    engine = result_name(args).split("_")[2]
    payload = {
        "benchmark": "ask the paper, pairs-derived MCiteBench-style claims (gold = the figure first cited)",
        "split": args.split, "engine": engine, "reranker": search.uses_reranker, "options": options.__dict__,
        "papers": len({p.name for p, _ in items}), "claims": len(items),
        "median_index_build_s": median(index_seconds),
        "load_average": [round(x, 1) for x in os.getloadavg()],  # the shared 2-core machine's, at writing
        "results": results, "rows": rows,
    }
    return payload


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=("dev", "test"), default="test")
    parser.add_argument("--engine", choices=("extractive", "llama"), default="extractive")
    parser.add_argument("--model", default=None, help="llama: GGUF file or registered name (smollm2-135m)")
    parser.add_argument("--variants", default="as_is,masked")
    parser.add_argument("--limit", type=int, default=None, help="at most this many claims (in paper order)")
    parser.add_argument("--max-tokens", type=int, default=96)
    parser.add_argument("--max-sentences", type=int, default=None, help="extractive: passages quoted")
    parser.add_argument("--no-rerank", action="store_true")
    parser.add_argument("--tag", default="", help="suffix of the result file name")
    args = parser.parse_args()

    from mmdocsum_desktop.answer.ask import AskOptions
    from mmdocsum_desktop.app.ask import ask, retriever
    from mmdocsum_desktop.app.session import Session
    from mmdocsum_desktop.schemas.settings import EngineChoice

    variants = [v for v in args.variants.split(",") if v]
    items = []
    for pair in pairs_in(PMC, args.split):
        if pair.pdf is None:
            continue
        for claim in claims_of(pair.xml):
            items.append((pair, claim))
    if args.limit:
        items = items[: args.limit]
    print(f"{len(items)} claims from {len({p.name for p, _ in items})} papers ({args.split} half)", file=sys.stderr)

    options = AskOptions(max_tokens=args.max_tokens)
    if args.max_sentences:
        options = AskOptions(max_tokens=args.max_tokens, max_sentences=args.max_sentences)
    choice = EngineChoice(engine=args.engine, model=args.model, max_tokens=args.max_tokens, temperature=0.0)
    rows = {v: [] for v in variants}
    session = Session()
    search = retriever(session, rerank=not args.no_rerank)
    documents: dict[str, object] = {}
    index_seconds = []
    for number, (pair, claim) in enumerate(items, start=1):
        if pair.name not in documents:
            documents.clear()  # one paper at a time in memory
            documents[pair.name] = read_cached(pair.pdf)
            mark = time.perf_counter()
            search.index(documents[pair.name])
            index_seconds.append(time.perf_counter() - mark)
        document = documents[pair.name]
        question = QUESTION.format(claim=claim["claim"])
        for variant in variants:
            keep = masker(claim["claim"]) if variant == "masked" else None
            answer = ask(session, document, question, choice=choice, options=options,
                         rerank=not args.no_rerank, keep=keep)
            cited = set(answer.cited_labels)
            scores = source_scores({claim["gold"]}, cited)
            rows[variant].append({
                "paper": pair.name, "figure": claim["gold"], "claim": claim["claim"],
                "cited": sorted(cited), "answer": answer.text[:600], "not_in_document": answer.not_in_document,
                "repairs": [r.kind for r in answer.repairs], "timings": answer.timings, **scores,
            })
        if number % 5 == 0:
            # the results so far, rewritten as the run goes: a run cut short by time keeps its numbers
            write_result(result_name(args), summarise(rows, variants, items[:number], index_seconds, options, search, args))
        if number % 10 == 0 or number == len(items):
            summary = {v: round(statistics.mean(r["source_f1"] for r in rows[v]), 3) for v in variants}
            print(f"{number}/{len(items)} source F1 so far {summary}", file=sys.stderr)
    session.close()
    payload = summarise(rows, variants, items, index_seconds, options, search, args)
    target = write_result(result_name(args), payload)
    print(json.dumps({k: v for k, v in payload.items() if k != "rows"}, indent=2))
    print(f"written {target}", file=sys.stderr)


if __name__ == "__main__":
    main()
