"""Writing a Summary out: ``json`` (the app's rich form), ``mdocsum`` (exactly M-DocSum's answer),
``md`` and ``html`` (the interleaved summary with its images and citation markers).

HTML is rendered from the Markdown by markdown-it-py with raw HTML disabled, so nothing a model writes
(or a document contains) can inject markup or script into the page.
"""

from __future__ import annotations

import html as html_lib
import os
from pathlib import Path
from typing import Any

from mmdocsum_desktop.fileio import write_json_atomic, write_text_atomic
from mmdocsum_desktop.summarize.pipeline import Summary

FORMATS = ("json", "mdocsum", "md", "html")
SCHEMA = "mmdocsum-summary"
SCHEMA_VERSION = 1


def to_mdocsum(summary: Summary) -> list[dict[str, Any]]:
    """M-DocSum's answer: four ``{"summary", "image": {"imageRef", "imageCaption"}}``; imageRef is the
    1-based index of the image in document order as a string, or "None"."""
    answer = []
    for paragraph in summary.paragraphs:
        figure = paragraph.figure
        answer.append(
            {
                "summary": paragraph.text,
                "image": {
                    "imageRef": str(figure.index) if figure is not None else "None",
                    "imageCaption": paragraph.image_caption if figure is not None else "",
                },
            }
        )
    return answer


def to_json(summary: Summary, *, relative_to: Path | None = None) -> dict[str, Any]:
    options = summary.options
    return {
        "format": SCHEMA,
        "version": SCHEMA_VERSION,
        "source": summary.source,
        "title": summary.title,
        "engine": summary.engine,
        "options": {
            "figure_mode": options.figure_mode,
            "include_abstract": options.include_abstract,
            "shuffle_images": options.shuffle_seed,
            "max_tokens": options.max_tokens,
            "temperature": options.temperature,
            "seed": options.seed,
        },
        "paragraphs": [
            {
                "role": p.role,
                "title": p.title,
                "text": p.text,
                "words": p.words,
                "source": p.source,
                "figure": None if p.figure is None else {**p.figure.to_json(), "image": _rel(p.figure.image, relative_to)},
                "image_caption": p.image_caption,
                "proposed_image": p.proposed_image,
                "sentences": [s.to_json() for s in p.sentences],
            }
            for p in summary.paragraphs
        ],
        "figures": [
            {
                "index": k + 1,
                "id": c.source_id,
                "label": c.label,
                "kind": c.kind,
                "caption": c.caption,
                "image": _rel(c.image, relative_to),
                "ocr_text": c.ocr_text,
            }
            for k, c in enumerate(summary.candidates)
        ],
        "mdocsum": to_mdocsum(summary),
        "instruction_following": summary.instruction_following,
        "parse": summary.parse,
        "repairs": summary.repairs,
        "long_document": summary.long_document,
        "generations": summary.generations,
        "timings": {k: round(v, 3) for k, v in summary.timings.items()},
        "warnings": summary.warnings,
        "raw_answer": summary.raw_answer,
    }


def _rel(path: str | None, base: Path | None) -> str | None:
    if path is None or base is None:
        return path
    try:
        return Path(os.path.relpath(Path(path).resolve(), base.resolve())).as_posix()
    except ValueError:  # another drive on Windows
        return str(path)


def _escape_md(text: str) -> str:
    """Markdown-escape model or document text so it renders as the words it is."""
    out = []
    for ch in text:
        if ch in "\\`*_[]<>#|!":
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


def to_markdown(summary: Summary, *, relative_to: Path | None = None, citations: bool = True) -> str:
    lines = [f"# {_escape_md(summary.title or Path(summary.source).name)}", ""]
    engine = summary.engine.get("engine", "?")
    model = summary.engine.get("model")
    lines.append(f"*Summary of {_escape_md(Path(summary.source).name)} · engine: {_escape_md(str(engine))}"
                 + (f" ({_escape_md(str(model))})" if model and engine != "extractive" else "") + "*")
    lines.append("")
    for paragraph in summary.paragraphs:
        lines.append(f"## {paragraph.title}")
        lines.append("")
        if paragraph.sentences and citations:
            parts = []
            for sentence in paragraph.sentences:
                marker = sentence.marker
                parts.append(_escape_md(sentence.text) + (f" {_escape_md(marker.replace('(', '[').replace(')', ']'))}" if marker else ""))
            lines.append(" ".join(parts))
        else:
            lines.append(_escape_md(paragraph.text))
        lines.append("")
        figure = paragraph.figure
        if figure is not None:
            name = figure.label or f"Image {figure.index}"
            alt = _escape_md(name)
            if figure.image:
                target = _rel(figure.image, relative_to) or figure.image
                lines.append(f"![{alt}](<{target}>)")
                lines.append("")
            caption = " ".join((paragraph.image_caption or figure.caption).split())
            if not caption:
                lines.append(f"*{alt}*")
            elif _starts_with_label(caption, name):
                lines.append(f"*{_escape_md(caption)}*")
            else:
                lines.append(f"*{alt}: {_escape_md(caption)}*")
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
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 1.8rem; }
img { max-width: 100%; height: auto; display: block; margin: 0.8rem auto 0.2rem; border: 1px solid #ddd; }
em { color: #555; }
"""


def to_html(summary: Summary, *, relative_to: Path | None = None, citations: bool = True) -> str:
    from markdown_it import MarkdownIt

    renderer = MarkdownIt("commonmark", {"html": False})
    body = renderer.render(to_markdown(summary, relative_to=relative_to, citations=citations))
    title = html_lib.escape(summary.title or Path(summary.source).name)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{title}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n{body}</body>\n</html>\n"
    )


def write_summary(summary: Summary, path: str | Path, fmt: str) -> Path:
    """Write ``summary`` in ``fmt`` to ``path`` atomically; image paths relative to the file's folder."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (expected one of {', '.join(FORMATS)})")
    target = Path(path)
    folder = target.parent
    if fmt == "json":
        return write_json_atomic(target, to_json(summary, relative_to=folder))
    if fmt == "mdocsum":
        return write_json_atomic(target, to_mdocsum(summary))
    if fmt == "md":
        return write_text_atomic(target, to_markdown(summary, relative_to=folder))
    return write_text_atomic(target, to_html(summary, relative_to=folder))


def format_for(path: Path, explicit: str | None) -> str:
    if explicit:
        return explicit
    return {".md": "md", ".markdown": "md", ".html": "html", ".htm": "html"}.get(path.suffix.lower(), "json")
