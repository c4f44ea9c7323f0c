"""Issue 39's thresholded baseline: nothing fitted but one threshold. No longer ``--strategy baseline``
(issue 43 made that the strong lexical alignment of ``placement/align.py``, which this one trails by far:
it places almost nothing at its threshold); kept for the summary's "caption" matcher and for
``benchmarks/placement_lopo.py``, which measured issue 39's selection against it.

A pair's score is the cosine between the paragraph's embedding (the same MiniLM the fitted model reads)
and the figure's texts: its caption, and the text read in its crop (OCR) where there is any — the mean of
the two cosines, so "caption + figure text" weigh alike. Without an embedder the TF-IDF cosines stand in.
The decision is FTII's greedy matching: paragraphs in order, the text accumulated since the last insertion
scored against the unused figures, the best one inserted when it reaches the threshold. A paragraph that
first cites a figure by its label ("Figure 3") gets it, as with every strategy.

"""

from __future__ import annotations

import numpy as np

from mmdocsum_desktop.jobs import JobControl, ensure_control

# Cosine a window of text must reach: the value the leave-one-source-out folds of
# benchmarks/placement_lopo.py tuned on their training sources (0.65-0.7, most often 0.675) for Acc_ni >= 0.95;
# see docs/placement.md
BASELINE_THRESHOLD = 0.675
_EMBEDDED = ("caption", "ocr")
_WORDS = ("caption_lex", "ocr_lex")


def _combine(sims: dict[str, np.ndarray], shape: tuple[int, int]) -> np.ndarray:
    names = _EMBEDDED if any(k in sims for k in _EMBEDDED) else _WORDS
    stack = [np.asarray(sims[k], dtype=np.float64) for k in names if k in sims]
    if not stack:
        return np.full(shape, np.nan)
    values = np.stack(stack)
    count = np.isfinite(values).sum(axis=0)
    total = np.nansum(values, axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def baseline_scores(problem) -> np.ndarray:
    """n × m cosines (NaN where a paragraph can take no image: no text, or a heading)."""
    n, m = len(problem.paragraphs), len(problem.candidates)
    scores = _combine(problem.sims, (n, m))
    scores[problem._empty_rows()] = np.nan
    return scores


def baseline_assign(problem, threshold: float, control: JobControl | None = None) -> list[int | None]:
    """FTII's greedy matching over the baseline's cosines; returns the candidate (or None) per paragraph."""
    control = ensure_control(control)
    n, m = len(problem.paragraphs), len(problem.candidates)
    blocked = problem._empty_rows()
    first = np.asarray(problem.first_mention) > 0
    cited = {int(j) for j in np.flatnonzero(first.any(axis=0))}  # figures a paragraph cites by label
    used: set[int] = set()
    window: list[int] = []
    choices: list[int | None] = [None] * n
    for i in range(n):
        control.report(i, n, "placing")
        if blocked[i]:
            continue  # a heading or an empty line: no image after it, and not part of the text read
        window.append(i)
        mentioned = [int(j) for j in np.flatnonzero(first[i]) if int(j) not in used]
        if mentioned:
            choices[i] = mentioned[0]
            used.add(mentioned[0])
            window = []
            continue
        sims = problem.similarity.similarities([window]) if len(window) > 1 else {
            k: v[i:i + 1] for k, v in problem.sims.items()}
        scores = _combine(sims, (1, m))[0]
        scores[list(used | cited)] = np.nan  # each figure once; a cited figure waits for its citation
        if np.isfinite(scores).any():
            best = int(np.nanargmax(scores))
            if scores[best] >= threshold:
                choices[i] = best
                used.add(best)
                window = []
    control.report(n, n, "placing")
    return choices
