"""Placement as one alignment per document (issue 43): the strong baseline and the fitted alignment.

Both build a score matrix paragraphs × visuals and solve one monotone alignment over it with dynamic
programming: visuals in their numbering order (:func:`~mmdocsum_desktop.placement.sequence.figure_ranks`)
after strictly increasing paragraphs, each paragraph and each visual at most once, a paragraph that cites a
visual by its label ("Figure 3") getting it.

* **Baseline** (:func:`baseline_alignment`, ``--strategy baseline``): the TF-IDF cosine of each paragraph
  and each visual's text (its caption, with the text read inside its crop where there is any), the
  document's own paragraphs and visuals as the collection; every visual of the pool placed once. Nothing
  fitted.
* **Fitted alignment** (``--strategy align``, the default): a conditional logit per visual (a softmax over
  the paragraphs plus "nowhere") over a few signals — the baseline's lexical cosine, MiniLM cosines of the
  paragraph and of its best sentence, the cross-encoder on each visual's best paragraphs, the section's
  kind, the paragraph's place against the visual's rank, whether an earlier paragraph matches as well —
  most of them standardised within the visual's column, so that a visual is judged against the other
  paragraphs of the same document, and its best score against the document's other visuals. The alignment
  maximises the summed log-odds of the chosen pairs against "nowhere" plus a placement bonus: a visual the
  text does not discuss stays out when its best pair loses to its own "nowhere"; a visual left out may go
  against the order when its log-odds there reach a fitted bar. The weights, bonus and bar are in
  ``placement/alignment.json``, fitted by ``tools/fit_alignment.py`` (leave-one-source-out selection).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from mmdocsum_desktop.placement.rescore import rescore_features
from mmdocsum_desktop.placement.sequence import SECTION_FEATURES, monotone_assign, section_features
from mmdocsum_desktop.placement.text import LexicalIndex, caption_body, tokens
from mmdocsum_desktop.schemas.placement import ImageCandidate, PlacementError

ALIGNMENT_FILE = Path(__file__).with_name("alignment.json")
ALIGNMENT_FORMAT = 1
# A bonus far above any cosine: the baseline places every visual it can (min(visuals, paragraphs)).
_PLACE_ALL = 1000.0
GAP_CLIP = 3.0
# The signals of the fitted alignment (each n × m). Column-constant ones (best_*) only move a visual
# against its "nowhere"; paragraph-constant ones (sec_*) only move a paragraph against the others.
EMBEDDED = ("emb_z", "sent_z", "emb", "best_emb")
CROSS = ("ce_raw", "ce_col", "ce_top")
FEATURES = (
    "lex_z", "lex", "best_lex", *EMBEDDED, "prior_gap", "later_gap", "pos_dev", *CROSS,
    "kind_table", *SECTION_FEATURES,
)
POSITION = ("pos_dev", *SECTION_FEATURES)  # what says where a paragraph sits, not what it says
TOP_K = 4  # paragraphs per visual the cross-encoder rescores


def visual_texts(candidates: Sequence[ImageCandidate]) -> list[str]:
    """What describes each visual in words: its caption (the label cut off), and the text read inside its
    crop where any was read."""
    out = []
    for c in candidates:
        parts = [caption_body(c.caption or "")]
        if c.ocr_text:
            parts.append(c.ocr_text)
        out.append(" ".join(" ".join(parts).split()))
    return out


def lexical_matrix(paragraphs: Sequence[str], candidates: Sequence[ImageCandidate]) -> np.ndarray:
    """TF-IDF cosine (sublinear tf, smoothed idf) of every paragraph and every visual's text, the document's
    paragraphs and visual texts as the collection."""
    para_tokens = [tokens(p or "") for p in paragraphs]
    vis_tokens = [tokens(t) for t in visual_texts(candidates)]
    index = LexicalIndex(t for t in [*para_tokens, *vis_tokens] if t)
    return index.matrix([index.vector(t) for t in para_tokens], [index.vector(t) for t in vis_tokens])


def forced_alignment(scores: np.ndarray, ranks: Sequence[int], valid: np.ndarray) -> list[int | None]:
    """Every visual placed once where it can be (min(visuals, valid paragraphs)), in rank order after
    strictly increasing paragraphs, maximising the summed scores."""
    s = np.asarray(scores, dtype=np.float64)
    utility = np.where(valid[:, None] & np.isfinite(s), np.nan_to_num(s, nan=0.0) + _PLACE_ALL, -np.inf)
    return monotone_assign(utility, ranks)


def mention_utility(utility: np.ndarray, first_mention: np.ndarray, bonus: float = 1e4) -> np.ndarray:
    """The paragraph that first cites a visual by its label gets it: that pair gains ``bonus``, the rest of
    its row and column is closed."""
    u = np.array(utility, dtype=np.float64, copy=True)
    rows, cols = np.nonzero(np.asarray(first_mention) > 0)
    keep = [(i, j) for i, j in zip(rows, cols) if np.isfinite(utility[i, j])]
    for i, j in keep:
        u[i, :] = -np.inf
        u[:, j] = -np.inf
    for i, j in keep:
        u[i, j] = bonus
    return u


def baseline_alignment(paragraphs: Sequence[str], candidates: Sequence[ImageCandidate], ranks: Sequence[int],
                       valid: np.ndarray, first_mention: np.ndarray) -> tuple[list[int | None], np.ndarray]:
    """The strong baseline: (the visual per paragraph, the TF-IDF cosines)."""
    lex = lexical_matrix(paragraphs, candidates)
    scores = np.where(valid[:, None], lex, np.nan)
    utility = np.where(valid[:, None], lex + _PLACE_ALL, -np.inf)
    utility = mention_utility(utility, first_mention)
    return monotone_assign(utility, ranks), scores


# ------------------------------------------------------------------------------------- the features

def _column_z(x: np.ndarray, valid: np.ndarray) -> np.ndarray:
    out = np.zeros_like(x)
    rows = np.flatnonzero(valid)
    if rows.size == 0:
        return out
    v = x[rows]
    mean = v.mean(axis=0, keepdims=True)
    std = v.std(axis=0, keepdims=True)
    out[rows] = (v - mean) / np.maximum(std, 1e-6)
    return np.clip(out, -6.0, 6.0)


def _best_relative(x: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Per visual (constant down its column): its best paragraph's value minus the median of the other
    visuals' best values — is this visual discussed at all, against the document's other visuals."""
    n, m = x.shape
    out = np.zeros((n, m))
    rows = np.flatnonzero(valid)
    if rows.size == 0 or m == 0:
        return out
    best = x[rows].max(axis=0)
    centre = float(np.median(best))
    out[rows] = (best - centre)[None, :]
    return out


def _gaps(z: np.ndarray, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``prior_gap``: z minus the best earlier paragraph's (is this the first to match this well);
    ``later_gap``: the best later paragraph's minus z. Clipped; zeros off the valid rows."""
    n, m = z.shape
    prior = np.zeros((n, m))
    later = np.zeros((n, m))
    rows = np.flatnonzero(valid)
    if rows.size == 0:
        return prior, later
    zv = z[rows]
    k = zv.shape[0]
    before = np.full((k, m), -np.inf)
    after = np.full((k, m), -np.inf)
    if k > 1:
        before[1:] = np.maximum.accumulate(zv[:-1], axis=0)
        after[:-1] = np.maximum.accumulate(zv[::-1], axis=0)[::-1][1:]
    prior[rows] = np.clip(np.where(np.isfinite(before), zv - before, GAP_CLIP), -GAP_CLIP, GAP_CLIP)
    later[rows] = np.clip(np.where(np.isfinite(after), after - zv, -GAP_CLIP), -GAP_CLIP, GAP_CLIP)
    return prior, later


def _position(ranks: Sequence[int], valid: np.ndarray, m: int) -> np.ndarray:
    n = valid.shape[0]
    out = np.zeros((n, m))
    rows = np.flatnonzero(valid)
    if rows.size == 0 or m == 0:
        return out
    rel_pos = (np.arange(rows.size) / max(rows.size - 1, 1))[:, None]
    rel_rank = (np.asarray(ranks, dtype=np.float64) + 0.5) / m
    out[rows] = np.abs(rel_pos - rel_rank[None, :])
    return out


def cross_features(ce: np.ndarray | None, shape: tuple[int, int]) -> dict[str, np.ndarray]:
    """The cross-encoder's logits of the rescored pairs as features: ``ce_raw`` (unscored pairs get their
    column's worst minus one), ``ce_col`` (minus the column's best other), ``ce_top`` (the column's best)."""
    if ce is None or not np.isfinite(ce).any():
        return {name: np.zeros(shape) for name in CROSS}
    return rescore_features(ce)


def base_matrix(lex: np.ndarray, emb: np.ndarray | None, valid: np.ndarray) -> np.ndarray:
    """What chooses the cross-encoder's pairs: the lexical and (when there) embedding cosines, each
    standardised in its column."""
    base = _column_z(lex, valid)
    if emb is not None:
        base = base + _column_z(np.nan_to_num(np.asarray(emb, dtype=np.float64)), valid)
    return np.where(valid[:, None], base, -np.inf)


def alignment_features(
    lex: np.ndarray,
    emb: np.ndarray | None,
    sent: np.ndarray | None,
    ce: np.ndarray | None,
    ranks: Sequence[int],
    valid: np.ndarray,
    kinds: Sequence[str | None],
    opens: Sequence[bool],
    visual_kinds: Sequence[str],
) -> dict[str, np.ndarray]:
    """Every signal of :data:`FEATURES` for one document (n × m each; zeros where a model is missing)."""
    n, m = lex.shape
    zero = np.zeros((n, m))
    mask = valid[:, None].astype(np.float64)
    out: dict[str, np.ndarray] = {}
    out["lex_z"] = _column_z(lex, valid)
    out["lex"] = lex * mask
    out["best_lex"] = _best_relative(lex, valid)
    if emb is not None:
        emb = np.nan_to_num(np.asarray(emb, dtype=np.float64))  # NaN where a row has no text
        out["emb_z"] = _column_z(emb, valid)
        out["emb"] = np.nan_to_num(emb) * mask
        out["best_emb"] = _best_relative(np.nan_to_num(emb), valid)
    else:
        out.update({"emb_z": zero, "emb": zero, "best_emb": zero})
    out["sent_z"] = _column_z(np.nan_to_num(sent), valid) if sent is not None else zero
    combined = out["lex_z"] + out["emb_z"]
    out["prior_gap"], out["later_gap"] = _gaps(combined, valid)
    out["pos_dev"] = _position(ranks, valid, m)
    out.update({k: v * mask for k, v in cross_features(ce, (n, m)).items()})
    out["kind_table"] = np.repeat(np.array([[1.0 if k == "table" else 0.0 for k in visual_kinds]]), n, axis=0) * mask
    sections = section_features(kinds, opens, m) if m else {}
    for name in SECTION_FEATURES:
        out[name] = sections[name] * mask if name in sections else zero
    return out


# -------------------------------------------------------------------------------------- the weights

@dataclass(frozen=True)
class AlignmentModel:
    """One fitted combination: weights per feature, the "nowhere" logit, the placement bonus and the bar
    for a visual placed against the order (None: never)."""

    weights: Mapping[str, float]
    nowhere: float
    bonus: float
    out_of_order: float | None

    def logits(self, features: Mapping[str, np.ndarray], shape: tuple[int, int]) -> np.ndarray:
        z = np.zeros(shape)
        for name, weight in self.weights.items():
            if name in features:
                z = z + float(weight) * features[name]
        return z

    def utility(self, features: Mapping[str, np.ndarray], valid: np.ndarray) -> np.ndarray:
        """Each pair's log-odds against its visual's "nowhere", plus the bonus; -inf off the valid rows."""
        n = valid.shape[0]
        m = next(iter(features.values())).shape[1] if features else 0
        z = self.logits(features, (n, m))
        return np.where(valid[:, None], z - self.nowhere + self.bonus, -np.inf)


@dataclass(frozen=True)
class AlignmentWeights:
    models: Mapping[str, AlignmentModel]  # "ce" (cross-encoder ran), "no_ce"
    provenance: Mapping[str, Any] = field(default_factory=dict)
    source: str = ""


def _finite(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(float(value)):
        raise ValueError(f"{where} is {value!r}, not a finite number")
    return float(value)


def parse_alignment(data: Any, source: str = "") -> AlignmentWeights:
    """The weights of a decoded alignment.json; PlacementError naming the first problem."""
    try:
        if not isinstance(data, dict) or data.get("format") != ALIGNMENT_FORMAT:
            raise ValueError(f"not an alignment file of format {ALIGNMENT_FORMAT}")
        models = data.get("models")
        if not isinstance(models, dict) or set(models) != {"ce", "no_ce"}:
            raise ValueError("models must hold exactly 'ce' and 'no_ce'")
        parsed = {}
        for key, model in models.items():
            if not isinstance(model, dict) or not isinstance(model.get("weights"), dict):
                raise ValueError(f"models[{key!r}].weights is not an object")
            stray = sorted(set(model["weights"]) - set(FEATURES))
            if stray:
                raise ValueError(f"models[{key!r}].weights names unknown features {stray}")
            weights = {k: _finite(v, f"models[{key!r}].weights[{k!r}]") for k, v in model["weights"].items()}
            bar = model.get("out_of_order")
            parsed[key] = AlignmentModel(
                weights=weights,
                nowhere=_finite(model.get("nowhere"), f"models[{key!r}].nowhere"),
                bonus=_finite(model.get("bonus"), f"models[{key!r}].bonus"),
                out_of_order=None if bar is None else _finite(bar, f"models[{key!r}].out_of_order"),
            )
        provenance = data.get("provenance", {})
        return AlignmentWeights(parsed, provenance if isinstance(provenance, dict) else {}, source)
    except ValueError as error:
        raise PlacementError(f"{source or 'the alignment weights'}: {error}") from None


def load_alignment(path: Path = ALIGNMENT_FILE) -> AlignmentWeights:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise PlacementError(f"cannot read the alignment weights {path}: {error}") from None
    return parse_alignment(data, str(path))


@lru_cache(maxsize=1)
def shipped_alignment() -> AlignmentWeights:
    return load_alignment(ALIGNMENT_FILE)


def alignment_payload(models: Mapping[str, AlignmentModel], provenance: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "format": ALIGNMENT_FORMAT,
        "models": {key: {"weights": {k: round(float(v), 6) for k, v in m.weights.items()},
                         "nowhere": round(float(m.nowhere), 6), "bonus": round(float(m.bonus), 6),
                         "out_of_order": None if m.out_of_order is None else round(float(m.out_of_order), 6)}
                   for key, m in models.items()},
        "provenance": dict(provenance),
    }


def solve(utility: np.ndarray, ranks: Sequence[int], first_mention: np.ndarray,
          out_of_order: float | None) -> list[int | None]:
    """The alignment: the mentions decisive, then the monotone optimum of the utilities (pairs ≤ 0 never
    chosen), then visuals left out placed against the order where their utility reaches ``out_of_order``."""
    u = mention_utility(utility, first_mention)
    return monotone_assign(u, ranks, out_of_order=out_of_order)
