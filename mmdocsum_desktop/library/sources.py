"""Where papers come from: files and folders (recursive), registered in the library's store.

Registering is cheap on purpose: a file whose size and modification time are what the library recorded
is not even hashed, so adding an unchanged library of a thousand papers again costs a few stat calls
each; a new or touched file is hashed (sha256) and read only when its bytes changed. Papers the library
had from a source that are gone are marked missing, never deleted.
"""

from __future__ import annotations

import hashlib
import os
import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from mmdocsum_desktop.errors import InputNotFoundError
from mmdocsum_desktop.jobs import JobControl, ensure_control
from mmdocsum_desktop.library.store import LibraryStore, Metadata
from mmdocsum_desktop.schemas.library import PAPER_SUFFIXES, SourceKind, SourceReport

_HASH_CHUNK = 1 << 20
# JATS files are XML, but so are many other files: one is a paper when its root says it is an article
_JATS_ROOT = re.compile(rb"<article[\s>]")


@dataclass(frozen=True)
class Candidate:
    """A file a source offers, with what the source knows of it."""

    path: Path
    metadata: Metadata | None = None


def file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(_HASH_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def is_paper_file(path: Path) -> bool:
    suffix = path.suffix.lower()
    if suffix not in PAPER_SUFFIXES or path.name.startswith("."):
        return False
    if suffix in (".xml", ".nxml"):
        try:
            with path.open("rb") as handle:
                return bool(_JATS_ROOT.search(handle.read(4096)))
        except OSError:
            return False
    return True


def folder_files(root: Path) -> Iterator[Path]:
    """The paper files under ``root``, recursively, in a stable order; hidden folders are skipped."""
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if not d.startswith("."))
        for name in sorted(files):
            path = Path(folder) / name
            if is_paper_file(path):
                yield path


def jats_metadata(path: Path) -> Metadata | None:
    """Title, authors, year and DOI of a JATS article (a PDF's are taken from the reader later)."""
    try:
        root = ElementTree.parse(path).getroot()
    except (ElementTree.ParseError, OSError):
        return None
    meta = root.find(".//article-meta")
    if meta is None:
        return None
    title_node = meta.find(".//title-group/article-title")
    title = " ".join("".join(title_node.itertext()).split()) if title_node is not None else ""
    authors: list[str] = []
    family_names: list[str] = []
    for contrib in meta.findall(".//contrib-group/contrib[@contrib-type='author']"):
        surname = " ".join((contrib.findtext(".//surname") or "").split())
        given = contrib.findtext(".//given-names") or ""
        name = " ".join(f"{given} {surname}".split())
        if name:
            authors.append(name)
            family_names.append(surname or name)
    year = None
    for date in meta.findall(".//pub-date"):
        text = (date.findtext("year") or "").strip()
        if text.isdigit():
            year = int(text)
            break
    doi = next(((node.text or "").strip() for node in meta.findall(".//article-id")
                if node.get("pub-id-type") == "doi" and node.text), None)
    return Metadata(title=title, authors=tuple(authors), family_names=tuple(family_names), year=year, doi=doi)


def register(store: LibraryStore, candidates: Iterable[Candidate], *, root: str, kind: SourceKind,
             report: SourceReport, control: JobControl | None = None, mark_gone: bool = True,
             metadata_for: Callable[[Path], Metadata | None] | None = None) -> SourceReport:
    """Record every candidate in the store (one transaction per 200 files: a kill loses at most those),
    then mark missing the papers of ``root`` that the source no longer offers. ``metadata_for`` reads
    a file's own metadata, only for new or changed files (an unchanged file costs a stat call)."""
    control = ensure_control(control)
    items = list(candidates)
    report.found += len(items)
    known = store.file_states(str(c.path) for c in items)
    present: set[str] = set()
    for start in range(0, len(items), 200):
        batch = items[start:start + 200]
        stats = []
        for candidate in batch:
            path = str(candidate.path)
            try:
                stat = candidate.path.stat()
            except OSError as error:
                report.skipped.append(f"{path}: {error.strerror or error}")
                continue
            state = known.get(path)
            same = state is not None and state.size == stat.st_size and state.mtime_ns == stat.st_mtime_ns \
                and state.status != "missing"
            content_hash = None if same else file_hash(candidate.path)
            metadata = candidate.metadata
            if metadata is None and content_hash is not None and metadata_for is not None:
                metadata = metadata_for(candidate.path)
            stats.append((metadata, path, stat, content_hash))
            present.add(path)
        with store.write() as conn:
            for metadata, path, stat, content_hash in stats:
                outcome = store.upsert(conn, path, kind=kind, root=root, size=stat.st_size, mtime_ns=stat.st_mtime_ns,
                                       content_hash=content_hash, metadata=metadata)
                setattr(report, outcome, getattr(report, outcome) + 1)
        control.report(min(start + len(batch), len(items)), len(items), f"{kind}: {root}")
    if mark_gone:
        with store.write() as conn:
            report.missing += store.mark_missing(conn, root=root, present=present)
    return report


def add_paths(store: LibraryStore, paths: Sequence[Path], *, control: JobControl | None = None) -> list[SourceReport]:
    """Add files and folders. A folder is a source: papers it held that are gone are marked missing."""
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise InputNotFoundError(f"no such file or folder: {', '.join(missing)}")
    reports: list[SourceReport] = []
    for given in paths:
        path = given.expanduser().resolve()
        report = SourceReport(source=str(path), kind="folder")
        if path.is_dir():
            candidates = [Candidate(p) for p in folder_files(path)]
            register(store, candidates, root=str(path), kind="folder", report=report, control=control,
                     metadata_for=file_metadata)
        else:
            if not is_paper_file(path):
                report.skipped.append(f"{path}: not a PDF, HTML, Markdown or JATS file")
            else:
                register(store, [Candidate(path)], root=str(path.parent), kind="folder", report=report,
                         control=control, mark_gone=False, metadata_for=file_metadata)
        reports.append(report)
    return reports


def file_metadata(path: Path) -> Metadata | None:
    return jats_metadata(path) if path.suffix.lower() in (".xml", ".nxml") else None
