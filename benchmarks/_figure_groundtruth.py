"""Score figure detection against Docling ground truth (DoclingDocument JSON, bottom-left origin).

Used by the benchmark script and by the regression test, so both count the same way: a ground-truth
picture "has a caption" when Docling links one; it is found when a detected captioned figure on the
same page overlaps it with IoU >= 0.5.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from mmdocsum_desktop.schemas.document import Document


@dataclass
class GroundTruthFigure:
    page: int
    bbox: tuple[float, float, float, float]  # top-left origin, PDF points
    caption: str


@dataclass
class FileScore:
    name: str
    truth: int
    predicted: int
    matched: int
    caption_matches: int
    misses: list[str] = field(default_factory=list)
    extras: list[str] = field(default_factory=list)


def load_groundtruth(path: Path) -> list[GroundTruthFigure]:
    data = json.loads(path.read_text(encoding="utf-8"))
    heights = {int(number): page["size"]["height"] for number, page in data["pages"].items()}
    figures = []
    for picture in data.get("pictures", []):
        captions = [_resolve(data, ref["$ref"])["text"] for ref in picture.get("captions", [])]
        if not captions:
            continue
        prov = picture["prov"][0]
        box = prov["bbox"]
        height = heights[prov["page_no"]]
        if box.get("coord_origin", "BOTTOMLEFT") == "BOTTOMLEFT":
            rect = (box["l"], height - box["t"], box["r"], height - box["b"])
        else:
            rect = (box["l"], box["t"], box["r"], box["b"])
        figures.append(GroundTruthFigure(prov["page_no"], rect, " ".join(captions)))
    return figures


def _resolve(data: dict, ref: str) -> dict:
    _, collection, index = ref.split("/")
    return data[collection][int(index)]


def iou(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def normalise_whitespace(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def score_file(name: str, document: Document, truth: list[GroundTruthFigure]) -> FileScore:
    predicted = [f for f in document.figures if f.label and f.bbox is not None]
    used: set[int] = set()
    matched = captions_ok = 0
    misses = []
    for gt in truth:
        best, best_iou = None, 0.0
        for position, figure in enumerate(predicted):
            if position in used or figure.page != gt.page:
                continue
            overlap = iou(gt.bbox, figure.bbox)
            if overlap > best_iou:
                best, best_iou = position, overlap
        if best is not None and best_iou >= 0.5:
            used.add(best)
            matched += 1
            if normalise_whitespace(predicted[best].caption) == normalise_whitespace(gt.caption):
                captions_ok += 1
        else:
            misses.append(f"p{gt.page} {gt.caption[:40]!r} best IoU {best_iou:.2f}")
    extras = [f"p{f.page} {f.label}" for i, f in enumerate(predicted) if i not in used]
    return FileScore(name, len(truth), len(predicted), matched, captions_ok, misses, extras)


def summarise(scores: list[FileScore]) -> dict[str, float]:
    truth = sum(s.truth for s in scores)
    predicted = sum(s.predicted for s in scores)
    matched = sum(s.matched for s in scores)
    captions = sum(s.caption_matches for s in scores)
    return {
        "ground_truth": truth,
        "predicted": predicted,
        "matched": matched,
        "recall": matched / truth if truth else 1.0,
        "precision": matched / predicted if predicted else 1.0,
        "caption_accuracy": captions / matched if matched else 0.0,
    }
