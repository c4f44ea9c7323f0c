"""The one renderer of a Summary, used by ``mmdocsum summarize`` and by the desktop app's exports alike:
``json`` (the schema's own form), ``mdocsum`` (exactly M-DocSum's answer), ``md``, ``html`` and ``pdf``
(the interleaved summary with its images and citation markers).

One escaping policy: text from a model or a document goes into Markdown through :func:`escape_markdown`,
Markdown becomes HTML through :func:`markdown_to_html` (markdown-it-py, raw HTML disabled, unsafe link
schemes refused), and plain text goes into HTML through ``html.escape``. So nothing a model writes or a
document contains can inject markup or script into a page.

Files written by :func:`write_summary` stand on their own: ``NAME.md`` links copies of the figures it
shows in ``NAME_images/``; ``NAME.html`` carries them inline as data URIs; ``NAME.pdf`` embeds them.
"""

from __future__ import annotations

import base64
import contextlib
import html as html_lib
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mmdocsum_desktop.fileio import write_bytes_atomic, write_json_atomic, write_text_atomic
from mmdocsum_desktop.summarize.schema import FigureChoice, Summary, SummaryParagraph, mdocsum_answer

FORMATS = ("json", "mdocsum", "md", "html", "pdf")
_SUFFIX_FORMATS = {".md": "md", ".markdown": "md", ".html": "html", ".htm": "html", ".pdf": "pdf"}
_IMAGE_TYPES = {".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg", ".gif": "gif", ".webp": "webp"}

# Where a figure's image is linked from: given the choice, the link target (None: no image line).
ImageTarget = Callable[[FigureChoice], "str | None"]


# ------------------------------------------------------------------------------------ escaping


def escape_markdown(text: str) -> str:
    """Markdown-escape model or document text so that it renders as the words it is."""
    return re.sub(r"([\\`*_\[\]<>#|!])", r"\\\1", text)


def markdown_to_html(text: str) -> str:
    """CommonMark (and tables) to HTML with raw HTML disabled: a typed ``<script>`` stays text."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable("table").render(text)


def data_uri(path: Path) -> str | None:
    """The image file as a ``data:`` URI (the kinds markdown-it lets through), or None."""
    kind = _IMAGE_TYPES.get(path.suffix.lower())
    if kind is None or not path.is_file():
        return None
    return f"data:image/{kind};base64," + base64.b64encode(path.read_bytes()).decode("ascii")


# -------------------------------------------------------------------------------------- paths


def image_path(image: str | None, base_dir: str | Path | None) -> Path | None:
    """Where a summary's image is: its path is relative to the document's folder ``base_dir``."""
    if not image:
        return None
    path = Path(image)
    return path if path.is_absolute() or base_dir is None else Path(base_dir) / path


def _relative(path: Path, to: Path) -> str:
    try:
        return Path(os.path.relpath(path.resolve(), to.resolve())).as_posix()
    except ValueError:  # another drive on Windows
        return str(path)


def linked_images(base_dir: str | Path | None, relative_to: str | Path | None) -> ImageTarget:
    """Images linked where they are, relative to ``relative_to`` (as stored when that is None)."""

    def target(figure: FigureChoice) -> str | None:
        path = image_path(figure.image, base_dir)
        if path is None or relative_to is None:
            return figure.image
        return _relative(path, Path(relative_to))

    return target


def inlined_images(base_dir: str | Path | None) -> ImageTarget:
    """Images carried in the page as data URIs (an image file that is missing is left out)."""
    return lambda figure: data_uri(path) if (path := image_path(figure.image, base_dir)) else None


# ------------------------------------------------------------------------------------- formats


to_mdocsum = mdocsum_answer  # M-DocSum's answer, defined with the schema


def to_json(summary: Summary, *, base_dir: str | Path | None = None,
            relative_to: str | Path | None = None) -> dict[str, Any]:
    """The summary as JSON data; image paths relative to ``relative_to`` (as stored when None)."""
    data = summary.model_dump(mode="json")
    if relative_to is not None:
        link = linked_images(base_dir, relative_to)
        for paragraph, stored in zip(data["paragraphs"], summary.paragraphs):
            if stored.figure is not None:
                paragraph["figure"]["image"] = link(stored.figure)
        for entry, stored_entry in zip(data["figures"], summary.figures):
            path = image_path(stored_entry.image, base_dir)
            entry["image"] = None if path is None else _relative(path, Path(relative_to))
    return data


def _paragraph_markdown(paragraph: SummaryParagraph, citations: bool) -> str:
    sentences = paragraph.cited_sentences() if citations else None
    if sentences is None:
        marker = paragraph.marker() if citations else ""
        return escape_markdown(paragraph.text) + (f" {_bracketed(marker)}" if marker else "")
    return " ".join(escape_markdown(s.text) + (f" {_bracketed(s.marker)}" if s.marker else "") for s in sentences)


def _bracketed(marker: str) -> str:
    """"(p. 3; Figure 2)" written as "[p. 3; Figure 2]", escaped."""
    return escape_markdown("[" + marker[1:-1] + "]")


def to_markdown(summary: Summary, *, base_dir: str | Path | None = None, relative_to: str | Path | None = None,
                citations: bool = True, images: ImageTarget | None = None) -> str:
    """The interleaved summary in Markdown. ``images`` says where each figure is linked from (default:
    where it is, relative to ``relative_to``)."""
    images = images or linked_images(base_dir, relative_to)
    name = Path(summary.source).name
    lines = [f"# {escape_markdown(summary.title or name or 'Summary')}", ""]
    engine = str(summary.engine.get("engine", "?"))
    model = summary.engine.get("model")
    with_model = f" ({escape_markdown(str(model))})" if model and engine != "extractive" else ""
    of = f"Summary of {escape_markdown(name)} · " if name else ""
    lines += [f"*{of}engine: {escape_markdown(engine)}{with_model}*", ""]
    for paragraph in summary.paragraphs:
        lines += [f"## {escape_markdown(paragraph.title)}", "", _paragraph_markdown(paragraph, citations), ""]
        figure = paragraph.figure
        if figure is None:
            continue
        label = figure.label or f"Image {figure.index}"
        alt = escape_markdown(label)
        target = images(figure)
        if target:
            lines += [f"![{alt}](<{target}>)", ""]
        caption = " ".join((paragraph.image_caption or figure.caption).split())
        if not caption:
            lines.append(f"*{alt}*")
        elif _starts_with_label(caption, label):
            lines.append(f"*{escape_markdown(caption)}*")
        else:
            lines.append(f"*{alt}: {escape_markdown(caption)}*")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _starts_with_label(caption: str, label: str) -> bool:
    """"Fig. 5. ..." or "Table 2 ..." already name the figure: no "Figure 5:" in front."""
    words = label.split()
    if len(words) < 2:
        return False
    head = caption[: len(label) + 6].lower().replace(".", " ")
    return words[0][:3].lower() in head[:6] and words[-1].lower() in head.split()[:3]


_CSS = """
body { font-family: system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.55; color: #222; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 1.8rem; color: #2b4a7a; }
img { max-width: 100%; height: auto; display: block; margin: 0.8rem auto 0.2rem; border: 1px solid #ddd; }
em { color: #555; }
"""

_PDF_CSS = ("body {font-family: sans-serif; font-size: 11px; line-height: 1.4;} h1 {font-size: 18px;} "
            "h2 {font-size: 14px; color: #2b4a7a;} em {color: #444;} img {width: 420px;}")


def html_page(title: str, body: str, *, css: str = _CSS) -> str:
    """A complete HTML page around ``body`` (already HTML); ``title`` is plain text."""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{html_lib.escape(title)}</title>\n<style>{css}</style>\n</head>\n<body>\n{body}</body>\n</html>\n"
    )


def to_html(summary: Summary, *, base_dir: str | Path | None = None, relative_to: str | Path | None = None,
            citations: bool = True, inline_images: bool = False) -> str:
    """The Markdown form rendered to a page; ``inline_images``: self-contained (data URIs)."""
    images = inlined_images(base_dir) if inline_images else linked_images(base_dir, relative_to)
    body = markdown_to_html(to_markdown(summary, citations=citations, images=images))
    return html_page(summary.title or Path(summary.source).name or "Summary", body)


def html_to_pdf(page: str, target: Path, archive_root: Path) -> Path:
    """An A4 PDF of an HTML page through PyMuPDF's Story (images read relative to ``archive_root``),
    written atomically."""
    import pymupdf

    body = re.sub(r"<style>.*?</style>", "", page, flags=re.DOTALL)
    story = pymupdf.Story(html=body, user_css=_PDF_CSS, archive=pymupdf.Archive(str(archive_root)))
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        writer = pymupdf.DocumentWriter(tmp_name)
        mediabox = pymupdf.paper_rect("a4")
        where = mediabox + (50, 50, -50, -50)
        more, pages = True, 0
        while more and pages < 500:
            device = writer.begin_page(mediabox)
            more, _ = story.place(where)
            story.draw(device)
            writer.end_page()
            pages += 1
        writer.close()
        os.replace(tmp_name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            Path(tmp_name).unlink()
        raise
    return target


# -------------------------------------------------------------------------------------- files


def write_summary_files(summary: Summary, path: str | Path, fmt: str, *,
                        base_dir: str | Path | None = None) -> list[Path]:
    """Write ``summary`` in ``fmt`` to ``path`` atomically; the files written, ``path`` first.
    ``base_dir``: the document's folder, which the summary's image paths are relative to."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (expected one of {', '.join(FORMATS)})")
    target = Path(path)
    folder = target.parent
    if fmt == "json":
        return [write_json_atomic(target, to_json(summary, base_dir=base_dir, relative_to=folder))]
    if fmt == "mdocsum":
        return [write_json_atomic(target, to_mdocsum(summary))]
    if fmt == "md":
        copies: list[Path] = []
        images_dir = target.with_name(f"{target.stem}_images")

        def copy(figure: FigureChoice) -> str | None:
            source = image_path(figure.image, base_dir)
            if source is None or not source.is_file():
                return None
            out = images_dir / f"{figure.id or source.stem}{source.suffix.lower() or '.png'}"
            if out not in copies:
                copies.append(write_bytes_atomic(out, source.read_bytes(), durable=False))
            return f"{images_dir.name}/{out.name}"

        text = to_markdown(summary, images=copy)
        return [write_text_atomic(target, text), *copies]
    if fmt == "html":
        return [write_text_atomic(target, to_html(summary, base_dir=base_dir, inline_images=True))]
    root = Path(base_dir) if base_dir is not None else folder
    return [html_to_pdf(to_html(summary, base_dir=base_dir, relative_to=root), target, root)]


def write_summary(summary: Summary, path: str | Path, fmt: str, *, base_dir: str | Path | None = None) -> Path:
    """:func:`write_summary_files`, returning the main file."""
    return write_summary_files(summary, path, fmt, base_dir=base_dir)[0]


def format_for(path: Path, explicit: str | None) -> str:
    if explicit:
        return explicit
    return _SUFFIX_FORMATS.get(path.suffix.lower(), "json")
