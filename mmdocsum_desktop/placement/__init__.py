"""Placement: which image of a pool goes after which paragraph, or none.

    candidates = candidates_from_document(document, base_dir)
    engine = PlacementEngine(embedder=TextEmbedder(), ocr=OcrEngine(), clip=None)
    placements = engine.place(paragraphs, candidates)  # strategy="sequence"
"""

from mmdocsum_desktop.placement.candidates import (
    candidates_from_document,
    candidates_from_folder,
    read_captions_file,
)
from mmdocsum_desktop.placement.engine import STRATEGIES, PlacementEngine, PlacementProblem
from mmdocsum_desktop.schemas.placement import ImageCandidate, Placement, PlacementError, PlacementWhy

__all__ = [
    "STRATEGIES",
    "ImageCandidate",
    "Placement",
    "PlacementEngine",
    "PlacementError",
    "PlacementProblem",
    "PlacementWhy",
    "candidates_from_document",
    "candidates_from_folder",
    "read_captions_file",
]
