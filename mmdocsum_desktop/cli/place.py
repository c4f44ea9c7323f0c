"""`mmdocsum place --paragraphs FILE --images DOC_OR_FOLDER -o OUT`: put images after the right paragraphs."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from mmdocsum_desktop.app.extract import extract
from mmdocsum_desktop.app.placement import (
    DEFAULT_STRATEGY,
    STRATEGIES,
    PlaceRequest,
    figure_candidates,
    folder_candidates,
    run_placement,
)
from mmdocsum_desktop.app.placement_render import candidate_caption, image_markdown, placements_markdown
from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.cli.engine_flags import add_placement_arguments, placement_settings
from mmdocsum_desktop.cli.progress import tqdm_control
from mmdocsum_desktop.errors import InputNotFoundError
from mmdocsum_desktop.fileio import (
    OutputFolder,
    check_input_file,
    check_output_path,
    write_json_atomic,
    write_text_atomic,
)
from mmdocsum_desktop.schemas.document import Document
from mmdocsum_desktop.schemas.placement import ImageCandidate, Placement, PlacementError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "place",
        help="insert images after the paragraphs they illustrate",
        description="Choose for each paragraph the image of a pool that belongs after it, or none; write "
        "OUT/placement.json and OUT/placement.md.",
    )
    parser.add_argument(
        "--paragraphs",
        type=Path,
        required=True,
        help="JSON list of strings (paragraphs only), or Markdown/text with paragraphs separated by blank "
        "lines (its headings, e.g. '## Methods', are the sections of the paragraphs below them and get no image)",
    )
    parser.add_argument(
        "--images",
        type=Path,
        required=True,
        help="a document (PDF, HTML, Markdown, JATS), an extraction folder with document.json, or a folder "
        "of images (captions from captions.json beside them, or --captions)",
    )
    parser.add_argument("-o", "--output", type=Path, required=True, help="output folder")
    parser.add_argument("--strategy", choices=STRATEGIES, default=DEFAULT_STRATEGY,
                        help="align (default: one fitted alignment of the figures, in their order, to the "
                        "paragraphs), sequence (issue 39's thresholded alignment), global, greedy (FTII's) or "
                        "baseline (TF-IDF cosine of paragraph and caption, every figure placed once in order)")
    parser.add_argument("--threshold", type=float, help="calibrated score below which no image is placed (0-1)")
    parser.add_argument("--captions", type=Path, help="JSON {image file name: caption} for a folder of images")
    parser.add_argument("--no-tables", action="store_true", help="place figures only, not tables, of a document")
    add_placement_arguments(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no summary")
    parser.set_defaults(handler=run)


def read_paragraphs(path: Path) -> str | list[str]:
    """Paragraphs from a JSON list of strings; or the Markdown or text as written, which ``app.place``
    splits the one way the desktop app's Authoring view does (blank lines between paragraphs, image lines
    and their caption line left out)."""
    if not path.exists() and not path.is_symlink():
        raise InputNotFoundError(f"{path}: no such paragraphs file")
    check_input_file(path, "paragraphs")  # a regular file: no FIFO, device or /proc file (its text lands in placement.md)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise PlacementError(f"{path}: cannot read the paragraphs ({error})") from error
    if path.suffix.lower() == ".json" or text.lstrip().startswith("["):
        try:
            data = json.loads(text)
        except ValueError as error:
            raise PlacementError(f"{path}: not valid JSON ({error})") from error
        if isinstance(data, dict) and isinstance(data.get("paragraphs"), list):
            data = data["paragraphs"]
        if not isinstance(data, list) or not all(isinstance(p, str) or p is None for p in data):
            raise PlacementError(f"{path}: expected a JSON list of paragraph strings")
        return [p or "" for p in data]
    return text


def earlier_placement(path: Path) -> bool:
    """Whether ``path`` is a placement.json this command wrote (its rows have exactly the four fields of
    ``Placement.summary``): then it and its placement.md are the app's to replace."""
    try:
        rows = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
    except (OSError, ValueError):
        return False
    fields = {"paragraph", "image", "figure", "score"}
    return isinstance(rows, list) and all(isinstance(r, dict) and set(r) == fields for r in rows)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return float("inf")


def load_pool(session: Session, images: Path, out: Path, *, captions: Path | None, include_tables: bool,
              quiet: bool, ocr: bool = True) -> tuple[list[ImageCandidate], str, Document | None]:
    """(candidates, how the pool was read, the document whose figures they are: None for a folder of images)."""
    if images.is_dir():
        if (images / "document.json").is_file():
            try:
                document = Document.load(images / "document.json")
            except (OSError, ValueError) as error:
                raise PlacementError(f"{images / 'document.json'}: not a readable document ({error})") from error
            return figure_candidates(document, images, include_tables=include_tables), "extraction folder", document
        return folder_candidates(images, captions), "image folder", None
    if not images.exists():
        raise InputNotFoundError(f"{images}: no such document or folder")
    # read as every command reads (scanned pages OCR'd unless --no-ocr), figure crops written into OUT; a
    # document without figures is an empty pool, which placement reports
    extraction = extract(session, images, out, ocr=ocr, allow_empty=True,
                         stage=lambda name: tqdm_control(name, enabled=not quiet))
    document = extraction.document
    return figure_candidates(document, out, include_tables=include_tables), f"{document.kind} document", document


def relative(path: str | None, out: Path) -> str | None:
    if path is None:
        return None
    try:
        return Path(os.path.relpath(Path(path).resolve(), out.resolve())).as_posix()
    except ValueError:  # another drive on Windows
        return Path(path).resolve().as_posix()


def render_markdown(paragraphs: str | list[str], placements: list[Placement], candidates: list[ImageCandidate],
                    out: Path, document: Document | None) -> str:
    """placement.md: the paragraphs with each placed image after its paragraph, written as the window's
    Accept writes it (app.placement_render); links relative to OUT."""
    blocks: dict[int, str] = {}
    for placement in placements:
        if placement.candidate is not None:
            candidate = candidates[placement.candidate]
            blocks[placement.paragraph] = image_markdown(candidate.display_name(), relative(candidate.image, out) or "",
                                                         candidate_caption(candidate, document))
    return placements_markdown(paragraphs, blocks)


def run(args: argparse.Namespace) -> int:
    if args.threshold is not None and not 0.0 < args.threshold < 1.0:
        raise PlacementError("--threshold is a calibrated score between 0 and 1")
    inputs = [args.paragraphs, *([args.images] if args.images.is_file() else []),
              *([args.captions] if args.captions is not None else [])]
    if args.captions is not None:
        check_input_file(args.captions, "captions")
    paragraphs = read_paragraphs(args.paragraphs)
    out: Path = check_output_path(args.output, inputs, folder=True)
    # OUT may be the user's folder (``-o .``), holding the paragraphs file itself: placement.json and
    # placement.md are written only where no input and no file of the user's is (checked now, before any
    # model loads), and replace only the ones an earlier run wrote
    results = OutputFolder(out, "placement", inputs=inputs, derived=False)
    if not results.has_manifest() and earlier_placement(out / "placement.json"):
        # written by a version before the manifest: placement.json by its shape, placement.md when it was
        # written with it (the same second), not edited or made by the user since
        results.adopt(["placement.json"])
        if abs(_mtime(out / "placement.md") - _mtime(out / "placement.json")) < 2.0:
            results.adopt(["placement.md"])
    targets = {name: results.claim(name) for name in ("placement.json", "placement.md")}
    out.mkdir(parents=True, exist_ok=True)
    session = Session()
    candidates, pool_kind, document = load_pool(
        session, args.images, out, captions=args.captions, include_tables=not args.no_tables, quiet=args.quiet,
        ocr=not getattr(args, "no_ocr", False),
    )
    with tqdm_control("placing", enabled=not args.quiet) as control:
        request = PlaceRequest(paragraphs=paragraphs, pool=candidates, strategy=args.strategy, threshold=args.threshold,
                               placement=placement_settings(args, session.settings.placement),
                               headings=isinstance(paragraphs, str))  # a JSON list is paragraphs only: no headings
        run = run_placement(session, request, control)
    placements = run.placements
    rows = []
    for placement in placements:
        row = placement.summary()
        row["image"] = relative(placement.image, out)
        rows.append(row)
    write_json_atomic(targets["placement.json"], rows)
    write_text_atomic(targets["placement.md"], render_markdown(paragraphs, placements, candidates, out, document))
    results.finish()
    for warning in run.warnings:
        print(f"mmdocsum: warning: {warning}", file=sys.stderr)
    if not args.quiet:
        placed = [p for p in placements if p.candidate is not None]
        table = [
            ("paragraphs", str(len(placements))),
            ("images", f"{len(candidates)} ({pool_kind})"),
            ("placed", str(len(placed))),
            ("strategy", args.strategy),
            ("models", ", ".join(run.models) or "none (word overlap)"),
            ("written", str(out / "placement.json")),
        ]
        table += [(f"paragraph {p.paragraph}", f"{p.figure or Path(p.image or '').name} ({p.score:.2f})") for p in placed]
        width = max(len(key) for key, _ in table)
        print("\n".join(f"{key:<{width}}  {value}" for key, value in table))
    return 0

