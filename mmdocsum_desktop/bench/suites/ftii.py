"""``mmdocsum bench ftii``: FTII-Bench — the placement engine puts images into flow text (flow
insertion) or picks the image for a gap (single choice); data read by :mod:`mmdocsum_desktop.bench.splits`,
scored by :mod:`mmdocsum_desktop.bench.metrics.ftii`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mmdocsum_desktop.errors import InputNotFoundError
from mmdocsum_desktop.fileio import write_bytes_atomic
from mmdocsum_desktop.jobs import JobControl, ensure_control
from mmdocsum_desktop.schemas.bench import FtiiArticle, SingleChoiceItem
from mmdocsum_desktop.schemas.placement import ImageCandidate

SUITE = "ftii"


@dataclass
class FlowRun:
    predictions: dict[str, list[str]]
    scores: dict[str, list[float]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def run_flow_insertion(
    articles: Sequence[FtiiArticle],
    engine: Any,  # bench.run.AppPlacer or an experiment's PlacementEngine: anything with place()
    images_root: str | Path,
    *,
    captions: Mapping[str, Mapping[str, Any]] | None = None,
    strategy: str = "global",
    control: JobControl | None = None,
    form: str = "list",
) -> FlowRun:
    """Place images with ``engine`` for every article (``bench.run.AppPlacer``: app.place, as `mmdocsum place`;
    or a PlacementEngine of an experiment); predictions as pool paths.

    ``form``: how the article's paragraphs reach the placer — "list", a JSON list as `mmdocsum place`
    takes it (no headings: every entry is a paragraph); "markdown", the same paragraphs as the Authoring
    view splits a Markdown text (heading lines among them read as headings; an AppPlacer only)."""
    if form not in ("list", "markdown"):
        raise ValueError(f"form is 'list' or 'markdown', not {form!r}")
    control = ensure_control(control)
    root = Path(images_root)
    if not root.is_dir():
        raise InputNotFoundError(f"{root}: the images root is not a folder")
    notes = captions or {}
    run = FlowRun(predictions={})
    ocr_done: dict[str, str] = {}  # an image shared by several articles is read once
    for position, article in enumerate(articles):
        control.report(position, len(articles), f"article {article.id}")
        candidates = []
        for order, path in enumerate(article.pool):
            note = notes.get(path, {})
            candidates.append(
                ImageCandidate(
                    image=str(root / path),
                    label=note.get("label"),
                    kind=note.get("kind", "figure"),
                    caption=note.get("caption", "") or "",
                    context=list(note.get("context", [])),
                    ocr_text=ocr_done.get(path),
                    order=order,
                )
            )
        if form == "markdown":
            placements = engine.place(article.content, candidates, strategy=strategy, headings=True)
        else:
            placements = engine.place(article.content, candidates, strategy=strategy)
        for path, candidate in zip(article.pool, candidates):
            if candidate.ocr_text is not None:
                ocr_done[path] = candidate.ocr_text
        run.predictions[article.id] = [
            article.pool[p.candidate] if p.candidate is not None else "" for p in placements
        ]
        run.scores[article.id] = [round(p.score, 4) for p in placements]
        run.warnings.extend(f"{article.id}: {w}" for w in engine.warnings)
    control.report(len(articles), len(articles), "done")
    return run


def option_image(value: str, images_root: Path, work_dir: Path) -> str | None:
    """An option as an image file: a path under the images root, or base64 data decoded into work_dir."""
    if not value:
        return None
    if len(value) < 1024 and (images_root / value).is_file():
        return str(images_root / value)
    payload = value.split(",", 1)[1] if value.startswith("data:") else value
    try:
        data = base64.b64decode(payload, validate=False)
    except (binascii.Error, ValueError):
        return None
    if len(data) < 8:
        return None
    target = work_dir / f"{hashlib.sha256(data).hexdigest()[:16]}.img"
    if not target.is_file():
        write_bytes_atomic(target, data, durable=False)
    return str(target)


def run_single_choice(
    items: Sequence[SingleChoiceItem],
    engine: Any,  # as in run_flow_insertion
    images_root: str | Path,
    work_dir: str | Path,
    *,
    control: JobControl | None = None,
) -> list[int | None]:
    """For each question, the option whose image scores highest against the text around the gap."""
    control = ensure_control(control)
    root, work = Path(images_root), Path(work_dir)
    answers: list[int | None] = []
    for position, item in enumerate(items):
        control.report(position, len(items), "questions")
        paths = [option_image(o, root, work) for o in item.options]
        candidates = [ImageCandidate(image=p, order=k) for k, p in enumerate(paths) if p]
        index_of = [k for k, p in enumerate(paths) if p]
        text = "\n\n".join(t for t in (item.above, item.below) if t.strip())
        if not candidates:
            answers.append(None)
            continue
        problem = engine.prepare([text], candidates)
        scores = problem.probabilities()[0]
        answers.append(index_of[int(_nanargmax(scores))])
    control.report(len(items), len(items), "questions")
    return answers


def _nanargmax(values: Sequence[float | None]) -> int:
    scores = np.asarray([np.nan if v is None else v for v in values], dtype=float)
    if not np.isfinite(scores).any():
        return 0
    return int(np.nanargmax(scores))
