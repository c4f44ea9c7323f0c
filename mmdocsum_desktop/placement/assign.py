"""Choosing at most one image per paragraph, each image at most once, "none" below the threshold.

* :func:`greedy_assign` — FTII's incremental algorithm: read paragraphs in order, score the text
  accumulated since the last inserted image against the unused images, insert the best one when its
  score reaches the threshold (and start accumulating afresh).
* :func:`global_assign` — all paragraphs at once: ``linear_sum_assignment`` over paragraphs × (images ∪
  one "none" column per paragraph), utility = logit(score) − logit(threshold), pairs below the threshold
  forbidden; then a local search that trades utility against a penalty per pair of images placed out of
  their document order (the soft order preference).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from mmdocsum_desktop.jobs import JobControl, ensure_control
from mmdocsum_desktop.placement.calibration import logit

_FORBIDDEN = 1e6


def greedy_assign(
    count: int,
    score_window: Callable[[list[int]], np.ndarray],
    threshold: float,
    *,
    control: JobControl | None = None,
) -> list[tuple[int | None, np.ndarray]]:
    """``score_window(paragraph indices) -> probability per candidate``; returns (candidate, scores) per paragraph."""
    control = ensure_control(control)
    used: set[int] = set()
    window: list[int] = []
    result: list[tuple[int | None, np.ndarray]] = []
    for i in range(count):
        control.report(i, count, "placing")
        window.append(i)
        scores = np.asarray(score_window(list(window)), dtype=np.float64)
        available = scores.copy()
        if used:
            available[list(used)] = -np.inf
        choice: int | None = None
        if available.size and np.isfinite(available).any():
            best = int(np.argmax(available))
            if available[best] >= threshold:
                choice = best
                used.add(best)
                window = []
        result.append((choice, scores))
    control.report(count, count, "placing")
    return result


def inversions(pairs: Sequence[tuple[int, int]], order: Sequence[float]) -> int:
    """Pairs of placements whose paragraphs and images are in opposite orders."""
    items = sorted(pairs)
    count = 0
    for a in range(len(items)):
        for b in range(a + 1, len(items)):
            if items[a][0] < items[b][0] and order[items[a][1]] > order[items[b][1]]:
                count += 1
    return count


def _objective(assignment: dict[int, int], utility: np.ndarray, order: Sequence[float], penalty: float) -> float:
    total = float(sum(utility[j, i] for j, i in assignment.items()))
    if penalty:
        total -= penalty * inversions([(i, j) for j, i in assignment.items()], order)
    return total


def global_assign(
    probabilities: np.ndarray,
    threshold: float,
    *,
    order: Sequence[float] | None = None,
    order_penalty: float = 0.0,
    max_rounds: int = 50,
) -> list[int | None]:
    """The best set of (paragraph, image) pairs; returns the candidate index (or None) per paragraph."""
    probs = np.asarray(probabilities, dtype=np.float64)
    n, m = probs.shape
    if n == 0:
        return []
    if m == 0:
        return [None] * n
    with np.errstate(divide="ignore"):
        clipped = np.clip(np.nan_to_num(probs, nan=0.0), 1e-9, 1 - 1e-9)
        utility = np.log(clipped / (1 - clipped)) - logit(threshold)
    allowed = (probs >= threshold) & np.isfinite(probs)
    cost = np.zeros((n, m + n))
    cost[:, :m] = np.where(allowed, -utility, _FORBIDDEN)
    # imported here: scipy.optimize costs about a second to import, and the default sequence strategy
    # and greedy placement never need it
    from scipy.optimize import linear_sum_assignment

    rows, cols = linear_sum_assignment(cost)
    assignment: dict[int, int] = {int(c): int(r) for r, c in zip(rows, cols) if c < m and allowed[r, c]}
    if order is None or order_penalty <= 0:
        return _as_list(assignment, n)
    order = list(order)
    utility_t = np.where(allowed, utility, -np.inf).T  # candidate × paragraph
    assignment = _improve_order(assignment, utility_t, allowed.T, order, order_penalty, max_rounds)
    return _as_list(assignment, n)


def _improve_order(
    assignment: dict[int, int],
    utility: np.ndarray,
    allowed: np.ndarray,
    order: list[float],
    penalty: float,
    max_rounds: int,
) -> dict[int, int]:
    """Local search on utility − penalty × inversions: move one image to another paragraph (evicting or
    swapping the image there) or drop it, while the objective improves."""
    m, n = utility.shape
    current = _objective(assignment, utility, order, penalty)
    for _ in range(max_rounds):
        best_value, best_assignment = current, None
        by_row = {i: j for j, i in assignment.items()}
        for j in range(m):
            rows = np.flatnonzero(allowed[j])
            options: list[dict[int, int]] = []
            if j in assignment:
                dropped = dict(assignment)
                del dropped[j]
                options.append(dropped)
            for row in rows:
                i = int(row)
                if assignment.get(j) == i:
                    continue
                moved = dict(assignment)
                old_row = moved.get(j)
                moved[j] = i
                other = by_row.get(i)
                if other is not None and other != j:
                    del moved[other]
                    if old_row is not None and allowed[other, old_row]:
                        swapped = dict(moved)
                        swapped[other] = old_row
                        options.append(swapped)
                options.append(moved)
            for option in options:
                value = _objective(option, utility, order, penalty)
                if value > best_value + 1e-9:
                    best_value, best_assignment = value, option
        if best_assignment is None:
            break
        assignment, current = best_assignment, best_value
    return assignment


def _as_list(assignment: dict[int, int], n: int) -> list[int | None]:
    out: list[int | None] = [None] * n
    for j, i in assignment.items():
        out[i] = j
    return out
