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
import datetime
import html as html_lib
import io
import json
import os
import re
import shutil
import tempfile
import urllib.parse
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mmdocsum_desktop.document.normalize import normalize_text
from mmdocsum_desktop.document.pdf_export import story_pdf
from mmdocsum_desktop.fileio import OutputFolder, write_bytes_atomic, write_json_atomic, write_text_atomic
from mmdocsum_desktop.models import fitness
from mmdocsum_desktop.schemas.summary import (
    FigureChoice,
    SentenceCitation,
    Summary,
    SummaryParagraph,
    mdocsum_answer,
)
from mmdocsum_desktop.text.languages import primary_subtag
from mmdocsum_desktop.text.reader_strings import ReaderStrings, reader_strings
from mmdocsum_desktop.text.sentences import split_sentences

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
    from markdown_it import MarkdownIt  # lazy: only the HTML and PDF exports need it

    return MarkdownIt("commonmark", {"html": False}).enable("table").render(text)


def data_uri(path: Path) -> str | None:
    """The image file as a ``data:`` URI (the kinds markdown-it lets through), or None."""
    kind = _IMAGE_TYPES.get(path.suffix.lower())
    if kind is None or not path.is_file():
        return None
    return f"data:image/{kind};base64," + base64.b64encode(path.read_bytes()).decode("ascii")


# -------------------------------------------------------------------------------------- paths


def label_file_name(label: str | None, fallback: str, suffix: str) -> str:
    """"Figure 3" → "figure-3.png", "Table S2" → "table-s2.png": an exported image is named after the
    label a reader sees beside it."""
    slug = re.sub(r"[^a-z0-9]+", "-", (label or fallback).lower()).strip("-") or "image"
    return f"{slug}{suffix.lower() or '.png'}"


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


def clean_text(text: str) -> str:
    """Text as a reader wants it in an export: ligatures (ﬁ, ﬀ) as letters, soft hyphens gone, one space
    between words (PDF extraction leaves all three)."""
    return " ".join(normalize_text(text).split())


def caption_text(label: str | None, caption: str) -> str:
    """The caption with the figure's label once: "Table 2: Flow data", never "Table 2: Table 2 Flow
    data" (a caption that starts with its label keeps its own wording)."""
    caption = clean_text(caption)
    label = clean_text(label or "")
    if not caption:
        return label
    if not label or _starts_with_label(caption, label):
        return caption
    return f"{label}: {caption}"


def _paragraph_markdown(paragraph: SummaryParagraph, citations: bool, strings: ReaderStrings) -> str:
    if not citations:
        return escape_markdown(clean_text(paragraph.text))
    sentences = paragraph.cited_sentences()
    if sentences is not None:
        pairs = [(s.text, _marker(s, strings)) for s in sentences]
    else:
        pairs = edited_sentence_markers(paragraph, strings)
    return " ".join(escape_markdown(clean_text(text)) + (f" {_bracketed(marker)}" if marker else "")
                    for text, marker in pairs)


def edited_sentence_markers(paragraph: SummaryParagraph, strings: ReaderStrings | None = None) -> list[tuple[str, str]]:
    """The sentences of a paragraph the user edited, each with the citation of the sentence it still is
    (same words), and none for a sentence the user wrote or changed: a citation vouches for words that
    came from the paper, never for the user's own."""
    strings = strings or reader_strings(None)
    cited = {tuple(s.text.split()): _marker(s, strings) for s in paragraph.sentences}
    return [(text, cited.get(tuple(text.split()), "")) for text in split_sentences(paragraph.text)]


def _marker(sentence: SentenceCitation, strings: ReaderStrings) -> str:
    """The sentence's citation in the summary's language: "(p. 3; Tabela 2)", "(S. 3; Abbildung 1)"."""
    return strings.marker(sentence.pages, [*sentence.figures, *sentence.tables],
                          ocr=any(e.ocr for e in sentence.evidence))


def _bracketed(marker: str) -> str:
    """"(p. 3; Figure 2)" written as "[p. 3; Figure 2]", escaped."""
    return escape_markdown("[" + marker[1:-1] + "]")


def to_markdown(summary: Summary, *, base_dir: str | Path | None = None, relative_to: str | Path | None = None,
                citations: bool = True, images: ImageTarget | None = None, front_matter: bool = False) -> str:
    """The interleaved summary in Markdown. ``images`` says where each figure is linked from (default:
    where it is, relative to ``relative_to``). ``front_matter``: YAML properties first (title, source,
    date, engine), as Obsidian and static-site tools read them."""
    images = images or linked_images(base_dir, relative_to)
    # every string around the paper's own words is in the paper's language (text/reader_strings.py)
    strings = reader_strings(summary.language)
    name = Path(summary.source).name
    title = clean_text(summary.title or name or strings.word("summary"))
    lines = front_matter_lines(title, summary) if front_matter else []
    lines += [f"# {escape_markdown(title)}", ""]
    engine = summary.engine.engine or "?"
    model = summary.engine.model
    with_model = f" ({escape_markdown(str(model))})" if model and engine != "extractive" else ""
    of = f"{strings.word('summary_of', name=escape_markdown(name))} · " if name else ""
    lines += [f"*{of}{strings.word('engine')}: {escape_markdown(engine)}{with_model}*", ""]
    warning = fitness_warning(summary)
    if warning:
        lines += [f"> **{strings.word('warning')}:** {escape_markdown(warning)}", ""]
    for paragraph in summary.paragraphs:
        lines += [f"## {escape_markdown(strings.heading(paragraph.role))}", "",
                  _paragraph_markdown(paragraph, citations, strings), ""]
        figure = paragraph.figure
        if figure is None:
            if paragraph.no_figure is not None:  # the reader is told why this paragraph shows no figure
                lines += [f"*{escape_markdown(paragraph.no_figure.message_in(summary.language))}*", ""]
            continue
        label = strings.label(figure.label) or f"{strings.word('image')} {figure.index}"
        alt = escape_markdown(label)
        target = images(figure)
        if target:
            lines += [f"![{alt}](<{target}>)", ""]
        lines.append(f"*{escape_markdown(caption_text(label, paragraph.image_caption or figure.caption))}*")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def front_matter_lines(title: str, summary: Summary | None = None, *, source: str | None = None) -> list[str]:
    """YAML front matter: every value a JSON string, which YAML reads as it is (no quoting rules)."""
    properties: dict[str, str] = {"title": title}
    source = source if source is not None else (summary.source if summary is not None else "")
    if source:
        properties["source"] = Path(source).name
    properties["date"] = datetime.date.today().isoformat()
    if summary is not None:
        properties["engine"] = summary.engine_label or summary.engine.engine
    lines = ["---", *(f"{key}: {json.dumps(value, ensure_ascii=False)}" for key, value in properties.items())]
    return [*lines, "tags: [summary]" if summary is not None else "tags: []", "---", ""]


def fitness_warning(summary: Summary) -> str:
    """The sentence that marks a summary written by a model unfit (or weak) to write one; '' otherwise.
    In English it gives the measured reason; in the paper's other language, the verdict in that language
    (the reasons are measurements written in English)."""
    verdict = fitness.for_summary(summary)
    if verdict is None or not verdict.warns:
        return ""
    strings = reader_strings(summary.language)
    return verdict.sentence() if strings.code == "en" else strings.model_warning(verdict.verdict, verdict.model)


def _starts_with_label(caption: str, label: str) -> bool:
    """"Fig. 5. ..." or "Table 2 ..." already name the figure: no "Figure 5:" in front."""
    words = label.split()
    if len(words) < 2:
        return False
    head = re.sub(r"[.:|—–-]", " ", caption[: len(label) + 6].lower())  # "Figure 5:", "Fig. 5.", "Figure 5 |"
    return words[0][:3].lower() in head[:6] and words[-1].lower() in head.split()[:3]


_CSS = """
body { font-family: system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.55; color: #222; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 1.8rem; color: #2b4a7a; }
img { max-width: 100%; height: auto; display: block; margin: 0.8rem auto 0.2rem; border: 1px solid #ddd; }
em { color: #555; }
"""

_PDF_CSS = ("body {font-family: sans-serif; font-size: 11px; line-height: 1.4;} h1 {font-size: 18px;} "
            "h2 {font-size: 14px; color: #2b4a7a;} em {color: #444;} p.figure {text-align: center;} "
            "blockquote {color: #7a4b00;}")
# A4 less 50 pt margins is 495 x 742 pt; an image gets at most this much, so that it and its caption fit
# on one page (a taller one was cut off, and every paragraph after it lost).
_PDF_IMAGE_BOX = (480.0, 560.0)
_PDF_IMAGE_DPI = 150  # images are resampled to this at their printed size: sharp, and a small file


def html_page(title: str, body: str, *, css: str = _CSS, language: str | None = None) -> str:
    """A complete HTML page around ``body`` (already HTML); ``title`` is plain text; ``language`` the
    page's (ISO 639-1; English when None), which screen readers and hyphenation follow."""
    lang = html_lib.escape(primary_subtag(language) or "en")
    return (
        f"<!DOCTYPE html>\n<html lang=\"{lang}\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{html_lib.escape(title)}</title>\n<style>{css}</style>\n</head>\n<body>\n{body}</body>\n</html>\n"
    )


def to_html(summary: Summary, *, base_dir: str | Path | None = None, relative_to: str | Path | None = None,
            citations: bool = True, inline_images: bool = False) -> str:
    """The Markdown form rendered to a page; ``inline_images``: self-contained (data URIs)."""
    images = inlined_images(base_dir) if inline_images else linked_images(base_dir, relative_to)
    body = markdown_to_html(to_markdown(summary, citations=citations, images=images))
    title = summary.title or Path(summary.source).name or reader_strings(summary.language).word("summary")
    return html_page(title, body, language=summary.language)


def html_to_pdf(page: str, target: Path, archive_root: Path) -> Path:
    """An A4 PDF of an HTML page through PyMuPDF's Story (images read relative to ``archive_root``),
    written atomically. Each image is resampled to fit the page with its caption; a figure whose caption
    would fall on the next page starts that page; fonts are subset (the file stays small)."""
    body = _without_ligatures(re.sub(r"<style>.*?</style>", "", page, flags=re.DOTALL))
    target.parent.mkdir(parents=True, exist_ok=True)
    # the page's title is the PDF's: readers show it in their title bar and library, not "untitled"
    title = re.search(r"<title>(.*?)</title>", page, flags=re.DOTALL)
    metadata = {"title": html_lib.unescape(title.group(1)).strip() if title else "",
                "creator": "mmdocsum", "producer": "mmdocsum (PyMuPDF)"}
    with tempfile.TemporaryDirectory(prefix="mmdocsum-pdf-") as scratch:
        body, figures = _pdf_figures(body, archive_root, Path(scratch))
        # laid out by document/pdf_export.py, under the PyMuPDF lock
        data = story_pdf(body, _PDF_CSS, Path(scratch), figures=figures, metadata=metadata)
    return write_bytes_atomic(target, data)


def _without_ligatures(body: str) -> str:
    """The text with each letter that would follow an "f" in a ligature ("fi", "fl", "ff") in a span of
    its own: MuPDF's layout draws ligature glyphs, which copy out of the PDF as "ﬁ" and "ﬂ" (a reader
    searching or pasting the text gets other characters); a span boundary is drawn as the two letters."""
    parts = re.split(r"(<[^>]*>)", body)
    for index in range(0, len(parts), 2):  # the text between tags, never a tag or its attributes
        parts[index] = re.sub(r"(?<=f)([fil])", r"<span>\1</span>", parts[index])
    return "".join(parts)


def _pdf_figures(body: str, root: Path, scratch: Path) -> tuple[str, int]:
    """Each ``<p><img></p>`` and the caption after it as one ``fig-N`` block, the image resampled into
    ``scratch`` with its printed size; returns the body and the number of figures."""
    from PIL import Image  # lazy: Pillow loads only for a PDF export

    pattern = re.compile(r'<p><img src="([^"]+)" alt="([^"]*)"\s*/?></p>\s*(<p><em>.*?</em></p>)?', re.DOTALL)
    count = 0

    def figure(match: re.Match[str]) -> str:
        nonlocal count
        source = root / urllib.parse.unquote(html_lib.unescape(match.group(1)))
        try:
            with Image.open(source) as image:
                image.load()
                picture = image.convert("RGB") if image.mode not in ("RGB", "L") else image.copy()
        except (OSError, ValueError):
            return match.group(3) or ""  # an unreadable image is left out, its caption kept
        count += 1
        width_px, height_px = picture.size
        natural = (width_px * 72 / _PDF_IMAGE_DPI, height_px * 72 / _PDF_IMAGE_DPI)
        # fit the box; a small crop is shown larger, never past twice its size
        largest = 2.0 if natural[0] < 200 else 1.0
        scale = min(largest, _PDF_IMAGE_BOX[0] / natural[0], _PDF_IMAGE_BOX[1] / natural[1])
        width_pt, height_pt = natural[0] * scale, natural[1] * scale
        pixels = (max(1, round(width_pt * _PDF_IMAGE_DPI / 72)), max(1, round(height_pt * _PDF_IMAGE_DPI / 72)))
        if pixels[0] < width_px:
            picture = picture.resize(pixels, Image.Resampling.LANCZOS)
        name = f"figure-{count}.{_smaller_encoding(picture, scratch / f'figure-{count}')}"
        caption = match.group(3) or ""
        if caption:
            caption = caption.replace("<p>", f'<p id="cap-{count}">', 1)
        return (f'<div id="fig-{count}"><p class="figure"><img src="{name}" alt="{match.group(2)}" '
                f'width="{width_pt:.0f}" height="{height_pt:.0f}"/></p>{caption}</div>')

    return pattern.sub(figure, body), count


def _smaller_encoding(picture: Any, stem: Path) -> str:
    """Write PNG (lossless: charts, tables, line art) unless JPEG is less than half its size (photos)."""
    png = io.BytesIO()
    picture.save(png, "PNG")
    jpeg = io.BytesIO()
    picture.save(jpeg, "JPEG", quality=85, optimize=True)
    suffix, data = ("jpg", jpeg.getvalue()) if jpeg.tell() < png.tell() / 2 else ("png", png.getvalue())
    stem.with_suffix(f".{suffix}").write_bytes(data)
    return suffix


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
        images_dir = target.with_name(f"{target.stem}_images")
        # NAME_images/ may hold the user's own files (an article's images, even the input document): only
        # the images this app wrote there are replaced or removed, a user's file of the same name is kept
        # and the copy gets another name (fileio.OutputFolder); the folder is never removed wholesale.
        images = OutputFolder(images_dir, "images").check()
        # The images are gathered in a hidden folder and moved into place just before the Markdown is
        # written, so a run killed half-way leaves no half-filled NAME_images/ behind.
        folder.mkdir(parents=True, exist_ok=True)
        # made by mkdir, not mkdtemp (0700): the folder the user gets has the usual permissions (umask)
        staging = folder / f".{images_dir.name}.{uuid.uuid4().hex[:12]}"
        staging.mkdir()
        names: dict[str, str] = {}  # source file -> its name in the folder

        def copy(figure: FigureChoice) -> str | None:
            source = image_path(figure.image, base_dir)
            if source is None or not source.is_file():
                return None
            if str(source) not in names:
                name = label_file_name(figure.label, figure.id or source.stem, source.suffix)
                number = 2
                while name in names.values():  # two images with one label: "figure-1-2.png"
                    name = label_file_name(f"{figure.label or figure.id or source.stem} {number}", "", source.suffix)
                    number += 1
                name = images.claim(name, rename=True).name
                write_bytes_atomic(staging / name, source.read_bytes(), durable=False)
                names[str(source)] = name
            return f"{images_dir.name}/{names[str(source)]}"

        try:
            text = to_markdown(summary, images=copy, front_matter=True)  # opens as it is in Obsidian
            if names:
                images_dir.mkdir(exist_ok=True)
                for name in names.values():
                    os.replace(staging / name, images_dir / name)
            images.finish()  # the images an earlier summary put there and this one does not show go
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return [write_text_atomic(target, text), *(images_dir / name for name in names.values())]
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
