"""`mmdocsum extract FILE -o OUT`: the document model and figure crops of one file."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from mmdocsum_desktop.app.extract import Extraction, ReadLimits, extract
from mmdocsum_desktop.app.placement import FigureTextReading, figure_candidates, prepare_figure_text
from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.cli.progress import tqdm_control
from mmdocsum_desktop.fileio import check_output_path
from mmdocsum_desktop.schemas.document import Document, Figure


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("extract", help="extract text, figures, tables and captions")
    parser.add_argument("file", type=Path, help="PDF, HTML, Markdown or JATS XML file")
    parser.add_argument("-o", "--output", type=Path, required=True, help="output folder")
    parser.add_argument("--dpi", type=int, default=150, help="resolution of figure crops (default 150)")
    parser.add_argument("--password", help="password of an encrypted PDF")
    add_read_limit_arguments(parser)
    parser.add_argument(
        "--no-ocr", action="store_true", help="do not OCR scanned pages (a PDF with no text layer is refused)"
    )
    parser.add_argument("--figure-text", action="store_true",
                        help="read the text inside the figure crops now (OCR, cached by content), so that a later "
                             "`mmdocsum place --figure-text` on this folder reads none")
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no summary table")
    parser.set_defaults(handler=run)


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1 (0 pages or -1 MB would refuse every file)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def add_read_limit_arguments(parser: argparse.ArgumentParser) -> None:
    """--max-pages and --max-file-mb, checked when the command line is parsed (extract and summarize)."""
    parser.add_argument("--max-pages", type=positive_int, default=ReadLimits.max_pages, metavar="N",
                        help=f"refuse documents with more pages (default {ReadLimits.max_pages})")
    parser.add_argument("--max-file-mb", type=positive_int, default=ReadLimits.max_file_bytes // 1024**2,
                        metavar="MB", help=f"refuse larger files (default {ReadLimits.max_file_bytes // 1024**2})")


def read_limits(args: argparse.Namespace) -> ReadLimits:
    return ReadLimits(max_pages=args.max_pages, max_file_bytes=args.max_file_mb * 1024**2)


def run(args: argparse.Namespace) -> int:
    if not 36 <= args.dpi <= 600:
        raise SystemExit("mmdocsum: error: --dpi must be between 36 and 600")
    if args.figure_text and args.no_ocr:
        raise SystemExit("mmdocsum: error: --figure-text reads figures with OCR, which --no-ocr turns off")
    # before any work: not onto the input, not a file where the folder goes, not /proc, a folder we can write
    check_output_path(args.output, [args.file], folder=True)
    started = time.perf_counter()
    # the one reading path of every command (the session's; the OCR model loads only when a scanned page
    # needs it), with extract's own size limits, then the model and the figure crops written
    session = Session()
    result: Extraction = extract(
        session, args.file, args.output, password=args.password, ocr=not args.no_ocr,
        limits=read_limits(args), dpi=args.dpi,
        stage=lambda name: tqdm_control(name, enabled=not args.quiet),
    )
    figure_text: FigureTextReading | None = None
    if args.figure_text:
        with tqdm_control("figure text", enabled=not args.quiet) as control:
            figure_text = prepare_figure_text(session, figure_candidates(result.document, result.folder), control)
    seconds = time.perf_counter() - started
    if not args.quiet:
        print(format_summary(result.document, seconds, result.written, figure_text))
    return 0


def format_summary(document: Document, seconds: float, written: Path,
                   figure_text: FigureTextReading | None = None) -> str:
    rows = [
        ("file", Path(document.source).name),
        ("kind", document.kind),
        ("pages", str(document.page_count if document.page_count is not None else "-")),
        ("blocks", str(len(document.blocks))),
        ("figures", _labels(document.figures)),
        ("tables", _labels(document.tables)),
        ("seconds", f"{seconds:.2f}"),
        ("written", str(written)),
    ]
    if figure_text is not None:
        rows.append(("figure text", f"{figure_text.read} crops read, {figure_text.cached} already cached"
                     + (f", {len(figure_text.failed)} unreadable" if figure_text.failed else "")))
    rows += [("warning", warning) for warning in document.warnings]
    width = max(len(key) for key, _ in rows)
    return "\n".join(f"{key:<{width}}  {value}" for key, value in rows)


def _labels(visuals: list[Figure]) -> str:
    if not visuals:
        return "0"
    names = [v.label or f"(unlabelled p.{v.page})" if v.page else (v.label or "(unlabelled)") for v in visuals]
    return f"{len(visuals)}: " + ", ".join(names)
