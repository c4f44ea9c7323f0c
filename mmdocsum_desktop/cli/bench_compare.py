"""`mmdocsum bench compare RUN_A RUN_B …` and `mmdocsum bench report RUN …` (issue 5)."""

from __future__ import annotations

import argparse
from pathlib import Path

from mmdocsum_desktop.bench.compare import compare, to_markdown, write_comparison
from mmdocsum_desktop.bench.report import load_metrics, write_reports


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "compare", help="put benchmark runs side by side",
        description="Print the runs' headline numbers side by side (grouped by suite, with the difference "
        "to the first run); with -o also write compare.json, compare.md and compare.html.",
    )
    parser.add_argument("runs", nargs="+", type=Path, help="output folders of bench runs (or their metrics.json)")
    parser.add_argument("-o", "--output", type=Path, default=None, help="folder for compare.json/.md/.html")
    parser.set_defaults(handler=run_compare)

    report_parser = subparsers.add_parser(
        "report", help="(re)write report.md and report.html of runs (any suite, ftii included)",
    )
    report_parser.add_argument("runs", nargs="+", type=Path, help="output folders of bench runs")
    report_parser.set_defaults(handler=run_report)


def run_compare(args: argparse.Namespace) -> int:
    result = compare(args.runs)
    print(to_markdown(result))
    if args.output is not None:
        written = write_comparison(result, args.output)
        print(f"written: {', '.join(str(p) for p in written)}")
    return 0


def run_report(args: argparse.Namespace) -> int:
    for run in args.runs:
        metrics = load_metrics(run)
        folder = run if run.is_dir() else run.parent
        written = write_reports(folder, metrics)
        print(f"written: {', '.join(str(p) for p in written)}")
    return 0
