"""Averages every paper's metrics use."""

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
