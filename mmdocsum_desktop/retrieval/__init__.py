"""Evidence search over a document's prose, captions, figure text and the sentences citing each figure.

One module for every caller that needs evidence: answers (``answer/``), and in time the summary's
evidence stage, placement and the judge. :func:`build_retriever` loads the models once; a
:class:`~mmdocsum_desktop.retrieval.search.Retriever` keeps each document's index.
"""

from __future__ import annotations

from mmdocsum_desktop.retrieval.passages import Passage, build_passages, canonical_label
from mmdocsum_desktop.retrieval.search import Evidence, EvidenceIndex, Retriever, SearchResult

__all__ = [
    "Evidence",
    "EvidenceIndex",
    "Passage",
    "Retriever",
    "SearchResult",
    "build_passages",
    "build_retriever",
    "canonical_label",
]


def build_retriever(*, rerank: bool = True, embedder=None) -> Retriever:
    """A retriever with MiniLM embeddings and, when its files are there and intact, the cross-encoder.

    A missing or damaged cross-encoder is not an error: the retriever ranks without rescoring and
    ``retriever.notes`` says why. A missing MiniLM is one (raised as ModelError): without it there is
    no embedding candidate list at all.
    """
    from mmdocsum_desktop.models.embed import TextEmbedder
    from mmdocsum_desktop.models.rerank import load_cross_encoder

    notes: list[str] = []
    reranker = None
    if rerank:
        reranker, problem = load_cross_encoder()
        if problem:
            notes.append(problem)
    return Retriever(embedder or TextEmbedder(), reranker, notes=notes)
