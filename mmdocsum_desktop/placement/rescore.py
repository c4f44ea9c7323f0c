"""Cross-encoder rescoring of the few best paragraphs of each figure.

The cross-encoder (ms-marco-MiniLM-L-12-v2, :mod:`mmdocsum_desktop.models.rerank`) reads a caption and a
paragraph together and is far sharper than a cosine, but it costs one model run per pair: it only sees,
per figure, the ``top_k`` paragraphs the base score ranks best (the decision is made in each figure's
column — which paragraph is it? — so that is where a sharper ranking pays). The others keep no
cross-encoder value; :func:`rescore_features` gives them the column's worst rescored logit minus one,
so "not even among the best k" reads as low, not as unknown.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from mmdocsum_desktop.errors import JobCancelled
from mmdocsum_desktop.jobs import JobControl, ensure_control

RESCORE_FEATURES = ("ce_raw", "ce_col", "ce_top")
# Per pair: [CLS] caption [SEP] paragraph [SEP]; a caption is rarely longer than 100 tokens, and the
# paragraph's first 250 tokens hold what it is about. Shorter inputs keep the rescoring under a second.
PAIR_MAX_LENGTH = 320
# At most this many pairs per call (about a second on two cores): a pool of hundreds of images (a slide
# deck) rescoring 6 paragraphs each would take minutes. The pairs kept are those with the best base score.
MAX_PAIRS = 160


def rescore_heads(
    cross_encoder,
    paragraphs: Sequence[str],
    captions: Sequence[str],
    base: np.ndarray,
    top_k: int,
    *,
    max_pairs: int = MAX_PAIRS,
    control: JobControl | None = None,
) -> tuple[np.ndarray, list[str]]:
    """Cross-encoder logits (n × m, NaN where not rescored) and warnings.

    Pairs are the ``top_k`` rows of each column of ``base`` (finite values only), for candidates with a
    caption; all pairs go to the model in one call. A failing model gives an all-NaN matrix and a warning.
    """
    base = np.asarray(base, dtype=np.float64)
    n, m = base.shape
    out = np.full((n, m), np.nan)
    if cross_encoder is None or n == 0 or m == 0 or top_k <= 0:
        return out, []
    control = ensure_control(control)
    pairs: list[tuple[int, int]] = []
    for j in range(m):
        if not captions[j].strip():
            continue
        column = np.where(np.isfinite(base[:, j]), base[:, j], -np.inf)
        rows = [int(i) for i in np.argsort(-column, kind="stable")[:top_k] if np.isfinite(column[i])]
        pairs.extend((i, j) for i in rows if paragraphs[i].strip())
    if not pairs:
        return out, []
    notes: list[str] = []
    if len(pairs) > max_pairs:
        figures = len({j for _, j in pairs})
        pairs = sorted(pairs, key=lambda ij: -base[ij])[:max_pairs]
        kept = len({j for _, j in pairs})
        notes.append(
            f"the cross-encoder rescored the {max_pairs} most likely pairs only ({kept} of {figures} images); "
            "the others are placed on the embeddings alone"
        )
    try:
        logits = cross_encoder.score_pairs([(captions[j], paragraphs[i]) for i, j in pairs], control=control)
    except JobCancelled:
        raise
    except Exception as error:  # noqa: BLE001 — a broken cross-encoder must not stop placement
        message = str(error).splitlines()[0] if str(error) else ""
        return out, [f"cross-encoder rescoring failed ({type(error).__name__}: {message[:160]}); placing without it"]
    for (i, j), value in zip(pairs, np.asarray(logits, dtype=np.float64)):
        out[i, j] = value
    return out, notes


# Function words of English: the cross-encoder was trained on English (MS MARCO) only.
_ENGLISH = frozenset(
    "the of and to in is that for with as on are this by was we were from be at which an or these have not "
    "has it its their our also than between".split()
)
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


def english_share(texts: Sequence[str]) -> float | None:
    """Share of the words of ``texts`` that are common English function words (None: no words)."""
    words = [w.lower() for t in texts for w in _WORD.findall(t)]
    if not words:
        return None
    return sum(w in _ENGLISH for w in words) / len(words)


def foreign_paragraphs(paragraphs: Sequence[str], captions: Sequence[str]) -> str | None:
    """A warning when the paragraphs are not English while the captions are: the English-only
    cross-encoder is left out (it would score every pair as unrelated), the embeddings still match."""
    prose = english_share(paragraphs)
    labels = english_share(captions)
    if prose is None or labels is None:
        return None
    if prose < 0.08 and labels >= 0.12:
        return ("the paragraphs do not look English while the captions do: cross-encoder rescoring left out "
                "(English only); placed on the embeddings and shared words alone")
    return None


def rescore_features(ce: np.ndarray) -> dict[str, np.ndarray]:
    """``ce_raw`` (the logit; unscored pairs: their column's worst minus one; columns never rescored: 0),
    ``ce_col`` (the logit minus the best other rescored one of its column, 0 when alone or unscored)
    and ``ce_top`` (1 for the column's best rescored pair)."""
    ce = np.asarray(ce, dtype=np.float64)
    n, m = ce.shape
    raw = np.zeros((n, m))
    col = np.zeros((n, m))
    top = np.zeros((n, m))
    for j in range(m):
        scored = np.isfinite(ce[:, j])
        if not scored.any():
            continue
        values = ce[scored, j]
        raw[:, j] = np.where(scored, ce[:, j], values.min() - 1.0)
        order = np.sort(values)
        best = order[-1]
        second = order[-2] if order.size > 1 else np.nan
        others = np.where(ce[:, j] >= best, second, best)
        col[:, j] = np.where(scored & np.isfinite(others), ce[:, j] - others, 0.0)
        top[int(np.nanargmax(ce[:, j])), j] = 1.0
    return {"ce_raw": raw, "ce_col": col, "ce_top": top}


class PairScorer(Protocol):
    def score_pairs(self, pairs: Sequence[tuple[str, str]], *, control: JobControl | None = None) -> Any: ...


# Pairs remembered per cross-encoder (about 5 MB); beyond it the memory is forgotten all at once.
REMEMBERED_PAIRS_MAX = 50_000


class RememberedPairs:
    """A cross-encoder's ``score_pairs`` through a memory of the pairs it scored before: placing again
    after editing one paragraph rescores only the pairs of that paragraph. Exact, not approximate: the
    cross-encoder scores each pair on its own (batch size 1), so a pair's logit never depends on the
    others asked with it. The session's model container keeps one per cross-encoder."""

    def __init__(self, model: PairScorer, *, limit: int = REMEMBERED_PAIRS_MAX) -> None:
        self.model = model
        self.limit = limit
        self._memory: dict[bytes, float] = {}
        self._lock = threading.Lock()  # two placement jobs of one session may rescore at once

    def score_pairs(self, pairs: Sequence[tuple[str, str]], *, control: JobControl | None = None) -> np.ndarray:
        keys = [hashlib.sha256(f"{query}\0{passage}".encode()).digest() for query, passage in pairs]
        with self._lock:
            logits = np.array([self._memory.get(key, np.nan) for key in keys], dtype=np.float64)
            missing = [k for k, key in enumerate(keys) if key not in self._memory]
        if missing:
            fresh = np.asarray(self.model.score_pairs([pairs[k] for k in missing], control=control), dtype=np.float64)
            logits[missing] = fresh
            with self._lock:
                if len(self._memory) + len(missing) > self.limit:
                    self._memory.clear()
                self._memory.update((keys[k], float(value)) for k, value in zip(missing, fresh))
        return logits

    def __len__(self) -> int:
        return len(self._memory)
