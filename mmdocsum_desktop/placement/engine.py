"""The placement engine: which image of a pool goes after which paragraph (or none).

``PlacementEngine(embedder, ocr, clip, threshold).place(paragraphs, candidates, strategy)`` works with any
subset of the models: without an embedder it matches words (TF-IDF), without OCR or CLIP it leaves those
signals out, and a model that fails on some input is dropped for that input with a warning
(``engine.warnings``) instead of stopping the placement.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np

from mmdocsum_desktop.errors import JobCancelled, MmdocsumError
from mmdocsum_desktop.jobs import JobControl, ensure_control
from mmdocsum_desktop.placement import align as al
from mmdocsum_desktop.placement import calibration as cal
from mmdocsum_desktop.placement.assign import global_assign, greedy_assign
from mmdocsum_desktop.placement.head import HEAD_FEATURE
from mmdocsum_desktop.placement.rescore import (
    foreign_paragraphs,
    rescore_features,
    rescore_heads,
)
from mmdocsum_desktop.placement.scorer import (
    WORD_EVIDENCE,
    SimilarityModel,
    candidate_texts,
    clip_similarities,
    mention_matrices,
)
from mmdocsum_desktop.placement.sequence import (
    SECTION_FEATURES,
    figure_ranks,
    heading_rows,
    monotone_assign,
    neighbour_features,
    paragraph_prior,
    paragraph_sections,
    section_features,
)
from mmdocsum_desktop.placement.text import caption_body, tokens
from mmdocsum_desktop.placement.weights import PlacementWeights, shipped_weights
from mmdocsum_desktop.schemas.placement import ImageCandidate, Placement, PlacementError, PlacementWhy

# Features of the sequence model that say where a paragraph sits (not what it says): the Why's prior.
POSITION_FEATURES = ("pos_dev", "rel_pos", "length", *SECTION_FEATURES)
Strategy = Literal["align", "sequence", "global", "greedy", "baseline"]
# "align" (the default): one fitted alignment per document (placement/align.py, issue 43); "sequence":
# issue 39's monotone alignment over rescored, neighbour-aware per-pair scores with one threshold; "global":
# one assignment of all pairs with a soft order penalty; "greedy": FTII's algorithm over the fitted scores;
# "baseline": nothing fitted — TF-IDF cosine, every visual placed once in its numbering order (align.py),
# the yardstick every fitted part is compared with on each held-out source.
STRATEGIES = ("align", "sequence", "global", "greedy", "baseline")
DEFAULT_STRATEGY: Strategy = "align"


@dataclass
class PlacementProblem:
    """Everything scored for one call: signals, the chosen calibration profile, probabilities."""

    paragraphs: list[str]
    candidates: list[ImageCandidate]
    similarity: SimilarityModel
    sims: dict[str, np.ndarray]
    mention: np.ndarray
    first_mention: np.ndarray
    other_mention: np.ndarray
    proposal: np.ndarray
    profile: cal.Profile | None
    threshold: float
    order_penalty: float
    warnings: list[str] = field(default_factory=list)
    ranks: list[int] = field(default_factory=list)  # each candidate's place in the figure sequence
    ce: np.ndarray | None = None  # cross-encoder logits of the rescored pairs (NaN elsewhere)
    sequence_model: cal.SequenceModel | None = None
    headings: np.ndarray | None = None  # paragraphs that are headings or the title line: never an image
    section_kinds: list[str | None] = field(default_factory=list)
    section_first: list[bool] = field(default_factory=list)
    paragraph_head: np.ndarray | None = None  # the head's logit per paragraph (head.py), when it applies
    _logits: np.ndarray | None = None
    _base: np.ndarray | None = None
    _sequence_z: np.ndarray | None = None
    _probabilities: np.ndarray | None = None

    @property
    def signals_used(self) -> list[str]:
        used = list(self.profile.signals) if self.profile else []
        if "clip" in self.sims:
            used.append("clip")
        return used

    def weights(self) -> dict[str, float]:
        weights = dict(self.profile.weights) if self.profile is not None else {}
        if "clip" in self.sims:
            weights.update(cal.CLIP_WEIGHTS)
        return weights

    @property
    def nowhere(self) -> float:
        return self.profile.nowhere if self.profile is not None else cal.NO_FIT["nowhere"]

    def features(
        self, sims: Mapping[str, np.ndarray], exclude: Sequence[Sequence[int]] | None = None
    ) -> dict[str, np.ndarray]:
        wanted = set(self.signals_used)
        chosen = {k: v for k, v in sims.items() if k in wanted}
        reference = {k: v for k, v in self.sims.items() if k in wanted} if exclude is not None else None
        return cal.derive(chosen, reference, exclude)

    def logits(
        self,
        features: Mapping[str, np.ndarray],
        mention: np.ndarray,
        first: np.ndarray,
        other: np.ndarray,
        proposal: np.ndarray,
    ) -> np.ndarray:
        z = cal.linear_logit(features, self.weights(), mention.shape)
        z = z + cal.MENTION_LOGIT * mention + cal.FIRST_MENTION_LOGIT * first + cal.OTHER_MENTION_LOGIT * other
        return z + cal.PROPOSAL_LOGIT * proposal

    def pair_logits(self) -> np.ndarray:
        if self._logits is None:
            self._logits = self.logits(
                self.features(self.sims), self.mention, self.first_mention, self.other_mention, self.proposal
            )
        return self._logits

    def base_logits(self) -> np.ndarray:
        """The profile's text-only logit of every pair (no mentions, no proposals): what the neighbour
        features and the choice of pairs to rescore look at."""
        if self._base is None:
            self._base = cal.linear_logit(self.features(self.sims), self.weights(), self.mention.shape)
        return self._base

    def sequence_features(self) -> dict[str, np.ndarray]:
        """The second stage's features: neighbours of the base logit, and the cross-encoder's when it ran."""
        valid = ~self._empty_rows()
        lengths = [len(p.split()) for p in self.paragraphs]
        labeled = [bool((c.label or "").strip()) for c in self.candidates]
        features = neighbour_features(self.base_logits(), self.ranks, valid, lengths, labeled)
        if self.section_kinds:
            features.update(section_features(self.section_kinds, self.section_first, len(self.candidates)))
        if self.paragraph_head is not None:
            column = np.where(valid, self.paragraph_head, 0.0)[:, None]
            features[HEAD_FEATURE] = np.repeat(column, len(self.candidates), axis=1)
        if self.ce is not None and np.isfinite(self.ce).any():
            features.update(rescore_features(self.ce))
        return features

    def sequence_logits(self) -> np.ndarray:
        """The second stage's logit, with the hand-set mention and proposal terms."""
        if self._sequence_z is None:
            model = self.sequence_model
            assert model is not None, "prepare the problem for the sequence strategy first"
            z = cal.linear_logit(self.sequence_features(), model.weights, self.mention.shape)
            z = z + cal.MENTION_LOGIT * self.mention + cal.FIRST_MENTION_LOGIT * self.first_mention
            z = z + cal.OTHER_MENTION_LOGIT * self.other_mention + cal.PROPOSAL_LOGIT * self.proposal
            self._sequence_z = z
        return self._sequence_z

    def sequence_probabilities(self) -> np.ndarray:
        assert self.sequence_model is not None  # chosen by the engine's rescore step
        return cal.column_probabilities(self.sequence_logits(), self.sequence_model.nowhere, ~self._empty_rows())

    def sequence_utility(self, threshold: float) -> np.ndarray:
        """What the monotone alignment maximises: each pair's log-odds above the threshold's, plus the
        sequence model's prior for the number of paragraphs (scores of 30 long and 120 short paragraphs
        on one scale)."""
        model = self.sequence_model
        utility = PlacementEngine.utility(self.sequence_probabilities(), threshold)
        prior = paragraph_prior(int((~self._empty_rows()).sum()), model.paragraph_prior) if model else 0.0
        return decisive_mentions(utility + prior, self.first_mention)

    def probabilities(self) -> np.ndarray:
        """Calibrated score of every (paragraph, candidate) pair; NaN for paragraphs with no text."""
        if self._probabilities is None:
            self._probabilities = cal.column_probabilities(self.pair_logits(), self.nowhere, ~self._empty_rows())
        return self._probabilities

    def _empty_rows(self) -> np.ndarray:
        """Paragraphs that can take no image: no text, or a heading / the title line."""
        empty = np.array([not p.strip() for p in self.paragraphs], dtype=bool)
        if self.headings is not None and self.headings.shape == empty.shape:
            empty |= self.headings
        return empty

    def position_prior(self, i: int, j: int) -> float | None:
        """The sequence model's logit for pair (i, j) from where the paragraph sits alone (its place
        against the figure's rank, its section, its length), not from what it says."""
        model = self.sequence_model
        if model is None:
            return None
        features = self.sequence_features()
        return float(sum(model.weights.get(name, 0.0) * features[name][i, j] for name in POSITION_FEATURES
                         if name in features))

    def window_probabilities(self, members: list[int]) -> np.ndarray:
        """Scores of the text accumulated over ``members`` (greedy's cumulative text): the window's share
        of each image's softmax against the paragraphs outside it."""
        empty = self._empty_rows()
        texts = [i for i in members if not empty[i]]
        if not texts:
            return np.full(len(self.candidates), -np.inf)
        if len(members) == 1:
            return self.probabilities()[members[0]]
        sims = self.similarity.similarities([texts])
        sims = {k: v for k, v in sims.items() if k in self.sims}
        if "clip" in self.sims:
            rows = self.sims["clip"][texts]
            count = np.isfinite(rows).sum(axis=0, keepdims=True)
            total = np.nansum(rows, axis=0, keepdims=True)
            sims["clip"] = np.where(count > 0, total / np.maximum(count, 1), np.nan)
        features = self.features(sims, exclude=[members])
        mention = self.mention[texts].max(axis=0, keepdims=True)
        first = self.first_mention[texts].max(axis=0, keepdims=True)
        other = self.other_mention[texts].min(axis=0, keepdims=True)
        proposal = self.proposal[texts].max(axis=0, keepdims=True)
        z_window = self.logits(features, mention, first, other, proposal)[0]
        outside = np.ones(len(self.paragraphs), dtype=bool)
        outside[members] = False
        outside &= ~empty
        return cal.window_probabilities(z_window, self.pair_logits()[outside], self.nowhere)

    def signal_values(self, i: int, j: int) -> dict[str, float]:
        values = {}
        for name, matrix in self.sims.items():
            value = float(matrix[i, j])
            if np.isfinite(value):
                values[name] = round(value, 4)
        if self.mention[i, j]:
            values["mention"] = 1.0
        if self.proposal[i, j]:
            values["proposal"] = 1.0
        return values


class PlacementEngine:
    """Scores and assigns; holds the models. Every model is optional.

    ``threshold``: calibrated score below which a paragraph gets no image (None: the profile's fitted one).
    ``use_caption`` / ``use_ocr`` / ``use_context`` switch the candidate texts used (for ablations).
    ``exclude_self_context``: a citing sentence of a figure that the paragraph itself contains is not
    counted as context (it would reward copying the sentence rather than describe the figure).
    """

    def __init__(
        self,
        embedder=None,
        ocr=None,
        clip=None,
        threshold: float | None = None,
        *,
        use_caption: bool = True,
        use_ocr: bool = True,
        use_context: bool = True,
        exclude_self_context: bool = True,
        order_penalty: float | None = None,
        profiles: Mapping[str, cal.Profile] | None = None,
        cross_encoder=None,
        sequence_models: Mapping[str, cal.SequenceModel] | None = None,
        top_k: int | None = None,
        weights: PlacementWeights | None = None,
        alignment: al.AlignmentWeights | None = None,
    ) -> None:
        if threshold is not None and not 0.0 < float(threshold) < 1.0:
            raise PlacementError(f"the threshold is a calibrated score between 0 and 1, not {threshold}")
        self.embedder = embedder
        self.ocr = ocr
        self.clip = clip
        self.threshold = None if threshold is None else float(threshold)
        self.use_caption = use_caption
        self.use_ocr = use_ocr
        self.use_context = use_context
        self.exclude_self_context = exclude_self_context
        self.order_penalty = order_penalty
        # The fitted model (placement/weights.json unless given): profiles, second stage, and which
        # profile the second stage reads.
        self.fitted = weights if weights is not None else shipped_weights()
        self.profiles = dict(profiles) if profiles is not None else dict(self.fitted.profiles)
        self.cross_encoder = cross_encoder  # rescores each figure's best paragraphs ("sequence" only)
        self.sequence_models = dict(sequence_models) if sequence_models is not None else dict(self.fitted.sequence)
        self.sequence_profile = self.fitted.sequence_profile
        self.top_k = top_k  # paragraphs rescored per figure (None: the fitted model's)
        self.alignment = alignment if alignment is not None else al.shipped_alignment()
        # Models loaded on first need (the session's container sets these): the cross-encoder when a figure
        # is rescored, OCR when a crop's text is not in the content cache. Each is () -> (model or None, why).
        self.cross_encoder_loader: Callable[[], tuple[object | None, str | None]] | None = None
        self.ocr_loader: Callable[[], tuple[object | None, str | None]] | None = None
        self.ocr_lookup: Callable[[str], str | None] | None = None  # cached text of an image, no model
        self.model_warnings: list[str] = []  # models missing or dropped: kept across calls
        self.warnings: list[str] = []  # those, and what the last call met
        self.timings: dict[str, float] = {}  # seconds per step of the last call (OCR, embedding, ...)

    def models_in_use(self) -> list[str]:
        """What scores the images (models not loaded yet but on call count): "text embeddings", "OCR",
        "CLIP", "cross-encoder"."""
        named = (("text embeddings", self.embedder), ("OCR", self.ocr or self.ocr_loader),
                 ("CLIP", self.clip), ("cross-encoder", self.cross_encoder or self.cross_encoder_loader))
        return [name for name, model in named if model is not None]

    def _load(self, loader) -> object | None:
        model, why = loader()
        if why:
            self.model_warnings.append(why)
            self.warnings.append(why)
        return model

    # ------------------------------------------------------------------------------------------ api

    def place(
        self,
        paragraphs: Sequence[str],
        candidates: Sequence[ImageCandidate],
        strategy: Strategy = DEFAULT_STRATEGY,
        proposals: Mapping[int, int] | None = None,
        control: JobControl | None = None,
        sections: Sequence[Sequence[str] | str | None] | None = None,
        headings: Sequence[bool] | None = None,
    ) -> list[Placement]:
        """One :class:`Placement` per paragraph; each candidate used at most once (never after a
        heading or the title line). ``sections``, ``headings``: see :meth:`prepare`."""
        if strategy not in STRATEGIES:
            raise PlacementError(f"unknown strategy {strategy!r}: use one of {', '.join(STRATEGIES)}")
        control = ensure_control(control)
        problem = self.prepare(paragraphs, candidates, proposals=proposals, control=control, sections=sections,
                               headings=headings)
        return self.assign(problem, strategy, control=control)

    def assign(
        self, problem: PlacementProblem, strategy: Strategy = DEFAULT_STRATEGY, control: JobControl | None = None
    ) -> list[Placement]:
        """Turn the scores of a prepared problem into one placement per paragraph."""
        if strategy not in STRATEGIES:
            raise PlacementError(f"unknown strategy {strategy!r}: use one of {', '.join(STRATEGIES)}")
        control = ensure_control(control)
        n, m = len(problem.paragraphs), len(problem.candidates)
        if m == 0 or n == 0:
            return [Placement(paragraph=i, paragraph_text=t) for i, t in enumerate(problem.paragraphs)]
        if strategy == "sequence":
            return self._assign_sequence(problem, control)
        if strategy == "align":
            return self._assign_align(problem, control)
        if strategy == "baseline":
            control.report(0, 1, "placing")
            valid = ~problem._empty_rows()
            choices, scores = al.baseline_alignment(problem.paragraphs, problem.candidates, problem.ranks, valid,
                                                    problem.first_mention)
            control.report(1, 1, "placing")
            return [self._placement(problem, i, choices[i], scores[i]) for i in range(n)]
        probs = problem.probabilities()
        if strategy == "greedy":
            blocked = problem._empty_rows()

            def window(members: list[int]) -> np.ndarray:
                # an image goes after the window's last paragraph: never after a heading
                if blocked[members[-1]]:
                    return np.full(m, -np.inf)
                return problem.window_probabilities(members)

            picked = greedy_assign(n, window, problem.threshold, control=control)
            choices = [c for c, _ in picked]
            row_scores = [s for _, s in picked]
        else:
            control.report(0, 1, "placing")
            choices = global_assign(
                probs,
                problem.threshold,
                order=[c.order for c in problem.candidates],
                order_penalty=problem.order_penalty,
            )
            control.report(1, 1, "placing")
            row_scores = [np.where(np.isfinite(probs[i]), probs[i], -np.inf) for i in range(n)]
        return [self._placement(problem, i, choices[i], row_scores[i]) for i in range(n)]

    def _assign_sequence(self, problem: PlacementProblem, control: JobControl) -> list[Placement]:
        if problem.profile is None or problem.profile.key != self.sequence_profile:
            # The second stage was fitted on the caption-embedding profile's logits only; other profiles
            # (words only, OCR, citing sentences) have other scales: their own fitted global assignment.
            note = "the sequence model fits caption embeddings only: placed with the global strategy"
            self.warnings.append(note)
            problem.warnings.append(note)
            return self.assign(problem, "global", control=control)
        control.report(0, 2, "rescoring")
        mark = time.perf_counter()
        self.rescore(problem, control)
        self.timings["rescore_s"] = time.perf_counter() - mark
        mark = time.perf_counter()
        control.report(1, 2, "placing")
        probs = problem.sequence_probabilities()
        assert problem.sequence_model is not None  # rescore() chose it
        threshold = self.threshold if self.threshold is not None else problem.sequence_model.threshold
        utility = problem.sequence_utility(threshold)
        choices = monotone_assign(utility, problem.ranks, out_of_order=problem.sequence_model.out_of_order)
        control.report(2, 2, "placing")
        n = len(problem.paragraphs)
        ordered = {j for j in monotone_assign(utility, problem.ranks) if j is not None}
        rows = [np.where(np.isfinite(probs[i]), probs[i], -np.inf) for i in range(n)]
        taken = {j: i for i, j in enumerate(choices) if j is not None}
        out = []
        for i in range(n):
            placement = self._placement(problem, i, choices[i], rows[i])
            shown = placement.candidate if placement.candidate is not None else placement.signals.get("best_candidate")
            if shown is not None:
                shown = int(shown)
                placement.why = self.explain(problem, i, shown, threshold, taken, choices[i] is not None and shown not in ordered)
            out.append(placement)
        self.timings["assign_s"] = time.perf_counter() - mark
        return out

    def alignment_inputs(self, problem: PlacementProblem, control: JobControl | None = None) -> dict[str, np.ndarray]:
        """The fitted alignment's features for a prepared problem (the cross-encoder run on each visual's
        best paragraphs when it is there and the text is English; ``problem.ce`` keeps its logits)."""
        valid = ~problem._empty_rows()
        lex = al.lexical_matrix(problem.paragraphs, problem.candidates)
        emb = problem.sims.get("caption")
        sent = problem.sims.get("caption_sent")
        top_k = self.top_k if self.top_k is not None else al.TOP_K
        if problem.ce is None and top_k > 0 and problem.candidates:
            if self.cross_encoder is None and self.cross_encoder_loader is not None:
                self.cross_encoder = self._load(self.cross_encoder_loader)
                self.cross_encoder_loader = None  # loaded or missing: either way asked once
            if self.cross_encoder is not None:
                captions = al.visual_texts(problem.candidates)
                language = foreign_paragraphs(problem.paragraphs, captions)
                if language:
                    problem.warnings.append(language)
                    self.warnings.append(language)
                else:
                    ce, notes = rescore_heads(self.cross_encoder, problem.paragraphs, captions,
                                              al.base_matrix(lex, emb, valid), top_k, control=control)
                    problem.warnings.extend(notes)
                    self.warnings.extend(notes)
                    if any("rescoring failed" in note for note in notes):
                        self.model_warnings.extend(notes)
                        self.cross_encoder = None  # do not try a broken model again
                    elif np.isfinite(ce).any():
                        problem.ce = ce
        return al.alignment_features(lex, emb, sent, problem.ce, problem.ranks, valid, problem.section_kinds,
                                     problem.section_first, [c.kind for c in problem.candidates])

    def _assign_align(self, problem: PlacementProblem, control: JobControl) -> list[Placement]:
        if "caption" not in problem.sims:
            # the alignment was fitted with MiniLM's cosines; words alone are the strong baseline's ground
            note = "no text embeddings: placed with the lexical baseline (every figure once, in order)"
            self.warnings.append(note)
            problem.warnings.append(note)
            return self.assign(problem, "baseline", control=control)
        control.report(0, 2, "rescoring")
        mark = time.perf_counter()
        features = self.alignment_inputs(problem, control)
        self.timings["rescore_s"] = time.perf_counter() - mark
        mark = time.perf_counter()
        control.report(1, 2, "placing")
        model = self.alignment.models["ce" if problem.ce is not None else "no_ce"]
        valid = ~problem._empty_rows()
        utility = model.utility(features, valid)
        choices = al.solve(utility, problem.ranks, problem.first_mention, model.out_of_order)
        ordered = {j for j in al.solve(utility, problem.ranks, problem.first_mention, None) if j is not None}
        control.report(2, 2, "placing")
        n = len(problem.paragraphs)
        # a pair's shown score: its visual's probability of this paragraph (softmax over paragraphs + nowhere)
        z = np.where(valid[:, None], model.logits(features, utility.shape), -np.inf)
        top = np.maximum(z.max(axis=0, initial=model.nowhere), model.nowhere) if z.size else np.zeros(0)
        denominator = np.exp(z - top).sum(axis=0) + np.exp(model.nowhere - top)
        probs = np.where(valid[:, None], np.exp(z - top) / denominator, np.nan)
        taken = {j: i for i, j in enumerate(choices) if j is not None}
        threshold = 1.0 / (1.0 + math.exp(-(model.nowhere - model.bonus)))
        out = []
        for i in range(n):
            row = np.where(np.isfinite(probs[i]), probs[i], -np.inf)
            placement = self._placement(problem, i, choices[i], row)
            shown = placement.candidate if placement.candidate is not None else placement.signals.get("best_candidate")
            if shown is not None:
                shown = int(shown)
                placement.why = self.explain(problem, i, shown, threshold, taken,
                                             choices[i] is not None and shown not in ordered)
                # where the paragraph sits alone (its place against the visual's rank, its section)
                prior = sum(float(model.weights.get(name, 0.0)) * float(features[name][i, shown])
                            for name in al.POSITION if name in features)
                placement.why.position_prior = round(prior, 3)
            out.append(placement)
        self.timings["assign_s"] = time.perf_counter() - mark
        return out

    @staticmethod
    def utility(probabilities: np.ndarray, threshold: float) -> np.ndarray:
        """Log-odds of each pair's score above the threshold's; NaN scores are never chosen."""
        probs = np.asarray(probabilities, dtype=np.float64)
        clipped = np.clip(np.nan_to_num(probs, nan=0.0), 1e-9, 1 - 1e-9)
        utility = np.log(clipped / (1 - clipped)) - cal.logit(threshold)
        return np.where(np.isfinite(probs), utility, -np.inf)

    def rescore(self, problem: PlacementProblem, control: JobControl | None = None) -> None:
        """Choose the second-stage model and, when the cross-encoder is on, rescore each figure's best
        paragraphs (once per problem)."""
        if problem.sequence_model is not None:
            return
        top_k = self.top_k if self.top_k is not None else self.sequence_models["ce"].top_k
        if self.cross_encoder is None and self.cross_encoder_loader is not None and top_k > 0 and problem.candidates:
            self.cross_encoder = self._load(self.cross_encoder_loader)
            self.cross_encoder_loader = None  # loaded or missing: either way asked once
        if self.cross_encoder is not None and top_k > 0 and problem.candidates:
            captions = [" ".join(caption_body(c.caption).split()) for c in problem.candidates]
            language = foreign_paragraphs(problem.paragraphs, captions)
            if language:
                problem.warnings.append(language)
                self.warnings.append(language)
            else:
                ce, notes = rescore_heads(
                    self.cross_encoder, problem.paragraphs, captions, problem.base_logits(), top_k,
                    control=control,
                )
                problem.warnings.extend(notes)
                self.warnings.extend(notes)
                if any("rescoring failed" in note for note in notes):
                    self.model_warnings.extend(notes)
                    self.cross_encoder = None  # do not try a broken model again
                elif np.isfinite(ce).any():
                    problem.ce = ce
        problem.sequence_model = self.sequence_models["ce" if problem.ce is not None else "no_ce"]

    def explain(
        self,
        problem: PlacementProblem,
        i: int,
        j: int,
        threshold: float,
        taken: Mapping[int, int],
        out_of_order: bool,
    ) -> PlacementWhy:
        """Why candidate ``j`` is (or is not) placed after paragraph ``i``: for the authoring view."""
        candidate = problem.candidates[j]
        sims = problem.sims
        caption = None
        for name in ("caption_sent", "caption", "caption_lex"):
            if name in sims and np.isfinite(sims[name][i, j]):
                caption = round(float(sims[name][i, j]), 4)
                break
        ce = None
        if problem.ce is not None and np.isfinite(problem.ce[i, j]):
            ce = round(float(1.0 / (1.0 + np.exp(-problem.ce[i, j]))), 4)
        sentences = problem.similarity.best_sentences(i, j)
        paragraph_words = set(tokens(problem.paragraphs[i]))
        ocr_words = [w for w in dict.fromkeys(tokens(candidate.ocr_text or "")) if w in paragraph_words][:12]
        stems = problem.similarity.shared_words(i, j)
        caption_words = _surface_forms(caption_body(candidate.caption), stems)
        paragraph_forms = _surface_forms(problem.paragraphs[i], stems)
        prior = problem.position_prior(i, j)
        if problem.mention[i, j]:
            mention = candidate.label
        else:
            mention = None
        placed_at = taken.get(j)
        if placed_at == i:
            decision = "placed against the figures' order (very confident)" if out_of_order else "placed"
        elif placed_at is not None:
            decision = f"placed after paragraph {placed_at + 1} instead"
        else:
            decision = "below the threshold"
        return PlacementWhy(
            candidate=j,
            caption_match=caption,
            cross_encoder=ce,
            matched_sentences=sentences,
            ocr_words=ocr_words,
            caption_words=caption_words,
            paragraph_words=paragraph_forms,
            position_prior=None if prior is None else round(prior, 3),
            mention=mention,
            figure_rank=problem.ranks[j] + 1 if problem.ranks else None,
            paragraph_position=round(i / max(len(problem.paragraphs) - 1, 1), 3),
            threshold=round(threshold, 4),
            decision=decision,
        )

    def prepare(
        self,
        paragraphs: Sequence[str],
        candidates: Sequence[ImageCandidate],
        *,
        proposals: Mapping[int, int] | None = None,
        control: JobControl | None = None,
        sections: Sequence[Sequence[str] | str | None] | None = None,
        headings: Sequence[bool] | None = None,
    ) -> PlacementProblem:
        """Read what is missing (OCR), embed, and compute every signal; no assignment yet.

        ``sections``: each paragraph's section titles (outermost first) when the caller knows them (a
        reading of a paper, a writer's Markdown headings); otherwise the headings among the paragraphs
        start the sections. ``headings``: which paragraphs are headings (never an image); None: the
        heading-like lines (:func:`~mmdocsum_desktop.placement.sequence.heading_rows`); all False for a
        list of paragraphs that has none (``mmdocsum place`` with a JSON list)."""
        control = ensure_control(control)
        self.warnings = list(self.model_warnings)
        self.timings = {}
        texts = self._check_paragraphs(paragraphs)
        pool = list(candidates)
        for index, candidate in enumerate(pool):
            if not isinstance(candidate, ImageCandidate):
                raise TypeError(f"candidates[{index}] is {type(candidate).__name__}, not ImageCandidate")
        if not pool:
            self.warnings.append("the image pool is empty: no paragraph gets an image")
        elif not any(t.strip() for t in texts):
            self.warnings.append("no paragraph has any text: no paragraph gets an image")
        mark = time.perf_counter()
        if (self.ocr is not None or self.ocr_loader is not None) and self.use_ocr:
            self._read_images(pool, control)
        self.timings["ocr_s"] = time.perf_counter() - mark
        mark = time.perf_counter()
        views = candidate_texts(pool, use_caption=self.use_caption, use_ocr=self.use_ocr, use_context=self.use_context)
        similarity = SimilarityModel(
            texts, views, embedder=self.embedder, exclude_self_context=self.exclude_self_context, control=control
        )
        self.timings["embed_s"] = time.perf_counter() - mark
        if similarity.warnings and similarity.embedder is None and self.embedder is not None:
            self.embedder = None  # do not try a broken model again
            self.model_warnings.extend(similarity.warnings)
        self.warnings.extend(similarity.warnings)
        rows = [[i] for i in range(len(texts))]
        sims = similarity.similarities(rows) if pool else {}
        if not similarity.has_embeddings:
            sims = {k: v for k, v in sims.items() if k.endswith("_lex") or k in WORD_EVIDENCE}
        if self.clip is not None and pool and texts:
            clip_matrix, notes = clip_similarities(self.clip, texts, pool, control=control)
            self.warnings.extend(notes)
            if clip_matrix is None:
                self.clip = None  # do not try a broken model again
                self.model_warnings.extend(notes)
            elif np.isfinite(clip_matrix).any():
                clip_matrix[[not t.strip() for t in texts], :] = np.nan
                sims["clip"] = clip_matrix
        present = {k for k, v in sims.items() if v.size and np.isfinite(v).any()}
        sims = {k: v for k, v in sims.items() if k in present}
        profile = cal.choose_profile(present, self.profiles)
        mention, first, other = mention_matrices(texts, pool)
        proposal = self._proposal_matrix(proposals, len(texts), len(pool))
        threshold = self.threshold
        if threshold is None:
            threshold = profile.threshold if profile else float(cal.NO_FIT["threshold"])
        order_penalty = self.order_penalty if self.order_penalty is not None else (profile.order_penalty if profile else 0.0)
        if sections is not None and len(sections) != len(texts):
            raise PlacementError(f"sections gives {len(sections)} entries for {len(texts)} paragraphs")
        if headings is not None and len(headings) != len(texts):
            raise PlacementError(f"headings gives {len(headings)} entries for {len(texts)} paragraphs")
        heading_mask = heading_rows(texts) if headings is None else np.array([bool(h) for h in headings], dtype=bool)
        kinds, opens = paragraph_sections(texts, sections, heading_mask)
        head = self.fitted.paragraph_head
        head_logits = None
        if head is not None and similarity.para_emb is not None and head.applies_to(similarity.embedder):
            head_logits = head.logits(similarity.para_emb)
        return PlacementProblem(
            paragraph_head=head_logits,
            headings=heading_mask,
            section_kinds=kinds,
            section_first=opens,
            paragraphs=texts,
            candidates=pool,
            similarity=similarity,
            sims=sims,
            mention=mention,
            first_mention=first,
            other_mention=other,
            proposal=proposal,
            profile=profile,
            threshold=threshold,
            order_penalty=order_penalty,
            warnings=list(self.warnings),
            ranks=figure_ranks([c.label for c in pool], [c.kind for c in pool], [c.order for c in pool]),
        )

    # ------------------------------------------------------------------------------------ internals

    @staticmethod
    def _check_paragraphs(paragraphs: Sequence[str]) -> list[str]:
        if isinstance(paragraphs, str):
            raise TypeError("paragraphs is a list of strings, not one string")
        texts = []
        for index, text in enumerate(paragraphs):
            if text is None:
                text = ""
            if not isinstance(text, str):
                raise TypeError(f"paragraphs[{index}] is {type(text).__name__}, not str")
            texts.append(text)
        return texts

    def _read_images(self, pool: list[ImageCandidate], control: JobControl) -> None:
        todo = [c for c in pool if c.ocr_text is None and c.image]
        if todo and self.ocr_lookup is not None:
            # Crops read before (this document opened, summarised or placed earlier, in any process):
            # their text comes from the content cache by the file's hash, without loading OCR.
            for candidate in todo:
                assert candidate.image is not None  # todo holds candidates with an image only
                candidate.ocr_text = self.ocr_lookup(candidate.image)
            todo = [c for c in todo if c.ocr_text is None]
        if todo and self.ocr is None and self.ocr_loader is not None:
            self.ocr = self._load(self.ocr_loader)
            self.ocr_loader = None
        if not todo or self.ocr is None:
            return
        for done, candidate in enumerate(todo):
            control.report(done, len(todo), "reading text in images")
            assert candidate.image is not None
            try:
                candidate.ocr_text = self.ocr.read_text(candidate.image, control=control)
            except JobCancelled:
                raise
            except MmdocsumError as error:
                candidate.ocr_text = ""
                name = candidate.display_name()
                where = name if name == Path(candidate.image).name else f"{name} ({Path(candidate.image).name})"
                self.warnings.append(f"OCR skipped {where}: {error}")
            except Exception as error:  # noqa: BLE001 — a failing OCR model must not stop placement
                candidate.ocr_text = ""
                self.warnings.append(
                    f"OCR failed on {candidate.display_name()} ({type(error).__name__}: {error}); left out"
                )
        if todo:
            control.report(len(todo), len(todo), "reading text in images")

    def _proposal_matrix(self, proposals: Mapping[int, int] | None, n: int, m: int) -> np.ndarray:
        matrix = np.zeros((n, m))
        for paragraph, candidate in (proposals or {}).items():
            if candidate is None:
                continue
            try:
                i, j = int(paragraph), int(candidate)
            except (TypeError, ValueError):
                self.warnings.append(f"ignored the proposal {paragraph!r} -> {candidate!r}: not indices")
                continue
            if 0 <= i < n and 0 <= j < m:
                matrix[i, j] = 1.0
            else:
                self.warnings.append(f"ignored the proposal of candidate {j} for paragraph {i}: out of range")
        return matrix

    def _placement(self, problem: PlacementProblem, i: int, choice: int | None, scores: np.ndarray) -> Placement:
        text = problem.paragraphs[i]
        scores = np.asarray(scores, dtype=np.float64)
        shown = choice
        if shown is None and scores.size and np.isfinite(scores).any():
            shown = int(np.argmax(scores))
        score = float(scores[shown]) if shown is not None and np.isfinite(scores[shown]) else 0.0
        signals = problem.signal_values(i, shown) if shown is not None else {}
        if choice is None:
            if shown is not None:
                signals["best_candidate"] = float(shown)
            return Placement(paragraph=i, paragraph_text=text, score=score, signals=signals)
        candidate = problem.candidates[choice]
        return Placement(
            paragraph=i,
            paragraph_text=text,
            image=candidate.image,
            figure=candidate.figure,
            candidate=choice,
            score=score,
            signals=signals,
        )


# Utility added to a pair whose paragraph is the first to cite the figure's label.
FIRST_MENTION_UTILITY = 10.0


def decisive_mentions(utility: np.ndarray, first_mention: np.ndarray) -> np.ndarray:
    """The paragraph that first cites a figure by its label ("See Figure 4") gets that figure: the pair
    gains :data:`FIRST_MENTION_UTILITY`, the paragraph is closed to other figures and the figure to other
    paragraphs. (The mention logit alone is not enough in the monotone alignment: many moderate pairs of
    earlier figures after that paragraph can outweigh it, and the user's own citation must win.)"""
    u = np.array(utility, dtype=np.float64, copy=True)
    rows, cols = np.nonzero(np.asarray(first_mention) > 0)
    for i, j in zip(rows, cols):
        value = u[i, j]
        if not np.isfinite(value):
            continue
        u[i, :] = np.minimum(u[i, :], -1.0)
        u[:, j] = np.minimum(u[:, j], -1.0)
    for i, j in zip(rows, cols):
        if np.isfinite(utility[i, j]):
            u[i, j] = max(float(utility[i, j]), 0.0) + FIRST_MENTION_UTILITY
    return u


def _surface_forms(paragraph: str, words: Sequence[str], limit: int = 12) -> list[str]:
    """The paragraph's words as written ("cells", "HEK293") for the matched word stems ``words``."""
    wanted = set(words)
    forms: dict[str, str] = {}
    for written in re.findall(r"[^\W_]+(?:[-.][^\W_]+)*", paragraph):
        stem = tokens(written)
        if stem and stem[0] in wanted and stem[0] not in forms:
            forms[stem[0]] = written
    return [forms[w] for w in words if w in forms][:limit]
