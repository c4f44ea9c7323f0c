"""The child process's side of a benchmark run started from the window (``core.run_benchmark``).

A module of its own so that the benchmark suites (and the models they load) are imported by the child
process only, which names this module to :func:`~mmdocsum_desktop.gui.subprocess_job.run_in_child`; the
window never imports it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.bench.run import run_benchmark as run_suite
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.schemas.settings import EngineChoice


def benchmark_in_this_process(suite: str, split: str, engine: str, out: str, control: JobControl) -> str:
    """:func:`bench.run.run_benchmark` as `mmdocsum bench SUITE --split SPLIT --engine ENGINE -o OUT` runs
    it, with a Session of the saved settings (this process's own)."""
    ftii_data: dict[str, Any] = {}
    if suite == "ftii" and split != "demo":  # a flow-insertion JSON: images and captions beside it
        ftii_data = {"images_root": Path(split).parent, "captions": Path(split).with_name("captions.json")}
        if not ftii_data["captions"].is_file():
            ftii_data["captions"] = None
    choice = None if suite == "ftii" else EngineChoice(engine=engine)
    with Session() as session:
        run_suite(session, suite, split, out, choice=choice, control=control, **ftii_data)
    return out
