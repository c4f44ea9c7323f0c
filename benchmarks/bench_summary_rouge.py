"""ROUGE-1/2/L of summaries written without the abstract, against the paper's own abstract.

For every paper of ``../shared/corpus/papers`` whose abstract the reader finds, the summary is written
with ``include_abstract=False`` (the abstract's blocks never reach the engine) and scored with
rouge-score (Porter stemming, one sentence per line; ROUGE-L is the summary-level LCS, rougeLsum) by
``mmdocsum_desktop.bench.metrics.rouge``. Engines: ``extractive`` always; ``llama`` with each ``--model``.
The bar named in the issue: LoRaLay's fine-tuned BigBird-Pegasus+Layout, ROUGE-L 41.15 on arXiv-Lay.

    python benchmarks/bench_summary_rouge.py [--model PATH_OR_NAME ...] [--threads N] [--n-ctx N]

With ``--pairs`` it scores the extractive engine on one half of the fixed dev/test split of pair folders
instead (``../shared/corpus/pmc`` against each JATS abstract; ``../shared/corpus/elife`` against the
abstract and the eLife digest), through the pairs suite's summary stage (``bench pairs``: resumable, in
``--work``), and writes the headline numbers of each folder to ``results/NAME.json``:

    python benchmarks/bench_summary_rouge.py --pairs ../shared/corpus/pmc --pairs ../shared/corpus/elife \
        --split test --work /tmp/rouge_pairs --name summary_extractive_h14
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from _corpus import PAPERS, RESULTS, write_result

from mmdocsum_desktop.bench.metrics.rouge import mean_rouge, rouge
from mmdocsum_desktop.document.reader import export_document, read_document
from mmdocsum_desktop.models.embed import TextEmbedder
from mmdocsum_desktop.summarize.pipeline import SummaryOptions, summarize_document


def papers_with_abstract() -> list[tuple[Path, object]]:
    found = []
    for pdf in sorted(PAPERS.glob("*.pdf")):
        document = read_document(pdf)
        if document.abstract and len(document.abstract.split()) >= 40:
            found.append((pdf, document))
    return found


def run_engine(label: str, engine, papers, embedder, workdir: Path, max_tokens: int) -> dict:
    rows = []
    for pdf, document in papers:
        folder = workdir / pdf.stem
        if not (folder / "document.json").exists():
            export_document(document, folder, dpi=72)
        started = time.perf_counter()
        summary = summarize_document(document, folder, engine=engine, embedder=embedder,
                                     options=SummaryOptions(include_abstract=False, max_tokens=max_tokens))
        text = "\n".join(p.text for p in summary.paragraphs)
        scores = rouge(text, document.abstract)
        rows.append({
            "paper": pdf.name,
            "seconds": round(time.perf_counter() - started, 2),
            "summary_words": len(text.split()),
            "abstract_words": len(document.abstract.split()),
            "instruction_following": summary.instruction_following,
            "long_document": summary.long_document,
            **{k: round(v, 4) for k, v in scores.items()},
        })
        print(f"{label:>28}  {pdf.name:<34} R1 {scores['rouge1']:.3f}  R2 {scores['rouge2']:.3f}  RL {scores['rougeL']:.3f}"
              f"  ({rows[-1]['seconds']} s)", flush=True)
    mean = mean_rouge(rows)
    print(f"{label:>28}  {'mean':<34} R1 {mean['rouge1']:.3f}  R2 {mean['rouge2']:.3f}  RL {mean['rougeL']:.3f}")
    return {"engine": label, "papers": rows, "mean": {k: (round(v, 4) if v is not None else None) for k, v in mean.items()}}


def run_pairs_halves(folders: list[Path], split: str, work: Path) -> list[dict]:
    """The pairs suite's summary stage on ``split`` of each folder; its headline numbers per folder."""
    from statistics import median

    from mmdocsum_desktop.bench.suites.pairs import run_pairs

    rows = []
    for folder in folders:
        metrics = run_pairs(folder, work / f"{folder.name}_{split}", split=split, stages=["summary"])
        pooled = metrics["by_split"].get(split, {})
        seconds = [p["summary"]["seconds"] for p in metrics["papers"] if "summary" in p]
        sources = pooled.get("sentence_sources") or {}
        row = {
            "folder": folder.name,
            "split": split,
            "papers": len(seconds),
            "rouge_abstract": {k: _round(pooled.get(k)) for k in ("rouge1", "rouge2", "rougeL")},
            "rouge_digest": {k: _round(pooled.get(f"digest_{k}")) for k in ("rouge1", "rouge2", "rougeL")},
            "sentence_sources": {k: round(v, 4) for k, v in sources.items()},
            "not_body_share": round(1 - sources.get("body", 1.0), 4) if sources else None,
            "figure_grounding": _round(pooled.get("figure_grounding")),
            "broken_characters": pooled.get("summary_broken_chars"),
            "median_seconds_per_summary_wall": round(median(seconds), 3) if seconds else None,
        }
        print(f"{folder.name} {split}: R1 {row['rouge_abstract']['rouge1']}  R2 {row['rouge_abstract']['rouge2']}  "
              f"RLsum {row['rouge_abstract']['rougeL']}  digest R1 {row['rouge_digest']['rouge1']}  "
              f"not body {row['not_body_share']}  grounding {row['figure_grounding']}", flush=True)
        rows.append(row)
    return rows


def _round(value: float | None) -> float | None:
    return round(value, 4) if value is not None else None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", action="append", default=[], type=Path,
                        help="a folder of PDF + JATS pairs or of JATS files: score the extractive engine on --split")
    parser.add_argument("--split", choices=("dev", "test"), default="test")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "mmdocsum_rouge_pairs",
                        help="where the pairs runs keep their documents and per-paper results (resumable)")
    parser.add_argument("--name", default="summary_extractive_pairs", help="results/NAME.json")
    parser.add_argument("--model", action="append", default=[], help="GGUF path or registered model name")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--max-tokens", type=int, default=1024)
    args = parser.parse_args()

    if args.pairs:
        rows = run_pairs_halves(args.pairs, args.split, args.work)
        previous = RESULTS / f"{args.name}.json"
        kept = []
        if previous.exists():  # the other half, or another folder, measured by an earlier run
            done = {(r["folder"], r["split"]) for r in rows}
            kept = [r for r in json.loads(previous.read_text()).get("runs", []) if (r["folder"], r["split"]) not in done]
        target = write_result(args.name, {
            "engine": "extractive (MiniLM), abstract left out",
            "metric": "rouge-score F1, Porter stemmer, one sentence per line; rougeL = rougeLsum; means over papers",
            "split": "fixed hash of the file name (mmdocsum_desktop/bench/pairs_split.py); tuned on dev only",
            "runs": kept + rows,
        })
        print(f"written {target}")
        return

    papers = papers_with_abstract()
    print(f"{len(papers)} papers with an abstract: {', '.join(p.name for p, _ in papers)}")
    embedder = TextEmbedder()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        # no text engine: the extractive summary
        results.append(run_engine("extractive", None, papers, embedder, work, args.max_tokens))
        for model in args.model:
            from mmdocsum_desktop.engines.llama import LlamaConfig, LlamaEngine, resolve_model_path

            engine = LlamaEngine(LlamaConfig(model=resolve_model_path(model), n_ctx=args.n_ctx, n_threads=args.threads))
            try:
                results.append(run_engine(f"llama:{engine.model_name}", engine, papers, embedder, work, args.max_tokens))
            finally:
                engine.close()
    previous = RESULTS / "summary_rouge.json"
    if previous.exists():  # keep engines measured by an earlier run (a slow model is run once)
        done = {r["engine"] for r in results}
        kept = [r for r in json.loads(previous.read_text()).get("engines", []) if r["engine"] not in done]
        results = kept + results
    target = write_result("summary_rouge", {
        "metric": "rouge-score F1, Porter stemmer, one sentence per line; rougeL = rougeLsum",
        "reference": "the paper's own abstract; summaries written with include_abstract=False",
        "bar": {"system": "LoRaLay BigBird-Pegasus+Layout (fine-tuned) on arXiv-Lay", "rougeL": 41.15},
        "papers": [p.name for p, _ in papers],
        "engines": results,
    })
    print(f"written {target}")


if __name__ == "__main__":
    main()
