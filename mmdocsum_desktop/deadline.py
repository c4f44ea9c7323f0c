"""One deadline per command: ``--time-limit`` bounds everything a command waits for.

A command started with a time limit sets it once (:func:`command_deadline`, in the CLI's ``run``); every
wait on something outside this process reads it: each network call of the OpenAI-compatible engine
(listing the server's models, retries and their back-off, the chat call: ``engines/openai._Deadline``) and
every wait on the model process (loading, counting, reading the prompt, generating:
``engines/llama_process``). A generation that reaches it ends with the text so far (finish reason
"timeout", as ``GenerationOptions.time_limit_s`` does); anything else that reaches it fails with
:class:`TimeLimitError`, one line, exit code 2. So a silent server, a frozen (SIGSTOP'ed) model process or
a model that never finishes loading end the command within the limit plus a few seconds.

The deadline is process-wide, not passed down as an argument: a command is one process (the CLI runs one
use case per process), the deadline has to reach waits ten layers down (an engine built by the factory
inside the session), and a limit that some path forgot to pass would be exactly the bug this closes. The
desktop app never sets one (its jobs have Cancel).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from mmdocsum_desktop.errors import EngineError

_ends_at: float | None = None  # time.monotonic() when the running command's time is up


class TimeLimitError(EngineError):
    """The command's time limit ran out while it waited for a model or a server (not mid-generation,
    where the text so far is kept instead)."""


@contextmanager
def command_deadline(seconds: float | None) -> Iterator[None]:
    """The block is the command: its waits end ``seconds`` from now (None: no limit). Nested blocks keep
    the earlier end."""
    global _ends_at
    previous = _ends_at
    if seconds is not None:
        at = time.monotonic() + seconds
        _ends_at = at if previous is None else min(previous, at)
    try:
        yield
    finally:
        _ends_at = previous


def ends_at() -> float | None:
    """When the running command's time is up (``time.monotonic()`` clock), or None."""
    return _ends_at


def time_left() -> float | None:
    """Seconds left of the running command's time limit (0 when it has passed), or None without one."""
    at = _ends_at
    return None if at is None else max(at - time.monotonic(), 0.0)


def capped(seconds: float | None) -> float | None:
    """``seconds`` or the command's time left, whichever is shorter (None: neither is set)."""
    left = time_left()
    if left is None:
        return seconds
    return left if seconds is None else min(seconds, left)
