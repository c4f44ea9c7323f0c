"""Long fuzz run of PDF ingestion: mutated real PDFs, each read in a worker process with a time limit,
so hangs and hard crashes (not only Python exceptions) are caught. Prints and writes counts
(benchmarks/results/fuzz_ingestion.json). The seed PDFs are the corpus's papers/ (MMDOCSUM_CORPUS), else
the committed tests/data/papers/.

    nice -n 10 .venv/bin/python tests/fuzz_ingestion.py --inputs 150
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import random
import sys
import tempfile
import time
import traceback
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))  # run as a script: benchmarks._corpus knows the corpus and the results folder

from benchmarks._corpus import PAPERS, write_result  # noqa: E402
from mmdocsum_desktop.document.mutate import mutate  # noqa: E402


def _work(path: str, out: str, queue) -> None:
    from mmdocsum_desktop.document.reader import export_document, read_document
    from mmdocsum_desktop.errors import MmdocsumError

    try:
        export_document(read_document(path), out, dpi=40)
        queue.put(("ok", ""))
    except MmdocsumError as error:
        queue.put(("clean_error", str(error)))
    except Exception:  # noqa: BLE001 — this is what the fuzzer is looking for
        queue.put(("crash", traceback.format_exc(limit=3)))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--inputs", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--papers", type=Path, default=PAPERS if PAPERS.is_dir() else REPO_ROOT / "tests" / "data" / "papers",
                        help="folder of seed PDFs (default: the corpus's papers/, else tests/data/papers)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    originals = {p.name: p.read_bytes() for p in sorted(args.papers.glob("*.pdf")) if p.stat().st_size < 3_000_000}
    if not originals:
        parser.error(f"no PDF under 3 MB in {args.papers}")
    counts = {"ok": 0, "clean_error": 0, "crash": 0, "hang": 0, "died": 0}
    findings = []
    started = time.perf_counter()
    context = mp.get_context("spawn")
    with tempfile.TemporaryDirectory() as tmp:
        for number in range(args.inputs):
            name = rng.choice(sorted(originals))
            path = Path(tmp) / f"mutant_{number}.pdf"
            path.write_bytes(mutate(originals[name], rng, rng.randint(1, 8)))
            queue = context.Queue()
            worker = context.Process(target=_work, args=(str(path), str(Path(tmp) / f"out_{number}"), queue))
            worker.start()
            worker.join(args.timeout)
            if worker.is_alive():
                worker.kill()
                outcome, detail = "hang", f"over {args.timeout} s"
            elif worker.exitcode != 0:
                outcome, detail = "died", f"exit code {worker.exitcode}"
            else:
                outcome, detail = queue.get()
            counts[outcome] += 1
            if outcome in {"crash", "hang", "died"}:
                findings.append({"input": number, "seed_file": name, "outcome": outcome, "detail": detail})
                print(f"[{number}] {outcome} from {name}: {detail.splitlines()[-1] if detail else ''}")
            path.unlink()
    seconds = time.perf_counter() - started
    print(f"{args.inputs} inputs in {seconds:.0f} s: {counts}")
    write_result("fuzz_ingestion", {"inputs": args.inputs, "seconds": seconds, "counts": counts, "findings": findings})


if __name__ == "__main__":
    main()
