"""`mmdocsum-desktop`: the desktop application.

    mmdocsum-desktop [FILE]                      open FILE (PDF, HTML, Markdown, JATS or .mdsproj)
    mmdocsum-desktop --sample                    open the sample paper shipped with the app
    mmdocsum-desktop --screenshot OUT.png FILE   render the window with a finished summary of FILE to a
                                                 PNG, without a display (used for the README)
    mmdocsum-desktop --version
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from mmdocsum_desktop import __version__, secrets
from mmdocsum_desktop.app.qt_libraries import check_xcb_libraries
from mmdocsum_desktop.paths import sample_paper

try:  # PySide6 is an optional extra: without it the entry point says how to install it
    from mmdocsum_desktop.gui import launch

    QT_MISSING = False
except ImportError as missing:
    if not (missing.name or "").startswith(("PySide6", "shiboken6")):
        raise
    QT_MISSING = True


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mmdocsum-desktop", description="Read a document, get its illustrated summary.")
    parser.add_argument("file", nargs="?", type=Path, help="a document or a .mdsproj project to open")
    parser.add_argument("--sample", action="store_true", help="open the sample paper shipped with the app")
    parser.add_argument("--version", "-V", action="store_true", help="print the version and exit")
    parser.add_argument("--screenshot", metavar="OUT.png", type=Path,
                        help="render the main window with a finished summary of FILE to a PNG and exit")
    parser.add_argument("--size", default="1440x900", help="window size for --screenshot (default 1440x900)")
    parser.add_argument("--no-recover", action="store_true", help="do not offer to recover unsaved work")
    return parser


def display_problem(environ: Mapping[str, str] | None = None) -> str:
    """Why Qt would abort before showing a window ('' when nothing is known to be wrong): on Linux the
    X11 platform plugin needs about twenty system libraries (app.qt_libraries), and when one is missing
    Qt names libxcb-cursor0, whichever it is, and aborts."""
    environ = dict(os.environ) if environ is None else environ
    platform = environ.get("QT_QPA_PLATFORM", "")
    if not sys.platform.startswith("linux") or platform not in ("", "xcb"):
        return ""
    if environ.get("WAYLAND_DISPLAY") and platform == "":
        return ""
    if not environ.get("DISPLAY"):
        return ("no display to open a window on (DISPLAY is not set); run it in a desktop session, "
                "or use the command line: mmdocsum --help")
    check = check_xcb_libraries(environ)
    return check.message() if check is not None else ""


def main(argv: Sequence[str] | None = None) -> int:
    # In the frozen bundle the model, page-rendering and benchmark children are this executable started
    # again by multiprocessing (spawn): they must run their task, not open a second window
    multiprocessing.freeze_support()
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.version:
        print(f"mmdocsum-desktop {__version__}")
        return 0
    if args.sample and args.file is not None:
        print("mmdocsum-desktop: error: give a FILE or --sample, not both", file=sys.stderr)
        return 2
    if args.sample:
        args.file = sample_paper()
    if args.screenshot is not None and args.file is None:
        print("mmdocsum-desktop: error: --screenshot needs a FILE to summarize", file=sys.stderr)
        return 2
    if args.screenshot is not None and not os.environ.get("QT_QPA_PLATFORM"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    secrets.install_process_guards()  # no API key in what the app prints or logs (as in the command line)
    problem = display_problem()
    if problem:
        print(f"mmdocsum-desktop: error: {problem}", file=sys.stderr)
        return 2
    if QT_MISSING:
        print("mmdocsum-desktop: error: the desktop window needs PySide6: pip install PySide6-Essentials",
              file=sys.stderr)
        return 2
    return launch.run(args.file, screenshot=args.screenshot, size=args.size, recover=not args.no_recover)


if __name__ == "__main__":
    raise SystemExit(main())
