from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
CORPUS = (REPO_ROOT / ".." / "shared" / "corpus").resolve()
PAPERS = CORPUS / "papers"


@cache
def read_paper(name: str):
    """Papers are read once per test session; tests must not mutate the returned Document."""
    from mmdocsum_desktop.document.reader import read_document

    return read_document(PAPERS / name)


@pytest.fixture(scope="session")
def corpus() -> Path:
    assert CORPUS.is_dir(), f"the shared corpus is expected at {CORPUS}"
    return CORPUS
