"""Real components for the library tests: a real SQLite library in a temporary folder, the committed
papers of tests/data copied there (tests change and delete files), the real MiniLM embedder and
cross-encoder through one extractive Session; model caches and data in temporary folders."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mmdocsum_desktop.app.models import Models
from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.schemas.settings import Settings
from tests.conftest import DATA_PAPERS, model_dirs_in


@pytest.fixture(scope="session", autouse=True)
def isolated_dirs(tmp_path_factory):
    root = tmp_path_factory.mktemp("mmdocsum-library")
    mp = pytest.MonkeyPatch()
    mp.setenv("MMDOCSUM_CONFIG_DIR", str(root / "config"))
    mp.delenv("MMDOCSUM_LIBRARY", raising=False)
    with model_dirs_in(root):
        yield root
    mp.undo()


@pytest.fixture(scope="session")
def models() -> Models:
    """One container of models for every library test (MiniLM and the cross-encoder load once)."""
    return Models()


@pytest.fixture()
def session(models):
    with Session(Settings.model_validate({"engines": {"engine": "extractive"}}), models=models) as session:
        yield session


def copy_papers(folder: Path, *names: str) -> Path:
    """Copies of committed papers in ``folder`` (created), so a test may change or delete them."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copy2(DATA_PAPERS / name, folder / name)
    return folder
