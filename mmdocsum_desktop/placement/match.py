"""One matcher for placement and summaries: the score of every (text, figure) pair as placement gives it.

``mmdocsum place`` scores a document's paragraphs against its figures with
:meth:`PlacementEngine.prepare` (explicit mentions, MiniLM caption similarity, word evidence, section kind)
and the fitted alignment's utility (``placement/align.py``: the conditional logit per visual with
"nowhere", each pair's log-odds against it plus the placement bonus, the first citing paragraph
decisive; issue 39's sequence model with ``model="sequence"``). A summary's
paragraphs are scored by the same calls (:func:`score_pairs`), with two things a summary knows that a
paragraph list does not: each paragraph's section (its role: background → Introduction, ...) and its
mentions, taken from the paragraph's evidence (the sentences and the passages of the paper they come
from) instead of its own words — a summary sentence cut from "as Figure 2 shows, ..." no longer cites it.

Nothing here chooses: placement aligns figures to a document's paragraphs in order, a summary gives each
paragraph at most one figure (``summarize/evidence.py``); both read the utility computed here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.placement.engine import PlacementEngine, PlacementProblem, decisive_mentions
from mmdocsum_desktop.placement.scorer import mention_matrices
from mmdocsum_desktop.schemas.placement import ImageCandidate

# Not fitted: larger than any log-odds the alignment gives an uncited pair (its fitted weights keep them
# within a few units), so citing beats not citing and the alignment orders the pairs within each group.
CITED_UTILITY = 50.0


@dataclass(frozen=True)
class Mentions:
    """Which figure each text cites (``cites``) and which text is where the figure is first discussed
    (``first``); both texts × candidates, 0/1."""

    cites: np.ndarray
    first: np.ndarray

    @classmethod
    def of_texts(cls, texts: Sequence[str], candidates: Sequence[ImageCandidate]) -> Mentions:
        """The mentions placement reads from the texts themselves ("see Figure 3")."""
        cites, first, _ = mention_matrices(texts, candidates)
        return cls(cites, first)

    def other(self) -> np.ndarray:
        """1 where the text cites some visual but not this one (placement's ``other_mention``)."""
        cites_any = self.cites.any(axis=1, keepdims=True)
        return np.where(cites_any & (self.cites == 0), 1.0, 0.0)


@dataclass
class PairScores:
    """The matcher's answer: ``utility`` (texts × candidates) is each pair's log-odds above the
    threshold as the placement model scores it (-inf where a text can take no figure), ``probabilities``
    the calibrated scores, ``model`` which stage scored them ("align", "sequence" or "global")."""

    utility: np.ndarray
    probabilities: np.ndarray
    threshold: float
    model: str
    problem: PlacementProblem


def score_pairs(
    engine: PlacementEngine,
    texts: Sequence[str],
    candidates: Sequence[ImageCandidate],
    *,
    sections: Sequence[Sequence[str] | str | None] | None = None,
    headings: Sequence[bool] | None = None,
    mentions: Mentions | None = None,
    control: JobControl | None = None,
    model: str = "sequence",
) -> PairScores:
    """Score every (text, candidate) pair with placement's own preparation and fitted model.

    ``mentions``: the citations to use instead of those in the texts (a summary's evidence); None reads
    them from the texts, as ``mmdocsum place`` does. ``sections``/``headings``: as
    :meth:`PlacementEngine.prepare`. ``model``: as :func:`scores_of`."""
    problem = engine.prepare(texts, candidates, control=control, sections=sections, headings=headings)
    if mentions is not None:
        shape = (len(problem.paragraphs), len(problem.candidates))
        if mentions.cites.shape != shape or mentions.first.shape != shape:
            raise ValueError(f"mentions are {mentions.cites.shape}, the problem is {shape}")
        problem.mention = np.asarray(mentions.cites, dtype=np.float64)
        problem.first_mention = np.asarray(mentions.first, dtype=np.float64)
        problem.other_mention = mentions.other()
    return scores_of(engine, problem, control=control, model=model)


def scores_of(engine: PlacementEngine, problem: PlacementProblem, control: JobControl | None = None,
              model: str = "sequence") -> PairScores:
    """The utility placement's default strategy reads for a prepared problem: the fitted alignment's
    (``model="align"``, what ``_assign_align`` computes: each pair's log-odds against its visual's
    "nowhere" plus the placement bonus, the first citing text decisive); with ``model="sequence"`` issue
    39's: the sequence model's when the pool is scored on the profile it was fitted on, the profile's own
    probabilities otherwise (what the ``global`` assignment reads).

    With ``model="align"`` every pair whose text cites the visual (``problem.mention``, not only the first
    citing text) also gains :data:`CITED_UTILITY`: a summary's paragraph whose evidence cites a figure shows
    that one before any it does not cite, the alignment ordering the rest."""
    n, m = len(problem.paragraphs), len(problem.candidates)
    if n == 0 or m == 0:
        empty = np.full((n, m), -np.inf)
        return PairScores(empty, np.full((n, m), np.nan), problem.threshold, "none", problem)
    if model == "align" and "caption" in problem.sims:  # fitted on MiniLM cosines: without them, as below
        features = engine.alignment_inputs(problem, control)
        fitted = engine.alignment.models["ce" if problem.ce is not None else "no_ce"]
        valid = ~problem._empty_rows()
        own = fitted.utility(features, valid)
        cited = np.where(np.isfinite(own) & (np.asarray(problem.mention) > 0), CITED_UTILITY, 0.0)
        utility = decisive_mentions(own + cited, problem.first_mention)
        z = np.where(valid[:, None], fitted.logits(features, (n, m)), -np.inf)
        top = np.maximum(z.max(axis=0), fitted.nowhere)
        denominator = np.exp(z - top).sum(axis=0) + np.exp(fitted.nowhere - top)
        probabilities = np.where(valid[:, None], np.exp(z - top) / denominator, np.nan)
        threshold = 1.0 / (1.0 + np.exp(-(fitted.nowhere - fitted.bonus)))
        return PairScores(utility, probabilities, float(threshold), "align", problem)
    if problem.profile is not None and problem.profile.key == engine.sequence_profile:
        engine.rescore(problem, control)
        assert problem.sequence_model is not None  # rescore() chose it
        threshold = engine.threshold if engine.threshold is not None else problem.sequence_model.threshold
        return PairScores(problem.sequence_utility(threshold), problem.sequence_probabilities(), threshold,
                          "sequence", problem)
    probabilities = problem.probabilities()
    return PairScores(PlacementEngine.utility(probabilities, problem.threshold), probabilities, problem.threshold,
                      "global", problem)
