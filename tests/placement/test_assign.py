"""Assignment: each image at most once, one per paragraph, none below the threshold; global is optimal."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mmdocsum_desktop.placement.assign import global_assign, greedy_assign, inversions
from mmdocsum_desktop.placement.calibration import logit


def _utility(probs, choice, threshold):
    return sum(logit(probs[i, j]) - logit(threshold) for i, j in enumerate(choice) if j is not None)


def _brute_force(probs, threshold):
    n, m = probs.shape
    best, best_value = [None] * n, 0.0
    for option in itertools.product([None, *range(m)], repeat=n):
        used = [j for j in option if j is not None]
        if len(used) != len(set(used)) or any(j is not None and probs[i, j] < threshold for i, j in enumerate(option)):
            continue
        value = _utility(probs, option, threshold)
        if value > best_value + 1e-12:
            best, best_value = list(option), value
    return best, best_value


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 4).flatmap(
        lambda n: st.integers(1, 3).flatmap(
            lambda m: st.lists(st.floats(0.01, 0.99), min_size=n * m, max_size=n * m).map(
                lambda v: np.array(v).reshape(n, m)
            )
        )
    ),
    st.sampled_from([0.1, 0.3, 0.5]),
)
def test_global_assignment_is_optimal_and_respects_the_constraints(probs, threshold):
    choice = global_assign(probs, threshold)
    used = [j for j in choice if j is not None]
    assert len(used) == len(set(used))
    assert all(j is None or probs[i, j] >= threshold for i, j in enumerate(choice))
    _, best = _brute_force(probs, threshold)
    assert abs(_utility(probs, choice, threshold) - best) < 1e-9


def test_global_prefers_document_order_when_scores_are_close():
    # Two images that fit both paragraphs about equally: without the order preference the slightly
    # better crossed pairing wins; with it the images follow their document order.
    probs = np.array([[0.50, 0.52], [0.52, 0.50]])
    assert global_assign(probs, 0.2) == [1, 0]
    assert global_assign(probs, 0.2, order=[0, 1], order_penalty=1.0) == [0, 1]
    assert inversions([(0, 1), (1, 0)], [0, 1]) == 1


def test_global_handles_empty_and_nan():
    assert global_assign(np.zeros((0, 3)), 0.5) == []
    assert global_assign(np.zeros((2, 0)), 0.5) == [None, None]
    probs = np.array([[np.nan, np.nan], [0.9, 0.1]])
    assert global_assign(probs, 0.5) == [None, 0]


def test_greedy_is_incremental_uses_each_image_once_and_resets_the_window():
    windows = []
    table = {0: [0.2, 0.1], 1: [0.9, 0.8], 2: [0.95, 0.7], 3: [0.1, 0.3]}

    def score(window):
        windows.append(list(window))
        return np.array(table[window[-1]])

    result = greedy_assign(4, score, threshold=0.5)
    assert [c for c, _ in result] == [None, 0, 1, None]
    # cumulative text: paragraph 1 is scored with paragraph 0 (no image yet), then the window restarts
    assert windows == [[0], [0, 1], [2], [3]]
