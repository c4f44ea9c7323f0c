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
- **FTII-Bench**: its flow-insertion JSON (:func:`load_flow_insertion`) and single-choice TSV
  (:func:`load_single_choice`); ``demo_ftii()`` gives the bundled one.

Bundled splits, named instead of a path (:data:`BUNDLED`; their files under ``resources/splits/``):

- ``demo``: five short invented articles, every suite; the quick smoke test.
- ``pmc-test``: 16 CC BY papers of the TEST half of ``pmc/`` (``bench.pairs_split``), PDF + JATS.
  ``mdocsum``: the 8 with a structured abstract, gold paragraph per role = that role's abstract
  sections, gold image per role = the figure or table first cited in that role's body sections, by
  label (``{"roles": [4 × {"summary", "image_label"}]}``; the label becomes the app's image number
  through :mod:`~mmdocsum_desktop.bench.split_assets`), summarised without the abstract. ``rouge``: all
  16 against their abstracts. ``ftii``: body paragraphs with citations removed, gold = the visual each
  is the first to cite (:func:`bundled_ftii`). ``mcite``: generated questions whose answer is one figure
  or table, images cut from the PDFs as the app reads them.
- ``elife-digests``: ``rouge`` only, 40 eLife articles (JATS, gzipped) of the test half, against their
  eLife digests (plain-language summaries).

Predictions given instead of generated are read here too (:func:`read_prediction_file`). This module
imports no suite: suites import it.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import random
import re
import shutil
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from mmdocsum_desktop.bench.metrics.ftii import normalise_path
from mmdocsum_desktop.bench.metrics.mdocsum import parse_gold
from mmdocsum_desktop.bench.split_assets import cache_root, paper_reading, reading_key, slug, unpacked
from mmdocsum_desktop.errors import BenchError, InputNotFoundError, JobCancelled, MmdocsumError
from mmdocsum_desktop.fileio import write_json_atomic
from mmdocsum_desktop.schemas.bench import (
    BenchDataError,
    FtiiArticle,
    GoldParagraph,
    MCiteRecord,
    MDocSumItem,
    RougeItem,
    SingleChoiceItem,
    Source,
)

SHUFFLE_SEED = 42  # MCiteBench's presentation order of evidence and distractors, fixed as it fixes it

T = TypeVar("T")

DEMO_ROOT = Path(__file__).resolve().parents[1] / "resources" / "demo"
DEMO_SPLITS = {
    "mdocsum": DEMO_ROOT / "mdocsum.jsonl",
    "rouge": DEMO_ROOT / "rouge.jsonl",
    "mcite": DEMO_ROOT / "mcite",
    "ftii": DEMO_ROOT / "ftii" / "flow_insertion.json",
}


SPLITS_ROOT = Path(__file__).resolve().parents[1] / "resources" / "splits"


@dataclass(frozen=True)
class BundledSplit:
    """A split shipped with the app: its files per suite and, for the window, what each part measures."""

    name: str
    title: str
    folder: Path
    files: dict[str, str]  # suite -> file or folder inside ``folder``
    measures: dict[str, str]  # suite -> what it measures on this split, in a sentence
    licence_note: str = ""

    def papers(self) -> list[dict[str, Any]]:
        """The attribution records (``papers.json``): title, authors, journal, DOI, licence, source."""
        index = self.folder / "papers.json"
        if not index.is_file():
            return []
        return list(json.loads(index.read_text(encoding="utf-8")).get("papers", []))


BUNDLED: dict[str, BundledSplit] = {
    "demo": BundledSplit(
        "demo", "Demo: five short invented articles (the quick smoke test)", DEMO_ROOT,
        {"mdocsum": "mdocsum.jsonl", "rouge": "rouge.jsonl", "mcite": "mcite", "ftii": "ftii/flow_insertion.json"},
        {"mdocsum": "summaries and figure choice against hand-written gold, 5 articles",
         "rouge": "ROUGE against hand-written abstracts, 5 articles",
         "mcite": "citations of 2 hand-written questions",
         "ftii": "image placement in 2 invented articles"},
        "written for the project",
    ),
    "pmc-test": BundledSplit(
        "pmc-test", "pmc-test: 16 real CC BY papers (test half of the pairs corpus)", SPLITS_ROOT / "pmc-test",
        {"mdocsum": "mdocsum.jsonl", "rouge": "rouge.jsonl", "mcite": "mcite.jsonl", "ftii": "ftii.json"},
        {"mdocsum": "four-paragraph summaries of the 8 papers with a structured abstract, written without the "
                    "abstract: ROUGE per role against its sections, figure choice (OMatch, JacSim, IS) against "
                    "the figure first cited in each role's sections",
         "rouge": "ROUGE of summaries written without the abstract, against the abstract, 16 papers",
         "mcite": "citations of generated questions whose answer is one figure or table (39 questions)",
         "ftii": "placing each figure and table at the paragraph that first cites it, 16 papers"},
        "CC BY, see ATTRIBUTION.md",
    ),
    "elife-digests": BundledSplit(
        "elife-digests", "elife-digests: 40 eLife articles (test half) with their plain-language digests",
        SPLITS_ROOT / "elife-digests", {"rouge": "rouge.jsonl"},
        {"rouge": "ROUGE of summaries written without the abstract and digest, against the eLife digest"},
        "CC BY / CC0, see ATTRIBUTION.md",
    ),
}


def bundled(name: str | Path) -> BundledSplit | None:
    """The bundled split of that name, or None (a path)."""
    split = BUNDLED.get(str(name)) if isinstance(name, str) or not Path(name).exists() else None
    if split is not None and split.name == "pmc-test":
        provide_pmc_papers(split.folder)
    return split


def provide_pmc_papers(folder: Path) -> None:
    """Check that every paper of ``folder``'s ``papers.json`` is in ``folder/papers`` (PDF and JATS): they
    are committed with the split and shipped in the package; a BenchError names what is missing."""
    index = folder / "papers.json"
    if not index.is_file():
        return
    papers_dir = folder / "papers"
    missing = [
        f"{paper['id']}{suffix}"
        for paper in json.loads(index.read_text(encoding="utf-8")).get("papers", [])
        for suffix in (".pdf", ".xml")
        if not (papers_dir / f"{paper['id']}{suffix}").is_file()
    ]
    if missing:
        raise BenchError(
            f"the pmc-test split lacks {len(missing)} paper file(s) ({', '.join(missing[:3])}…) in {papers_dir}: "
            "the installation is incomplete; reinstall the package (in a checkout: git checkout -- that folder)")


def papers_for(path: Path, ids: Sequence[str]) -> list[dict[str, Any]]:
    """Attribution of the papers a run used (``papers.json`` beside the split file), in ``ids`` order:
    id, title, authors, journal, year, DOI, licence; [] for splits without one."""
    index = path.parent / "papers.json"
    if not index.is_file():
        return []
    try:
        known = {p["id"]: p for p in json.loads(index.read_text(encoding="utf-8")).get("papers", [])}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return []
    out = []
    for paper_id in dict.fromkeys(ids):
        paper = known.get(paper_id)
        if paper is None:
            continue
        authors = list(paper.get("authors") or [])
        out.append({
            "id": paper_id,
            "title": paper.get("title", ""),
            "authors": ", ".join(authors[:3]) + (" et al." if len(authors) > 3 else ""),
            "journal": paper.get("journal", ""),
            "year": paper.get("year", ""),
            "doi": paper.get("doi", ""),
            "licence": paper.get("licence", ""),
            "licence_url": paper.get("licence_url") or "",
        })
    return out


def _split_name(split: str | Path, path: Path) -> str:
    return str(split) if bundled(split) is not None else path.stem


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
    # The gold comes from the documents' abstracts: summaries are written without them (mdocsum).
    no_abstract: bool = False
    notes: list[str] = field(default_factory=list)


def resolve(split: str | Path, suite: str) -> Path:
    """A bundled split's name (``demo``, ``pmc-test``, ``elife-digests``) → its file for that suite;
    anything else is a path that must exist."""
    named = bundled(split)
    if named is not None:
        if suite not in named.files:
            raise InputNotFoundError(
                f"the bundled split {named.name} has no {suite} part (it serves {', '.join(named.files)})"
            )
        path = named.folder / named.files[suite]
        if not path.exists():
            raise InputNotFoundError(f"the bundled {named.name} split for {suite} is missing ({path})")
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
            skipped.append(
                Skipped(None, None, f"{path.name}: a JSON {type(value).__name__}, not a list of objects")
            )
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


def load_mdocsum(split: str | Path, control: Any = None) -> Split[MDocSumItem]:
    """The items of an M-DocSum split; ``control`` cancels the reading of documents whose gold names
    images by label (the first load of ``pmc-test`` reads its PDFs)."""
    path = resolve(split, "mdocsum")
    if path.is_dir():
        path = _pick_file(path, ("mdocsum.jsonl", "test.jsonl", "data.jsonl", "split.jsonl"))
    result: Split[MDocSumItem] = Split(name=_split_name(split, path), path=path)
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
        n_images = _count(data.get("n_images"))
        if "roles" in data:  # gold images by label, numbered as the app reads the document
            try:
                gold, n_images = _gold_by_label(data["roles"], path.parent, data.get("document"), control)
            except ValueError as error:
                result.skipped.append(Skipped(number, doc_id, f"unusable gold: {error}"))
                continue
            result.no_abstract = result.no_abstract or data.get("gold_from") == "abstract"
        else:
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
                n_images=n_images,
                n_tokens=_count(data.get("n_tokens")),
                line=number,
            )
        )
    if result.no_abstract:
        result.notes.append(
            "the gold paragraphs are the documents' abstracts: every document is summarised without its abstract"
        )
    return result


def _gold_by_label(roles: Any, folder: Path, document: Any, control: Any = None) -> tuple[list[GoldParagraph], int]:
    """Four ``{"summary", "image_label"}`` roles → gold paragraphs with the app's image numbers, and the
    number of images the app finds. A label the app does not find in the document is refused (the
    document could not be scored fairly)."""
    if not isinstance(roles, list) or len(roles) != 4 or not all(isinstance(r, dict) for r in roles):
        raise ValueError("roles must be a list of 4 objects")
    path = _document_path(folder, document)
    if not path.is_file():
        raise ValueError(f"document missing: {path}")
    try:
        reading = paper_reading(path, control)
    except JobCancelled:
        raise
    except MmdocsumError as error:
        raise ValueError(f"the document could not be read ({error})") from error
    found = reading.by_label()
    gold = []
    for role in roles:
        label = role.get("image_label")
        summary = role.get("summary")
        if not isinstance(summary, str):
            raise ValueError("a role has no summary text")
        if label is None:
            gold.append(GoldParagraph(summary, None, ""))
            continue
        visual = found.get(str(label).lower())
        if visual is None:
            raise ValueError(f"the app does not find {label} in {path.name}")
        gold.append(GoldParagraph(summary, visual.number, visual.caption))
    return gold, len(reading.visuals)


# ------------------------------------------------------------------------------------------ mcite


_FIGURE = re.compile(r"figure\s*(\d+)", re.IGNORECASE)
_TABLE = re.compile(r"table\s*(\d+)", re.IGNORECASE)


def _string_map(data: dict[str, Any], key: str) -> dict[str, str]:
    value = data.get(key) or {}
    if not isinstance(value, dict):
        raise ValueError(f"{key} is a JSON {type(value).__name__}, not an object")
    return {str(k): str(v) for k, v in value.items()}


def _list_field(data: dict[str, Any], key: str) -> list[Any]:
    value = data.get(key) or []
    if not isinstance(value, list):
        raise ValueError(f"{key} is a JSON {type(value).__name__}, not a list")
    return value


def _evidence_count(value: Any, fallback: int) -> int:
    if not value:
        return fallback
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError) as error:  # a list, "three", NaN, Infinity
        raise ValueError(f"evidence_count is not a whole number ({error})") from error


def _image_file(images_root: Path, pdf_id: str, name: str) -> Path | None:
    """The image a record names inside the images folder; None when the name leads out of it ("../",
    an absolute path), so a split cannot make the app show the model any other file."""
    root = Path(os.path.normpath(images_root))
    candidate = Path(os.path.normpath(root / pdf_id / name))
    return candidate if candidate.is_relative_to(root) and candidate != root else None


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):  # a name too long for the file system, or holding a NUL
        return False


def record_from_json(data: dict[str, Any], images_root: Path | None, line: int = 0) -> MCiteRecord:
    """One MCiteBench JSONL record → MCiteRecord; raises KeyError/ValueError with the reason."""
    if data.get("question_id") in (None, ""):
        raise ValueError("the record has no question_id")
    question_id = str(data["question_id"])
    pdf_id = str(data.get("pdf_id", "")).replace(".pdf", "")
    idx_2_text = _string_map(data, "idx_2_text")
    text_2_idx = _string_map(data, "text_2_idx")
    image_2_idx = _string_map(data, "image_2_idx")
    table_2_idx = _string_map(data, "table_2_idx")
    evidence_keys = _list_field(data, "evidence_keys")
    evidence_contents = _list_field(data, "evidence_contents")
    distractor_contents = _list_field(data, "distractor_contents")
    if not isinstance(data.get("question"), str) or not data["question"].strip():
        raise ValueError("the record has no question")

    sources: dict[str, Source] = {}
    missing: list[str] = []
    for index, text in idx_2_text.items():
        sources[index] = Source(index, "text", text=text)
    for kind, mapping in (("figure", image_2_idx), ("table", table_2_idx)):
        for path, index in mapping.items():
            source_id = f"{kind.capitalize()} {index}"
            image = _image_file(images_root, pdf_id, path) if images_root is not None else None
            if image is None or not _is_file(image):
                missing.append(source_id)
            sources[source_id] = Source(source_id, kind, image=image)

    gold: list[str] = []
    for key, content in zip(evidence_keys, evidence_contents):
        key, content = str(key), str(content)
        if content.startswith("images/"):
            figure, table = _FIGURE.search(key), _TABLE.search(key)
            if figure:
                gold.append(f"Figure {int(figure.group(1))}")
            elif table:
                gold.append(f"Table {int(table.group(1))}")
        elif content in text_2_idx:
            gold.append(text_2_idx[content])

    combined = [str(c) for c in evidence_contents + distractor_contents]
    random.Random(SHUFFLE_SEED).shuffle(combined)
    order: list[str] = []
    for content in combined:
        shown: str | None = None
        if content in text_2_idx:
            shown = text_2_idx[content]
        elif content in image_2_idx:
            shown = f"Figure {image_2_idx[content]}"
        elif content in table_2_idx:
            shown = f"Table {table_2_idx[content]}"
        if shown is not None and shown in sources and shown not in order:
            order.append(shown)
    order += [s for s in sources if s not in order]

    modal = data.get("evidence_modal")
    modal = modal[0] if isinstance(modal, list) and len(modal) == 1 else modal
    return MCiteRecord(
        id=question_id,
        pdf_id=pdf_id,
        question_type=str(data.get("question_type", "")),
        question=data["question"],
        answer=str(data.get("answer", "")),
        evidence_count=_evidence_count(data.get("evidence_count"), len(gold) or 1),
        evidence_modal=str(modal if isinstance(modal, str) else "mixed"),
        gold=gold,
        sources=sources,
        order=order,
        missing=missing,
        line=line,
    )


def load_mcite(split: str | Path, images_root: str | Path | None = None, control: Any = None) -> Split[MCiteRecord]:
    path = resolve(split, "mcite")
    folder = path if path.is_dir() else path.parent
    if path.is_dir():
        path = _pick_file(path, ("data.jsonl", "data_example.jsonl"))
    if images_root is None:
        for name in ("visual_resources", "visual_resources_example"):
            if (folder / name).is_dir():
                images_root = folder / name
                break
    if images_root is None and (folder / "papers").is_dir():
        images_root = _cut_mcite_images(path, folder, control)  # a split of papers: images as the app reads them
    root = Path(images_root) if images_root is not None else None
    result: Split[MCiteRecord] = Split(name=_split_name(split, path), path=path)
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
        if data.get("generated") and not result.notes:
            result.notes.append(f"questions generated, not written by people: {data.get('generator') or 'generated'}")
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


def _cut_mcite_images(path: Path, folder: Path, control: Any = None) -> Path:
    """For records over ``papers/PDF_ID.pdf``: ``<root>/PDF_ID/images/figure-N.png`` for every figure and
    table the app finds in the PDF (its crop), in the cache; a visual it does not find has no file and
    the record says so (shown to the model as unavailable)."""
    skipped: list[Skipped] = []
    pdf_ids = {str(d.get("pdf_id", "")).replace(".pdf", "") for _, d in _records(path, skipped)}
    root = cache_root() / "mcite" / _digest(path)
    for pdf_id in sorted(p for p in pdf_ids if p):
        pdf = folder / "papers" / f"{pdf_id}.pdf"
        if not pdf.is_file() or (root / pdf_id / "done").is_file():
            continue
        images = root / pdf_id / "images"
        images.mkdir(parents=True, exist_ok=True)
        for key, visual in paper_reading(pdf, control).by_label().items():
            target = images / f"{slug(key)}.png"
            if visual.image.is_file() and not target.is_file():
                shutil.copyfile(visual.image, target)
        (root / pdf_id / "done").write_text("", encoding="utf-8")
    return root


def _digest(path: Path) -> str:
    """A short hash of a file and of the reading code (split_assets' cache key), for cache folders."""
    return hashlib.sha256(path.read_bytes() + reading_key().encode()).hexdigest()[:16]


# ------------------------------------------------------------------------------------------ rouge


def load_rouge(split: str | Path) -> Split[RougeItem]:
    path = resolve(split, "rouge")
    if path.is_dir():
        path = _pick_file(path, ("test.jsonl", "rouge.jsonl", "validation.jsonl"))
    result: Split[RougeItem] = Split(name=_split_name(split, path), path=path)
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
            if document_path.suffix == ".gz" and document_path.is_file():  # bundled gzipped JATS
                document_path = unpacked(document_path)
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


def bundled_ftii(name: str) -> tuple[Path, Path, Path]:
    """(flow-insertion JSON, images root, captions JSON) of a bundled split by name.

    ``pmc-test``'s are made in the cache from the papers as the app reads them: per paper one article
    (its JATS body paragraphs, figure and table citations removed; gold = the visual a paragraph is the
    first to cite, as its crop), the pool = the paper's labelled figures and tables the app finds, with
    the labels and captions the app reads in the PDF (what placement sees when a user places figures)."""
    if name == "demo":
        return demo_ftii()
    source = resolve(name, "ftii")
    folder = source.parent
    root = cache_root() / "ftii" / _digest(source)
    data, captions = root / "flow_insertion.json", root / "captions.json"
    if data.is_file() and captions.is_file():
        return data, root, captions
    groups: list[dict[str, Any]] = []
    notes: dict[str, dict[str, Any]] = {}
    for article in _read_json(source):
        paper = article["id"]
        found = paper_reading(folder / "papers" / f"{paper}.pdf").by_label()
        (root / paper).mkdir(parents=True, exist_ok=True)
        pool: list[str] = []
        for label in article["labels"]:
            visual = found.get(label.lower())
            if visual is None or not visual.image.is_file():
                continue
            image = f"{paper}/{slug(label)}.png"
            shutil.copyfile(visual.image, root / image)
            pool.append(image)
            notes[image] = {"caption": visual.caption, "label": visual.label, "kind": visual.kind}
        truth = [f"{paper}/{slug(g)}.png" if g and f"{paper}/{slug(g)}.png" in pool else "" for g in article["groundtruth"]]
        groups.append({"imagedatabase": pool,
                       "news_text": [{"id": paper, "content": article["content"], "groundtruth": truth}]})
    write_json_atomic(captions, notes)
    write_json_atomic(data, groups)
    return data, root, captions


def _quoted(value: Any, limit: int = 60) -> str:
    """A value from the data file as it may appear in a one-line message: quoted, escaped, shortened."""
    text = repr(str(value))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _read_json(path: str | Path) -> Any:
    source = Path(path)
    try:
        return json.loads(source.read_text(encoding="utf-8"))
    except FileNotFoundError as error:
        raise InputNotFoundError(f"{source}: no such file") from error
    except RecursionError as error:  # json.loads gives up on thousands of nested brackets this way
        raise BenchDataError(f"{source}: not readable JSON (nested too deeply)") from error
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise BenchDataError(f"{source}: not readable JSON ({error})") from error


def parse_flow_insertion(data: Any, *, source: str = "data") -> list[FtiiArticle]:
    """FTII flow-insertion groups (already parsed JSON) as articles with their candidate pools."""
    groups = [data] if isinstance(data, dict) else data
    if not isinstance(groups, list):
        raise BenchDataError(f"{source}: expected a list of groups with imagedatabase and news_text")
    articles: list[FtiiArticle] = []
    seen: set[str] = set()
    for g, group in enumerate(groups):
        if not isinstance(group, dict) or "news_text" not in group:
            raise BenchDataError(f"{source}: group {g} has no news_text")
        pool: list[str] = []
        database = group.get("imagedatabase") or []
        if not isinstance(database, list):
            raise BenchDataError(f"{source}: group {g}: imagedatabase is not a list")
        for entry in database:
            for path in entry if isinstance(entry, list) else [entry]:
                path = normalise_path(path)
                if path and path not in pool:
                    pool.append(path)
        news = group["news_text"]
        if isinstance(news, dict):
            news = [news]
        if not isinstance(news, list):
            raise BenchDataError(f"{source}: group {g}: news_text is not a list")
        for k, article in enumerate(news):
            if not isinstance(article, dict):
                raise BenchDataError(f"{source}: group {g} article {k} is not an object")
            ident = str(article.get("id", f"{g}-{k}"))
            content = article.get("content")
            truth = article.get("groundtruth")
            if isinstance(content, str):
                content = [content]
            if not isinstance(content, list) or not all(isinstance(p, str) or p is None for p in content):
                raise BenchDataError(
                    f"{source}: article {_quoted(ident)}: content is not a list of paragraphs"
                )
            if not isinstance(truth, list) or len(truth) != len(content):
                got = len(truth) if isinstance(truth, list) else type(truth).__name__
                raise BenchDataError(
                    f"{source}: article {_quoted(ident)}: {len(content)} paragraphs but groundtruth has {got} entries"
                )
            if ident in seen:
                raise BenchDataError(f"{source}: article id {_quoted(ident)} appears twice")
            seen.add(ident)
            gold = [normalise_path(t) for t in truth]
            article_pool = list(pool)
            for path in gold:  # a gold image missing from the database is still a candidate
                if path and path not in article_pool:
                    article_pool.append(path)
            articles.append(FtiiArticle(ident, [p or "" for p in content], gold, article_pool))
    return articles


def load_flow_insertion(path: str | Path) -> list[FtiiArticle]:
    """Articles of an FTII flow-insertion JSON, or of a bundled split by name ("demo", "pmc-test")."""
    if bundled(path) is not None:
        path = bundled_ftii(str(path))[0]
    return parse_flow_insertion(_read_json(path), source=str(path))


def load_ftii_predictions(path: str | Path) -> dict[str, list[str]]:
    """FTII predictions: ``{article id: [predicted image path or "" per paragraph]}``."""
    data = _read_json(path)
    if not isinstance(data, dict):
        raise BenchDataError(f"{path}: expected an object mapping article ids to lists of image paths")
    out: dict[str, list[str]] = {}
    for ident, values in data.items():
        if not isinstance(values, list):
            raise BenchDataError(f"{path}: the predictions of {_quoted(ident)} are not a list")
        out[str(ident)] = [normalise_path(v) for v in values]
    return out


def load_single_choice(path: str | Path) -> list[SingleChoiceItem]:
    """FTII's single-choice TSV (``above_content``, ``below_content``, ``img*``, ``Answer``)."""
    source = Path(path)
    if not source.is_file():
        raise InputNotFoundError(f"{source}: no such file")
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))  # base64 images make long fields
    try:
        with source.open(encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle, delimiter="\t")
            fields = reader.fieldnames or []
            rows = list(reader)
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise BenchDataError(f"{source}: not a readable TSV file ({error})") from error
    lower = {f.lower().strip(): f for f in fields}
    missing = [name for name in ("above_content", "below_content", "answer") if name not in lower]
    image_columns = sorted(
        (f for f in fields if re.fullmatch(r"img_?\d+", f.strip(), re.IGNORECASE)),
        key=lambda f: int(re.sub(r"\D", "", f)),
    )
    if missing or not image_columns:
        needed = missing + ([] if image_columns else ["img1..."])
        raise BenchDataError(f"{source}: missing column(s) {', '.join(needed)}")
    items = []
    for number, row in enumerate(rows, start=2):
        options = [(row.get(c) or "").strip() for c in image_columns]
        given = (row.get(lower["answer"]) or "").strip()
        answer = _single_choice_answer(given, image_columns, options)
        if answer is None:
            raise BenchDataError(f"{source}: line {number}: cannot read the answer {_quoted(given)}")
        items.append(
            SingleChoiceItem(
                above=row.get(lower["above_content"]) or "",
                below=row.get(lower["below_content"]) or "",
                options=options,
                answer=answer,
            )
        )
    return items


def _single_choice_answer(value: str, columns: Sequence[str], options: Sequence[str]) -> int | None:
    if not value:
        return None
    if len(value) == 1 and value.isalpha():
        index = ord(value.upper()) - ord("A")
        return index if 0 <= index < len(columns) else None
    # isdecimal, not isdigit: int() refuses superscripts such as "²"; no question has 10**9 options.
    if value.isdecimal() and len(value) < 10:
        index = int(value) - 1
        return index if 0 <= index < len(columns) else None
    for k, column in enumerate(columns):
        if value.lower() == column.lower():
            return k
    if value in options:
        return list(options).index(value)
    return None


# ------------------------------------------------------------------------------------ predictions


def read_prediction_file(path: Path) -> Any:
    """An ``ID.json`` holds the raw answer text (as a JSON string, or as the file's plain text when it
    is not JSON) or the M-DocSum JSON list; ``{"answer": ...}`` / ``{"raw": ...}`` wrappers are accepted."""
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # not only JSONDecodeError: huge integers, deep nesting
        return text
    if isinstance(value, dict):
        for key in ("answer", "raw", "raw_answer", "output", "response", "prediction"):
            if key in value:
                return value[key]
    return value
