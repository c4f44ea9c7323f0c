"""Shared fixtures of the summary tests: one embedder, papers exported once (document + figure crops)."""

from __future__ import annotations

import pytest

from mmdocsum_desktop.models.embed import TextEmbedder
from tests.conftest import model_dirs_in
from tests.engines.conftest import smollm, smollm_engine, tiny_vlm_files  # noqa: F401 — shared model fixtures


@pytest.fixture(scope="session", autouse=True)
def isolated_model_dirs(tmp_path_factory):
    """Embedding and OCR caches go to a temporary folder, never the user's own."""
    with model_dirs_in(tmp_path_factory.mktemp("mmdocsum-dirs")) as root:
        yield root


@pytest.fixture(scope="session")
def embedder(isolated_model_dirs):

    model = TextEmbedder()
    yield model
    model.close()
