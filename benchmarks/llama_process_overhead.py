"""What running llama.cpp in a child process costs: the same SmolLM2 prompt through the in-process
``LlamaEngine`` and the ``LlamaProcessEngine`` that the app uses, runs alternated so that the machine's
load falls on both alike.

    .venv/bin/python benchmarks/llama_process_overhead.py [--runs 5] [--model GGUF]

Reports medians of: load seconds (starting the child included), first-token latency (prompt sent to first
piece received by the caller), prompt and generation tokens/s as the caller sees them; CPU seconds of
this process beside wall time. JSON in benchmarks/results/llama_process_overhead.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.llama_build_speed import PROMPT, smollm_path  # noqa: E402
from mmdocsum_desktop.engines.base import GenerationOptions, Message  # noqa: E402
from mmdocsum_desktop.engines.llama import LlamaConfig, LlamaEngine  # noqa: E402
from mmdocsum_desktop.engines.llama_process import LlamaProcessEngine  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--model", type=Path, default=None)
    parser.add_argument("--max-tokens", type=int, default=64)
    args = parser.parse_args()
    config = LlamaConfig(model=args.model or smollm_path(), n_ctx=2048, n_threads=1, n_gpu_layers=0)
    engines = {}
    loads = {}
    for name, build in (("in_process", LlamaEngine), ("child_process", LlamaProcessEngine)):
        started = time.perf_counter()
        engines[name] = build(config)
        loads[name] = time.perf_counter() - started
    options = GenerationOptions(max_tokens=args.max_tokens, temperature=0.0, seed=0)
    messages = [Message("user", PROMPT)]
    rows: dict[str, list[dict]] = {name: [] for name in engines}
    for _ in range(args.runs):
        for name, engine in engines.items():
            wall, cpu = time.perf_counter(), time.process_time()
            generation = engine.generate(messages, options)
            rows[name].append({
                "first_token_s": generation.prompt_seconds,
                "prompt_tokens_per_s": generation.prompt_tokens_per_s,
                "generation_tokens_per_s": generation.generation_tokens_per_s,
                "wall_s": time.perf_counter() - wall, "cpu_s_this_process": time.process_time() - cpu,
                "completion_tokens": generation.completion_tokens,
            })
    for engine in engines.values():
        engine.close()
    summary = {name: {"load_s": round(loads[name], 3), **{
        key: round(statistics.median(r[key] for r in runs if r[key] is not None), 3)
        for key in ("first_token_s", "prompt_tokens_per_s", "generation_tokens_per_s", "wall_s",
                    "cpu_s_this_process")}} for name, runs in rows.items()}
    result = {"model": config.model.name, "runs": args.runs, "threads": 1, "load_average": os.getloadavg(),
              "median": summary, "detail": rows}
    out = Path(__file__).parent / "results" / "llama_process_overhead.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    for name, values in summary.items():
        print(f"{name:14} load {values['load_s']:.2f} s, first token {values['first_token_s']:.3f} s, prompt "
              f"{values['prompt_tokens_per_s']:.0f} tok/s, generation {values['generation_tokens_per_s']:.1f} tok/s, "
              f"{values['wall_s']:.2f} s wall, {values['cpu_s_this_process']:.2f} CPU-s in this process")
    print(f"(median of {args.runs}, load average {result['load_average'][0]:.1f}) -> {out}")


if __name__ == "__main__":
    main()
