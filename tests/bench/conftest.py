"""Summaries for the judge tests, written by the real extractive pipeline from the bundled demo
documents (small, with figures) or from committed papers (tests/data/papers, the package's sample)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from mmdocsum_desktop.bench import splits
from mmdocsum_desktop.bench.glue import BenchEngine, EngineSpec
from mmdocsum_desktop.bench.splits import DEMO_ROOT
from tests.conftest import paper_path
from tests.engines.conftest import smollm, smollm_path, tiny_vlm_files  # noqa: F401 — shared model fixtures
from tests.summarize.conftest import isolated_model_dirs  # noqa: F401 — caches in a temporary folder

DEMO_DOCS = DEMO_ROOT / "docs"
# the bundled pmc-test split's 16 CC BY papers (PDF + JATS), committed with the package
PMC_TEST_PAPERS = splits.bundled("pmc-test").folder / "papers"


@cache
def _summary(path: str, folder: str) -> str:
    engine = BenchEngine.build(EngineSpec(engine="extractive"))
    try:
        record = engine.summary_record(Path(path), Path(folder) / "assets")
    finally:
        engine.close()
    return json.dumps(record)


def summary_record(name: str, folder: Path, *, paper: bool = False) -> dict:
    """The extractive summary (``render.to_json`` form) of a demo document or a committed paper; its
    image paths are relative to ``folder``."""
    source = paper_path(name) if paper else DEMO_DOCS / name
    return json.loads(_summary(str(source), str(folder)))
