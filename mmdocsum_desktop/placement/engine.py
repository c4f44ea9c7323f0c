"""The placement engine: which image of a pool goes after which paragraph (or none).

``PlacementEngine(embedder, ocr, clip, threshold).place(paragraphs, candidates, strategy)`` works with any
subset of the models: without an embedder it matches words (TF-IDF), without OCR or CLIP it leaves those
signals out, and a model that fails on some input is dropped for that input with a warning
(``engine.warnings``) instead of stopping the placement.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np

from mmdocsum_desktop.errors import JobCancelled, MmdocsumError
from mmdocsum_desktop.jobs import JobControl, ensure_control
from mmdocsum_desktop.placement import calibration as cal
from mmdocsum_desktop.placement._weights import PROFILES
from mmdocsum_desktop.placement.assign import global_assign, greedy_assign
from mmdocsum_desktop.placement.candidates import ImageCandidate, Placement, PlacementError
from mmdocsum_desktop.placement.scorer import (
    SimilarityModel,
    candidate_texts,
    clip_similarities,
    mention_matrices,
)

Strategy = Literal["global", "greedy"]
STRATEGIES = ("global", "greedy")


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
    _logits: np.ndarray | None = None
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

    def probabilities(self) -> np.ndarray:
        """Calibrated score of every (paragraph, candidate) pair; NaN for paragraphs with no text."""
        if self._probabilities is None:
            self._probabilities = cal.column_probabilities(self.pair_logits(), self.nowhere, ~self._empty_rows())
        return self._probabilities

    def _empty_rows(self) -> np.ndarray:
        return np.array([not p.strip() for p in self.paragraphs], dtype=bool)

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
        self.profiles = dict(profiles) if profiles is not None else dict(PROFILES)
        self.model_warnings: list[str] = []  # models missing or dropped: kept across calls
        self.warnings: list[str] = []  # those, and what the last call met

    @classmethod
    def with_default_models(
        cls,
        *,
        embedder: bool = True,
        ocr: bool = True,
        clip: str | None = None,
        threshold: float | None = None,
        **options,
    ) -> PlacementEngine:
        """An engine with the installed models; a missing or broken one is left out with a warning."""
        notes: list[str] = []
        text_model = ocr_engine = clip_model = None
        if embedder:
            try:
                from mmdocsum_desktop.models.embed import TextEmbedder

                text_model = TextEmbedder()
            except (MmdocsumError, OSError) as error:
                notes.append(f"text embedder unavailable ({error}); matching words instead")
        if ocr:
            try:
                from mmdocsum_desktop.models.ocr import shared_engine

                ocr_engine = shared_engine()
            except (MmdocsumError, OSError) as error:
                notes.append(f"OCR unavailable ({error}); placing without the text inside images")
        if clip:
            try:
                from mmdocsum_desktop.models.clip import load_clip

                clip_model = load_clip(clip)
            except (MmdocsumError, OSError) as error:
                notes.append(f"CLIP model {clip!r} unavailable ({error}); placing without CLIP")
        engine = cls(text_model, ocr_engine, clip_model, threshold, **options)
        engine.model_warnings.extend(notes)
        engine.warnings = list(notes)
        return engine

    # ------------------------------------------------------------------------------------------ api

    def place(
        self,
        paragraphs: Sequence[str],
        candidates: Sequence[ImageCandidate],
        strategy: Strategy = "global",
        proposals: Mapping[int, int] | None = None,
        control: JobControl | None = None,
    ) -> list[Placement]:
        """One :class:`Placement` per paragraph; each candidate used at most once."""
        if strategy not in STRATEGIES:
            raise PlacementError(f"unknown strategy {strategy!r}: use one of {', '.join(STRATEGIES)}")
        control = ensure_control(control)
        problem = self.prepare(paragraphs, candidates, proposals=proposals, control=control)
        return self.assign(problem, strategy, control=control)

    def assign(
        self, problem: PlacementProblem, strategy: Strategy = "global", control: JobControl | None = None
    ) -> list[Placement]:
        """Turn the scores of a prepared problem into one placement per paragraph."""
        if strategy not in STRATEGIES:
            raise PlacementError(f"unknown strategy {strategy!r}: use one of {', '.join(STRATEGIES)}")
        control = ensure_control(control)
        n, m = len(problem.paragraphs), len(problem.candidates)
        if m == 0 or n == 0:
            return [Placement(paragraph=i, paragraph_text=t) for i, t in enumerate(problem.paragraphs)]
        probs = problem.probabilities()
        if strategy == "greedy":
            picked = greedy_assign(n, problem.window_probabilities, problem.threshold, control=control)
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

    def prepare(
        self,
        paragraphs: Sequence[str],
        candidates: Sequence[ImageCandidate],
        *,
        proposals: Mapping[int, int] | None = None,
        control: JobControl | None = None,
    ) -> PlacementProblem:
        """Read what is missing (OCR), embed, and compute every signal; no assignment yet."""
        control = ensure_control(control)
        self.warnings = list(self.model_warnings)
        texts = self._check_paragraphs(paragraphs)
        pool = list(candidates)
        for index, candidate in enumerate(pool):
            if not isinstance(candidate, ImageCandidate):
                raise TypeError(f"candidates[{index}] is {type(candidate).__name__}, not ImageCandidate")
        if not pool:
            self.warnings.append("the image pool is empty: no paragraph gets an image")
        elif not any(t.strip() for t in texts):
            self.warnings.append("no paragraph has any text: no paragraph gets an image")
        if self.ocr is not None and self.use_ocr:
            self._read_images(pool, control)
        views = candidate_texts(pool, use_caption=self.use_caption, use_ocr=self.use_ocr, use_context=self.use_context)
        similarity = SimilarityModel(
            texts, views, embedder=self.embedder, exclude_self_context=self.exclude_self_context, control=control
        )
        if similarity.warnings and similarity.embedder is None and self.embedder is not None:
            self.embedder = None  # do not try a broken model again
            self.model_warnings.extend(similarity.warnings)
        self.warnings.extend(similarity.warnings)
        rows = [[i] for i in range(len(texts))]
        sims = similarity.similarities(rows) if pool else {}
        if not similarity.has_embeddings:
            sims = {k: v for k, v in sims.items() if k.endswith("_lex")}
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
        return PlacementProblem(
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
        for done, candidate in enumerate(todo):
            control.report(done, len(todo), "reading text in images")
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
