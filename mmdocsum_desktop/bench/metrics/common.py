"""Averages and rates every paper's metrics use."""

from __future__ import annotations

from collections.abc import Iterable


def mean(values: Iterable[float | None]) -> float | None:
    """Mean of the measured values; None when nothing was measured (never 0)."""
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


def harmonic(a: float | None, b: float | None) -> float | None:
    """Harmonic mean of two rates (F1 of recall and precision, M-DocEval's TS); None when one is absent."""
    if a is None or b is None:
        return None
    return 0.0 if a + b == 0 else 2 * a * b / (a + b)


def rate(part: int, whole: int) -> float | None:
    """``part / whole``; None when there was nothing to count (never 0)."""
    return part / whole if whole else None


def slot_accuracies(
    correct: int, total: int, correct_image: int, images: int, correct_none: int, nones: int
) -> dict[str, float | None]:
    """FTII's three accuracies over paragraph slots: all slots (``acc_b``), slots that take an image
    (``acc_i``) and slots that take none (``acc_ni``)."""
    return {
        "acc_b": rate(correct, total),
        "acc_i": rate(correct_image, images),
        "acc_ni": rate(correct_none, nones),
    }
