"""Shared fixtures of the summary tests: one embedder, papers exported once (document + figure crops)."""

from __future__ import annotations

import pytest

from tests.conftest import PAPERS, model_dirs_in, read_paper
from tests.engines.conftest import smollm, tiny_vlm_files  # noqa: F401 — shared model fixtures


@pytest.fixture(scope="session", autouse=True)
def isolated_model_dirs(tmp_path_factory):
    """Embedding and OCR caches go to a temporary folder, never the user's own."""
    with model_dirs_in(tmp_path_factory.mktemp("mmdocsum-dirs")) as root:
        yield root


@pytest.fixture(scope="session")
def embedder(isolated_model_dirs):
    from mmdocsum_desktop.models.embed import TextEmbedder

    model = TextEmbedder()
    yield model
    model.close()


@pytest.fixture(scope="session")
def exported(tmp_path_factory):
    """``exported(name)`` → (Document, folder with document.json and figures/), once per paper."""
    from mmdocsum_desktop.document.reader import export_document

    done: dict[str, tuple] = {}

    def get(name: str):
        if name not in done:
            document = read_paper(name).model_copy(deep=True)
            folder = tmp_path_factory.mktemp(name.replace(".", "_"))
            export_document(document, folder, dpi=72)
            done[name] = (document, folder)
        return done[name]

    assert PAPERS.is_dir()
    return get
