"""Writing a summary out, as `mmdocsum summarize -o FILE` writes it and the benchmarks save it: JSON (rich),
M-DocSum's answer, Markdown, HTML or PDF, with the figures beside it (``summarize.render`` does the
writing; this is the front ends' one door to it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mmdocsum_desktop.schemas.summary import Summary
from mmdocsum_desktop.summarize import prompt, render

__all__ = ["FORMATS", "format_for", "image_tags", "summary_json", "write_summary"]

FORMATS: tuple[str, ...] = render.FORMATS


def format_for(path: Path, explicit: str | None = None) -> str:
    """The format to write ``path`` in: ``explicit`` when given, else from its suffix (.md, .html, .pdf),
    else json."""
    return render.format_for(path, explicit)


def write_summary(summary: Summary, path: str | Path, fmt: str, *,
                  base_dir: str | Path | None = None) -> Path:
    """Write ``summary`` as ``fmt`` to ``path`` atomically (with the figures it shows, linked or inlined as
    the format needs); the file written. ``base_dir``: the folder the summary's image paths are relative
    to (where its document's figure crops are)."""
    return render.write_summary(summary, path, fmt, base_dir=base_dir)


def summary_json(summary: Summary, *, base_dir: str | Path | None = None,
                 relative_to: str | Path | None = None) -> dict[str, Any]:
    """The summary as ``--format json`` writes it; image paths (stored relative to ``base_dir``) made
    relative to ``relative_to`` (kept as stored when None)."""
    return render.to_json(summary, base_dir=base_dir, relative_to=relative_to)


def image_tags(summary: Summary, shuffle_seed: int | None = None) -> dict[str, int]:
    """{the number an image had in the model's prompt: its 1-based position in document order}: the two
    differ when the images were shown to the model in a shuffled order (``shuffle_seed``)."""
    return {str(slot.tag): slot.candidate + 1 for slot in prompt.make_slots(summary.figures, shuffle_seed)}
