"""tqdm progress for core jobs; the GUI has its own progress bar over the same JobControl."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from tqdm import tqdm

from mmdocsum_desktop.jobs import JobControl


def write_stderr(piece: str) -> None:
    """A model's text as it is written (--stream): onto stderr at once, stdout keeps the result."""
    sys.stderr.write(piece)
    sys.stderr.flush()


@contextmanager
def tqdm_control(description: str, *, enabled: bool = True) -> Iterator[JobControl]:
    bar: tqdm | None = None

    def on_progress(done: int, total: int, what: str) -> None:
        nonlocal bar
        if not enabled:
            return
        if bar is None:
            bar = tqdm(total=total, desc=description, unit="step", file=sys.stderr, leave=False)
        if bar.total != total:
            bar.reset(total=total)
        bar.n = done
        if what:
            bar.set_postfix_str(what, refresh=False)
        bar.refresh()

    try:
        yield JobControl(on_progress=on_progress)
    finally:
        if bar is not None:
            bar.close()
