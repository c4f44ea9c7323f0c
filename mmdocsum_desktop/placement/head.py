"""A linear head over frozen paragraph embeddings: does this paragraph read like one that introduces a
figure ("we measured ... and found ...") rather than one that explains a method or cites literature?

Learned from many papers (``benchmarks/placement_relevance.py``: every body paragraph of the fit papers,
labelled 1 when it is the first to cite a figure) as a logistic regression on the paragraph's MiniLM
vector (the normalised mean of its sentences', as :class:`~mmdocsum_desktop.placement.scorer.SimilarityModel`
computes it). Its logit is one feature of the sequence model (``para_head``). The weights belong to one
embedder: they are used only with the embedder whose ``model_id`` they were fitted with.
"""

from __future__ import annotations

import math
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


def fit_head(vectors: np.ndarray, labels: np.ndarray, l2: float = 1.0) -> tuple[np.ndarray, float]:
    """Logistic regression (L2 on the weights, not the bias) of ``labels`` (0/1) on ``vectors``."""
    from scipy.optimize import minimize

    x = np.asarray(vectors, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    d = x.shape[1]

    def loss(params: np.ndarray) -> tuple[float, np.ndarray]:
        w, b = params[:d], params[d]
        z = x @ w + b
        p = 1.0 / (1.0 + np.exp(-z))
        eps = 1e-12
        value = -float(np.sum(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps))) + 0.5 * l2 * float(w @ w)
        residual = p - y
        grad = np.concatenate([x.T @ residual + l2 * w, [residual.sum()]])
        return value, grad

    prior = min(max(float(y.mean()) if y.size else 0.5, 1e-3), 1 - 1e-3)
    start = np.zeros(d + 1)
    start[d] = math.log(prior / (1 - prior))
    result = minimize(loss, start, jac=True, method="L-BFGS-B")
    return result.x[:d], float(result.x[d])
