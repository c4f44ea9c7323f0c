"""A linear head over frozen paragraph embeddings: does this paragraph read like one that introduces a
figure ("we measured ... and found ...") rather than one that explains a method or cites literature?

Learned from many papers (``tools/fit_placement.py``: every body paragraph of the fit papers,
labelled 1 when it is the first to cite a figure) as a logistic regression on the paragraph's MiniLM
vector (the normalised mean of its sentences', as :class:`~mmdocsum_desktop.placement.scorer.SimilarityModel`
computes it). Its logit is one feature of the sequence model (``para_head``). The weights belong to one
embedder: they are used only with the embedder whose ``model_id`` they were fitted with.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

HEAD_FEATURE = "para_head"


@dataclass(frozen=True)
class ParagraphHead:
    embedder: str  # TextEmbedder.model_id the weights were fitted with
    weights: tuple[float, ...]
    bias: float

    def logits(self, vectors: np.ndarray) -> np.ndarray:
        """One logit per paragraph vector (rows); zero-vectors (paragraphs without text) get the bias."""
        vectors = np.asarray(vectors, dtype=np.float64)
        if vectors.ndim != 2 or vectors.shape[1] != len(self.weights):
            raise ValueError(f"the head takes {len(self.weights)}-d vectors, not {vectors.shape}")
        return vectors @ np.asarray(self.weights) + self.bias

    def applies_to(self, embedder) -> bool:
        return embedder is not None and getattr(embedder, "model_id", None) == self.embedder
