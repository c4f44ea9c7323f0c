"""`mmdocsum summarize FILE -o OUT`: a four-paragraph interleaved summary with figures and citations.

`mmdocsum summarize --sample [-o OUT]` summarises the paper shipped in the package (paths.sample_paper),
so a first run needs no file of one's own; OUT defaults to ``sample-summary.md`` in the current folder.

The figure crops and ``document.json`` are written beside the output in ``OUT_STEM_files/`` so the
Markdown and HTML forms can show the images and the citations' block ids can be looked up.
Ctrl-C stops the model at its next token; what was finished is written to ``OUT.partial.json``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from mmdocsum_desktop.app.output import FORMATS, format_for, write_summary
from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.app.summary import SummarizeFileRequest, describe_engine, summarize_file
from mmdocsum_desktop.cli.bench_common import cancel_on_sigint
from mmdocsum_desktop.cli.engine_flags import add_engine_arguments, engine_choice
from mmdocsum_desktop.cli.extract import add_read_limit_arguments, read_limits
from mmdocsum_desktop.cli.progress import tqdm_control, write_stderr
from mmdocsum_desktop.deadline import command_deadline
from mmdocsum_desktop.errors import InputNotFoundError, MmdocsumError
from mmdocsum_desktop.fileio import check_output_path, removed_on_failure, write_json_atomic
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.paths import sample_paper
from mmdocsum_desktop.schemas.options import build
from mmdocsum_desktop.schemas.summary import Summary, SummaryRequest

SAMPLE_OUTPUT = "sample-summary.md"
# SummaryRequest's fields as the flags that set them, for error messages
SUMMARY_FLAGS = {"include_abstract": "--no-abstract", "shuffle_seed": "--shuffle-images",
                 "citations": "--no-citations", "time_limit_s": "--time-limit"}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "summarize", help="write a four-paragraph summary with the document's figures and citations"
    )
    parser.add_argument("file", type=Path, nargs="?", help="PDF, HTML, Markdown or JATS XML file")
    parser.add_argument("--sample", action="store_true",
                        help=f"summarise the sample paper shipped with the app (default output {SAMPLE_OUTPUT})")
    parser.add_argument("-o", "--output", type=Path, help="output file (required with FILE)")
    parser.add_argument("--format", choices=FORMATS, default=None,
                        help="json (rich, default), mdocsum (M-DocSum's answer), md, html or pdf; default from the suffix")
    parser.add_argument("--no-abstract", action="store_true", help="summarise without the document's abstract")
    parser.add_argument("--shuffle-images", type=int, metavar="SEED", default=None,
                        help="present the images to the model in a shuffled order (indices are mapped back)")
    parser.add_argument("--no-citations", action="store_true", help="no per-sentence citations")
    parser.add_argument("--dpi", type=int, default=150, help="resolution of figure crops (default 150)")
    parser.add_argument("--password", help="password of an encrypted PDF")
    parser.add_argument("--stream", action="store_true", help="print the model's text to stderr as it writes")
    parser.add_argument("--time-limit", type=float, metavar="SECONDS", default=None,
                        help="stop the model after this many seconds in all and keep what it wrote (default: no limit)")
    parser.add_argument("--quiet", action="store_true", help="no progress bars and no summary table")
    add_read_limit_arguments(parser)
    add_engine_arguments(parser, title="engine (over the saved settings)")
    parser.set_defaults(handler=run, usage_error=parser.error)


def choose_input(args: argparse.Namespace) -> None:
    """FILE or --sample (not both, not neither), and the output: usage errors exit 2 like argparse's."""
    if args.sample and args.file is not None:
        args.usage_error("give a FILE or --sample, not both")
    if args.sample:
        args.file = sample_paper()
        args.output = args.output or Path(SAMPLE_OUTPUT)
    elif args.file is None:
        args.usage_error("a FILE to summarise is required (or --sample for the sample paper)")
    elif args.output is None:
        args.usage_error("the following arguments are required: -o/--output")


def run(args: argparse.Namespace) -> int:
    choose_input(args)
    if not 36 <= args.dpi <= 600:
        raise SystemExit("mmdocsum: error: --dpi must be between 36 and 600")
    # the run's options as the typed request app.summarize_file takes, checked before any model loads: a
    # value that does not fit is one line naming its flag, exit code 2
    options = build(SummaryRequest, {"include_abstract": not args.no_abstract, "shuffle_seed": args.shuffle_images,
                                     "citations": not args.no_citations, "time_limit_s": args.time_limit},
                    what="option", labels=SUMMARY_FLAGS)
    output: Path = args.output
    if output.exists() and output.is_dir():
        raise MmdocsumError(f"{output} is a folder; -o takes the summary file to write (e.g. summary.json)")
    check_output_path(output, [args.file])  # not onto the input, /proc, /sys; a folder it can write
    fmt = format_for(output, args.format)
    choice = engine_choice(args)
    started = time.perf_counter()

    if not args.file.exists():  # before loading any model
        raise InputNotFoundError(f"{args.file}: no such file")
    assets = output.parent / f"{output.stem}_files"
    # the figure crops go when the run fails or is interrupted, up to the summary's own write
    with removed_on_failure(assets):
        # --time-limit is the command's one deadline (deadline.py): the model's loading, listing the
        # server's models and every request end by it, not only the summary's generation
        with command_deadline(args.time_limit), Session() as session:
            # the engine first: a bad model file or endpoint setting is reported before any long work
            engine_info = describe_engine(session, choice)
            on_text = write_stderr if args.stream else None
            partial_path = output.with_name(output.name + ".partial.json")

            @contextmanager
            def stage(name: str) -> Iterator[JobControl]:
                # one tqdm bar per stage; while the model writes, the first Ctrl-C stops it and keeps its text
                with tqdm_control(name, enabled=not args.quiet and not (args.stream and name == "summarising")) as control:
                    if name != "summarising":
                        yield control
                        return
                    with cancel_on_sigint(control, notice="stopping the model; what it wrote is kept (Ctrl-C again to abort)"):
                        yield control

            try:
                # read (scanned pages with OCR unless --no-ocr) → figures → summary: app.summarize_file, the
                # same path the benchmarks take
                request = SummarizeFileRequest(path=args.file, assets=assets, choice=choice, options=options,
                                               password=args.password, ocr=not getattr(args, "no_ocr", False),
                                               limits=read_limits(args), dpi=args.dpi)
                summary = summarize_file(session, request, stage=stage, on_text=on_text).summary
            except MmdocsumError as error:
                partial = getattr(error, "partial", None)
                if partial:
                    write_json_atomic(partial_path, {"source": str(args.file), "engine": engine_info.model_dump(mode="json"),
                                                     "error": str(error), **partial})
                    print(f"mmdocsum: partial work saved to {partial_path}", file=sys.stderr)
                raise
        if args.stream:
            sys.stderr.write("\n")
        summary.timings["wall_s"] = time.perf_counter() - started
        written = write_summary(summary, output, fmt, base_dir=assets)
    if partial_path.exists():
        partial_path.unlink()
    if not args.quiet:
        print(format_report(summary, written, fmt))
    return 0


def format_report(summary: Summary, written: Path, fmt: str) -> str:
    engine = summary.engine
    rows = [
        ("file", Path(summary.source).name),
        ("engine", f"{engine.engine}" + (f" · {engine.model}" if engine.engine != "extractive" else "")),
    ]
    if engine.device:
        offload = "supported" if engine.gpu_offload_supported else "not supported by this build"
        rows.append(("device", f"{engine.device} (gpu offload {offload})"))
    for paragraph in summary.paragraphs:
        figure = paragraph.figure
        shown = "no image" if figure is None else (figure.label or f"image {figure.index}")
        rows.append((paragraph.role, f"{paragraph.words} words · {shown}" + ("" if paragraph.source == "model" or paragraph.source == "extracted" else f" · {paragraph.source}")))
    if summary.parse is not None:
        rows.append(("instructions", "followed" if summary.instruction_following else "not followed (repaired)"))
    if summary.long_document:
        rows.append(("long document", f"{summary.long_document.parts} parts, {summary.long_document.levels} level(s) of notes"))
    if summary.repairs:
        rows.append(("repairs", str(len(summary.repairs))))
    if summary.generations:
        prompt = sum(g.prompt_tokens for g in summary.generations)
        completion = sum(g.completion_tokens for g in summary.generations)
        rows.append(("tokens", f"{prompt} prompt, {completion} generated"))
    rows.append(("seconds", f"{summary.timings.get('wall_s', summary.timings.get('total_s', 0)):.2f}"))
    rows.append(("written", f"{written} ({fmt})"))
    rows += [("warning", w) for w in summary.warnings]
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)
