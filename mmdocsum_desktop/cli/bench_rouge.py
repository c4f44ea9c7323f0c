"""`mmdocsum bench rouge [--split demo|PATH] -o OUT`: LoRaLay-style ROUGE (issue 5)."""

from __future__ import annotations

import argparse
from pathlib import Path

from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.bench.run import run_benchmark
from mmdocsum_desktop.cli import bench_common as common
from mmdocsum_desktop.cli.progress import tqdm_control


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `mmdocsum bench rouge` (its parser comes from ``bench.suites.SUITES``)."""
    parser.add_argument("--split", default="demo", help="'demo' or a LoRaLay-style JSONL / folder")
    parser.add_argument("--predictions", type=Path, default=None, metavar="DIR",
                        help="score these summaries (ID.txt, or ID.json with text or M-DocSum paragraphs)")
    common.add_run_arguments(parser)
    common.add_engine_arguments(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    concurrency = common.check_concurrency(args)
    with tqdm_control("rouge", enabled=not args.quiet) as control, common.cancel_on_sigint(control):
        metrics = run_benchmark(
            Session(), "rouge", args.split, args.output,
            choice=common.engine_spec(args),
            predictions=args.predictions,
            concurrency=concurrency,
            restart=args.restart,
            control=control,
        )
    if not args.quiet:
        print(common.closing_table(metrics, args.output))
    return 0
