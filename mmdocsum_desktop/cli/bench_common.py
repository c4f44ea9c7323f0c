"""What the `mmdocsum bench` suites of issue 5 share: engine and judge options, Ctrl-C handling, the
closing table, and ``register_all`` — the one call ``cli/bench.py`` makes to add them."""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mmdocsum_desktop.jobs import JobControl

SUITE_MODULES = ("bench_mdocsum", "bench_mcite", "bench_rouge", "bench_judge", "bench_compare")


def register_all(bench_subparsers: argparse._SubParsersAction) -> None:
    """Add mdocsum, mcite, rouge, judge, compare and report under `mmdocsum bench`."""
    import importlib

    for name in SUITE_MODULES:
        importlib.import_module(f"mmdocsum_desktop.cli.{name}").register(bench_subparsers)


def add_engine_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("engine (as in `mmdocsum summarize`)")
    group.add_argument("--engine", choices=("auto", "extractive", "llama", "openai"), default="auto",
                       help="auto (default): the best configured; extractive needs no model file")
    group.add_argument("--model", help="GGUF model file, or a registered model name (llama engine)")
    group.add_argument("--mmproj", help="vision projector GGUF of a vision model (llama engine)")
    group.add_argument("--n-ctx", type=int, default=None, help="context length in tokens")
    group.add_argument("--threads", type=int, default=None, help="CPU threads for llama.cpp")
    group.add_argument("--gpu-layers", type=int, default=None, help="layers to offload to a GPU (-1: all)")
    group.add_argument("--base-url", help="openai: the endpoint, e.g. http://127.0.0.1:8080/v1")
    group.add_argument("--api-model", help="openai: the model name")
    group.add_argument("--api-key-name", help="openai: name of the API key in the system keyring")
    group.add_argument("--figure-mode", choices=("hybrid", "model", "placement"), default=None,
                       help="LLM engines: how figures are chosen (default hybrid)")
    group.add_argument("--max-tokens", type=int, default=None, help="tokens for each answer")
    group.add_argument("--no-grammar", action="store_true", help="llama: do not constrain answers to JSON")
    group.add_argument("--ocr", dest="ocr", action="store_true", default=None, help="read text in figures")
    group.add_argument("--no-ocr", dest="ocr", action="store_false", help="do not read text in figures")


def add_judge_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("judge (a language model that scores what rules cannot)")
    group.add_argument("--judge", choices=("llama", "openai"), default=None,
                       help="engine of the judge; without it, judge-based metrics are reported as absent")
    group.add_argument("--judge-model", help="llama judge: GGUF file or registered model name")
    group.add_argument("--judge-base-url", help="openai judge: the endpoint")
    group.add_argument("--judge-api-model", help="openai judge: the model name")
    group.add_argument("--judge-api-key-name", help="openai judge: name of the API key in the keyring")
    group.add_argument("--judge-n-ctx", type=int, default=None, help="judge context length in tokens")


def add_run_arguments(parser: argparse.ArgumentParser, *, concurrency: bool = True) -> None:
    parser.add_argument("-o", "--output", type=Path, required=True, help="output folder of the run")
    if concurrency:
        parser.add_argument("--concurrency", type=int, default=1, metavar="N",
                            help="documents at once, for server engines (default 1)")
    parser.add_argument("--restart", action="store_true",
                        help="discard a previous run in the output folder instead of continuing it")
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no closing table")


def engine_spec(args: argparse.Namespace):
    from mmdocsum_desktop.bench.glue import EngineSpec

    return EngineSpec(
        engine=args.engine, model=args.model, mmproj=args.mmproj, n_ctx=args.n_ctx, n_threads=args.threads,
        n_gpu_layers=args.gpu_layers, base_url=args.base_url, api_model=args.api_model,
        key_name=args.api_key_name, figure_mode=args.figure_mode, max_tokens=args.max_tokens, ocr=args.ocr,
        grammar=not args.no_grammar,
    )


def judge_spec(args: argparse.Namespace):
    from mmdocsum_desktop.bench.glue import EngineSpec

    if args.judge is None:
        if args.judge_model or args.judge_base_url:
            raise SystemExit("mmdocsum: error: --judge-model/--judge-base-url need --judge llama|openai")
        return None
    return EngineSpec(
        engine=args.judge, model=args.judge_model, base_url=args.judge_base_url, api_model=args.judge_api_model,
        key_name=args.judge_api_key_name, n_ctx=args.judge_n_ctx,
    )


def check_concurrency(args: argparse.Namespace) -> int:
    value = getattr(args, "concurrency", 1)
    if not 1 <= value <= 256:
        raise SystemExit("mmdocsum: error: --concurrency must be between 1 and 256")
    return value


@contextmanager
def cancel_on_sigint(control: JobControl) -> Iterator[None]:
    """First Ctrl-C: finish the documents in flight, write the reports, exit 130 (the same command
    continues the run later); a second Ctrl-C interrupts at once."""

    def handler(signum, frame):  # noqa: ARG001
        signal.signal(signal.SIGINT, previous)
        print("\nmmdocsum: stopping after the documents in flight (Ctrl-C again to abort)", file=sys.stderr)
        control.cancel()

    try:
        previous = signal.signal(signal.SIGINT, handler)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def closing_table(metrics: dict[str, Any], out: Path) -> str:
    from mmdocsum_desktop.bench import report

    rows: list[tuple[str, str]] = []
    for key, value in report.headline(metrics).items():
        rows.append((report.MDOCSUM_LABELS.get(key, key), report.fmt(value)))
    for note in metrics.get("notes") or []:
        rows.append(("note", note))
    skipped = metrics.get("skipped") or []
    if skipped:
        rows.append(("skipped", f"{len(skipped)} (reasons in report.md)"))
        for entry in skipped[:5]:
            rows.append(("", f"{entry.get('id') or 'line ' + str(entry.get('line'))}: {entry.get('reason')}"))
    failures = (metrics.get("judge") or {}).get("failures") or []
    if failures:
        rows.append(("judge", f"{len(failures)} items with unusable judge answers (listed in report.md)"))
    missing = metrics.get("missing") or []
    if missing:
        rows.append(("missing", f"{len(missing)} judge answers could not be used (listed in report.md)"))
    timings = metrics.get("timings") or {}
    if timings.get("total_s") is not None:
        rows.append(("seconds", f"{timings['total_s']:.2f}"))
    rows.append(("written", f"{out / 'metrics.json'}, report.md, report.html"))
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)
