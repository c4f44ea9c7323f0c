"""One way to report progress and to cancel long work, shared by the CLI (tqdm) and the GUI (workers).

Core functions take a ``JobControl``; they call ``step()`` as they advance, which raises
``JobCancelled`` once someone has asked them to stop. Nothing here knows about Qt or tqdm.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from mmdocsum_desktop.errors import JobCancelled

ProgressCallback = Callable[[int, int, str], None]


@dataclass
class JobControl:
    on_progress: ProgressCallback | None = None
    _cancel: threading.Event = field(default_factory=threading.Event)

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def check(self) -> None:
        if self._cancel.is_set():
            raise JobCancelled("cancelled by the user")

    def report(self, done: int, total: int, what: str = "") -> None:
        """Report progress, then stop here if cancellation was requested."""
        if self.on_progress is not None:
            self.on_progress(done, total, what)
        self.check()


def ensure_control(control: JobControl | None) -> JobControl:
    return control if control is not None else JobControl()
