"""Extracting a document: read it (scanned pages with OCR), then write its model (``document.json``) and one
image per figure and table (``figures/``) into a folder — `mmdocsum extract`, the image pool of
`mmdocsum place`, and the figure crops the benchmarks score.

The reading is the session's (:meth:`Session.read`), as in every command and the desktop app; the export is
all or nothing (a full disk or Ctrl-C leaves no crops behind).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path

from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.document.limits import DEFAULT_LIMITS, ReadLimits
from mmdocsum_desktop.document.reader import export_document
from mmdocsum_desktop.errors import EmptyDocumentError
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.schemas.document import Document

__all__ = ["DEFAULT_LIMITS", "Extraction", "ReadLimits", "export", "extract"]

# ``stage(name)`` → the JobControl of that stage ("reading", "rendering") as a context manager, so a front
# end can show one progress bar per stage
StageControl = Callable[[str], AbstractContextManager[JobControl]]


@dataclass
class Extraction:
    """What :func:`extract` gives: the document as read, the folder it was written to, and its
    ``document.json`` there."""

    document: Document
    folder: Path
    written: Path


def extract(
    session: Session,
    path: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    password: str | None = None,
    ocr: bool = True,
    limits: ReadLimits | None = None,
    dpi: int = 150,
    allow_empty: bool = False,
    stage: StageControl | None = None,
) -> Extraction:
    """Read ``path`` and write its model and figure crops into ``out``.

    ``ocr=False`` refuses a scanned PDF instead of recognising it; ``limits`` bound the file's size and
    pages (the reader's defaults when None). A document with no text and no figures is refused with an
    EmptyDocumentError unless ``allow_empty`` (an image pool may be empty: placement then says so)."""
    stage = stage or _no_progress
    with stage("reading") as control:
        document = session.read(path, password=password, ocr=ocr, limits=limits, control=control)
    if not allow_empty and not document.blocks and not document.visuals:
        raise EmptyDocumentError(f"{Path(path).name} has no text and no figures to extract")
    with stage("rendering") as control:
        written = export(document, out, dpi=dpi, password=password, limits=limits, control=control)
    return Extraction(document, Path(out), written)


def export(
    document: Document,
    out: str | os.PathLike[str],
    *,
    dpi: int = 150,
    password: str | None = None,
    limits: ReadLimits | None = None,
    control: JobControl | None = None,
) -> Path:
    """Write ``out/document.json`` and ``out/figures/`` for a document already read; the path of
    ``document.json``."""
    return export_document(document, Path(out), dpi=dpi, password=password, limits=limits or DEFAULT_LIMITS,
                           control=control)


@contextmanager
def _no_progress(_stage: str) -> Iterator[JobControl]:
    yield JobControl()
