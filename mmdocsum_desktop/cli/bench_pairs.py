"""`mmdocsum bench pairs --pairs DIR [--split dev|test|all] [--stages ...] -o OUT`: gold from the papers'
own JATS markup (figures, text, flow insertion, summaries) for every NAME.pdf + NAME.xml in DIR."""

from __future__ import annotations

import argparse
from pathlib import Path

from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.bench.run import run_benchmark
from mmdocsum_desktop.bench.suites.pairs import STAGES, headline_rows
from mmdocsum_desktop.cli import bench_common as common
from mmdocsum_desktop.cli.progress import tqdm_control
from mmdocsum_desktop.errors import BenchError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `mmdocsum bench pairs` (its parser comes from ``bench.suites.SUITES``)."""
    parser.add_argument("--pairs", type=Path, required=True, metavar="DIR", help="folder of NAME.pdf + NAME.xml")
    parser.add_argument("--split", choices=("dev", "test", "all"), default="all",
                        help="the half of the fixed split by file name (default all)")
    parser.add_argument("--stages", default="figures,text,flow,summary",
                        help="comma-separated: figures, text, flow, summary (default all four)")
    common.add_run_arguments(parser, concurrency=False)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    stages = [s.strip() for s in args.stages.split(",") if s.strip()]
    unknown = [s for s in stages if s not in STAGES]
    if not stages or unknown:
        raise BenchError(f"--stages takes {', '.join(STAGES)} (got {args.stages!r})")
    with tqdm_control("pairs", enabled=not args.quiet) as control, common.cancel_on_sigint(control):
        # one session for the run: documents read (OCR), placed and summarised as the commands do it
        metrics = run_benchmark(Session(), "pairs", args.pairs, args.output, split=args.split, stages=stages,
                                restart=args.restart, control=control)
    if not args.quiet:
        header, rows = headline_rows(metrics)
        width = max(len(r[0]) for r in rows) if rows else 10
        print(f"{'':<{width}}  " + "  ".join(f"{h:>8}" for h in header[1:]))
        for row in rows:
            print(f"{row[0]:<{width}}  " + "  ".join(f"{c:>8}" for c in row[1:]))
        for entry in metrics["skipped"][:10]:
            print(f"skipped {entry['id']}: {entry['reason']}")
        print(f"written {args.output / 'metrics.json'}, report.md, report.html")
    return 0
