"""`mmdocsum bench mcite [--split demo|PATH] -o OUT`: MCiteBench citations and answers (issue 5)."""

from __future__ import annotations

import argparse
from pathlib import Path

from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.bench.run import run_benchmark
from mmdocsum_desktop.cli import bench_common as common
from mmdocsum_desktop.cli.progress import tqdm_control


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `mmdocsum bench mcite` (its parser comes from ``bench.suites.SUITES``)."""
    parser.add_argument("--split", default="demo", help="'demo', MCiteBench's data/ folder, or a JSONL file")
    parser.add_argument("--images-root", type=Path, default=None,
                        help="folder holding <pdf_id>/images/ (default: visual_resources[_example] beside the JSONL)")
    parser.add_argument("--predictions", type=Path, default=None, metavar="FILE_OR_DIR",
                        help="MCiteBench output JSONL (question_id + response, and sentence_citation_list "
                             "when already split) or a folder of ID.json/ID.txt")
    common.add_run_arguments(parser)
    common.add_engine_arguments(parser)
    common.add_judge_arguments(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    concurrency = common.check_concurrency(args)
    with tqdm_control("mcite", enabled=not args.quiet) as control, common.cancel_on_sigint(control):
        metrics = run_benchmark(
            Session(), "mcite", args.split, args.output,
            choice=common.engine_spec(args),
            predictions=args.predictions,
            judge=common.judge_spec(args),
            images_root=args.images_root,
            concurrency=concurrency,
            restart=args.restart,
            control=control,
        )
    if not args.quiet:
        print(common.closing_table(metrics, args.output))
    return 0
