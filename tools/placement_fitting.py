"""Fitting placement's weights: the developers' instrument behind ``placement/weights.json`` (the app only
reads the fitted numbers). ``tools/fit_placement.py`` (the shipped fit), ``tools/fit_placement_h15.py`` and
``benchmarks/bench_placement_ftii.py`` fit on the dev half with these."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy.optimize import minimize


def fit_conditional_logit(
    columns: Sequence[tuple[np.ndarray, int]], l2: float = 1.0
) -> tuple[float, np.ndarray]:
    """Fit weights ``w`` and the "nowhere" logit on image columns.

    ``columns``: per image, (features of every paragraph, n × d; index of its gold paragraph or -1 when it
    goes nowhere). Maximises the log-likelihood of the gold choices with an L2 penalty on ``w``.
    """
    dims = {x.shape[1] for x, _ in columns}
    if len(dims) != 1:
        raise ValueError("every column needs the same features")
    d = dims.pop()

    def loss(params: np.ndarray) -> tuple[float, np.ndarray]:
        nowhere, w = params[0], params[1:]
        value = 0.5 * l2 * float(w @ w)
        grad = np.zeros_like(params)
        grad[1:] = l2 * w
        for x, gold in columns:
            z = np.append(x @ w, nowhere)
            top = z.max()
            p = np.exp(z - top)
            p /= p.sum()
            target = gold if gold >= 0 else len(z) - 1
            value -= math.log(max(p[target], 1e-300))
            p[target] -= 1.0
            grad[1:] += x.T @ p[:-1]
            grad[0] += p[-1]
        return value, grad

    result = minimize(loss, np.zeros(d + 1), jac=True, method="L-BFGS-B")
    return float(result.x[0]), result.x[1:]


def fit_head(vectors: np.ndarray, labels: np.ndarray, l2: float = 1.0) -> tuple[np.ndarray, float]:
    """Logistic regression (L2 on the weights, not the bias) of ``labels`` (0/1) on ``vectors``."""
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
