"""Placing figures after the user's own paragraphs (``mmdocsum place``, the Authoring view)."""


from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.errors import MmdocsumError
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.placement.candidates import (
    candidates_from_document,
    candidates_from_folder,
    read_captions_file,
)
from mmdocsum_desktop.placement.engine import STRATEGIES, Strategy
from mmdocsum_desktop.schemas.document import Document
from mmdocsum_desktop.schemas.placement import ImageCandidate, Placement
from mmdocsum_desktop.schemas.settings import PlacementSettings
from mmdocsum_desktop.text.paragraphs import split_paragraphs

__all__ = ["STRATEGIES", "PlacementRun", "Strategy", "figure_candidates", "folder_candidates", "image_pool", "place", "read_captions_file"]


@dataclass
class PlacementRun:
    placements: list[Placement]
    pool: list[ImageCandidate]
    models: list[str]  # what scored the images: "text embeddings", "OCR", "CLIP"
    warnings: list[str]
    timings: dict[str, float] = field(default_factory=dict)  # seconds per step: ocr_s, embed_s, rescore_s, assign_s


def figure_candidates(document: Document, root: Path | None = None, *, include_tables: bool = True,
                      require_image: bool = True) -> list[ImageCandidate]:
    """A document's figures (and tables) in document order, numbered as its summary numbers them; crops
    under ``root`` (where its document.json is). May be empty."""
    return candidates_from_document(document, root, include_tables=include_tables, require_image=require_image)


def folder_candidates(folder: Path, captions: Path | None = None) -> list[ImageCandidate]:
    """A folder's images with their captions (``captions`` or the folder's captions.json); may be empty,
    InputNotFoundError when the folder is not there."""
    return candidates_from_folder(folder, captions)


def image_pool(*, document: Document | None = None, root: Path | None = None, folder: Path | None = None,
               captions: Path | None = None, include_tables: bool = True,
               require_image: bool = True) -> list[ImageCandidate]:
    """The images to place: a folder's (captions from ``captions``/captions.json) or a document's
    figures (crops under ``root``, where its document.json is); an MmdocsumError when there are none."""
    if folder is not None:
        pool = folder_candidates(folder, captions)
    elif document is not None:
        pool = figure_candidates(document, root, include_tables=include_tables, require_image=require_image)
    else:
        raise MmdocsumError("open a document or choose a folder of images first")
    if not pool:
        raise MmdocsumError("there are no images to place (the document has no figures, or the folder is empty)")
    return pool


def place(
    session: Session,
    paragraphs: str | Sequence[str],
    pool: Sequence[ImageCandidate],
    *,
    sections: Sequence[Sequence[str] | str | None] | None = None,
    placement: PlacementSettings | None = None,
    strategy: Strategy = "sequence",
    threshold: float | None = None,
    control: JobControl | None = None,
    top_k: int | None = None,
) -> PlacementRun:
    """For each paragraph the image of ``pool`` that belongs after it, or none; each image at most once.

    ``paragraphs``: the user's text as typed (split here, the one way the window and ``mmdocsum place``
    split it: :func:`~mmdocsum_desktop.text.paragraphs.split_paragraphs`), or paragraphs already split.
    ``sections``: the heading(s) each paragraph sits under, where known (a paper's own text).

    The models are the session's (loaded once per process; the cross-encoder and OCR only when a call
    needs them). ``top_k``: paragraphs the cross-encoder rescores per figure (None: the fitted model's)."""
    engine = session.placement_engine(placement, threshold=threshold)
    if top_k is not None:
        engine.top_k = top_k
    if isinstance(paragraphs, str):
        paragraphs = split_paragraphs(paragraphs)
    placements = list(engine.place(list(paragraphs), list(pool), strategy=strategy, control=control,
                                   sections=sections))
    return PlacementRun(placements, list(pool), engine.models_in_use(), list(engine.warnings), dict(engine.timings))
