"""The `mmdocsum` command. Each subcommand lives in its own module and calls the core; errors the user
can act on become one line on stderr and a non-zero exit code, never a traceback."""

from __future__ import annotations

import os
import signal
import sys


def _interrupted_while_starting(signum: int, frame: object) -> None:  # noqa: ARG001
    """Ctrl-C while the command starts (imports, parsing, nothing written yet): one line and exit 130, not
    a traceback through whichever import it hit."""
    try:
        sys.stderr.write("mmdocsum: interrupted\n")
        sys.stderr.flush()
    finally:
        os._exit(130)


def _started_as_the_command() -> bool:
    # the console script (bin/mmdocsum) or `python -m mmdocsum_desktop`; not a test importing this module
    main_file = str(getattr(sys.modules.get("__main__"), "__file__", "") or "")
    return os.path.basename(main_file) == "mmdocsum" or main_file.endswith(os.path.join("mmdocsum_desktop", "__main__.py"))


# Installed before anything heavy is imported: the command's own handling takes over in main().
if _started_as_the_command():
    signal.signal(signal.SIGINT, _interrupted_while_starting)

import argparse  # noqa: E402 — after the start-up Ctrl-C handler, on purpose
import importlib  # noqa: E402
from collections.abc import Collection, Sequence  # noqa: E402

from mmdocsum_desktop import __version__, secrets  # noqa: E402
from mmdocsum_desktop.errors import JobCancelled, MmdocsumError  # noqa: E402
from mmdocsum_desktop.messages import Notice, listening  # noqa: E402

# The subcommands, in the order `mmdocsum --help` lists them, with their one-line help. Each lives in the
# module mmdocsum_desktop.cli.NAME, which exposes register(subparsers); adding a command means adding a
# module and a line here. Only the command being run is imported (dispatch by name, below): the others
# are listed from this table, so `mmdocsum --help` does not load what they run (PyMuPDF and its layout
# model, the models' runtimes, the benchmark suites). A test checks each line against its module's own.
COMMANDS: dict[str, str] = {
    "extract": "extract text, figures, tables and captions",
    "models": "list, add, verify and download models",
    "summarize": "write a four-paragraph summary with the document's figures and citations",
    "place": "insert images after the paragraphs they illustrate",
    "ask": "ask a question about a document; the answer cites pages, figures and tables",
    "library": "a library of papers (folders, Zotero): add, list, ask across, summarize in batch, export notes",
    "bench": "run a benchmark suite and score it",
    "doctor": "what the app will run on (llama.cpp build, GPU, onnxruntime, memory, models, keyring)",
}


def command_module(name: str) -> str:
    return f"mmdocsum_desktop.cli.{name}"


def build_parser(commands: Collection[str] | None = None) -> argparse.ArgumentParser:
    """The parser of `mmdocsum`, with the full parser of each command in ``commands`` (None: all of them)
    and a one-line entry for each other one, which is all `mmdocsum --help` shows of it."""
    parser = argparse.ArgumentParser(
        prog="mmdocsum", description="Read documents and write interleaved, cited, illustrated summaries."
    )
    parser.add_argument("--version", action="version", version=f"mmdocsum {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks for internal errors")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, help_line in COMMANDS.items():
        if commands is None or name in commands:
            importlib.import_module(command_module(name)).register(subparsers)
        else:
            subparsers.add_parser(name, help=help_line)
    return parser


def command_named(arguments: Sequence[str]) -> str | None:
    """The subcommand a command line runs: its first word that is not an option (`mmdocsum` itself takes
    no option with a value), when it names one."""
    first_word = next((argument for argument in arguments if not argument.startswith("-")), None)
    return first_word if first_word in COMMANDS else None


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    except KeyboardInterrupt:  # Ctrl-C between the command's own handlers (as it returns, say)
        print("mmdocsum: interrupted", file=sys.stderr)
        return 130
    finally:
        if _started_as_the_command():
            # the command's work is done or cleaned up: a Ctrl-C while Python shuts down (threads, atexit)
            # must not print a traceback and exit -2
            signal.signal(signal.SIGINT, signal.SIG_IGN)


def _main(argv: Sequence[str] | None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments == ["--version"]:
        # Answered before the subcommands (and the libraries they import) are loaded.
        print(f"mmdocsum {__version__}")
        return 0
    # What the command prints, logs and writes never holds an API key (mmdocsum_desktop.secrets).
    secrets.install_process_guards()
    try:
        command = command_named(arguments)
        parser = build_parser([command] if command else [])
        args = parser.parse_args(arguments)
    except KeyboardInterrupt:  # a start-up Ctrl-C where the early handler is not installed (main() in a test)
        print("mmdocsum: interrupted", file=sys.stderr)
        return 130
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    if signal.getsignal(signal.SIGINT) is _interrupted_while_starting:
        # From here Ctrl-C is a KeyboardInterrupt (or the command's own handler): files being written are
        # cleaned up on the way out, then "interrupted" and exit 130 below.
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        # Notices from the core (a model falling back to the CPU, a damaged cache recreated) are one line
        # each on stderr, like errors, while the command runs.
        with listening(_print_notice):
            return int(args.handler(args) or 0)
    except JobCancelled:
        print("mmdocsum: cancelled", file=sys.stderr)
        return JobCancelled.exit_code
    except KeyboardInterrupt:
        print("mmdocsum: interrupted", file=sys.stderr)
        return 130
    except MmdocsumError as error:
        print(f"mmdocsum: error: {error}", file=sys.stderr)
        return error.exit_code
    except Exception as error:  # noqa: BLE001 — the last line of defence against tracebacks
        if args.debug or os.environ.get("MMDOCSUM_DEBUG"):
            raise
        print(
            f"mmdocsum: internal error: {type(error).__name__}: {error} (run with --debug for details)",
            file=sys.stderr,
        )
        return 70


def _print_notice(notice: Notice) -> None:
    print(f"mmdocsum: {notice.level}: {notice.text}", file=sys.stderr)
