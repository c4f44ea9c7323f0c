"""What the desktop app needs to show a document and a summary: the application's side of the views.

The window's views draw; they do not read files or know how a summary is written as Markdown. What they
need from the layers below comes through here: opening a file into a workspace (read as every command
reads it, figure crops exported), the PyMuPDF lock that a page rendered on the GUI thread must hold, the
text normalisation the reader applies (so that a search typed in the window finds what the reader
extracted), and the summary's Markdown, HTML and JSON forms as `mmdocsum summarize` writes them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from mmdocsum_desktop.document.mupdf import MUPDF_LOCK, try_mupdf
from mmdocsum_desktop.document.normalize import normalize_text
from mmdocsum_desktop.document.reader import export_document
from mmdocsum_desktop.jobs import JobControl, ensure_control
from mmdocsum_desktop.library.bibliography import reading_citation
from mmdocsum_desktop.schemas.document import Document
from mmdocsum_desktop.schemas.summary import Summary
from mmdocsum_desktop.summarize.render import caption_text, escape_markdown, markdown_to_html, to_json

if TYPE_CHECKING:  # a type only: the views import this module, and the session's engines load with a job
    from mmdocsum_desktop.app.session import Session

__all__ = [
    "MUPDF_LOCK", "caption_text", "escape_markdown", "markdown_to_html", "normalize_text", "open_document",
    "reading_citation", "span_control", "summary_json", "try_mupdf",
]

# the share of an open's progress bar (of 100) that reading takes, OCR of scanned pages included; the
# figure crops fill the rest
_READ_UNTIL = 80


def open_document(session: Session, path: Path, workspace_root: Path, *, password: str | None = None,
                  control: JobControl | None = None) -> Document:
    """Read ``path`` as `mmdocsum extract` reads it (scanned pages with OCR, the session's OCR model) and
    write its figure crops into ``workspace_root``, where the gallery and the summary find them."""
    control = ensure_control(control)
    document = session.read(path, password=password, control=span_control(control, 0, _READ_UNTIL, "reading"))
    export_document(document, workspace_root, password=password,
                    control=span_control(control, _READ_UNTIL, 100, "figures"))
    control.report(100, 100, "done")
    return document


def span_control(parent: JobControl, start: int, end: int, label: str = "") -> JobControl:
    """A JobControl whose progress fills ``start``..``end`` (of 100) of the parent's, sharing its cancel."""

    def forward(done: int, total: int, what: str) -> None:
        fraction = done / total if total > 0 else 0.0
        if parent.on_progress is not None:
            parent.on_progress(start + int(round(fraction * (end - start))), 100, what or label)

    child = JobControl(on_progress=forward)
    child._cancel = parent._cancel  # one cancel flag for the whole job
    return child


def summary_json(summary: Summary) -> dict[str, Any]:
    """The summary as `mmdocsum summarize --format json` writes it (what the judge reads): the user's
    edited text and hand-picked figures included; image paths relative to the workspace."""
    return to_json(summary)
