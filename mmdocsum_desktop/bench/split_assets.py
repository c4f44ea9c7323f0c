"""What the bundled real-paper splits need from the app's own reading of their papers, made once and
cached: the figures and tables the app finds in each PDF, in the order the summaries pipeline numbers
them, with their crops, labels and captions.

The gold of ``pmc-test`` names figures by their JATS label ("Figure 2"); an M-DocSum answer names them
by number (the app's image N), FTII and MCiteBench by image file. :func:`paper_reading` reads a PDF as
``BenchEngine.summarize`` does (``read_document``, ``export_document``, ``candidates_from_document``), so
"Figure 2" becomes the number the app gives it and its crop. The cache (under the app's cache folder) is
keyed by the PDF's bytes and the source of the reading code, so a changed reader is never served an old
reading. A figure the app does not find keeps no number: the loaders say so per item.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmdocsum_desktop.app import catalog
from mmdocsum_desktop.app.extract import export
from mmdocsum_desktop.app.placement import figure_candidates
from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.fileio import write_json_atomic

_PACKAGE = Path(__file__).resolve().parents[1]
# The code whose output the cache holds: the document readers and the pipeline's figure numbering.
_READING_CODE = (_PACKAGE / "document", _PACKAGE / "placement" / "candidates.py")
_CACHE_VERSION = "1"


@dataclass(frozen=True)
class FoundVisual:
    """A figure or table as the app reads it: its image number (1-based, the summaries pipeline's),
    label ("Figure 2" or None), kind, caption and crop."""

    number: int
    label: str | None
    kind: str
    caption: str
    image: Path


@dataclass(frozen=True)
class PaperReading:
    name: str
    visuals: list[FoundVisual]

    def by_label(self) -> dict[str, FoundVisual]:
        """Visuals by lower-cased label; the first of two with one label (a continued table) wins."""
        found: dict[str, FoundVisual] = {}
        for visual in self.visuals:
            if visual.label:
                found.setdefault(visual.label.lower(), visual)
        return found


def cache_root() -> Path:
    return catalog.cache_dir() / "bench-splits"


def reading_key() -> str:
    """Changes whenever the reading code changes: part of every cache key here."""
    return _code_hash()


@functools.lru_cache(maxsize=1)
def _code_hash() -> str:
    digest = hashlib.sha256(_CACHE_VERSION.encode())
    for root in _READING_CODE:
        files = sorted(root.rglob("*.py")) if root.is_dir() else [root]
        for path in files:
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def _file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def paper_reading(pdf: Path, control: Any = None) -> PaperReading:
    """The app's reading of ``pdf`` (read, or taken from the cache)."""
    folder = cache_root() / "readings" / f"{pdf.stem}-{_file_hash(pdf)}-{_code_hash()}"
    index = folder / "visuals.json"
    if not index.is_file():
        _read_into(pdf, folder, control)
    rows = json.loads(index.read_text(encoding="utf-8"))
    return PaperReading(
        pdf.stem,
        [FoundVisual(r["number"], r["label"], r["kind"], r["caption"], folder / r["image"]) for r in rows],
    )


def _read_into(pdf: Path, folder: Path, control: Any) -> None:
    folder.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{pdf.stem}-", dir=folder.parent))
    try:
        # read as every command reads (a scanned page with OCR), figures numbered as the summary numbers them
        document = Session().read(pdf, control=control)
        export(document, work, control=control)
        rows = []
        # figures with a crop only (the default): each has its image
        for number, candidate in enumerate(figure_candidates(document, work), start=1):
            assert candidate.image is not None
            rows.append({
                "number": number,
                "label": candidate.label,
                "kind": candidate.kind,
                "caption": candidate.caption or "",
                "image": str(Path(candidate.image).relative_to(work)),
            })
        write_json_atomic(work / "visuals.json", rows)
        if folder.exists():  # another process finished first: its reading is the same
            shutil.rmtree(work)
        else:
            work.rename(folder)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise


def unpacked(gz: Path) -> Path:
    """A bundled ``NAME.xml.gz`` as a plain file in the cache (the readers take ``.xml``)."""
    target = cache_root() / "unpacked" / _file_hash(gz) / gz.name.removesuffix(".gz")
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(gz, "rb") as handle:
            data = handle.read()
        partial = target.with_name(target.name + ".part")
        partial.write_bytes(data)
        partial.replace(target)
    return target


def slug(label: str) -> str:
    """"Figure 2" -> "figure-2" (the image file names of the generated splits)."""
    return label.lower().replace(" ", "-")
