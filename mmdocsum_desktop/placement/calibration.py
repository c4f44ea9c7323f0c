"""Calibrated pair scores: features from raw signals, a conditional-logit model per set of signals.

A pair (paragraph i, image c) gets a logit ``z[i, c]`` = weights · features + hand-set terms. Its score is
the probability that image c belongs after paragraph i rather than after any other paragraph or nowhere:
``P[i, c] = exp(z[i, c]) / (sum over paragraphs i' of exp(z[i', c]) + exp(nowhere))`` — a softmax over
the column of image c with one extra "nowhere" option (a conditional logit, McFadden). Scores of one image
sum to at most 1, and one threshold decides "no image" for every paragraph.

A *profile* is the set of similarity signals a problem has (captions, OCR text, citing sentences; with
embeddings or words only). Each shipped profile has its weights, its "nowhere" logit, its threshold and
the order penalty of the global strategy, in the data file ``placement/weights.json``
(:mod:`mmdocsum_desktop.placement.weights`, with the provenance of each fit). Mentions,
proposals and CLIP have hand-set weights (below): mentions are removed from the fitting split by
construction, no LLM proposals exist there, and no CLIP weights can be had here to fit CLIP on.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

KINDS = ("raw", "row", "col")
SOURCES = ("caption", "ocr", "context")
# Per source: paragraph embedding, best sentence embedding, TF-IDF words.
PRIMARY_SIGNALS = tuple(f"{source}{suffix}" for source in SOURCES for suffix in ("", "_sent", "_lex"))
# Word evidence between a caption and a paragraph beyond TF-IDF (scorer.SimilarityModel): rare words of
# the paper both use, numbers with units or names with digits ("HEK293", "24h"), abbreviations ("TNF").
EXTRA_SIGNALS = ("caption_rare", "caption_num", "caption_abbr")
BASE_SIGNALS = PRIMARY_SIGNALS + EXTRA_SIGNALS

# Hand-set logit terms (see the module docstring for why they are not fitted).
MENTION_LOGIT = 8.0  # the text cites this figure's label: decisive unless another text cites it first
FIRST_MENTION_LOGIT = 1.0  # ... and it is the first text that does
OTHER_MENTION_LOGIT = -1.0  # the text cites other visuals, not this one
PROPOSAL_LOGIT = 2.5  # an LLM proposed this figure for this paragraph (hybrid mode)
CLIP_WEIGHTS = {"clip_raw": 4.0, "clip_row": 6.0, "clip_col": 6.0}  # CLIP cosines are small (0.15-0.35)
NO_FIT = {"nowhere": 2.0, "threshold": 0.3}  # no fitted profile applies (only CLIP, mentions, proposals)


@dataclass(frozen=True)
class Profile:
    signals: tuple[str, ...]
    weights: Mapping[str, float]  # feature name -> weight
    nowhere: float  # logit of "this image goes nowhere" in each image's softmax
    threshold: float
    order_penalty: float  # logit cost per pair of images placed out of document order (global)

    @property
    def key(self) -> str:
        return profile_key(self.signals)


@dataclass(frozen=True)
class SequenceModel:
    """The second stage of the "sequence" strategy: a conditional logit over the base logit's neighbour
    features (:mod:`~mmdocsum_desktop.placement.sequence`) and, when the cross-encoder ran, its rescoring
    features (:mod:`~mmdocsum_desktop.placement.rescore`); its threshold and the utility at which a figure
    may go against the order. ``fitted_on`` says on which data (never the test half)."""

    weights: Mapping[str, float]
    nowhere: float
    threshold: float
    out_of_order: float
    top_k: int
    fitted_on: str = ""
    # utility bonus per log(paragraph count) (sequence.paragraph_prior): 0 = the threshold alone decides
    paragraph_prior: float = 0.0


def profile_key(signals: Sequence[str]) -> str:
    return "+".join(sorted(signals)) or "none"


def feature_names(signals: Sequence[str]) -> list[str]:
    return [f"{s}_{k}" for s in sorted(signals) for k in KINDS]


def _max_of_others(matrix: np.ndarray, axis: int) -> np.ndarray:
    """For each entry, the max over the other entries of its row (axis=1) or column (axis=0), NaN-aware."""
    filled = np.where(np.isfinite(matrix), matrix, -np.inf)
    if filled.shape[axis] < 2:
        return np.full(matrix.shape, np.nan)
    order = np.sort(filled, axis=axis)
    top = np.take(order, [-1], axis=axis)
    second = np.take(order, [-2], axis=axis)
    others = np.where(filled >= top, second, top)
    return np.where(np.isfinite(others), others, np.nan)


def derive(
    sims: Mapping[str, np.ndarray],
    reference: Mapping[str, np.ndarray] | None = None,
    exclude: Sequence[Sequence[int]] | None = None,
) -> dict[str, np.ndarray]:
    """Features ``<signal>_raw/_row/_col`` of every similarity matrix (NaN → 0).

    ``col`` compares a row with the other rows; for greedy windows pass the per-paragraph matrices as
    ``reference`` and, per row, the paragraph indices it is made of (``exclude``) — the window is then
    compared with every paragraph outside it.
    """
    out: dict[str, np.ndarray] = {}
    for name, matrix in sims.items():
        matrix = np.asarray(matrix, dtype=np.float64)
        finite = np.isfinite(matrix)
        out[f"{name}_raw"] = np.where(finite, matrix, 0.0)
        row_other = _max_of_others(matrix, axis=1)
        out[f"{name}_row"] = np.where(finite & np.isfinite(row_other), matrix - row_other, 0.0)
        if reference is None:
            col_other = _max_of_others(matrix, axis=0)
        else:
            ref = np.where(np.isfinite(reference[name]), reference[name], -np.inf)
            col_other = np.full(matrix.shape, -np.inf)
            for i, members in enumerate(exclude or [[] for _ in range(matrix.shape[0])]):
                keep = np.ones(ref.shape[0], dtype=bool)
                keep[list(members)] = False
                if keep.any():
                    col_other[i] = ref[keep].max(axis=0)
            col_other = np.where(np.isfinite(col_other), col_other, np.nan)
        out[f"{name}_col"] = np.where(finite & np.isfinite(col_other), matrix - col_other, 0.0)
    return out


def logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def linear_logit(features: Mapping[str, np.ndarray], weights: Mapping[str, float], shape: tuple[int, int]) -> np.ndarray:
    z = np.zeros(shape)
    for name, weight in weights.items():
        if name in features:
            z = z + weight * features[name]
    return z


def column_probabilities(z: np.ndarray, nowhere: float, valid: np.ndarray | None = None) -> np.ndarray:
    """Softmax of each column of ``z`` together with a "nowhere" logit; rows not ``valid`` get NaN."""
    z = np.asarray(z, dtype=np.float64)
    valid = np.ones(z.shape[0], dtype=bool) if valid is None else np.asarray(valid, dtype=bool)
    out = np.full(z.shape, np.nan)
    if z.size == 0 or not valid.any():
        return out
    rows = z[valid]
    top = np.maximum(rows.max(axis=0), nowhere)
    weights = np.exp(rows - top)
    total = weights.sum(axis=0) + np.exp(nowhere - top)
    out[valid] = weights / total
    return out


def window_probabilities(z_window: np.ndarray, z_rest: np.ndarray, nowhere: float) -> np.ndarray:
    """The softmax share of a window's logits (one per image) against the paragraphs outside it."""
    z_window = np.asarray(z_window, dtype=np.float64)
    stacked = np.vstack([z_window[None, :], np.asarray(z_rest, dtype=np.float64).reshape(-1, z_window.size)])
    return column_probabilities(stacked, nowhere)[0]


def choose_profile(present: set[str], profiles: Mapping[str, Profile]) -> Profile | None:
    """The shipped profile for exactly these signals, else the largest one they cover."""
    usable = {s for s in present if s in BASE_SIGNALS}
    exact = profiles.get(profile_key(sorted(usable)))
    if exact is not None:
        return exact
    # The covering profile with the most primary signals (embeddings and TF-IDF of each text source),
    # then the most signals: a caption+OCR profile beats the caption profile with word extras.
    def size(profile: Profile) -> tuple[int, int]:
        return (len(set(profile.signals) & set(PRIMARY_SIGNALS)), len(profile.signals))

    best: Profile | None = None
    for profile in profiles.values():
        if set(profile.signals) <= usable and (best is None or size(profile) > size(best)):
            best = profile
    return best
