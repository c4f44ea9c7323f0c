"""`mmdocsum library ...`: a library of papers from folders and Zotero, indexed once, asked across,
summarised in batch, exported as notes.

    mmdocsum library add PATH...               files and folders (recursive), then index what is new
    mmdocsum library add --zotero ZOTERO_DIR   a Zotero data folder, read-only
    mmdocsum library list [--format json] [--status [STATE]] [--summary [STATE]]
    mmdocsum library ask "QUESTION" [--format json] [--collection C] [--year 2015 | --year-from/--year-to] [--tag T]
    mmdocsum library summarize [--all | PAPER...] [--concurrency N] [engine flags]
    mmdocsum library export DIR [PAPER...] [--overwrite-edited]
    mmdocsum library remove [PAPER...] [--missing]
    mmdocsum library cite PAPER... [--page N] [--quote TEXT] [--format json]

Every subcommand takes ``--library DIR`` (default: ``library/`` under the app's data dir, or
$MMDOCSUM_LIBRARY). A PAPER is an id from ``list``, a file path or a Zotero key. Indexing and summaries
are resumable: run the same command again after an interruption and it goes on where it stopped.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from mmdocsum_desktop.app import library as use
from mmdocsum_desktop.app.present import escape_markdown
from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.cli.engine_flags import add_engine_arguments, engine_choice
from mmdocsum_desktop.cli.progress import tqdm_control
from mmdocsum_desktop.deadline import TimeLimitError, command_deadline
from mmdocsum_desktop.errors import JobCancelled, MmdocsumError
from mmdocsum_desktop.schemas.library import (
    AddPathsRequest,
    AddReport,
    AddZoteroRequest,
    ExportNotesRequest,
    LibraryAnswer,
    LibraryAskRequest,
    ListRequest,
    Paper,
    PaperFilter,
    RemoveRequest,
    SummarizeLibraryRequest,
)

HELP = "a library of papers (folders, Zotero): add, list, ask across, summarize in batch, export notes"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("library", help=HELP, description=__doc__.split("\n\n")[0],
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="library_command", metavar="SUBCOMMAND")
    parser.set_defaults(handler=lambda args: _usage(parser))

    def sub(name: str, help_line: str) -> argparse.ArgumentParser:
        command = commands.add_parser(name, help=help_line)
        command.add_argument("--library", type=Path, default=None, metavar="DIR",
                             help="the library folder (default: library/ under the app's data dir)")
        command.add_argument("--quiet", action="store_true", help="no progress bars")
        return command

    add = sub("add", "add files and folders (recursive) or a Zotero data folder, then index what is new")
    add.add_argument("paths", nargs="*", type=Path, metavar="PATH", help="PDF, HTML, Markdown or JATS files, or folders")
    add.add_argument("--zotero", type=Path, metavar="ZOTERO_DATA_DIR",
                     help="a Zotero data folder (holding zotero.sqlite and storage/), read strictly read-only")
    add.add_argument("--zotero-base", type=Path, metavar="FOLDER",
                     help="the linked-attachment base folder of --zotero's 'attachments:' links (default: the one "
                          "Zotero's own settings name, from its profile's prefs.js)")
    add.add_argument("--no-index", action="store_true", help="only register the papers; index them later")
    add.add_argument("--no-ocr", action="store_true", help="do not read scanned pages with OCR (they fail instead)")
    add.add_argument("--format", choices=("text", "json"), default="text")
    add.set_defaults(handler=run_add)

    listing = sub("list", "list the papers (title, authors, year, status, source path)")
    _filter_arguments(listing)
    listing.add_argument("--status", nargs="?", const="all", metavar="STATE",
                         choices=("all", "pending", "indexing", "indexed", "failed", "missing"),
                         help="show each paper's indexing and summary states; with STATE only the papers in it "
                              "(pending, indexing, indexed, failed, missing)")
    listing.add_argument("--summary", nargs="?", const="all", metavar="STATE",
                         choices=("all", "none", "pending", "queued", "running", "done", "failed"),
                         help="show the states; with STATE only the papers whose summary is in it "
                              "(none, pending, queued, running, done, failed)")
    listing.add_argument("--search", help="words of the title, authors, text or your Zotero annotations")
    listing.add_argument("--absent", action="store_true",
                         help="list the Zotero items whose paper is not on this computer, and what to do")
    listing.add_argument("--sort", choices=("title", "year", "authors", "status", "added", "language"), default="title")
    listing.add_argument("--format", choices=("text", "json"), default="text")
    listing.set_defaults(handler=run_list)

    ask = sub("ask", "ask a question across the library; the answer cites paper, page and figure or table")
    ask.add_argument("question", help="the question (quote it)")
    _filter_arguments(ask)
    ask.add_argument("--papers", type=int, default=3, metavar="N", help="papers shown (default 3)")
    ask.add_argument("--no-rerank", action="store_true", help="rank without the cross-encoder")
    ask.add_argument("--format", choices=("md", "json"), default="md")
    ask.set_defaults(handler=run_ask)

    summarize = sub("summarize", "summarise papers in a queue (resumable; --concurrency N for a server)")
    summarize.add_argument("papers", nargs="*", metavar="PAPER", help="ids, paths or Zotero keys")
    summarize.add_argument("--all", action="store_true", help="every paper of the library")
    summarize.add_argument("--again", action="store_true", help="write again the summaries already written")
    summarize.add_argument("--concurrency", type=int, default=1, metavar="N",
                           help="papers summarised at once (an OpenAI-compatible server or pool; default 1)")
    summarize.add_argument("--time-limit", type=float, metavar="SECONDS", default=None,
                           help="the whole command's time limit: the papers not summarised by then stay pending "
                                "(the same command resumes them; default: no limit)")
    add_engine_arguments(summarize, title="engine")
    summarize.set_defaults(handler=run_summarize)

    export = sub("export", "write one Markdown note per paper into DIR (an Obsidian vault)")
    export.add_argument("folder", type=Path, metavar="DIR")
    export.add_argument("papers", nargs="*", metavar="PAPER", help="ids, paths or Zotero keys (default: all)")
    export.add_argument("--overwrite-edited", action="store_true",
                        help="rewrite the generated part of notes whose generated part you edited (your text "
                             "outside the mmdocsum markers is kept all the same)")
    export.set_defaults(handler=run_export)

    remove = sub("remove", "remove papers from the library (never their files)")
    remove.add_argument("papers", nargs="*", metavar="PAPER", help="ids, paths or Zotero keys")
    remove.add_argument("--missing", action="store_true", help="every paper whose file is gone")
    remove.set_defaults(handler=run_remove)

    cite = sub("cite", "each paper's citation, author-year with its DOI (what Copy with citation copies)")
    cite.add_argument("papers", nargs="+", metavar="PAPER", help="ids, paths, Zotero keys")
    cite.add_argument("--page", type=int, default=None, metavar="N", help="the page cited")
    cite.add_argument("--quote", default=None, metavar="TEXT", help="a passage, quoted before the citation")
    cite.add_argument("--format", choices=("text", "json"), default="text")
    cite.set_defaults(handler=run_cite)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _filter_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--collection", help="only papers of this collection (and its sub-collections)")
    parser.add_argument("--tag", help="only papers with this tag")
    parser.add_argument("--year", type=int, help="only papers of this year")
    parser.add_argument("--year-from", type=int, metavar="YEAR")
    parser.add_argument("--year-to", type=int, metavar="YEAR")


def _paper_filter(args: argparse.Namespace) -> PaperFilter:
    year_from = args.year if args.year is not None else args.year_from
    year_to = args.year if args.year is not None else args.year_to
    status = getattr(args, "status", None)
    summary = getattr(args, "summary", None)
    return PaperFilter(collection=args.collection, tag=args.tag, year_from=year_from, year_to=year_to,
                       status=None if status == "all" else status,
                       summary_status=None if summary == "all" else summary, search=getattr(args, "search", None))


def _open(args: argparse.Namespace) -> use.Library:
    return use.open_library(args.library)


# ------------------------------------------------------------------------------------------ add


def run_add(args: argparse.Namespace) -> int:
    if bool(args.paths) == bool(args.zotero):
        raise MmdocsumError("give the files or folders to add, or --zotero ZOTERO_DATA_DIR (not both)")
    if args.zotero_base is not None and not args.zotero:
        raise MmdocsumError("--zotero-base needs --zotero ZOTERO_DATA_DIR")
    if args.zotero_base is not None and not args.zotero_base.expanduser().is_dir():
        raise MmdocsumError(f"--zotero-base {args.zotero_base}: not a folder")
    with Session() as session, _open(args) as library:
        with tqdm_control("library", enabled=not args.quiet) as control:
            if args.zotero:
                report = use.add_zotero(session, library, AddZoteroRequest(
                    data_dir=args.zotero, base_dir=args.zotero_base, index=not args.no_index, ocr=not args.no_ocr),
                    control=control)
            else:
                report = use.add_paths(session, library, AddPathsRequest(
                    paths=args.paths, index=not args.no_index, ocr=not args.no_ocr), control=control)
    if args.format == "json":
        sys.stdout.write(report.model_dump_json(indent=2) + "\n")
    else:
        sys.stdout.write(_add_text(report))
    for source in report.sources:
        for line in source.skipped:
            print(f"mmdocsum: skipped: {line}", file=sys.stderr)
    if report.index is not None:
        for path, why in report.index.failed.items():
            print(f"mmdocsum: not indexed: {path}: {why}", file=sys.stderr)
        if report.index.cancelled:
            raise JobCancelled("indexing cancelled; `mmdocsum library add` again resumes it")
    return 0


def _add_text(report: AddReport) -> str:
    lines = []
    for source in report.sources:
        lines.append(f"{source.source} ({source.kind}): {source.found} papers — {source.new} new, {source.changed} "
                     f"changed, {source.unchanged} unchanged, {source.missing} missing")
        if source.kind == "zotero":
            base = (f"; linked-attachment base folder {source.base_dir} (from {source.base_dir_from})"
                    if source.base_dir else "")
            lines.append(f"  {source.annotations} annotations from Zotero's reader{base}")
            if source.absent:
                lines.append(f"  {len(source.absent)} items whose paper is not here: `mmdocsum library list --absent` "
                             "says what to do")
    index = report.index
    if index is not None:
        rate = index.pages / index.cpu_seconds if index.cpu_seconds > 0 else 0.0
        lines.append(f"indexed {index.indexed} papers ({index.pages} pages, {index.passages} passages) in "
                     f"{index.seconds:.1f} s ({index.cpu_seconds:.1f} CPU s, {rate:.2f} pages per CPU s); "
                     f"{index.reused} shared an indexed file, {len(index.failed)} failed, {index.left} left")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------ list


def run_list(args: argparse.Namespace) -> int:
    if args.absent:
        return _list_absent(args)
    with _open(args) as library:
        papers = library.papers(ListRequest(filter=_paper_filter(args), sort=args.sort))
        absent = len(library.absent())
    if args.format == "json":
        sys.stdout.write(json.dumps([p.model_dump(mode="json") for p in papers], indent=2, ensure_ascii=False) + "\n")
        return 0
    states = args.status is not None or args.summary is not None
    for paper in papers:
        authors = paper.first_family_name() + (" et al." if len(paper.authors) > 1 else "") if paper.authors else ""
        if states:
            lines = [f"{paper.id:>5}  {paper.state():<8} {paper.summary_status:<8} {paper.year or '':<4}  "
                     f"{paper.display_title()[:80]}",
                     f"       {authors}{' · ' if authors else ''}{paper.source_path}"]
        else:
            summary = " · summary" if paper.summary_status == "done" else ""
            lines = [f"{paper.id:>5}  {paper.state():<8} {paper.year or '':<4}  {paper.display_title()[:80]}",
                     f"       {authors}{' · ' if authors else ''}{paper.source_path}{summary}"]
        if paper.error:
            lines.append(f"       ! {paper.error}")
        if states and paper.summary_error:
            lines.append(f"       ! summary: {paper.summary_error}")
        sys.stdout.write("\n".join(lines) + "\n")
    if states:
        sys.stdout.write(_states_line(papers))
    if absent:
        sys.stdout.write(f"{absent} Zotero items have no paper on this computer: `mmdocsum library list --absent`\n")
    if not papers:
        print("mmdocsum: the library has no paper (matching these filters)", file=sys.stderr)
    return 0


def _list_absent(args: argparse.Namespace) -> int:
    with _open(args) as library:
        absent = library.absent()
    if args.format == "json":
        sys.stdout.write(json.dumps([a.model_dump(mode="json") for a in absent], indent=2, ensure_ascii=False) + "\n")
        return 0
    for item in absent:
        sys.stdout.write(f"{item.title or '(untitled)'}  [Zotero item {item.item_key}]\n  {item.reason}\n"
                         f"  what to do: {item.advice}\n")
    if not absent:
        print("mmdocsum: every Zotero item of the library has its paper here", file=sys.stderr)
    return 0


def _states_line(papers: list[Paper]) -> str:
    """"3 papers — indexing: 2 indexed, 1 pending · summaries: 1 done, 2 none" (the papers listed)."""

    def tally(values: list[str]) -> str:
        counts: dict[str, int] = {}
        for value in values:
            counts[value] = counts.get(value, 0) + 1
        return ", ".join(f"{n} {state}" for state, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    return (f"{len(papers)} papers — indexing: {tally([p.state() for p in papers]) or 'none'} · "
            f"summaries: {tally([p.summary_status for p in papers]) or 'none'}\n")


# ------------------------------------------------------------------------------------------ ask


def run_ask(args: argparse.Namespace) -> int:
    if not args.question.strip():
        raise MmdocsumError("the question is empty")
    if not 1 <= args.papers <= 50:
        raise MmdocsumError("--papers must be between 1 and 50")
    request = LibraryAskRequest(question=args.question, filter=_paper_filter(args), papers=args.papers,
                                rerank=not args.no_rerank)
    with Session() as session, _open(args) as library:
        with tqdm_control("asking", enabled=not args.quiet) as control:
            answer = use.ask_library(session, library, request, control=control)
    sys.stdout.write(answer.model_dump_json(indent=2) + "\n" if args.format == "json" else render_answer(answer))
    return 0


def render_answer(answer: LibraryAnswer) -> str:
    """The answer in Markdown: the quoted evidence with [n] markers, then each citation's paper, page,
    figure or table and link; text from papers is escaped (it never becomes markup)."""

    def esc(text: str) -> str:
        return escape_markdown(" ".join(text.split()))

    lines = [f"**Q:** {esc(answer.question)}", "", esc(answer.answer), ""]
    if answer.citations:
        lines += ["**Sources**", ""]
        for number, citation in enumerate(answer.citations, 1):
            where = ", ".join(x for x in (f"p. {citation.page}" if citation.page else "", citation.label or "") if x)
            lines.append(f"{number}. *{esc(citation.title)}* ({esc(where) or citation.kind}) — <{citation.link}>")
    if answer.papers:
        lines += ["", "**Papers**", ""]
        for hit in answer.papers:
            visual = f" — {hit.visual}" + (f", p. {hit.visual_page}" if hit.visual_page else "") if hit.visual else ""
            lines.append(f"- {esc(hit.title)}{esc(visual)} (score {hit.score:.2f}; {esc(hit.source_path)})")
    lines += ["", f"_{answer.searched_papers} papers searched · {answer.seconds:.2f} s_", ""]
    for note in answer.notes:
        print(f"mmdocsum: note: {note}", file=sys.stderr)
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------ summaries


def run_summarize(args: argparse.Namespace) -> int:
    if not 1 <= args.concurrency <= 256:
        raise MmdocsumError("--concurrency must be between 1 and 256")
    request = SummarizeLibraryRequest(all=args.all, papers=args.papers, again=args.again,
                                      concurrency=args.concurrency, choice=engine_choice(args))
    if args.time_limit is not None and not args.time_limit > 0:
        raise MmdocsumError("--time-limit must be a number of seconds above 0")
    # the command's one deadline (deadline.py): every wait of every paper's summary ends by it
    with command_deadline(args.time_limit), Session() as session, _open(args) as library:
        with tqdm_control("summaries", enabled=not args.quiet) as control:
            report = use.summarize_papers(session, library, request, control=control)
    for note in report.notes:
        print(f"mmdocsum: note: {note}", file=sys.stderr)
    for item in report.items:
        line = f"{item.paper_id:>5}  {item.status:<6} {item.title[:80]}"
        sys.stdout.write(line + (f" — {item.error}" if item.error else "") + "\n")
    sys.stdout.write(f"{report.done} written, {report.resumed} already done, {report.failed} failed "
                     f"in {report.seconds:.1f} s\n")
    if report.cancelled:
        raise JobCancelled("summaries cancelled; the same command resumes them")
    if report.timed_out:
        raise TimeLimitError(f"the time limit of {args.time_limit:g} s ran out; {report.done} summaries written, "
                             "the rest stay pending: the same command resumes them")
    return 1 if report.failed else 0


# ------------------------------------------------------------------------------------------ out


def run_export(args: argparse.Namespace) -> int:
    if args.folder.exists() and not args.folder.is_dir():
        raise MmdocsumError(f"{args.folder} is a file; export takes the folder to write notes into")
    with _open(args) as library:
        report = use.export_notes(library, ExportNotesRequest(folder=args.folder, papers=args.papers,
                                                              overwrite_edited=args.overwrite_edited))
    for line in report.skipped:
        print(f"mmdocsum: not overwritten: {line}", file=sys.stderr)
    kept = f"; {len(report.skipped)} left as they are (see above)" if report.skipped else ""
    sys.stdout.write(f"{len(report.notes)} notes written to {report.folder} "
                     f"({report.without_summary} without a summary yet){kept}\n")
    return 0


def run_remove(args: argparse.Namespace) -> int:
    with _open(args) as library:
        removed = use.remove_papers(library, RemoveRequest(papers=args.papers, missing=args.missing))
    for paper in removed:
        sys.stdout.write(f"removed {paper.id}: {paper.display_title()} ({paper.source_path})\n")
    if not removed:
        sys.stdout.write("nothing to remove\n")
    return 0


def run_cite(args: argparse.Namespace) -> int:
    with _open(args) as library:
        papers = library.resolve(args.papers)
    lines = [use.quote(args.quote, p, page=args.page) if args.quote else use.cite(p, page=args.page) for p in papers]
    if args.format == "json":
        rows = [{"paper_id": p.id, "citekey": p.citekey, "citation": line} for p, line in zip(papers, lines, strict=True)]
        sys.stdout.write(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write("".join(line + "\n" for line in lines))
    return 0
