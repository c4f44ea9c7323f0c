"""`mmdocsum bench SUITE ...`: run a benchmark suite, print its metrics, write OUT/predictions.json and
OUT/metrics.json.

Suites are subcommands of ``bench``, one per entry of the suites table (``bench.suites.SUITES``: name,
help and description). Each suite's options come from :data:`SUITE_OPTIONS`: a function that adds them to
the suite's parser and sets its ``handler``, in the suite's own module here (FTII-Bench's is in this one):

    # mmdocsum_desktop/cli/bench_rouge.py
    def add_arguments(parser):
        parser.add_argument("--split", ...)
        parser.set_defaults(handler=run)

``bench compare`` and ``bench report`` work on finished runs of any suite (``cli/bench_compare.py``).

The helpers here (:func:`add_output_options`, :func:`write_outputs`, :func:`print_metrics`) keep the
suites alike: the same -o/--quiet options, the same files, the same one-line metrics.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from mmdocsum_desktop.app.placement import STRATEGIES
from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.bench import splits
from mmdocsum_desktop.bench.metrics.ftii import score_articles, single_choice_accuracy
from mmdocsum_desktop.bench.run import run_ftii as place_and_score
from mmdocsum_desktop.bench.suites import SUITES
from mmdocsum_desktop.bench.suites.ftii import run_single_choice
from mmdocsum_desktop.cli import (
    bench_compare,
    bench_judge,
    bench_mcite,
    bench_mdocsum,
    bench_pairs,
    bench_rouge,
)
from mmdocsum_desktop.cli.engine_flags import add_placement_arguments, placement_settings
from mmdocsum_desktop.cli.progress import tqdm_control
from mmdocsum_desktop.errors import MmdocsumError
from mmdocsum_desktop.fileio import write_json_atomic
from mmdocsum_desktop.schemas.bench import BenchDataError
from mmdocsum_desktop.schemas.placement import PlacementError
from mmdocsum_desktop.schemas.settings import PlacementSettings


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("bench", help="run a benchmark suite and score it")
    suites = parser.add_subparsers(dest="suite", metavar="SUITE")
    parser.set_defaults(handler=lambda args: _usage(parser))
    for name, suite in SUITES.items():
        SUITE_OPTIONS[name](suites.add_parser(name, help=suite.help, description=suite.description))
    bench_compare.register(suites)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


# ------------------------------------------------------------------------------------- shared helpers


def add_output_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", type=Path, required=True, help="output folder")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def write_outputs(out: Path, predictions: Any, metrics: Mapping[str, Any]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    write_json_atomic(out / "predictions.json", predictions)
    write_json_atomic(out / "metrics.json", dict(metrics))


def print_metrics(metrics: Mapping[str, Any], names: Mapping[str, str]) -> None:
    """One line: ``Acc_b 0.912  Acc_i 0.611 ...`` (n/a where a metric has no slots)."""
    parts = []
    for key, label in names.items():
        value = metrics.get(key)
        parts.append(f"{label} {value:.3f}" if isinstance(value, float) else f"{label} {value if value is not None else 'n/a'}")
    print("  ".join(parts))


# ----------------------------------------------------------------------------------------------- ftii


def add_ftii_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `mmdocsum bench ftii` (its parser comes from ``bench.suites.SUITES``)."""
    parser.add_argument("--data", type=Path, required=True, help="FTII flow-insertion JSON or single-choice TSV")
    parser.add_argument("--images-root", type=Path, help="folder the image paths of the data are relative to")
    parser.add_argument(
        "--captions",
        type=Path,
        help="JSON {image path as in the data: caption} (or {path: {caption, label, context}}) for splits "
        "built from documents",
    )
    parser.add_argument("--strategy", choices=STRATEGIES, default="global")
    parser.add_argument(
        "--predictions",
        type=Path,
        help="score these predictions instead of placing: JSON {article id: [image path or \"\" per "
        "paragraph]} (single choice: a JSON list of answers, letters or 1-based numbers)",
    )
    parser.add_argument("--threshold", type=float, help="calibrated score below which no image is placed")
    add_placement_arguments(parser)
    add_output_options(parser)
    parser.set_defaults(handler=run_ftii)


def _placement(args: argparse.Namespace) -> tuple[Session, PlacementSettings]:
    """(session, placement settings) of the flags; the threshold and images root checked first."""
    if args.threshold is not None and not 0.0 < args.threshold < 1.0:
        raise PlacementError("--threshold is a calibrated score between 0 and 1")
    if args.images_root is None and splits.bundled(args.data) is None:  # a bundled split brings its images
        raise MmdocsumError("--images-root is needed to place images (or give --predictions to score them)")
    session = Session()
    return session, placement_settings(args, session.settings.placement)


def run_ftii(args: argparse.Namespace) -> int:
    if args.data.suffix.lower() in (".tsv", ".tab"):
        return _run_single_choice(args)
    if args.predictions is not None:
        articles = splits.load_flow_insertion(args.data)
        predictions = splits.load_ftii_predictions(args.predictions)
        metrics = score_articles(articles, predictions).metrics()
        write_outputs(args.output, {a.id: predictions[a.id] for a in articles}, metrics)
        warnings: list[str] = []
    else:
        session, placement = _placement(args)
        with tqdm_control("ftii", enabled=not args.quiet) as control:
            metrics = place_and_score(session, args.data, args.output, images_root=args.images_root,
                                      captions=args.captions, strategy=args.strategy, placement=placement,
                                      threshold=args.threshold, control=control)
        warnings = metrics.pop("warnings")
    for warning in warnings:
        print(f"mmdocsum: warning: {warning}")
    print_metrics(metrics, {"acc_b": "Acc_b", "acc_i": "Acc_i", "acc_ni": "Acc_ni", "n_slots": "slots"})
    return 0


def _run_single_choice(args: argparse.Namespace) -> int:
    items = splits.load_single_choice(args.data)
    if args.predictions is not None:
        try:
            raw = json.loads(args.predictions.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise BenchDataError(f"{args.predictions}: not a readable JSON list of answers ({error})") from error
        if not isinstance(raw, list):
            raise BenchDataError(f"{args.predictions}: expected a JSON list of answers")
        answers = [_answer_index(value) for value in raw]
    else:
        session, placement = _placement(args)
        engine = session.placement_engine(placement, threshold=args.threshold)
        with tqdm_control("ftii", enabled=not args.quiet) as control:
            answers = run_single_choice(items, engine, args.images_root, args.output / "images", control=control)
    accuracy = single_choice_accuracy(items, answers)
    letters = [chr(ord("A") + a) if a is not None else None for a in answers]
    write_outputs(args.output, letters, {"accuracy": accuracy, "n_questions": len(items)})
    print_metrics({"accuracy": accuracy, "n_questions": len(items)}, {"accuracy": "Accuracy", "n_questions": "questions"})
    return 0


def _answer_index(value: Any) -> int | None:
    """An answer as FTII writes them: a letter ("B") or a 1-based number; None when unanswered."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value - 1
    if isinstance(value, str) and len(value.strip()) == 1 and value.strip().isalpha():
        return ord(value.strip().upper()) - ord("A")
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip()) - 1
    return None


# The options of each suite of ``bench.suites.SUITES`` (a test checks that no suite lacks its line).
SUITE_OPTIONS: dict[str, Callable[[argparse.ArgumentParser], None]] = {
    "mdocsum": bench_mdocsum.add_arguments,
    "mcite": bench_mcite.add_arguments,
    "rouge": bench_rouge.add_arguments,
    "ftii": add_ftii_arguments,
    "judge": bench_judge.add_arguments,
    "pairs": bench_pairs.add_arguments,
}
