"""One retriever with the real models for the retrieval and answer tests (loading them costs seconds)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def retriever(tmp_path_factory):
    from mmdocsum_desktop.models.cache import ContentCache
    from mmdocsum_desktop.models.embed import TextEmbedder
    from mmdocsum_desktop.models.rerank import CrossEncoder
    from mmdocsum_desktop.retrieval.search import Retriever

    # a private embedding cache: the user's cache is never touched by tests
    cache = ContentCache(tmp_path_factory.mktemp("retrieval-cache") / "cache.sqlite")
    return Retriever(TextEmbedder(cache=cache), CrossEncoder())
