"""The `mmdocsum` command. Each subcommand lives in its own module and calls the core; errors the user
can act on become one line on stderr and a non-zero exit code, never a traceback."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from mmdocsum_desktop import __version__
from mmdocsum_desktop.errors import JobCancelled, MmdocsumError
from mmdocsum_desktop.messages import Notice, listening

# Each module exposes register(subparsers); adding a command means adding a module here.
_COMMAND_MODULES = ["extract", "models", "summarize", "place", "ask", "bench", "doctor"]


def build_parser() -> argparse.ArgumentParser:
    import importlib

    parser = argparse.ArgumentParser(
        prog="mmdocsum", description="Read documents and write interleaved, cited, illustrated summaries."
    )
    parser.add_argument("--version", action="version", version=f"mmdocsum {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks for internal errors")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMAND_MODULES:
        importlib.import_module(f"mmdocsum_desktop.cli.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments == ["--version"]:
        # Answered before the subcommands (and the libraries they import) are loaded.
        print(f"mmdocsum {__version__}")
        return 0
    parser = build_parser()
    args = parser.parse_args(arguments)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
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
