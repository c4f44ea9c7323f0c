"""ROUGE-1/2/L of summaries written without the abstract, against the paper's own abstract.

For every paper of ``../shared/corpus/papers`` whose abstract the reader finds, the summary is written
with ``include_abstract=False`` (the abstract's blocks never reach the engine) and scored with
rouge-score (Porter stemming, one sentence per line; ROUGE-L is the summary-level LCS, rougeLsum) by
``mmdocsum_desktop.bench.metrics.rouge``. Engines: ``extractive`` always; ``llama`` with each ``--model``.
The bar named in the issue: LoRaLay's fine-tuned BigBird-Pegasus+Layout, ROUGE-L 41.15 on arXiv-Lay.

    python benchmarks/bench_summary_rouge.py [--model PATH_OR_NAME ...] [--threads N] [--n-ctx N]
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
from mmdocsum_desktop.engines.extractive import ExtractiveEngine
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", action="append", default=[], help="GGUF path or registered model name")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--max-tokens", type=int, default=1024)
    args = parser.parse_args()

    papers = papers_with_abstract()
    print(f"{len(papers)} papers with an abstract: {', '.join(p.name for p, _ in papers)}")
    embedder = TextEmbedder()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        results.append(run_engine("extractive", ExtractiveEngine(embedder), papers, embedder, work, args.max_tokens))
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
