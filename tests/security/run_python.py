"""``python -m tests.security.run_python CODE``: run CODE (the guard's positive controls)."""

from __future__ import annotations

import sys

if __name__ == "__main__":
    exec(compile(sys.argv[1], "<control>", "exec"))  # noqa: S102 — the test's own one-liners
