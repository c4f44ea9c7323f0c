"""Scoring speed of M-DocEval: 500 documents of given predictions (no generation), end to end.

Builds a synthetic split of 500 documents (gold summaries of about 90 words per paragraph made of real
sentences from the demo articles, 1–12 images) and one prediction per document of every kind the scorer meets: exact JSON, code-fenced
JSON, single quotes, five paragraphs, an image used twice, an index out of range, plain text,
refusals and missing files. Then times ``run_mdocsum(split, out, predictions=...)`` — parsing,
M-DocEval, ROUGE against the gold, breakdowns, metrics.json, report.md and report.html with its
plots — and reports the median of the runs (goal: under 10 s on 2 cores).

Two layouts: the split gives each document's image count and length (``n_images``, ``n_tokens``),
or it does not and the documents (small Markdown files) are read once, then cached in the run folder.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from _corpus import write_result

from mmdocsum_desktop.bench.suites.mdocsum import run_mdocsum


def _sentences() -> list[str]:
    """Real English sentences: those of the bundled demo articles (written for this project)."""
    from mmdocsum_desktop.bench.splits import DEMO_ROOT
    from mmdocsum_desktop.text.sentences import split_sentences

    text = " ".join(p.read_text() for p in sorted((DEMO_ROOT / "docs").glob("*.md")))
    return [s for s in split_sentences(" ".join(text.split())) if len(s.split()) > 6 and "![" not in s and "#" not in s]


SENTENCES = _sentences()


def _text(rng: random.Random, words: int) -> str:
    chosen: list[str] = []
    while sum(len(s.split()) for s in chosen) < words:
        chosen.append(rng.choice(SENTENCES))
    return " ".join(chosen)


def _paragraphs(rng: random.Random, refs: list[int | None]) -> list[dict]:
    return [
        {"summary": _text(rng, 90), "image": {"imageRef": "None" if r is None else str(r), "imageCaption": "why"}}
        for r in refs
    ]


def build(root: Path, n_docs: int, with_counts: bool) -> tuple[Path, Path]:
    rng = random.Random(7)
    docs, preds = root / "docs", root / "predictions"
    docs.mkdir(parents=True)
    preds.mkdir()
    lines = []
    for k in range(n_docs):
        n_images = rng.randint(1, 12)
        pool = list(range(1, n_images + 1))
        rng.shuffle(pool)
        gold_refs = [pool.pop() if pool and rng.random() < 0.6 else None for _ in range(4)]
        record = {"id": f"doc{k:04d}", "document": f"docs/doc{k:04d}.md", "gold": _paragraphs(rng, gold_refs)}
        if with_counts:
            record |= {"n_images": n_images, "n_tokens": rng.randint(1000, 40000)}
        else:
            images = "\n\n".join(f"![Figure {i}: A caption of figure {i}.](f{i}.png)" for i in range(1, n_images + 1))
            (docs / f"doc{k:04d}.md").write_text(f"# Paper {k}\n\n## Introduction\n\n{_text(rng, 400)}\n\n{images}\n")
        lines.append(json.dumps(record))
        kind = k % 10
        predicted = [r if rng.random() < 0.5 else None for r in gold_refs]
        answer = _paragraphs(rng, predicted)
        target = preds / f"doc{k:04d}.json"
        if kind <= 3:
            target.write_text(json.dumps(answer))
        elif kind == 4:
            target.write_text("```json\n" + json.dumps(answer) + "\n```\nHope this helps!")
        elif kind == 5:
            target.write_text(json.dumps(str(answer)))  # single quotes, as a raw string
        elif kind == 6:
            target.write_text(json.dumps(answer + _paragraphs(rng, [1])))
        elif kind == 7:
            answer[0]["image"]["imageRef"] = str(n_images + 3)
            target.write_text(json.dumps(answer))
        elif kind == 8:
            target.write_text(json.dumps("I'm sorry, but I cannot summarise this document."))
        # kind 9: no prediction file at all
    split = root / "split.jsonl"
    split.write_text("\n".join(lines) + "\n")
    return split, preds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=500)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    result: dict = {"documents": args.docs}
    with tempfile.TemporaryDirectory() as tmp:
        for layout, with_counts in (("counts_in_split", True), ("documents_read", False)):
            root = Path(tmp) / layout
            split, preds = build(root, args.docs, with_counts)
            times = []
            for run in range(args.runs):
                out = root / f"run{run}"
                started = time.perf_counter()
                metrics = run_mdocsum(split, out, predictions=preds)
                times.append(time.perf_counter() - started)
                print(f"{layout} run {run + 1}: {metrics['n_docs']} documents scored in {times[-1]:.2f} s")
            cached = time.perf_counter()
            run_mdocsum(split, root / "run0", predictions=preds)  # the same folder again: statistics cached
            cached = time.perf_counter() - cached
            result[layout] = {
                "runs_seconds": [round(t, 3) for t in times],
                "median_seconds": round(statistics.median(times), 3),
                "again_in_the_same_folder_seconds": round(cached, 3),
                "n_docs_scored": metrics["n_docs"],
                "if": metrics["if"],
                "omatch": metrics["omatch"],
                "missing_predictions": len(metrics["missing_predictions"]),
            }
            print(f"{layout}: median {statistics.median(times):.2f} s; again in the same folder {cached:.2f} s")
    write_result("scoring_speed", result)


if __name__ == "__main__":
    main()
