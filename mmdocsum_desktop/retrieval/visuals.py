"""Which figure or table answers a question: every visual of the document scored from its caption, its
content (table rows, figure text) and the sentences that cite it, with weights fitted on the dev half.

Each visual gets a handful of features, all between 0 and 1, from scores the search computed anyway:

* the caption's cosine with the question and its BM25 (divided by the best BM25 of any passage);
* the best cosine and BM25 among its content passages (table rows, text inside the figure);
* the best cosine and BM25 among the prose sentences that cite it (or sit in a paragraph about it);
* BM25 of the visual as one document (caption + content + citing sentences, against the other visuals);
* the cross-encoder's relevance (sigmoid of its logit) of its caption, and of its best passage, where
  the cross-encoder read them (the search adds the captions of the likeliest visuals to its head);
* for tables, whether the question asks for values ("how many", "which … highest", doses, amounts).

A conditional logit (softmax over the document's visuals of ``w · features``) turns them into a
probability per visual; ``VISUAL_WEIGHTS`` were fitted on the dev-half questions
(``benchmarks/ask_visuals.py --fit``: maximum likelihood of the gold visual, L2 0.1), never on test.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from mmdocsum_desktop.retrieval.passages import CONTENT_KINDS, Passage

FEATURES = (
    "caption_dense",
    "caption_bm25",
    "content_dense",
    "content_bm25",
    "citing_dense",
    "citing_bm25",
    "visual_bm25",
    "caption_ce",
    "best_ce",
    "table_cue",
    "is_table",
)
# Fitted on the 57 dev-half questions (benchmarks/ask_visuals.py --split dev --fit, starting from
# hand-set weights 2, 2, 1, 1, 1, 1, 2, 2, 3, 0.5, 0); in FEATURES order.
VISUAL_WEIGHTS = np.array([3.506, 0.969, 1.112, 1.224, 1.338, -0.277, 1.859, 0.301, 1.587, 1.985, 0.773])
# Below this probability the chosen visual is cited only when its passage is among the evidence anyway.
CITE_MIN_PROBABILITY = 0.0
# Questions that ask for values a table holds.
_TABLE_CUE = re.compile(
    r"\b(?:how (?:many|much|long|old|large|big|high|fast|often)|what (?:percentage|proportion|dose|doses|amount|"
    r"concentration|values?|size)|which\b.*\b(?:most|least|highest|lowest|best|worst)|(?:composition|constituents?|"
    r"compounds?|components?|characteristics|primers?|doses?|mic|scores?|average|mean|median|rates?)\b)",
    re.IGNORECASE,
)


def table_cue(question: str) -> float:
    return 1.0 if _TABLE_CUE.search(question) else 0.0


@dataclass
class VisualProfile:
    """One labelled figure or table and the passages that rest on it (indexes into the passage list)."""

    label: str
    is_table: bool
    captions: list[int] = field(default_factory=list)
    content: list[int] = field(default_factory=list)
    citing: list[int] = field(default_factory=list)

    @property
    def passages(self) -> list[int]:
        return [*self.captions, *self.content, *self.citing]


def build_profiles(passages: list[Passage], labels_in_order: list[str]) -> list[VisualProfile]:
    """A profile per label, in ``labels_in_order`` (labels only cited in prose get one too)."""
    profiles: dict[str, VisualProfile] = {}
    for label in labels_in_order:
        profiles[label] = VisualProfile(label, label.startswith("Table"))
    for passage in passages:
        for label in passage.labels:
            profile = profiles.get(label)
            if profile is None:
                profile = profiles[label] = VisualProfile(label, label.startswith("Table"))
            if passage.kind == "caption":
                profile.captions.append(passage.index)
            elif passage.kind in CONTENT_KINDS:
                profile.content.append(passage.index)
            else:
                profile.citing.append(passage.index)
    return [p for p in profiles.values() if p.captions or p.content or p.citing]


def visual_text(profile: VisualProfile, passages: list[Passage]) -> str:
    """The visual as one document for BM25: caption, content and citing sentences."""
    return " ".join(passages[i].text for i in profile.passages)


@dataclass(frozen=True)
class VisualScore:
    label: str
    probability: float
    features: tuple[float, ...]
    best_passage: int | None  # the passage that best shows this visual for the question


def _best(indices: list[int], values: np.ndarray) -> float:
    return float(max((values[i] for i in indices), default=0.0))


def visual_features(
    profiles: list[VisualProfile],
    question: str,
    bm25: np.ndarray,
    dense: np.ndarray,
    visual_bm25: np.ndarray,
    relevance: dict[int, float],
    allowed: np.ndarray,
) -> np.ndarray:
    """(n visuals, len(FEATURES)) features; ``relevance``: passage → cross-encoder sigmoid where scored."""
    top = float(bm25[allowed].max()) if allowed.any() else 0.0
    scaled = bm25 / top if top > 0 else np.zeros_like(bm25)
    top_visual = float(visual_bm25.max()) if len(visual_bm25) else 0.0
    visual_scaled = visual_bm25 / top_visual if top_visual > 0 else np.zeros_like(visual_bm25)
    dense_clipped = np.clip(dense, 0.0, 1.0)
    cue = table_cue(question)
    rows = []
    for number, profile in enumerate(profiles):
        captions = [i for i in profile.captions if allowed[i]]
        content = [i for i in profile.content if allowed[i]]
        citing = [i for i in profile.citing if allowed[i]]
        every = captions + content + citing
        rows.append((
            _best(captions, dense_clipped),
            _best(captions, scaled),
            _best(content, dense_clipped),
            _best(content, scaled),
            _best(citing, dense_clipped),
            _best(citing, scaled),
            float(visual_scaled[number]) if number < len(visual_scaled) else 0.0,
            max((relevance.get(i, 0.0) for i in captions), default=0.0),
            max((relevance.get(i, 0.0) for i in every), default=0.0),
            cue if profile.is_table else 0.0,
            1.0 if profile.is_table else 0.0,
        ))
    return np.asarray(rows, dtype=np.float64).reshape(len(profiles), len(FEATURES))


def softmax(values: np.ndarray) -> np.ndarray:
    if not len(values):
        return values
    shifted = np.exp(values - values.max())
    return shifted / shifted.sum()


def score_visuals(
    profiles: list[VisualProfile],
    features: np.ndarray,
    relevance: dict[int, float],
    fused: np.ndarray,
    allowed: np.ndarray,
    weights: np.ndarray | None = None,
) -> list[VisualScore]:
    """Every visual with its probability, best first; its best passage is the one the cross-encoder
    liked most (else the best fused one), so the answer can quote it."""
    if not profiles:
        return []
    weights = VISUAL_WEIGHTS if weights is None else weights
    probabilities = softmax(features @ weights)
    scored = []
    for number, profile in enumerate(profiles):
        candidates = [i for i in profile.passages if allowed[i]]
        best = None
        if candidates:
            best = max(candidates, key=lambda i: (relevance.get(i, -1.0), fused[i]))
        scored.append(VisualScore(profile.label, float(probabilities[number]),
                                  tuple(float(v) for v in features[number]), best))
    scored.sort(key=lambda s: -s.probability)
    return scored
