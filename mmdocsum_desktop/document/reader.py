"""Entry points for turning a file into a Document and for writing it out with its figure crops."""

from __future__ import annotations

import importlib
import io
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PIL import Image

from mmdocsum_desktop.document.injection import quarantine
from mmdocsum_desktop.document.labels import link_mentions
from mmdocsum_desktop.document.language import mark_languages
from mmdocsum_desktop.document.limits import DEFAULT_LIMITS, ReadLimits, configure_pillow
from mmdocsum_desktop.document.normalize import space_glued_sentences
from mmdocsum_desktop.errors import (
    DocumentTooLargeError,
    ImageTooLargeError,
    InputNotFoundError,
    UnsupportedFormatError,
)
from mmdocsum_desktop.fileio import (
    InputFileError,
    OutputError,
    OutputFolder,
    check_input_file,
    output_error,
    protect_input,
    removed_on_failure,
    write_bytes_atomic,
)
from mmdocsum_desktop.jobs import JobControl, ensure_control
from mmdocsum_desktop.schemas.document import Document, DocumentKind

if TYPE_CHECKING:
    from mmdocsum_desktop.document.recognised import PageOcr

_SUFFIX_KINDS: dict[str, DocumentKind] = {
    ".pdf": "pdf",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".md": "markdown",
    ".markdown": "markdown",
    ".nxml": "jats",
    ".xml": "jats",
}


# Each format's reader is a module imported the first time a file of that kind is read, and it imports
# what it needs at its top. The PDF reader brings PyMuPDF with its layout model and onnxruntime (about a
# second of CPU): the window paints, and `mmdocsum --help` answers, without paying for it.
_FORMAT_READERS: dict[DocumentKind, str] = {
    "pdf": "mmdocsum_desktop.document.pdf",
    "html": "mmdocsum_desktop.document.html",
    "markdown": "mmdocsum_desktop.document.markdown",
    "jats": "mmdocsum_desktop.document.jats",
}


def format_reader(kind: DocumentKind) -> Any:
    """The module that reads documents of ``kind`` (``read_pdf``/``render_visuals``, ``read_html``,
    ``read_markdown``, ``read_jats``), imported now if this is the first one of its kind."""
    return importlib.import_module(_FORMAT_READERS[kind])


def detect_kind(path: Path) -> DocumentKind:
    kind = _SUFFIX_KINDS.get(path.suffix.lower())
    if kind is not None:
        return kind
    with path.open("rb") as handle:
        head = handle.read(2048)
    if head.startswith(b"%PDF"):
        return "pdf"
    lowered = head.lower()
    if b"<article" in lowered and b"jats" in lowered or b"<!doctype article" in lowered:
        return "jats"
    if b"<html" in lowered or b"<!doctype html" in lowered:
        return "html"
    raise UnsupportedFormatError(
        f"{path.name}: unsupported file type (expected PDF, HTML, Markdown or JATS XML)"
    )


def read_document(
    path: str | Path,
    *,
    password: str | None = None,
    limits: ReadLimits = DEFAULT_LIMITS,
    control: JobControl | None = None,
    ocr: PageOcr | None = None,
) -> Document:
    """Read a PDF, HTML, Markdown or JATS file into a Document (no files are written).

    ``ocr`` reads scanned PDF pages (document/scanned.py; the application passes
    ``models.ocr.page_reader()``, and every command and the GUI read through it): each scanned page is
    rendered, recognised and reported as "OCR page N" on ``control``, its text marked ``Block.ocr``.
    Without it, a PDF with no text layer is refused with ScannedDocumentError saying how to get it read."""
    source = Path(path)
    if not source.exists() and not source.is_symlink():
        raise InputNotFoundError(f"{source}: no such file")
    # a regular file only: a symlink into /proc (/proc/self/environ would land in document.json), a FIFO
    # (blocks forever), a socket or a device are refused in one line before anything opens them
    check_input_file(source)
    protect_input(source)  # no output of this process may replace it (fileio.check_output_path)
    size = source.stat().st_size
    if size > limits.max_file_bytes:
        raise DocumentTooLargeError(
            f"{source.name}: {size / 1e6:.0f} MB is over the limit of {limits.max_file_bytes / 1e6:.0f} MB"
        )
    configure_pillow(limits)
    control = ensure_control(control)
    kind = detect_kind(source)
    if kind != "pdf" and size > limits.max_text_bytes:
        raise DocumentTooLargeError(
            f"{source.name}: {size / 1e6:.0f} MB is over the limit of {limits.max_text_bytes / 1e6:.0f} MB "
            "for HTML, Markdown and JATS files"
        )
    reader = format_reader(kind)
    document: Document
    if kind == "pdf":
        document = reader.read_pdf(source, password=password, limits=limits, control=control, ocr=ocr)
    elif kind == "html":
        document = reader.read_html(source, limits=limits, control=control)
    elif kind == "markdown":
        document = reader.read_markdown(source, limits=limits, control=control)
    else:
        document = reader.read_jats(source, limits=limits, control=control)
    space_glued_sentences(document)  # "(Table 4).There": the source glued two sentences, every format alike
    quarantine(document)  # sentences addressed to a language model are not the paper's text (injection.py)
    mark_languages(document)  # before mentions: lower-case "tabela 2" counts in a Portuguese paper
    link_mentions(document)
    return document


def export_document(
    document: Document,
    out_dir: str | Path,
    *,
    dpi: int = 150,
    password: str | None = None,
    limits: ReadLimits = DEFAULT_LIMITS,
    control: JobControl | None = None,
) -> Path:
    """Write OUT/document.json and one PNG per figure and table under OUT/figures/; all or nothing (a
    full disk or Ctrl-C leaves no crops and no empty folder behind). OUT may hold the user's own files
    (``place -o .``): only files this app wrote there are replaced (``fileio.OutputFolder``), a
    document.json or figures/fig-1.png of the user's is refused before anything is written, and the crops
    an earlier export left that this one does not write are removed."""
    out = Path(out_dir)
    figures_dir = out / "figures"
    control = ensure_control(control)
    folder = OutputFolder(out, "document", derived=False)
    if not folder.has_manifest() and (out / "document.json").is_file():
        # written before manifests existed? A document.json this app wrote loads as a Document and names
        # its own crops; anything else there is the user's
        try:
            earlier = Document.load(out / "document.json")
        except (OSError, ValueError):
            earlier = None
        if earlier is not None:
            folder.adopt(["document.json", *(v.image for v in earlier.visuals if v.image)])
    for name in ["document.json", *(f"figures/{visual.id}.png" for visual in document.visuals)]:
        folder.claim(name)  # before any write: a file of the user's there stops the export untouched
    with removed_on_failure(out):
        try:
            # figures/ only where there is a figure to put in it: no empty folder left beside the output
            (figures_dir if document.visuals else out).mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise output_error(figures_dir, error) from error
        if document.kind == "pdf":
            format_reader("pdf").render_visuals(document, figures_dir, dpi=dpi, password=password, limits=limits, control=control)
        else:
            _copy_article_images(document, figures_dir, limits=limits, control=control)
        written = document.save(out / "document.json")
        folder.finish()
        return written


def _copy_article_images(
    document: Document, figures_dir: Path, *, limits: ReadLimits, control: JobControl
) -> None:
    visuals = document.visuals
    for position, visual in enumerate(visuals):
        control.report(position, len(visuals), "images")
        visual.image = None
        if not visual.source_image:
            continue
        source = Path(visual.source_image)
        target = figures_dir / f"{visual.id}.png"
        try:
            save_image_as_png(source, target, limits=limits)
        except ImageTooLargeError as error:
            document.warnings.append(f"{visual.id}: image {source.name} was skipped: {error}")
            continue
        except OutputError:
            raise  # the output cannot be written (full disk, read-only folder): the user's error, not the image's
        except InputFileError as error:  # a FIFO, device or /proc file named as the image: skipped, not opened
            document.warnings.append(f"{visual.id}: image {source.name} was skipped: {error}")
            continue
        except (OSError, ValueError) as error:
            document.warnings.append(f"{visual.id}: image {source.name} could not be read ({error})")
            continue
        visual.image = f"figures/{target.name}"
    control.report(len(visuals), len(visuals), "images")


def save_image_as_png(source: Path, target: Path, *, limits: ReadLimits = DEFAULT_LIMITS) -> None:
    """Convert any image Pillow reads to PNG, refusing decompression bombs before decoding them."""
    configure_pillow(limits)
    check_input_file(source, "image")  # an article's image link may name a FIFO or /proc file too
    if source.suffix.lower() == ".png" and source.stat().st_size < 1:
        raise ValueError("empty file")
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            with Image.open(source) as image:
                if image.width * image.height > limits.max_image_pixels:
                    raise ImageTooLargeError(
                        f"{image.width}x{image.height} pixels is over the limit of {limits.max_image_pixels:,} pixels"
                    )
                if source.suffix.lower() == ".png":
                    image.verify()
                    write_bytes_atomic(target, source.read_bytes(), durable=False)
                    return
                image.load()
                converted = image.convert("RGBA" if "A" in image.getbands() else "RGB")
                buffer = io.BytesIO()
                converted.save(buffer, format="PNG")
                write_bytes_atomic(target, buffer.getvalue(), durable=False)
        except (Image.DecompressionBombError, Image.DecompressionBombWarning) as error:
            # Pillow's own guard (set from the same limit by configure_pillow) fired while opening the file
            raise ImageTooLargeError(f"over the limit of {limits.max_image_pixels:,} pixels ({error})") from error
