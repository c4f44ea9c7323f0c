"""One lock for PyMuPDF in this process.

PyMuPDF runs every document on one MuPDF context and is not thread-safe: two threads in it at once (a
worker reading a paper while another renders a page or lists a page's words) can crash the whole
process with a segmentation fault, which takes the window with it. Every use of PyMuPDF from a thread
other than a child process's only thread holds this lock. It is re-entrant, so a reader that calls
helpers which also take it does not wait for itself.

The GUI thread never waits for it long: it asks with a short timeout (``try_mupdf``) and does without
(no selectable words for that moment) rather than freeze while a paper is being read.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

MUPDF_LOCK = threading.RLock()


@contextmanager
def try_mupdf(timeout_s: float) -> Iterator[bool]:
    """Hold the lock if it comes within ``timeout_s``; yields whether it was taken."""
    taken = MUPDF_LOCK.acquire(timeout=timeout_s)
    try:
        yield taken
    finally:
        if taken:
            MUPDF_LOCK.release()
