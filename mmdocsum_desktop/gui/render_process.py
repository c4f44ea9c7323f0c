"""Page rendering in a child process, for the reader.

PyMuPDF holds the GIL while it rasterises a page (30-200 ms for a page with images on this machine),
and every Qt callback into Python waits for the GIL: a page rendered on a worker thread stalled the
window as if it ran on the GUI thread. One long-lived child (spawned on first use, shared by every
document of the process) renders pages and thumbnails with its own interpreter and GIL; a worker thread
waits for its answer with the GIL released.

Qt-free on purpose: the child imports this module and the page service (``app.pages``, which is
``document/pages.py``: PyMuPDF is used there, never here), nothing else of the GUI.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import multiprocessing
import os
import threading
import time
from collections import OrderedDict

from mmdocsum_desktop.app.pages import PdfPages, preload

_KEEP_OPEN = 3  # documents the child keeps open (the reader's, and one or two before it)
_PARENT_POLL_S = 1.0  # how often the child looks whether the window's process is still there
_pool: concurrent.futures.ProcessPoolExecutor | None = None
_ready: concurrent.futures.Future | None = None  # the child has imported PyMuPDF
_pool_lock = threading.Lock()
_documents: OrderedDict[tuple[str, str | None], PdfPages] = OrderedDict()  # in the child


def _child_watch_parent(parent: int) -> None:
    """In the child, once: exit when the window's process is gone. A window killed or crashed leaves its
    pool's worker waiting on its queue for ever (a few hundred MB, one per crash); its parent then becomes
    another process (POSIX). On Windows the parent id does not change and the child stays until logout."""

    def watch() -> None:
        while True:
            time.sleep(_PARENT_POLL_S)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _child_document(path: str, password: str | None) -> PdfPages:
    key = (path, password)
    document = _documents.get(key)
    if document is None:
        document = PdfPages(path, password)  # in the child: the window's process does not render with it
        _documents[key] = document
        while len(_documents) > _KEEP_OPEN:
            _documents.popitem(last=False)[1].close()
    _documents.move_to_end(key)
    return document


def _child_ping() -> bool:
    preload()  # PyMuPDF imported: the child is ready once it is done
    return True


def _child_render(path: str, password: str | None, page: int, zoom: float) -> tuple[int, int, int, bytes]:
    pixels = _child_document(path, password).render(page, zoom)
    return pixels.width, pixels.height, pixels.stride, pixels.samples


def _child_forget(path: str) -> None:
    for key in [k for k in _documents if k[0] == path]:
        _documents.pop(key).close()


def _executor() -> concurrent.futures.ProcessPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = concurrent.futures.ProcessPoolExecutor(max_workers=1,
                                                           mp_context=multiprocessing.get_context("spawn"),
                                                           initializer=_child_watch_parent,
                                                           initargs=(os.getpid(),))
            atexit.register(shutdown)
        return _pool


def warm() -> None:
    """Start the child now: its imports take seconds on a busy machine, and until it is ready the
    reader renders in its own process (see :func:`ready`)."""
    global _ready
    executor = _executor()
    with _pool_lock:
        if _ready is None:
            _ready = executor.submit(_child_ping)


def ready() -> bool:
    with _pool_lock:
        future = _ready
    return future is not None and future.done() and not future.cancelled() and future.exception() is None


def render(path: str, password: str | None, page: int, zoom: float) -> tuple[int, int, int, bytes]:
    """Page ``page`` (0-based) of the PDF at ``zoom`` pixels per point: width, height, stride, RGB bytes.
    Blocks the calling (worker) thread, never holding the GIL while the child works."""
    global _pool, _ready
    try:
        return _executor().submit(_child_render, path, password, page, zoom).result()
    except concurrent.futures.process.BrokenProcessPool:
        with _pool_lock:  # the child died (out of memory?): warm() starts a new one
            _pool, _ready = None, None
        raise


def forget(path: str) -> None:
    """The child closes the document (the reader closed it)."""
    with _pool_lock:
        pool = _pool
    if pool is not None:
        try:
            pool.submit(_child_forget, path)
        except RuntimeError:  # shut down already
            pass


def shutdown() -> None:
    global _pool, _ready
    with _pool_lock:
        pool, _pool, _ready = _pool, None, None
    if pool is not None:
        pool.shutdown(wait=False, cancel_futures=True)
