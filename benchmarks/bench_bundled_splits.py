"""Time and headline numbers of every suite on the bundled splits (issue 30), as a user runs them:

    nice -n 10 .venv/bin/python benchmarks/bench_bundled_splits.py [--runs N] [--only pmc-test:mdocsum,...]
        [--engine extractive] [--engine-args "--model X.gguf --threads 1"]

Each (split, suite) is ``mmdocsum bench SUITE --split NAME -o TMP --quiet`` in a child process with an
empty cache folder (a first run: the PDFs are read, the figures cut), so the times are what the window
shows for a split. Wall seconds and CPU seconds (user + system of the child) are reported side by side:
on the shared 2-core machine the wall time depends on the load, the CPU time much less. Medians over
``--runs``. Writes ``benchmarks/results/bundled_splits[_ENGINE].json``; with ``--publish`` also
``mmdocsum_desktop/resources/splits/published.json``, the numbers the README quotes and the window
compares a run with.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _corpus import REPO_ROOT, write_result

SPLIT_SUITES = {
    "demo": ("mdocsum", "rouge", "mcite", "ftii"),
    "pmc-test": ("mdocsum", "rouge", "mcite", "ftii"),
    "elife-digests": ("rouge",),
}
HEADLINE = {
    "mdocsum": ("n_docs", "if", "omatch", "imgacc", "nonacc", "jacsim", "is"),
    "rouge": ("n_docs", "rouge1", "rouge2", "rougeL"),
    "mcite": ("n_records", "source_f1", "source_em"),
    "ftii": ("n_slots", "acc_b", "acc_i", "acc_ni"),
}
PUBLISHED = REPO_ROOT / "mmdocsum_desktop" / "resources" / "splits" / "published.json"


def run_once(split: str, suite: str, engine_args: list[str]) -> dict:
    mmdocsum = str(Path(sys.executable).with_name("mmdocsum"))
    with tempfile.TemporaryDirectory(prefix="bundled-bench-") as tmp:
        out = Path(tmp) / "run"
        env = {**os.environ, "MMDOCSUM_CACHE_DIR": str(Path(tmp) / "cache")}
        if suite == "ftii":
            command = [mmdocsum, "bench", "ftii", "--data", split, "-o", str(out), "--quiet"]
        else:
            command = [mmdocsum, "bench", suite, "--split", split, "-o", str(out), "--quiet", *engine_args]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(command, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise SystemExit(f"{split}/{suite} failed ({done.returncode}): {done.stderr.strip()[-600:]}")
        metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    numbers = {key: metrics.get(key) for key in HEADLINE[suite]}
    if suite == "mdocsum":
        numbers.update({f"rouge_{k}": (metrics.get("rouge") or {}).get(k) for k in ("rouge1", "rouge2", "rougeL")})
        numbers["rouge1_by_role"] = {
            role: value.get("rouge1") for role, value in (metrics.get("rouge_by_role") or {}).items()
        }
    return {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "metrics": numbers}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--only", help="comma-separated split:suite pairs")
    parser.add_argument("--engine", default="extractive", help="the engine name recorded with the numbers")
    parser.add_argument("--engine-args", default="--engine extractive", help="flags given to every suite but ftii")
    parser.add_argument("--publish", action="store_true", help="also write resources/splits/published.json")
    parser.add_argument("--tag", default="", help="added to the results file name (runs in parallel)")
    args = parser.parse_args()
    wanted = [(s, q) for s, suites in SPLIT_SUITES.items() for q in suites]
    if args.only:
        wanted = [tuple(pair.split(":", 1)) for pair in args.only.split(",")]
    results: dict[str, dict] = {}
    for split, suite in wanted:
        runs = [run_once(split, suite, shlex.split(args.engine_args)) for _ in range(args.runs)]
        entry = {
            "wall_s": statistics.median(r["wall_s"] for r in runs),
            "cpu_s": statistics.median(r["cpu_s"] for r in runs),
            "runs": len(runs),
            "metrics": runs[-1]["metrics"],
        }
        results[f"{split}:{suite}"] = entry
        print(f"{split:14} {suite:8} wall {entry['wall_s']:7.1f} s  cpu {entry['cpu_s']:7.1f} s  {entry['metrics']}",
              flush=True)
    load = os.getloadavg()
    payload = {
        "engine": args.engine,
        "engine_args": args.engine_args,
        "machine_note": f"shared 2-core machine, load average {load[0]:.1f} at the end; cold cache per run",
        "cpus": os.cpu_count(),
        "results": results,
    }
    suffix = ("" if args.engine == "extractive" else f"_{args.engine}") + (f"_{args.tag}" if args.tag else "")
    print(write_result(f"bundled_splits{suffix}", payload))
    if args.publish:
        published = json.loads(PUBLISHED.read_text(encoding="utf-8")) if PUBLISHED.is_file() else {}
        for key, entry in results.items():
            published.setdefault(key, {})[args.engine] = {
                "metrics": entry["metrics"], "wall_s": entry["wall_s"], "cpu_s": entry["cpu_s"],
                "machine": payload["machine_note"],
            }
        PUBLISHED.write_text(json.dumps(published, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(PUBLISHED)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
