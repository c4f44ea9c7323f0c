"""What the `mmdocsum bench` suites share: engine and judge options (generated from the settings schema
in ``cli/engine_flags.py``), Ctrl-C handling and the closing table."""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

from mmdocsum_desktop.bench import report
from mmdocsum_desktop.cli import engine_flags
from mmdocsum_desktop.jobs import JobControl


def add_engine_arguments(parser: argparse.ArgumentParser) -> None:
    engine_flags.add_engine_arguments(parser, title="engine (as in `mmdocsum summarize`)")


add_judge_arguments = engine_flags.add_judge_arguments


def add_run_arguments(parser: argparse.ArgumentParser, *, concurrency: bool = True) -> None:
    parser.add_argument("-o", "--output", type=Path, required=True, help="output folder of the run")
    if concurrency:
        parser.add_argument("--concurrency", type=int, default=1, metavar="N",
                            help="documents at once, for server engines (default 1)")
    parser.add_argument("--restart", action="store_true",
                        help="discard a previous run in the output folder instead of continuing it")
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no closing table")


engine_spec = engine_flags.engine_choice
judge_spec = engine_flags.judge_choice


def check_concurrency(args: argparse.Namespace) -> int:
    value = getattr(args, "concurrency", 1)
    if not 1 <= value <= 256:
        raise SystemExit("mmdocsum: error: --concurrency must be between 1 and 256")
    return value


@contextmanager
def cancel_on_sigint(control: JobControl, *, notice: str | None = None) -> Iterator[None]:
    """First Ctrl-C: ``control`` is cancelled (``notice`` printed) and the command finishes what it can
    and keeps it; a second Ctrl-C interrupts at once. The bench suites finish the documents in flight,
    write the reports and exit 130 (the same command continues the run later)."""
    notice = notice or "stopping after the documents in flight (Ctrl-C again to abort)"

    def handler(signum: int, frame: FrameType | None) -> None:  # noqa: ARG001
        signal.signal(signal.SIGINT, previous)
        print(f"\nmmdocsum: {notice}", file=sys.stderr)
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
