"""Running a core function in a child process, for long CPU-heavy jobs (benchmark runs): the child has
its own interpreter and GIL, so nothing it does — loading C extensions, matplotlib, ONNX sessions — can
stall the GUI thread. Progress and cancellation cross over with the same ``JobControl`` contract:
the parent's ``report`` receives the child's progress, and ``cancel()`` reaches the child's control.

This module does not import Qt (the child imports it too)."""

from __future__ import annotations

import importlib
import multiprocessing
import queue as queue_module
import threading
import time
from collections.abc import Callable
from typing import Any

from mmdocsum_desktop.errors import JobCancelled, MmdocsumError
from mmdocsum_desktop.jobs import JobControl


class ChildProcessError(MmdocsumError):
    """The worker process failed; the message is the child's one-line error."""


def run_in_child(target: str, kwargs: dict[str, Any], control: JobControl,
                 stream: Callable[[str], None] | None = None, *, poll_s: float = 0.1) -> Any:
    """Call ``module:function(**kwargs, control=...)`` in a fresh (spawned) process and return its
    picklable result; raises JobCancelled or MmdocsumError as the function did."""
    context = multiprocessing.get_context("spawn")
    messages = context.Queue()
    # a shared flag the child polls (an Event would deadlock its set() if a waiting child died)
    cancel = context.Value("b", 0, lock=False)
    process = context.Process(target=_child_main, args=(target, kwargs, messages, cancel), daemon=True,
                              name="mmdocsum-job")
    process.start()
    try:
        while True:
            if control.cancelled:
                cancel.value = 1
            try:
                kind, payload = messages.get(timeout=poll_s)
            except queue_module.Empty:
                if not process.is_alive():
                    raise ChildProcessError(
                        f"the worker process ended unexpectedly (exit code {process.exitcode})") from None
                continue
            if kind == "progress":
                if control.on_progress is not None:
                    control.on_progress(*payload)
            elif kind == "text":
                if stream is not None:
                    stream(payload)
            elif kind == "result":
                return payload
            elif kind == "cancelled":
                raise JobCancelled(payload or "cancelled by the user")
            elif kind == "error":
                name, message, user_facing = payload
                if user_facing:
                    raise ChildProcessError(message)
                raise ChildProcessError(f"internal error: {name}: {message}")
    finally:
        cancel.value = 1
        process.join(timeout=10)
        if process.is_alive():
            process.terminate()
            process.join(timeout=5)
        messages.close()


def _child_main(target: str, kwargs: dict[str, Any], messages, cancel) -> None:
    module_name, _, function_name = target.partition(":")
    control = JobControl(on_progress=lambda done, total, what: messages.put(("progress", (done, total, what))))

    def watch() -> None:
        while not cancel.value:
            time.sleep(0.05)
        control.cancel()

    threading.Thread(target=watch, daemon=True).start()
    try:
        function = getattr(importlib.import_module(module_name), function_name)
        result = function(**kwargs, control=control)
    except JobCancelled as error:
        messages.put(("cancelled", str(error)))
    except MmdocsumError as error:
        messages.put(("error", (type(error).__name__, str(error), True)))
    except BaseException as error:  # noqa: BLE001 — reported to the parent as one line
        messages.put(("error", (type(error).__name__, str(error), False)))
    else:
        messages.put(("result", result))
