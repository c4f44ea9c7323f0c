"""`mmdocsum-desktop`: the desktop application's entry point."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in {"--version", "-V"}:
        from mmdocsum_desktop import __version__

        print(f"mmdocsum-desktop {__version__}")
        return 0
    try:
        import PySide6  # noqa: F401
    except ImportError:
        print(
            "mmdocsum-desktop: error: the desktop window needs PySide6, which is not installed; "
            "the `mmdocsum` command works without it",
            file=sys.stderr,
        )
        return 2
    print(
        "mmdocsum-desktop: error: the desktop window is not built yet; use `mmdocsum extract FILE -o OUT`",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
