"""`mmdocsum bench mdocsum [--split demo|PATH] -o OUT`: M-DocEval on a split (issue 5)."""

from __future__ import annotations

import argparse
from pathlib import Path

from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.bench.run import run_benchmark
from mmdocsum_desktop.bench.suites.mdocsum import MDocSumOptions
from mmdocsum_desktop.cli import bench_common as common
from mmdocsum_desktop.cli.progress import tqdm_control


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `mmdocsum bench mdocsum` (its parser comes from ``bench.suites.SUITES``)."""
    parser.add_argument("--split", default="demo", help="'demo' (bundled) or a split JSONL / folder (default demo)")
    parser.add_argument("--predictions", type=Path, default=None, metavar="DIR",
                        help="score these answers (one ID.json per document) instead of running an engine")
    parser.add_argument("--shuffle-images", type=int, nargs="?", const=0, default=None, metavar="SEED",
                        help="ablation: also run with the images shuffled, report decline rates")
    parser.add_argument("--no-abstract", action="store_true",
                        help="ablation: also run without the abstract, report decline rates")
    common.add_run_arguments(parser)
    common.add_engine_arguments(parser)
    common.add_judge_arguments(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    concurrency = common.check_concurrency(args)
    if args.predictions is not None and (args.shuffle_images is not None or args.no_abstract):
        raise SystemExit("mmdocsum: error: ablations need generation; they cannot be used with --predictions")
    options = MDocSumOptions(
        concurrency=concurrency,
        restart=args.restart,
        ablate_shuffle=args.shuffle_images,
        ablate_no_abstract=args.no_abstract,
    )
    with tqdm_control("mdocsum", enabled=not args.quiet) as control, common.cancel_on_sigint(control):
        metrics = run_benchmark(
            Session(), "mdocsum", args.split, args.output,
            choice=common.engine_spec(args),
            predictions=args.predictions,
            judge=common.judge_spec(args),
            options=options,
            control=control,
        )
    if not args.quiet:
        print(common.closing_table(metrics, args.output))
    return 0
