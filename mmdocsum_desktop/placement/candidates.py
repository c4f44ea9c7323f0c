"""The images placement chooses from, and the one schema of a placement decision."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from mmdocsum_desktop.document.labels import find_mentions
from mmdocsum_desktop.document.model import Document, Figure
from mmdocsum_desktop.errors import InputNotFoundError, MmdocsumError
from mmdocsum_desktop.text.sentences import split_sentences

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff", ".webp")
SIDECAR_NAMES = ("captions.json",)


class PlacementError(MmdocsumError):
    """Placement input the user can fix (an unreadable paragraphs file, a bad captions sidecar...)."""


class ImageCandidate(BaseModel):
    """One image of the pool, with the text that describes it.

    ``figure`` is what a user sees: the label ("Figure 3"), the 1-based index of an unlabelled figure of a
    document, or None for images of a folder. ``context`` holds the sentences of the document that cite
    this figure. ``ocr_text`` is filled lazily by the engine (None: not read yet; "" read, nothing found).
    """

    image: str | None = None
    label: str | None = None
    figure: str | int | None = None
    kind: Literal["figure", "table"] = "figure"
    caption: str = ""
    context: list[str] = Field(default_factory=list)
    ocr_text: str | None = None
    order: int = 0
    source_id: str | None = None

    def display_name(self) -> str:
        if self.label:
            return self.label
        if self.figure is not None:
            return f"{self.kind} {self.figure}"
        return Path(self.image).name if self.image else "(no image)"


class PlacementWhy(BaseModel):
    """Why a candidate was (or was not) placed after a paragraph, for the authoring view to show.

    ``caption_match``: similarity of the caption with the paragraph (best sentence); ``cross_encoder``:
    the cross-encoder's relevance (0..1) when it rescored the pair; ``matched_sentences``: the paragraph's
    sentences closest to the caption; ``ocr_words``: words read in the image that the paragraph uses too;
    ``mention``: the label the paragraph cites when it cites this figure; ``figure_rank``: the figure's
    place in the sequence (1 = first); ``paragraph_position``: 0 (first paragraph) … 1 (last);
    ``caption_words``: the caption's words the paragraph uses too, rarest in the paper first, and
    ``paragraph_words`` the same words as the paragraph writes them; ``position_prior``: the logit the
    fitted model gives the pair for where the paragraph sits alone (its place against the figure's rank,
    its section, its length), positive = a likely place for this figure whatever the words.
    """

    candidate: int
    caption_match: float | None = None
    cross_encoder: float | None = None
    matched_sentences: list[str] = Field(default_factory=list)
    ocr_words: list[str] = Field(default_factory=list)
    caption_words: list[str] = Field(default_factory=list)
    paragraph_words: list[str] = Field(default_factory=list)
    position_prior: float | None = None
    mention: str | None = None
    figure_rank: int | None = None
    paragraph_position: float | None = None
    threshold: float | None = None
    decision: str = ""

    def tooltip(self) -> str:
        """A few plain lines for a tooltip."""
        lines = [self.decision.capitalize()] if self.decision else []
        if self.mention:
            lines.append(f"The paragraph cites {self.mention}.")
        if self.caption_match is not None:
            lines.append(f"Caption match {self.caption_match:.2f}")
        if self.cross_encoder is not None:
            lines.append(f"Cross-encoder relevance {self.cross_encoder:.2f}")
        for sentence in self.matched_sentences:
            lines.append(f"“{sentence[:160]}”")
        if self.paragraph_words or self.caption_words:
            lines.append("Words shared with the caption: " + ", ".join(self.paragraph_words or self.caption_words))
        if self.ocr_words:
            lines.append("Words in the image: " + ", ".join(self.ocr_words))
        if self.position_prior is not None:
            lines.append(f"Position prior {self.position_prior:+.2f} (where the paragraph sits, before its words)")
        if self.figure_rank is not None and self.paragraph_position is not None:
            lines.append(f"Figure {self.figure_rank} of the sequence; paragraph at {self.paragraph_position:.0%} of the text")
        return "\n".join(lines)


class Placement(BaseModel):
    """What goes after one paragraph: an image of the pool, or none.

    ``score`` is the calibrated probability that ``candidate`` belongs after this paragraph; for "none"
    it is that of the best candidate considered (below the threshold, or given to another paragraph).
    ``signals`` holds the component scores of that candidate, for the GUI to show why.
    """

    paragraph: int
    paragraph_text: str
    image: str | None = None
    figure: str | int | None = None
    candidate: int | None = None
    score: float = 0.0
    signals: dict[str, float] = Field(default_factory=dict)
    why: PlacementWhy | None = None

    def summary(self) -> dict[str, Any]:
        """The four fields of ``placement.json``."""
        figure = self.figure if self.figure is None or isinstance(self.figure, str) else f"image {self.figure}"
        return {"paragraph": self.paragraph, "image": self.image, "figure": figure, "score": round(self.score, 4)}


def _document_order(visual: Figure) -> tuple:
    if visual.page is not None and visual.bbox is not None:
        return (0, visual.page, round(visual.bbox[1]), visual.bbox[0])
    return (1, visual.page or 0, visual.index, 0)


def mention_sentences(document: Document, visual: Figure) -> list[str]:
    """The sentences of the document's text (captions excluded) that cite ``visual``."""
    if not visual.label:
        return []
    label = visual.label.lower()
    blocks = {b.id: b for b in document.blocks}
    sentences: list[str] = []
    for block_id in visual.mentions:
        block = blocks.get(block_id)
        if block is None or block.type == "caption":
            continue
        for sentence in split_sentences(block.text):
            if any(k == visual.kind and lab.lower() == label for k, lab in find_mentions(sentence)):
                sentences.append(sentence)
    return sentences


def candidates_from_document(
    document: Document,
    base_dir: str | Path | None,
    *,
    include_tables: bool = True,
    require_image: bool = True,
) -> list[ImageCandidate]:
    """The figures (and tables) of a document, in document order.

    ``base_dir``: the folder of ``document.json`` that figure image paths are relative to (None: leave
    them as written). Visuals without an image crop are left out unless ``require_image`` is False.
    """
    visuals = list(document.figures) + (list(document.tables) if include_tables else [])
    visuals.sort(key=_document_order)
    base = Path(base_dir) if base_dir is not None else None
    candidates: list[ImageCandidate] = []
    for visual in visuals:
        image = None
        if visual.image:
            path = Path(visual.image)
            image = str(base / path) if base is not None and not path.is_absolute() else str(path)
        if image is None and require_image:
            continue
        candidates.append(
            ImageCandidate(
                image=image,
                label=visual.label,
                figure=visual.label if visual.label else visual.index,
                kind=visual.kind,
                caption=visual.caption,
                context=mention_sentences(document, visual),
                order=len(candidates),
                source_id=visual.id,
            )
        )
    return candidates


def _natural_key(name: str) -> list:
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", name)]


def read_captions_file(path: str | Path) -> dict[str, dict[str, Any]]:
    """A captions sidecar: ``{name: caption}`` or ``{name: {"caption": ..., "label": ..., "context": [...]}}``."""
    source = Path(path)
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except FileNotFoundError as error:
        raise InputNotFoundError(f"{source}: no such captions file") from error
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise PlacementError(f"{source}: not a JSON captions file ({error})") from error
    if not isinstance(data, dict):
        raise PlacementError(f"{source}: expected a JSON object mapping image names to captions")
    out: dict[str, dict[str, Any]] = {}
    for name, value in data.items():
        if isinstance(value, str):
            out[str(name)] = {"caption": value}
        elif isinstance(value, dict):
            context = value.get("context") or []
            out[str(name)] = {
                "caption": str(value.get("caption") or ""),
                "label": value.get("label") or None,
                "kind": value.get("kind") if value.get("kind") in ("figure", "table") else "figure",
                "context": [c["sentence"] if isinstance(c, dict) else str(c) for c in context],
            }
        elif value is None:
            out[str(name)] = {"caption": ""}
        else:
            raise PlacementError(f"{source}: the caption of {name!r} is neither text nor an object")
    return out


def candidates_from_folder(folder: str | Path, captions: str | Path | dict | None = None) -> list[ImageCandidate]:
    """The images of a folder (natural name order), captioned from ``captions`` or ``captions.json``."""
    root = Path(folder)
    if not root.is_dir():
        raise InputNotFoundError(f"{root}: no such folder")
    if captions is None:
        sidecar = next((root / name for name in SIDECAR_NAMES if (root / name).is_file()), None)
        notes = read_captions_file(sidecar) if sidecar else {}
    elif isinstance(captions, dict):
        notes = {k: {"caption": v} if isinstance(v, str) else dict(v) for k, v in captions.items()}
    else:
        notes = read_captions_file(captions)
    files = sorted(
        (p for p in root.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES),
        key=lambda p: _natural_key(p.name),
    )
    candidates = []
    for position, path in enumerate(files):
        note = notes.get(path.name) or notes.get(str(path)) or {}
        candidates.append(
            ImageCandidate(
                image=str(path),
                label=note.get("label"),
                figure=None,
                kind=note.get("kind", "figure"),
                caption=note.get("caption", ""),
                context=list(note.get("context", [])),
                order=position,
            )
        )
    return candidates
