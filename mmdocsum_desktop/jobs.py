"""One way to report progress and to cancel long work, shared by the CLI (tqdm) and the GUI (workers).

Core functions take a ``JobControl``; they call ``step()`` as they advance, which raises
``JobCancelled`` once someone has asked them to stop. Nothing here knows about Qt or tqdm.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, TypeVar

from mmdocsum_desktop.errors import JobCancelled

T = TypeVar("T")
R = TypeVar("R")

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


# Sub-controls report in thousandths of their parent's step, so a bar driven by integers (tqdm,
# QProgressBar) still moves smoothly while one step (a model call) runs.
_STEP_RESOLUTION = 1000


def nested_control(
    parent: JobControl, step: int, steps: int, label: str = "", *, phases: tuple[float, ...] = (1.0,)
) -> JobControl:
    """A JobControl whose whole progress fills step ``step`` (of ``steps``) of ``parent``'s.

    Inner work that counts in several phases, each from zero (a model call: the prompt read, then the
    tokens generated), passes their ``phases`` shares of the step; a new phase starts when the inner
    total changes or the count goes back. So the parent's bar only moves forward. It shares the
    parent's cancel flag; what the inner work says is shown after ``label``.
    """
    steps = max(1, steps)
    shares = [max(0.0, share) for share in phases] or [1.0]
    scale = sum(shares) or 1.0
    state: dict[str, Any] = {"phase": 0, "total": None, "done": 0, "within": 0.0}

    def forward(done: int, total: int, what: str) -> None:
        if state["total"] is not None and (total != state["total"] or done < state["done"]):
            state["phase"] = min(state["phase"] + 1, len(shares) - 1)
        state["total"], state["done"] = total, done
        phase = state["phase"]
        fraction = min(1.0, max(0.0, done / total)) if total > 0 else 0.0
        # a second round of phases (a retried model call) waits at the furthest point reached
        within = max(state["within"], (sum(shares[:phase]) + fraction * shares[phase]) / scale)
        state["within"] = within
        if parent.on_progress is None:
            return
        overall = int(round((step + within) * _STEP_RESOLUTION))
        text = f"{label}: {what}" if label and what else (what or label)
        parent.on_progress(overall, steps * _STEP_RESOLUTION, text)

    child = JobControl(on_progress=forward)
    child._cancel = parent._cancel  # one cancel flag for the whole job
    return child


def run_queue(
    items: Sequence[T],
    work: Callable[[T], R],
    finish: Callable[[T, Callable[[], R]], None],
    *,
    concurrency: int,
    stopped: Callable[[], bool],
    thread_name_prefix: str,
) -> None:
    """``work(item)`` for each item, at most ``concurrency`` at once (in this thread when 1), and
    ``finish(item, result)`` in this thread as each ends (``result()`` returns or raises what ``work`` did).
    Once ``stopped()`` says so, no item starts; those in flight still reach ``finish``. The benchmark
    stages and the library's batch summaries share it (a server pool is driven the same way by both)."""
    if concurrency <= 1:
        for item in items:
            if stopped():
                break
            finish(item, functools.partial(work, item))
        return
    queue = list(items)
    pending: dict[Future[R], T] = {}
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix=thread_name_prefix) as pool:
        while queue or pending:
            while queue and len(pending) < concurrency and not stopped():
                item = queue.pop(0)
                pending[pool.submit(work, item)] = item
            if not pending:
                break
            done, _ = wait(pending, return_when=FIRST_COMPLETED, timeout=0.5)
            for future in done:
                finish(pending.pop(future), future.result)
            if stopped():
                queue.clear()
