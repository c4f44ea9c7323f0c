"""Long fuzz run of the article readers, the model-output parser and the split loaders: the properties of
the bounded tests (tests/fuzzing.py) for many more inputs. Each target runs in a worker process with a
bounded address space; each input has a time bound, and a worker that hangs in native code or dies is
replaced. Prints per target the inputs tried, their outcomes and every failure, and writes
benchmarks/results/fuzz_inputs.json. Failing inputs are saved outside the repository (they may hold
mutated corpus text).

    nice -n 10 .venv/bin/python tests/fuzz_inputs.py --inputs 2000 --minutes 5
"""

from __future__ import annotations

import argparse
import hashlib
import multiprocessing as mp
import pickle
import queue as queue_module
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
# run as a script: tests.fuzzing holds the strategies and checks shared with the tests, and
# benchmarks._corpus the results folder
sys.path.insert(0, str(REPO_ROOT))

from benchmarks._corpus import write_result  # noqa: E402

_BATCH = 50  # examples per hypothesis run; each run gets its own seed, so batches explore different inputs


def _worker(target_name: str, seed: int, examples: int, per_input_s: float, memory_gb: float, findings: str,
            results) -> None:
    import resource

    limit = int(memory_gb * 1024**3)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

    from tests.fuzzing import TARGETS, TimeBoundExceeded, time_bound

    target = TARGETS[target_name]
    strategy = target.inputs()
    done = 0
    batch = 0
    while done < examples:
        count = min(_BATCH, examples - done)

        @hypothesis_seed(seed * 100_003 + batch)
        @settings(max_examples=count, deadline=None, database=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(strategy)
        def run_one(value):
            started = time.perf_counter()
            try:
                with time_bound(per_input_s):
                    outcome = target.check(value)
                detail = ""
            except TimeBoundExceeded as error:
                outcome, detail = "hang", str(error)
            except AssertionError as error:
                outcome, detail = "property_broken", str(error).splitlines()[0][:300] if str(error) else "assert"
            except Exception as error:  # noqa: BLE001 — any other exception is what the fuzzer looks for
                outcome, detail = "crash", f"{type(error).__name__}: {str(error)[:300]}"
            seconds = time.perf_counter() - started
            saved = ""
            if detail:
                data = pickle.dumps(value)
                path = Path(findings) / f"{target_name}-{hashlib.sha256(data).hexdigest()[:12]}.pickle"
                path.write_bytes(data)
                saved = str(path)
            results.put((outcome, seconds, detail, saved))

        run_one()
        done += count
        batch += 1
    results.put(("done", 0.0, "", ""))


def fuzz_target(name: str, args: argparse.Namespace, minutes: float, findings: Path) -> dict:
    context = mp.get_context("spawn")
    outcomes: Counter[str] = Counter()
    failures: list[dict] = []
    slowest = 0.0
    started = time.perf_counter()
    deadline = started + minutes * 60
    restarts = 0
    while sum(outcomes.values()) < args.inputs and time.perf_counter() < deadline:
        results = context.Queue()
        remaining = args.inputs - sum(outcomes.values())
        worker = context.Process(
            target=_worker,
            args=(name, args.seed + restarts, remaining, args.per_input_timeout, args.memory_gb, str(findings), results),
        )
        worker.start()
        last_result = time.perf_counter()
        finished = False
        while not finished:
            try:
                outcome, seconds, detail, saved = results.get(timeout=1.0)
            except queue_module.Empty:
                stuck = time.perf_counter() - last_result > args.per_input_timeout + 30
                if time.perf_counter() > deadline or stuck or not worker.is_alive():
                    if worker.is_alive():
                        worker.kill()
                    if stuck:  # the time bound could not interrupt it: a hang in native code
                        outcomes["hang"] += 1
                        failures.append({"outcome": "hang", "detail": "native code did not return"})
                    elif worker.exitcode not in (0, None) and time.perf_counter() <= deadline:
                        outcomes["died"] += 1
                        failures.append({"outcome": "died", "detail": f"exit code {worker.exitcode}"})
                    finished = True
                continue
            last_result = time.perf_counter()
            if outcome == "done":
                finished = True
                continue
            outcomes[outcome] += 1
            slowest = max(slowest, seconds)
            if detail:
                failures.append({"outcome": outcome, "detail": detail, "input": saved})
                print(f"  [{name}] {outcome}: {detail}", flush=True)
            if time.perf_counter() > deadline:
                worker.kill()
                finished = True
        worker.join(5)
        restarts += 1
    tried = sum(outcomes.values())
    return {
        "inputs": tried,
        "seconds": round(time.perf_counter() - started, 1),
        "outcomes": dict(outcomes),
        "failures": len(failures),
        "slowest_input_s": round(slowest, 2),
        "findings": failures[:50],
    }


def main() -> None:
    from tests.fuzzing import TARGETS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", nargs="+", choices=sorted(TARGETS), default=list(TARGETS))
    parser.add_argument("--inputs", type=int, default=2000, help="inputs per target (default 2000)")
    parser.add_argument("--minutes", type=float, default=5.0, help="time per target, whichever ends first")
    parser.add_argument("--target-minutes", nargs="*", default=[], metavar="TARGET=MINUTES",
                        help="a different time for some targets, e.g. html=3 loader_ftii=0.5")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--per-input-timeout", type=float, default=60.0, help="seconds before an input is a hang")
    parser.add_argument("--memory-gb", type=float, default=3.0, help="address space of a worker (imports ~0.8)")
    parser.add_argument("--findings", type=Path, default=Path(tempfile.gettempdir()) / "mmdocsum-fuzz-findings")
    parser.add_argument("--no-write", action="store_true", help="do not write benchmarks/results/fuzz_inputs.json")
    args = parser.parse_args()
    args.findings.mkdir(parents=True, exist_ok=True)
    minutes = {name: args.minutes for name in args.targets}
    for item in args.target_minutes:
        name, _, value = item.partition("=")
        if name not in minutes:
            parser.error(f"--target-minutes: {name!r} is not one of the chosen targets")
        minutes[name] = float(value)
    report = {}
    started = time.perf_counter()
    for name in args.targets:
        print(f"{name}: up to {args.inputs} inputs or {minutes[name]:g} min", flush=True)
        report[name] = fuzz_target(name, args, minutes[name], args.findings)
        row = report[name]
        print(f"{name}: {row['inputs']} inputs in {row['seconds']} s, {row['failures']} failures, "
              f"outcomes {row['outcomes']}, slowest {row['slowest_input_s']} s", flush=True)
    total = sum(row["inputs"] for row in report.values())
    failures = sum(row["failures"] for row in report.values())
    seconds = time.perf_counter() - started
    print(f"total: {total} inputs, {failures} failures, {seconds:.0f} s")
    if not args.no_write:
        write_result("fuzz_inputs", {
            "seed": args.seed, "inputs_per_target": args.inputs, "minutes_per_target": minutes,
            "per_input_timeout_s": args.per_input_timeout, "memory_gb": args.memory_gb,
            "total_inputs": total, "total_failures": failures, "seconds": round(seconds), "targets": report,
        })


if __name__ == "__main__":
    main()
