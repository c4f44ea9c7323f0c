"""One channel for what the core tells the person driving it: fallbacks, repairs, skipped work.

Core code calls :func:`notify`. Whoever drives the core subscribes once with :func:`listening`: the CLI
prints each notice on stderr, the GUI's message bridge shows it in the window. When nobody listens (the
package used as a library, or a unit test) a notice becomes a Python warning of its category, so
``pytest.warns`` and ``warnings.catch_warnings`` still see it.

Results that carry their own notes (a Summary's ``warnings`` and ``repairs``, a Document's ``warnings``)
keep them: those belong to the result and are saved with it. This channel is for what happens while a
job runs and belongs to no one result: a model that falls back to the CPU, a damaged cache recreated.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from mmdocsum_desktop.errors import MmdocsumWarning


@dataclass(frozen=True)
class Notice:
    text: str
    level: str = "warning"  # "info" or "warning"
    category: type[Warning] = MmdocsumWarning

    @property
    def topic(self) -> str:
        """A short name of what the notice is about, for grouping in a user interface."""
        return self.category.__name__.removesuffix("Warning") or "notice"


Listener = Callable[[Notice], None]

_lock = threading.Lock()
_listeners: list[Listener] = []


def notify(text: str, *, category: type[Warning] = MmdocsumWarning, level: str = "warning",
           stacklevel: int = 2) -> Notice:
    """Tell the user something; listeners get it from whatever thread the core runs on."""
    notice = Notice(text=text, level=level, category=category)
    with _lock:
        listeners = list(_listeners)
    if not listeners:
        warnings.warn(text, category, stacklevel=stacklevel + 1)
        return notice
    for listener in listeners:
        listener(notice)
    return notice


@contextmanager
def listening(listener: Listener) -> Iterator[Listener]:
    """Receive every notice while the block runs (a CLI command, the GUI's lifetime)."""
    with _lock:
        _listeners.append(listener)
    try:
        yield listener
    finally:
        with _lock:
            _listeners.remove(listener)


def subscribe(listener: Listener) -> Callable[[], None]:
    """Receive every notice until the returned function is called (for objects with their own lifetime)."""
    with _lock:
        _listeners.append(listener)

    def unsubscribe() -> None:
        with _lock:
            if listener in _listeners:
                _listeners.remove(listener)

    return unsubscribe
