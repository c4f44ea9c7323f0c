"""Placement text signals compared (issue 15): for each figure caption of the DEV half of
``../shared/corpus/pmc/``, rank the paper's JATS body paragraphs and count how often the gold
paragraph — the first one that cites the figure — comes first.

Paragraph text is the JATS paragraph with every figure/table citation removed (``flow_text``), so a
signal cannot win by reading "Fig. 3" in both; the caption keeps its own words only (no label).

Signals, same items, same run:

* ``minilm`` — cosine of all-MiniLM-L6-v2 (int8) mean-pooled vectors;
* ``bge_small`` — cosine of BGE-small-en (int8) [CLS] vectors;
* ``minilm_top10+ce`` / ``bge_top10+ce`` — the cross-encoder rescoring only the embedder's 10 best
  paragraphs (what placement can afford; the rest keep the embedder's order below them);
* ``union_top10+ce`` — the cross-encoder over the union of both embedders' 10 best.

The cross-encoder is not run over every (caption, paragraph) pair: at about 0.1–0.3 s a pair on two
cores that is most of an hour for the dev half, which is itself the answer to "can placement afford it
everywhere" (no). Pairs are truncated to ``--ce-max-length`` tokens (256: a caption and the start of
a paragraph) and scored in batches of 16 (dynamic int8 makes batched logits differ by ~0.3 from
single ones: noise, not bias).

Reported per signal: top-1 accuracy, within one paragraph of the gold, recall@5, MRR, and seconds.
Writes ``benchmarks/results/placement_signals.json``. DEV only: this is for choosing signals.

    .venv/bin/python benchmarks/placement_signals.py [--limit-papers N]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time

import numpy as np
from _corpus import CORPUS, write_result

from mmdocsum_desktop.bench.pairs_gold import read_gold
from mmdocsum_desktop.bench.pairs_split import pairs_in

PMC = CORPUS / "pmc"
TOP_RESCORE = 10
_LABEL_START = re.compile(r"^\s*(?:Figure|Fig\.?|FIGURE)\s*\d+[A-Za-z]?\s*[.:|]?\s*")


def items_of(split: str, limit: int | None):
    papers = []
    for pair in pairs_in(PMC, split)[: limit or None]:
        gold = read_gold(pair.xml)
        paragraphs = [p.flow_text for p in gold.paragraphs]
        if len(paragraphs) < 2:
            continue
        first = gold.first_citations(("figure",))
        figures = []
        for visual in gold.figures:
            if visual.id in first and visual.caption.strip():
                figures.append((_LABEL_START.sub("", visual.caption), first.index(visual.id)))
        if figures:
            papers.append((pair.name, paragraphs, figures))
    return papers


def rank_stats(scores: np.ndarray, gold: int) -> dict[str, float]:
    order = np.argsort(-scores, kind="stable")
    rank = int(np.where(order == gold)[0][0])
    return {"top1": float(rank == 0), "within1": float(abs(int(order[0]) - gold) <= 1),
            "recall5": float(rank < 5), "mrr": 1.0 / (rank + 1)}


def report(done, papers, stats, seconds, ce_seconds, pairs_scored, args) -> dict:
    """The table so far, written to the results file (rewritten after every paper: a run cut short by
    time still leaves its numbers, with how many papers they cover)."""
    seconds = dict(seconds)
    # rescoring a head costs the embedder plus the cross-encoder's measured time per pair for its pairs
    per_pair = ce_seconds / max(1, pairs_scored)
    head_pairs = sum(min(TOP_RESCORE, len(p)) * len(f) for _, p, f in done)
    seconds["minilm_top10+ce"] = seconds["minilm"] + per_pair * head_pairs
    seconds["bge_top10+ce"] = seconds["bge_small"] + per_pair * head_pairs
    seconds["union_top10+ce"] = seconds["minilm"] + seconds["bge_small"] + ce_seconds
    table = {
        signal: {
            "top1": round(statistics.mean(x["top1"] for x in rows), 4),
            "within1": round(statistics.mean(x["within1"] for x in rows), 4),
            "recall5": round(statistics.mean(x["recall5"] for x in rows), 4),
            "mrr": round(statistics.mean(x["mrr"] for x in rows), 4),
            "seconds": round(seconds[signal], 2),
        }
        for signal, rows in stats.items()
    }
    payload = {
        "benchmark": "placement text signals: caption vs JATS paragraphs (citations removed); gold = first citing paragraph",
        "split": args.split, "papers": len(done), "papers_planned": len(papers),
        "figures": sum(len(f) for _, _, f in done),
        "paragraphs_median": statistics.median(len(p) for _, p, _ in done),
        "cross_encoder_pairs": pairs_scored, "cross_encoder_max_length": args.ce_max_length,
        "cross_encoder_seconds_per_pair": round(per_pair, 4),
        "rescored_head": TOP_RESCORE, "signals": table,
        "note": "seconds: wall time in all, on this machine (2 cores shared with other agents' work, so "
                "inflated); *_top10+ce = the embedder's time plus the cross-encoder's measured time per pair "
                "for 10 pairs per figure",
    }
    write_result("placement_signals", payload)
    return payload


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=("dev",), default="dev", help="dev only: signals are chosen on it")
    parser.add_argument("--limit-papers", type=int, default=None)
    parser.add_argument("--ce-max-length", type=int, default=256)
    args = parser.parse_args()

    from mmdocsum_desktop.models.embed import TextEmbedder
    from mmdocsum_desktop.models.rerank import CrossEncoder

    papers = items_of(args.split, args.limit_papers)
    n_figures = sum(len(f) for _, _, f in papers)
    print(f"{len(papers)} papers, {n_figures} figures ({args.split} half)", file=sys.stderr)
    minilm = TextEmbedder(cache=False)
    bge = TextEmbedder.for_model("bge-small-en", cache=False)
    cross = CrossEncoder(max_length=args.ce_max_length)

    signals = ["minilm", "bge_small", "minilm_top10+ce", "bge_top10+ce", "union_top10+ce"]
    stats: dict[str, list[dict[str, float]]] = {s: [] for s in signals}
    seconds = dict.fromkeys(signals, 0.0)
    pairs_scored = 0
    ce_seconds = 0.0
    for number, (name, paragraphs, figures) in enumerate(papers, start=1):
        captions = [c for c, _ in figures]
        mark = time.perf_counter()
        vectors = minilm.embed(paragraphs + captions)
        seconds["minilm"] += time.perf_counter() - mark
        minilm_scores = vectors[len(paragraphs):] @ vectors[: len(paragraphs)].T
        mark = time.perf_counter()
        vectors = bge.embed(paragraphs + captions)
        seconds["bge_small"] += time.perf_counter() - mark
        bge_scores = vectors[len(paragraphs):] @ vectors[: len(paragraphs)].T
        for row, (caption, gold) in enumerate(figures):
            stats["minilm"].append(rank_stats(minilm_scores[row], gold))
            stats["bge_small"].append(rank_stats(bge_scores[row], gold))
            heads = {
                "minilm_top10+ce": np.argsort(-minilm_scores[row], kind="stable")[:TOP_RESCORE],
                "bge_top10+ce": np.argsort(-bge_scores[row], kind="stable")[:TOP_RESCORE],
            }
            union = sorted(set(heads["minilm_top10+ce"].tolist()) | set(heads["bge_top10+ce"].tolist()))
            mark = time.perf_counter()
            logits = dict(zip(union, cross.score(caption, [paragraphs[i] for i in union], batch_size=16)))
            ce_seconds += time.perf_counter() - mark
            pairs_scored += len(union)
            heads["union_top10+ce"] = np.array(union)
            base_of = {"minilm_top10+ce": minilm_scores[row], "bge_top10+ce": bge_scores[row],
                       "union_top10+ce": minilm_scores[row] + bge_scores[row]}
            for signal, head in heads.items():
                # the rescored head ranks above the rest, which keep the embedder's order
                combined = -1e6 + base_of[signal].astype(np.float64)
                combined[head] = [logits[int(i)] for i in head]
                stats[signal].append(rank_stats(combined, gold))
        report(papers[:number], papers, stats, seconds, ce_seconds, pairs_scored, args)
        print(f"{number}/{len(papers)} {name}: top-1 so far " + ", ".join(
            f"{s} {statistics.mean(x['top1'] for x in stats[s]):.3f}" for s in signals), file=sys.stderr)

    payload = report(papers, papers, stats, seconds, ce_seconds, pairs_scored, args)
    print(json.dumps(payload, indent=2))


if __name__ == "__main__":
    main()
