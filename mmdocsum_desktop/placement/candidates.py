"""The images placement chooses from, and the one schema of a placement decision."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from mmdocsum_desktop.document.labels import find_mentions
from mmdocsum_desktop.errors import InputNotFoundError
from mmdocsum_desktop.schemas.document import Document, Figure
from mmdocsum_desktop.schemas.placement import ImageCandidate, PlacementError
from mmdocsum_desktop.text.sentences import split_sentences

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff", ".webp")
SIDECAR_NAMES = ("captions.json",)


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
