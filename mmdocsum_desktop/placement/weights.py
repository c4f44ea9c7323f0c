"""The fitted placement model, read from a data file (``placement/weights.json``) and checked on load.

The file holds what :mod:`~mmdocsum_desktop.placement.calibration` needs: one *profile* (conditional-logit
weights over similarity features, "nowhere" logit, threshold, order penalty) per set of available signals,
the second stage of the "sequence" strategy (with and without cross-encoder features), the profile that
second stage was fitted on, and the provenance of the fit (script, date, data, selection). It is written
by ``tools/fit_placement.py --write-weights``; nothing else in the package writes it.

A damaged or hand-edited file never gives silently wrong placements: :func:`load_weights` raises a
:class:`PlacementError` that names the file and the first problem found.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from mmdocsum_desktop.placement.calibration import (
    BASE_SIGNALS,
    KINDS,
    Profile,
    SequenceModel,
    feature_names,
    profile_key,
)
from mmdocsum_desktop.placement.head import HEAD_FEATURE, ParagraphHead
from mmdocsum_desktop.placement.rescore import RESCORE_FEATURES
from mmdocsum_desktop.placement.sequence import NEIGHBOUR_FEATURES, SECTION_FEATURES
from mmdocsum_desktop.schemas.placement import PlacementError

WEIGHTS_FORMAT = 1
DEFAULT_WEIGHTS = Path(__file__).with_name("weights.json")
SEQUENCE_KEYS = ("ce", "no_ce")
SEQUENCE_FEATURE_NAMES = frozenset((*NEIGHBOUR_FEATURES, *SECTION_FEATURES, *RESCORE_FEATURES, HEAD_FEATURE))


@dataclass(frozen=True)
class PlacementWeights:
    """Everything fitted, as the engine uses it."""

    profiles: Mapping[str, Profile]
    sequence: Mapping[str, SequenceModel]  # "ce" and "no_ce"
    sequence_profile: str  # the profile key the second stage was fitted on
    provenance: Mapping[str, Any] = field(default_factory=dict)
    source: str = ""
    paragraph_head: ParagraphHead | None = None  # the sequence model's "para_head" feature


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(float(value)):
        raise ValueError(f"{where} is {value!r}, not a finite number")
    return float(value)


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"{where} is not an object")
    return value


def _profile(key: str, data: Mapping[str, Any]) -> Profile:
    where = f"profiles[{key!r}]"
    signals = data.get("signals")
    if not isinstance(signals, list) or not signals or not all(isinstance(s, str) for s in signals):
        raise ValueError(f"{where}.signals is not a list of signal names")
    unknown = sorted(set(signals) - set(BASE_SIGNALS))
    if unknown:
        raise ValueError(f"{where} names unknown signals {unknown}")
    if profile_key(signals) != key:
        raise ValueError(f"{where} is filed under the wrong key (its signals make {profile_key(signals)!r})")
    weights = _mapping(data.get("weights"), f"{where}.weights")
    allowed = set(feature_names(signals))
    stray = sorted(set(weights) - allowed)
    if stray:
        raise ValueError(f"{where}.weights has features its signals do not give: {stray}")
    threshold = _number(data.get("threshold"), f"{where}.threshold")
    if not 0.0 < threshold < 1.0:
        raise ValueError(f"{where}.threshold {threshold} is not between 0 and 1")
    return Profile(
        signals=tuple(signals),
        weights={name: _number(w, f"{where}.weights[{name!r}]") for name, w in weights.items()},
        nowhere=_number(data.get("nowhere"), f"{where}.nowhere"),
        threshold=threshold,
        order_penalty=_number(data.get("order_penalty"), f"{where}.order_penalty"),
    )


def _sequence(key: str, data: Mapping[str, Any]) -> SequenceModel:
    where = f"sequence[{key!r}]"
    weights = _mapping(data.get("weights"), f"{where}.weights")
    stray = sorted(set(weights) - SEQUENCE_FEATURE_NAMES)
    if stray:
        raise ValueError(f"{where}.weights has unknown features {stray}")
    threshold = _number(data.get("threshold"), f"{where}.threshold")
    if not 0.0 < threshold < 1.0:
        raise ValueError(f"{where}.threshold {threshold} is not between 0 and 1")
    top_k = data.get("top_k")
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 0:
        raise ValueError(f"{where}.top_k is {top_k!r}, not a count")
    out_of_order = data.get("out_of_order")
    return SequenceModel(
        weights={name: _number(w, f"{where}.weights[{name!r}]") for name, w in weights.items()},
        nowhere=_number(data.get("nowhere"), f"{where}.nowhere"),
        threshold=threshold,
        out_of_order=1e6 if out_of_order is None else _number(out_of_order, f"{where}.out_of_order"),
        top_k=top_k,
        fitted_on=str(data.get("fitted_on", "")),
        paragraph_prior=_number(data.get("paragraph_prior", 0.0), f"{where}.paragraph_prior"),
    )


def parse_weights(data: Any, source: str = "placement weights") -> PlacementWeights:
    """Check a decoded weights file and build the engine's objects; PlacementError on any problem."""
    try:
        data = _mapping(data, "the file")
        if data.get("format") != WEIGHTS_FORMAT:
            raise ValueError(f"format is {data.get('format')!r}; this version reads format {WEIGHTS_FORMAT}")
        provenance = _mapping(data.get("provenance"), "provenance")
        for needed in ("script", "fitted_at", "fitted_on"):
            if not str(provenance.get(needed) or "").strip():
                raise ValueError(f"provenance.{needed} is missing")
        raw_profiles = _mapping(data.get("profiles"), "profiles")
        profiles = {key: _profile(key, _mapping(value, f"profiles[{key!r}]")) for key, value in raw_profiles.items()}
        if not profiles:
            raise ValueError("profiles is empty")
        raw_sequence = _mapping(data.get("sequence"), "sequence")
        missing = [k for k in SEQUENCE_KEYS if k not in raw_sequence]
        if missing:
            raise ValueError(f"sequence lacks {missing}")
        sequence = {key: _sequence(key, _mapping(raw_sequence[key], f"sequence[{key!r}]")) for key in SEQUENCE_KEYS}
        sequence_profile = data.get("sequence_profile")
        if sequence_profile not in profiles:
            raise ValueError(f"sequence_profile {sequence_profile!r} is not one of the profiles")
        head = _head(data.get("paragraph_head"))
        if head is None and any(HEAD_FEATURE in model.weights for model in sequence.values()):
            raise ValueError(f"the sequence model weighs {HEAD_FEATURE!r} but the file has no paragraph_head")
    except ValueError as error:
        raise PlacementError(f"{source} is not a usable placement model: {error}") from error
    return PlacementWeights(profiles, sequence, str(sequence_profile), dict(provenance), source, head)


def _head(data: Any) -> ParagraphHead | None:
    if data is None:
        return None
    data = _mapping(data, "paragraph_head")
    embedder = data.get("embedder")
    if not isinstance(embedder, str) or not embedder:
        raise ValueError("paragraph_head.embedder is not a model id")
    weights = data.get("weights")
    if not isinstance(weights, list) or not weights:
        raise ValueError("paragraph_head.weights is not a list of numbers")
    return ParagraphHead(embedder, tuple(_number(w, "paragraph_head.weights[]") for w in weights),
                         _number(data.get("bias"), "paragraph_head.bias"))


def load_weights(path: str | Path | None = None) -> PlacementWeights:
    """The placement model of ``path`` (default: the shipped ``weights.json``), checked."""
    source = Path(path) if path is not None else DEFAULT_WEIGHTS
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except FileNotFoundError as error:
        raise PlacementError(f"{source}: the placement model file is missing (reinstall mmdocsum-desktop)") from error
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise PlacementError(f"{source}: the placement model file is not readable JSON ({error})") from error
    return parse_weights(data, str(source))


@lru_cache(maxsize=1)
def shipped_weights() -> PlacementWeights:
    """The shipped model, read once (a data file, not a model session: nothing to release)."""
    return load_weights(DEFAULT_WEIGHTS)


def weights_payload(
    profiles: Mapping[str, Profile],
    sequence: Mapping[str, SequenceModel],
    sequence_profile: str,
    provenance: Mapping[str, Any],
    paragraph_head: ParagraphHead | None = None,
) -> dict[str, Any]:
    """The JSON form of a model (what ``load_weights`` reads back)."""

    def seq(model: SequenceModel) -> dict[str, Any]:
        return {
            "weights": dict(model.weights),
            "nowhere": model.nowhere,
            "threshold": model.threshold,
            "out_of_order": None if model.out_of_order >= 1e6 else model.out_of_order,
            "top_k": model.top_k,
            "fitted_on": model.fitted_on,
            "paragraph_prior": model.paragraph_prior,
        }

    head = None
    if paragraph_head is not None:
        head = {"embedder": paragraph_head.embedder, "bias": paragraph_head.bias,
                "weights": [round(w, 6) for w in paragraph_head.weights]}
    return {
        "format": WEIGHTS_FORMAT,
        "paragraph_head": head,
        "provenance": dict(provenance),
        "sequence_profile": sequence_profile,
        "profiles": {
            key: {
                "signals": list(p.signals),
                "weights": dict(p.weights),
                "nowhere": p.nowhere,
                "threshold": p.threshold,
                "order_penalty": p.order_penalty,
            }
            for key, p in sorted(profiles.items())
        },
        "sequence": {key: seq(sequence[key]) for key in SEQUENCE_KEYS},
    }


__all__ = ["KINDS", "PlacementWeights", "load_weights", "parse_weights", "shipped_weights", "weights_payload"]
