"""The fitting behind placement's shipped weights (tools/placement_fitting.py)."""

from __future__ import annotations

import numpy as np

from tools.placement_fitting import fit_conditional_logit, fit_head


def test_conditional_logit_learns_a_separating_signal():
    rng = np.random.default_rng(0)
    columns = []
    for _ in range(40):
        x = rng.normal(size=(12, 1))
        gold = int(rng.integers(0, 12))
        x[gold] += 3.0
        columns.append((x, gold))
    for _ in range(10):  # images that go nowhere
        columns.append((rng.normal(size=(12, 1)), -1))
    nowhere, weights = fit_conditional_logit(columns, l2=0.1)
    assert weights[0] > 1.0
    assert nowhere > 0.0


def test_the_relevance_head_learns_which_side_of_a_direction_is_relevant():
    rng = np.random.default_rng(1)
    vectors = rng.normal(size=(200, 3))
    labels = (vectors[:, 0] + 0.1 * rng.normal(size=200) > 0.5).astype(float)
    weights, bias = fit_head(vectors, labels, l2=0.1)
    assert weights[0] > 2.0 and abs(weights[1]) < 1.0 and abs(weights[2]) < 1.0
    assert bias < 0.0  # fewer than half the vectors are relevant
