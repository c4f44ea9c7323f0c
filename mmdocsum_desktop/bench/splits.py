"""Loaders for benchmark splits: the bundled demo splits and the official layouts users download.

Every loader returns a :class:`Split`: the usable items, and ``skipped`` — one entry per line or record
that could not be used (malformed JSON, missing fields, a missing document or image), with its line
number and the reason. A bad line never stops a run; the report lists what was skipped and why.

Layouts (also in the README section "Benchmark splits"):

- **M-DocSum** (``mmdocsum bench mdocsum --split PATH``): a JSONL file, one document per line,
  ``{"id", "document": path relative to the JSONL, "gold": [4 × {"summary", "image": {"imageRef",
  "imageCaption"}}], "key_points": [4 × [str]] (optional), "n_images" (optional)}``; or a folder
  holding one such ``*.jsonl``. Aliases accepted for other exports of M-DocSum-Bench: ``paper_id`` /
  ``doc_id`` for ``id``; ``pdf`` / ``path`` / ``markdown`` / ``file`` for ``document``;
  ``summary`` / ``reference`` / ``answer`` for ``gold``; ``keypoints`` / ``key_point`` for ``key_points``.
- **MCiteBench** (``mmdocsum bench mcite --split PATH``): the repository's ``data/`` folder as
  published — ``data.jsonl`` (or ``data_example.jsonl``) beside ``visual_resources/`` (or
  ``visual_resources_example/``) holding ``<pdf_id>/images/*.jpg`` — or a JSONL file with
  ``--images-root``.
- **LoRaLay** (``mmdocsum bench rouge --split PATH``): JSONL exported from the arXiv-Lay / PubMed-Lay /
  HAL / SciELO / KoreaScience datasets, ``{"article_id", "article_words": [...], "abstract"}``
  (bounding boxes are ignored), or ``{"id", "document": path, "abstract"}`` to summarise the PDF
  itself; a folder is searched for ``test.jsonl``, then any single ``*.jsonl``.
- **FTII-Bench**: read by ``bench/ftii.py`` (the placement issue); ``demo_ftii()`` gives the bundled one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from mmdocsum_desktop.bench.mcite import MCiteRecord, record_from_json
from mmdocsum_desktop.bench.mdocsum import MDocSumItem, parse_gold
from mmdocsum_desktop.errors import InputNotFoundError

T = TypeVar("T")

DEMO_ROOT = Path(__file__).resolve().parents[1] / "resources" / "demo"
DEMO_SPLITS = {
    "mdocsum": DEMO_ROOT / "mdocsum.jsonl",
    "rouge": DEMO_ROOT / "rouge.jsonl",
    "mcite": DEMO_ROOT / "mcite",
    "ftii": DEMO_ROOT / "ftii" / "flow_insertion.json",
}


@dataclass
class Skipped:
    line: int | None
    id: str | None
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "id": self.id, "reason": self.reason}


@dataclass
class Split(Generic[T]):
    name: str
    path: Path
    items: list[T] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


def resolve(split: str | Path, suite: str) -> Path:
    """``demo`` → the bundled split of that suite; anything else is a path that must exist."""
    if str(split) == "demo":
        path = DEMO_SPLITS[suite]
        if not path.exists():
            raise InputNotFoundError(f"the bundled demo split for {suite} is missing ({path})")
        return path
    path = Path(split).expanduser()
    if not path.exists():
        raise InputNotFoundError(f"{path}: no such split file or folder")
    return path


def _json_problem(error: ValueError | RecursionError) -> str:
    """Why json.loads refused a text, in a few words. Besides JSONDecodeError it raises a plain
    ValueError for integers of thousands of digits and RecursionError for very deep nesting."""
    if isinstance(error, json.JSONDecodeError):
        return f"{error.msg} at column {error.colno}"
    if isinstance(error, RecursionError):
        return "nested too deeply"
    return str(error).split(";")[0]


def _jsonl_lines(path: Path, skipped: list[Skipped]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each well-formed line; malformed lines are recorded in ``skipped``."""
    with path.open("r", encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except (ValueError, RecursionError) as error:
                skipped.append(Skipped(number, None, f"malformed JSON ({_json_problem(error)})"))
                continue
            if not isinstance(value, dict):
                skipped.append(Skipped(number, None, f"a JSON {type(value).__name__}, not an object"))
                continue
            yield number, value


def _records(path: Path, skipped: list[Skipped]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Objects from a JSONL file, or from a JSON file holding a list of objects."""
    if path.suffix.lower() == ".json":
        try:
            value = json.loads(path.read_text(encoding="utf-8", errors="replace"))
        except (ValueError, RecursionError) as error:
            skipped.append(Skipped(None, None, f"{path.name}: malformed JSON ({_json_problem(error)})"))
            return
        if isinstance(value, dict):
            value = value.get("data") or value.get("items") or [value]
        if not isinstance(value, list):
            skipped.append(Skipped(None, None, f"{path.name}: a JSON {type(value).__name__}, not a list of objects"))
            return
        for number, item in enumerate(value, start=1):
            if isinstance(item, dict):
                yield number, item
            else:
                skipped.append(Skipped(number, None, f"item {number} is not an object"))
        return
    yield from _jsonl_lines(path, skipped)


def _pick_file(folder: Path, preferred: tuple[str, ...]) -> Path:
    for name in preferred:
        if (folder / name).is_file():
            return folder / name
    found = sorted(folder.glob("*.jsonl"))
    if len(found) == 1:
        return found[0]
    listing = ", ".join(p.name for p in found) or "none"
    raise InputNotFoundError(
        f"{folder}: expected one of {', '.join(preferred)} (found JSONL files: {listing})"
    )


def _document_path(folder: Path, value: Any) -> Path:
    """The file a record names, relative to the split's folder; ValueError when no file can have that name."""
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        raise ValueError(f"the document is a JSON {type(value).__name__}, not a path")
    try:
        return (folder / str(value)).resolve()
    except (OSError, ValueError, RuntimeError) as error:  # a NUL in the name, a symbolic link loop
        raise ValueError(f"unusable document path ({error})") from error


def _count(value: Any) -> int | None:
    """A non-negative whole number from the record, or None (JSON true is not a count)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def _first(data: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        if key in data and data[key] not in (None, ""):
            return data[key]
    return None


# ------------------------------------------------------------------------------------------ mdocsum


def load_mdocsum(split: str | Path) -> Split[MDocSumItem]:
    path = resolve(split, "mdocsum")
    if path.is_dir():
        path = _pick_file(path, ("mdocsum.jsonl", "test.jsonl", "data.jsonl", "split.jsonl"))
    result: Split[MDocSumItem] = Split(name="demo" if str(split) == "demo" else path.stem, path=path)
    seen: set[str] = set()
    for number, data in _records(path, result.skipped):
        doc_id = _first(data, ("id", "paper_id", "doc_id", "arxiv_id"))
        if doc_id is None:
            result.skipped.append(Skipped(number, None, "no id"))
            continue
        doc_id = str(doc_id)
        if doc_id in seen:
            result.skipped.append(Skipped(number, doc_id, "duplicate id (the first line with it is used)"))
            continue
        gold_raw = _first(data, ("gold", "summary", "reference", "answer"))
        if isinstance(gold_raw, str):
            try:
                gold_raw = json.loads(gold_raw)
            except (ValueError, RecursionError):
                gold_raw = None
        try:
            gold = parse_gold(gold_raw)
        except ValueError as error:
            result.skipped.append(Skipped(number, doc_id, f"unusable gold: {error}"))
            continue
        key_points = _first(data, ("key_points", "keypoints", "key_point"))
        if key_points is not None and not (
            isinstance(key_points, list)
            and len(key_points) == 4
            and all(isinstance(k, list) and all(isinstance(p, str) for p in k) for k in key_points)
        ):
            result.skipped.append(Skipped(number, doc_id, "key_points must be 4 lists of strings; ignored"))
            key_points = None
        document = _first(data, ("document", "pdf", "path", "markdown", "file"))
        try:
            document_path = _document_path(path.parent, document) if document is not None else None
        except ValueError as error:
            result.skipped.append(Skipped(number, doc_id, str(error)))
            continue
        seen.add(doc_id)
        result.items.append(
            MDocSumItem(
                id=doc_id,
                document=document_path,
                gold=gold,
                key_points=key_points,
                n_images=_count(data.get("n_images")),
                n_tokens=_count(data.get("n_tokens")),
                line=number,
            )
        )
    return result


# ------------------------------------------------------------------------------------------ mcite


def load_mcite(split: str | Path, images_root: str | Path | None = None) -> Split[MCiteRecord]:
    path = resolve(split, "mcite")
    folder = path if path.is_dir() else path.parent
    if path.is_dir():
        path = _pick_file(path, ("data.jsonl", "data_example.jsonl"))
    if images_root is None:
        for name in ("visual_resources", "visual_resources_example"):
            if (folder / name).is_dir():
                images_root = folder / name
                break
    root = Path(images_root) if images_root is not None else None
    result: Split[MCiteRecord] = Split(name="demo" if str(split) == "demo" else path.stem, path=path)
    seen: set[str] = set()
    for number, data in _records(path, result.skipped):
        try:
            record = record_from_json(data, root, number)
        except (KeyError, ValueError, TypeError) as error:
            result.skipped.append(
                Skipped(
                    number,
                    str(data.get("question_id")) if data.get("question_id") else None,
                    f"unusable record: {error}",
                )
            )
            continue
        if record.id in seen:
            result.skipped.append(Skipped(number, record.id, "duplicate question_id (the first is used)"))
            continue
        seen.add(record.id)
        if record.missing:
            result.skipped.append(
                Skipped(
                    number,
                    record.id,
                    f"image files missing for {', '.join(record.missing)}; shown to the model as unavailable",
                )
            )
        result.items.append(record)
    return result


# ------------------------------------------------------------------------------------------ rouge


@dataclass
class RougeItem:
    id: str
    reference: str
    document: Path | None = None  # summarise this file (abstract removed) ...
    text: str | None = None  # ... or this text (LoRaLay's article_words joined)
    line: int = 0


def load_rouge(split: str | Path) -> Split[RougeItem]:
    path = resolve(split, "rouge")
    if path.is_dir():
        path = _pick_file(path, ("test.jsonl", "rouge.jsonl", "validation.jsonl"))
    result: Split[RougeItem] = Split(name="demo" if str(split) == "demo" else path.stem, path=path)
    seen: set[str] = set()
    for number, data in _records(path, result.skipped):
        item_id = _first(data, ("id", "article_id", "paper_id"))
        item_id = str(item_id) if item_id is not None else f"line-{number}"
        if item_id in seen:
            result.skipped.append(Skipped(number, item_id, "duplicate id (the first is used)"))
            continue
        reference = _first(data, ("abstract", "reference", "summary"))
        if isinstance(reference, list):
            reference = "\n".join(str(part) for part in reference)
        if not isinstance(reference, str) or not reference.strip():
            result.skipped.append(Skipped(number, item_id, "no reference summary (abstract)"))
            continue
        document = _first(data, ("document", "pdf", "path", "file"))
        words = data.get("article_words")
        text = _first(data, ("text", "article", "article_text"))
        if document is not None:
            try:
                document_path = _document_path(path.parent, document)
            except ValueError as error:
                result.skipped.append(Skipped(number, item_id, str(error)))
                continue
            item = RougeItem(item_id, reference.strip(), document=document_path, line=number)
        elif isinstance(words, list) and words:
            item = RougeItem(item_id, reference.strip(), text=" ".join(str(w) for w in words), line=number)
        elif isinstance(text, str) and text.strip():
            item = RougeItem(item_id, reference.strip(), text=text, line=number)
        else:
            result.skipped.append(Skipped(number, item_id, "no document, article_words or text to summarise"))
            continue
        seen.add(item_id)
        result.items.append(item)
    return result


# ------------------------------------------------------------------------------------------ ftii


def demo_ftii() -> tuple[Path, Path, Path]:
    """(flow-insertion JSON, images root, captions JSON) of the bundled FTII-style split."""
    return DEMO_SPLITS["ftii"], DEMO_ROOT, DEMO_ROOT / "ftii" / "captions.json"
