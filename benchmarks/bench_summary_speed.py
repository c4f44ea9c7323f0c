"""Seconds to a finished summary of mineru_demo1.pdf (13 pages), cold and warm, per engine.

* cold: a fresh ``mmdocsum summarize`` process with an empty cache dir, from start to the file written
  (imports, reading the PDF, figure crops, loading the models, embedding, the summary, writing);
* warm: the same summary again in one process that already holds the models (embedder, GGUF) and has
  its embedding cache filled; the document is read again each time.

    python benchmarks/bench_summary_speed.py [--runs 3] [--model PATH_OR_NAME ...] [--threads N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _corpus import PAPERS, RESULTS, write_result

PAPER = PAPERS / "mineru_demo1.pdf"


def cold(engine_args: list[str], tmp: Path, runs: int) -> list[float]:
    times = []
    for k in range(runs):
        env = {**os.environ, "MMDOCSUM_CACHE_DIR": str(tmp / f"cold-cache-{k}-{engine_args[:1]}")}
        started = time.perf_counter()
        result = subprocess.run(
            [sys.executable, "-m", "mmdocsum_desktop", "summarize", str(PAPER), "-o", str(tmp / f"cold{k}.json"),
             "--quiet", *engine_args],
            capture_output=True, text=True, env=env,
        )
        times.append(time.perf_counter() - started)
        if result.returncode != 0:
            raise SystemExit(result.stderr)
    return times


def warm(engine_factory, tmp: Path, runs: int) -> tuple[list[float], dict]:
    from mmdocsum_desktop.document.reader import export_document, read_document
    from mmdocsum_desktop.models.embed import TextEmbedder
    from mmdocsum_desktop.summarize.pipeline import summarize_document
    from mmdocsum_desktop.summarize.render import write_summary

    embedder = TextEmbedder()
    engine = engine_factory(embedder)
    times, last = [], {}
    try:
        for k in range(runs + 1):  # the first run fills the caches and is not counted
            started = time.perf_counter()
            document = read_document(PAPER)
            folder = tmp / f"warm{k}_files"
            export_document(document, folder)
            summary = summarize_document(document, folder, engine=engine, embedder=embedder)
            write_summary(summary, tmp / f"warm{k}.json", "json", base_dir=folder)
            if k:
                times.append(time.perf_counter() - started)
            last = {"timings": summary.timings,
                    "generations": [g.model_dump(mode="json") for g in summary.generations]}
    finally:
        if engine is not None:
            engine.close()
    return times, last


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--model", action="append", default=[])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--no-extractive", action="store_true", help="measure only the --model engines")
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        # the extractive summary needs no text engine (None)
        plans = [] if args.no_extractive else [("extractive", ["--engine", "extractive"], lambda embedder: None)]
        for model in args.model:
            def factory(embedder, model=model):
                from mmdocsum_desktop.engines.llama import LlamaConfig, LlamaEngine, resolve_model_path

                return LlamaEngine(LlamaConfig(model=resolve_model_path(model), n_threads=args.threads))

            plans.append((f"llama:{Path(model).name}", ["--model", model, "--threads", str(args.threads)], factory))
        for label, cli_args, factory in plans:
            cold_times = cold(cli_args, tmp, args.runs)
            warm_times, last = warm(factory, tmp, args.runs)
            results[label] = {
                "cold_s": [round(t, 2) for t in cold_times],
                "cold_median_s": round(statistics.median(cold_times), 2),
                "warm_s": [round(t, 2) for t in warm_times],
                "warm_median_s": round(statistics.median(warm_times), 2),
                "last_warm_stages_s": {k: round(v, 2) for k, v in last["timings"].items()},
                "generations": last["generations"],
                "runs": args.runs,
                "load_average": [round(x, 2) for x in os.getloadavg()],
            }
            print(f"{label:>36}: cold {results[label]['cold_median_s']:.2f} s (median of {args.runs}), "
                  f"warm {results[label]['warm_median_s']:.2f} s", flush=True)
    load = os.getloadavg()
    previous = RESULTS / "summary_speed.json"
    if previous.exists():  # keep engines measured by an earlier run
        old = json.loads(previous.read_text()).get("engines", {})
        results = {**{k: v for k, v in old.items() if k not in results}, **results}
    target = write_result("summary_speed", {
        "paper": PAPER.name,
        "cores": os.cpu_count(),
        "load_average_at_end": [round(x, 2) for x in load],
        "goal": "extractive cold <= 15 s on 2 cores",
        "engines": results,
    })
    print(f"written {target}")


if __name__ == "__main__":
    main()
