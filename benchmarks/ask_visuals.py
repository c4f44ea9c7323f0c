"""Ask in the reader's words: does the answer cite the figure or table that shows it?

Questions were written by reading the JATS of ``../shared/corpus/pmc`` papers (each best answered by
one figure or table, never copying five words of its caption or citing sentence):
``benchmarks/ask_questions_dev.jsonl`` (dev-half papers, for fitting) and
``benchmarks/ask_questions_test.jsonl`` (test-half papers, for the number reported). Each question is
asked through ``answer_question`` with the extractive engine, on the PDF as the app reads it.

Reported, figures and tables apart: the right label first (the answer's first cited label is the
gold one), answers citing no label, answers citing a wrong label, whether the gold visual was cited
anywhere, and whether the PDF reader found the gold visual at all; warm retrieval seconds per question
(the document's index built before timing; CPU seconds beside wall); the kinds of question that fail.
The baseline "caption BM25" picks the visual whose caption shares the most rare words with the question.

``--fit`` (dev only) fits the visual scorer's weights (``retrieval/visuals.py``) by maximum likelihood of
the gold visual (a conditional logit, L2 0.1) and prints them to paste into ``VISUAL_WEIGHTS``.

    nice -n 10 .venv/bin/python benchmarks/ask_visuals.py --split test
    nice -n 10 .venv/bin/python benchmarks/ask_visuals.py --split dev --fit
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

from _corpus import CORPUS, REPO_ROOT, write_result

PMC = CORPUS / "pmc"
DOC_CACHE = Path("/tmp/mmdocsum-ask-bench-docs")
EMBED_CACHE = Path("/tmp/mmdocsum-ask-visuals-embeddings.sqlite")


def load_questions(split: str) -> list[dict]:
    from mmdocsum_desktop.bench.pairs_split import split_of

    path = REPO_ROOT / "benchmarks" / f"ask_questions_{split}.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    wrong = [r["paper"] for r in rows if split_of(r["paper"]) != split]
    if wrong:
        raise SystemExit(f"questions of {split} name papers of the other half: {', '.join(sorted(set(wrong)))}")
    return rows


def read_cached(pdf: Path):
    from mmdocsum_desktop.document.reader import read_document
    from mmdocsum_desktop.schemas.document import Document

    DOC_CACHE.mkdir(parents=True, exist_ok=True)
    cached = DOC_CACHE / f"{pdf.stem}.json"
    if cached.is_file() and cached.stat().st_mtime >= pdf.stat().st_mtime:
        return Document.load(cached)
    document = read_document(pdf)
    document.save(cached)
    return document


def question_kind(question: str) -> str:
    """A coarse shape of the question, to say which kinds fail."""
    text = question.lower()
    if re.search(r"\b(?:fig(?:ure)?|table)\b", text):
        return "names a visual"
    if re.match(r"(?:how (?:many|much|long|old|big|large|thick|fast|often|sensitive|accurate|similar))", text):
        return "how many/much"
    if re.match(r"(?:which|what)\b", text):
        return "which/what"
    if re.match(r"(?:did|do|does|is|are|was|were)\b", text):
        return "yes/no"
    if re.match(r"(?:how|where|when)\b", text):
        return "how/where/when"
    return "other"


def reliability(rows: list[dict]) -> list[dict]:
    """How often the chosen visual is right, by the probability the scorer gave it (calibration)."""
    bins = [(0.0, 0.4), (0.4, 0.7), (0.7, 0.9), (0.9, 1.01)]
    out = []
    for low, high in bins:
        subset = [r for r in rows if r["visual_probability"] is not None and low <= r["visual_probability"] < high]
        out.append({"probability": f"{low:.1f}-{min(high, 1.0):.1f}", "n": len(subset),
                    "right_first": round(sum(r["right_first"] for r in subset) / len(subset), 3) if subset else None})
    return out


def fit_weights(samples: list[tuple], l2: float = 0.1):
    """Conditional logit: maximise sum log softmax(F_q w)[gold_q] - l2 |w|^2 over questions."""
    import numpy as np
    from scipy.optimize import minimize

    from mmdocsum_desktop.retrieval.visuals import FEATURES, VISUAL_WEIGHTS

    def loss(w):
        total, grad = 0.0, np.zeros_like(w)
        for features, gold in samples:
            scores = features @ w
            scores = scores - scores.max()
            p = np.exp(scores) / np.exp(scores).sum()
            total -= np.log(p[gold] + 1e-12)
            grad -= features[gold] - p @ features
        return total + l2 * (w @ w), grad + 2 * l2 * w

    result = minimize(loss, VISUAL_WEIGHTS.astype(float), jac=True, method="L-BFGS-B")
    return dict(zip(FEATURES, np.round(result.x, 3))), result.x


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=["dev", "test"], default="test")
    parser.add_argument("--fit", action="store_true", help="fit the visual scorer's weights (dev only)")
    parser.add_argument("--no-rerank", action="store_true", help="without the cross-encoder")
    parser.add_argument("--limit", type=int, default=0)
    args = parser.parse_args()
    if args.fit and args.split != "dev":
        print("--fit runs on the dev half only", file=sys.stderr)
        return 2

    import numpy as np

    from mmdocsum_desktop.answer.ask import answer_question
    from mmdocsum_desktop.models.cache import ContentCache
    from mmdocsum_desktop.models.embed import TextEmbedder
    from mmdocsum_desktop.models.rerank import CrossEncoder
    from mmdocsum_desktop.retrieval.search import Retriever
    from mmdocsum_desktop.retrieval.visuals import FEATURES

    questions = load_questions(args.split)
    if args.limit:
        questions = questions[: args.limit]
    embedder = TextEmbedder(cache=ContentCache(EMBED_CACHE))
    retriever = Retriever(embedder, None if args.no_rerank else CrossEncoder())
    load_before = os.getloadavg()
    rows, samples, unread = [], [], []
    for number, item in enumerate(questions, start=1):
        try:
            document = read_cached(PMC / f"{item['paper']}.pdf")
        except Exception as error:  # noqa: BLE001 — one unreadable paper is reported, the rest go on
            unread.append({"paper": item["paper"], "error": f"{type(error).__name__}: {error}"[:300]})
            print(f"{number:3d} !! {item['paper']}: not read ({error})", file=sys.stderr)
            continue
        index = retriever.index(document)  # built before timing: the warm question is what is measured
        retriever.find(index, "warm-up question about the results")
        mark, cpu = time.perf_counter(), time.process_time()
        answer = answer_question(document, item["question"], None, retriever)
        wall, cpu = time.perf_counter() - mark, time.process_time() - cpu
        found = retriever.find(index, item["question"])
        labels = answer.cited_labels
        gold = item["gold"]
        row = {
            "paper": item["paper"], "question": item["question"], "gold": gold, "kind": item["kind"],
            "question_kind": question_kind(item["question"]),
            "first": labels[0] if labels else None, "cited": labels, "visual": answer.visual,
            "visual_probability": answer.visual_probability,
            "right_first": bool(labels) and labels[0] == gold, "cited_gold": gold in labels,
            "no_label": not labels, "not_in_document": answer.not_in_document,
            "gold_in_document": gold in index.labels_in_order,
            "scorer_first": found.visual.label if found.visual else None,
            "caption_bm25_first": None,
            "answer_s": round(wall, 4), "answer_cpu_s": round(cpu, 4),
            "retrieval_s": round(answer.timings.get("retrieval_s", 0.0), 4),
            "answer": answer.text[:400],
        }
        labels_scored = [v.label for v in found.visuals]
        row["scorer_top3"] = [(v.label, round(v.probability, 3)) for v in found.visuals[:3]]
        row["gold_scorer_rank"] = labels_scored.index(gold) if gold in labels_scored else None
        gold_score = next((v for v in found.visuals if v.label == gold), None)
        row["gold_features"] = [round(x, 3) for x in gold_score.features] if gold_score else None
        row["first_features"] = [round(x, 3) for x in found.visuals[0].features] if found.visuals else None
        if found.visuals and found.visuals[0].features:
            matrix = np.array([v.features for v in found.visuals])
            row["caption_bm25_first"] = labels_scored[int(np.argmax(matrix[:, FEATURES.index("caption_bm25")]))]
            if gold in labels_scored:
                samples.append((matrix, labels_scored.index(gold)))
        rows.append(row)
        mark_text = "ok " if row["right_first"] else ("-- " if row["no_label"] else "XX ")
        print(f"{number:3d} {mark_text}{item['paper']:>18} gold {gold:9} first {row['first']!s:9} "
              f"p={row['visual_probability']} {wall:.2f}s  {item['question'][:70]}", file=sys.stderr, flush=True)

    def share(subset, key):
        return round(sum(r[key] for r in subset) / len(subset), 3) if subset else None

    summary = {}
    for name, subset in (("all", rows), ("figures", [r for r in rows if r["kind"] == "figure"]),
                         ("tables", [r for r in rows if r["kind"] == "table"])):
        summary[name] = {
            "n": len(subset),
            "right_label_first": share(subset, "right_first"),
            "gold_cited_anywhere": share(subset, "cited_gold"),
            "no_label": share(subset, "no_label"),
            "wrong_label_first": round(sum(1 for r in subset if r["first"] and not r["right_first"]) / len(subset), 3)
            if subset else None,
            "gold_found_by_reader": share(subset, "gold_in_document"),
            "baseline_caption_bm25_first": round(
                sum(r["caption_bm25_first"] == r["gold"] for r in subset) / len(subset), 3) if subset else None,
        }
    failures = Counter(r["question_kind"] for r in rows if not r["right_first"])
    asked = Counter(r["question_kind"] for r in rows)
    timing = {
        "median_answer_s": round(statistics.median(r["answer_s"] for r in rows), 4),
        "max_answer_s": round(max(r["answer_s"] for r in rows), 4),
        "median_answer_cpu_s": round(statistics.median(r["answer_cpu_s"] for r in rows), 4),
        "median_retrieval_s": round(statistics.median(r["retrieval_s"] for r in rows), 4),
    }
    payload = {
        "benchmark": "ask in the reader's words: right figure/table cited first (extractive answers, PDF as read)",
        "split": args.split,
        "reranker": not args.no_rerank,
        "summary": summary,
        "timing_warm": timing,
        "failures_by_question_kind": {k: f"{failures.get(k, 0)}/{n}" for k, n in asked.items()},
        "reliability": reliability(rows),
        "failures": [
            {k: r.get(k) for k in ("paper", "question", "gold", "first", "cited", "gold_in_document",
                                   "scorer_top3", "gold_scorer_rank", "answer")}
            for r in rows if not r["right_first"]
        ],
        "unread_papers": unread,
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "cpu_count": os.cpu_count(),
        "questions": rows,
    }
    if args.fit:
        weights, _ = fit_weights(samples)
        payload["fitted_weights"] = {k: float(v) for k, v in weights.items()}
        print("fitted on dev:", json.dumps(payload["fitted_weights"]), file=sys.stderr)
    suffix = "_norerank" if args.no_rerank else ""
    target = write_result(f"ask_visuals_{args.split}{suffix}", payload)
    print(json.dumps({"summary": summary, "timing_warm": timing,
                      "failures_by_question_kind": payload["failures_by_question_kind"]}, indent=2))
    print(f"written {target}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
