"""`mmdocsum bench judge --docs DOC... [--summaries DIR] --judge ENGINE -o OUT`: how good is a summary
of any document, with no gold answer (issue 8)."""

from __future__ import annotations

import argparse
from pathlib import Path

from mmdocsum_desktop.app.judging import ASPECTS, INSIST_FLAG, UnfitJudgeError, judge_fitness, refuses
from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.bench.run import run_benchmark
from mmdocsum_desktop.cli import bench_common as common
from mmdocsum_desktop.cli.progress import tqdm_control


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `mmdocsum bench judge` (its parser comes from ``bench.suites.SUITES``)."""
    parser.add_argument("--docs", nargs="+", type=Path, required=True, metavar="DOC", help="source documents")
    parser.add_argument("--summaries", type=Path, default=None, metavar="DIR",
                        help="judge these summaries instead of writing new ones")
    parser.add_argument("--aspects", default=None, metavar="A,B",
                        help=f"judge only these aspects (of {', '.join(ASPECTS)})")
    parser.add_argument("--self-consistency", type=int, default=1, metavar="N",
                        help="average N judge samples per aspect (N > 1 samples at temperature 0.7; "
                        "default 1: one answer at temperature 0)")
    parser.add_argument("--judge-time-limit", type=float, default=None, metavar="SECONDS",
                        help="give up on a judge answer after this long (it is retried once, then missing)")
    common.add_run_arguments(parser, concurrency=False)
    common.add_engine_arguments(parser)
    parser.set_defaults(engine="extractive")
    common.add_judge_arguments(parser)
    parser.add_argument(INSIST_FLAG, action="store_true",
                        help="judge even with a model labelled unfit to judge (its scores are unreliable)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    judge = common.judge_spec(args)
    if judge is None:
        raise SystemExit("mmdocsum: error: bench judge needs --judge llama|openai (and --judge-model or --judge-base-url)")
    if args.self_consistency < 1:
        raise SystemExit("mmdocsum: error: --self-consistency must be 1 or more")
    aspects = [a.strip() for a in args.aspects.split(",") if a.strip()] if args.aspects else None
    session = Session()
    fitness = judge_fitness(session, judge)
    if refuses(fitness) and not args.allow_unfit_judge:  # said before minutes of unreliable scoring
        assert fitness is not None
        raise UnfitJudgeError(fitness)  # its message names INSIST_FLAG
    with tqdm_control("judge", enabled=not args.quiet) as control, common.cancel_on_sigint(control):
        metrics = run_benchmark(
            session, "judge", args.docs, args.output,
            choice=common.engine_spec(args),
            judge=judge,
            summaries=args.summaries,
            aspects=aspects,
            self_consistency=args.self_consistency,
            time_limit_s=args.judge_time_limit,
            restart=args.restart,
            control=control,
        )
    if not args.quiet:
        print(common.closing_table(metrics, args.output))
    return 0
