"""FTII-Bench (Flow Text with Image Insertion): its data formats, its metrics, and running placement on it.

Flow insertion JSON, as published: a list of groups ``{"imagedatabase": [[path, ...], ...], "news_text":
[{"id", "content": [paragraph, ...], "groundtruth": [image path or "" per paragraph]}]}``. Image paths are
relative to an images root. The candidate pool of every article of a group is the union of the group's
image lists (in order, without repeats): FTII's harder levels mix the images of several articles.

Metrics follow FTII's scoring code, micro-averaged over paragraph slots: a slot is correct when the
predicted path equals the gold one ("" for none). ``acc_b`` counts all slots, ``acc_i`` the slots whose
gold is an image, ``acc_ni`` those whose gold is "". (The paper's worked example prints Acc_b 4/7; its
code, and this module, give 4/6.)

Single choice TSV: ``above_content``, ``below_content``, ``img*`` columns (image paths or base64) and
``Answer`` (a letter, a 1-based number, or an ``img*`` column name); accuracy is the share answered right.
"""

from __future__ import annotations

import base64
import binascii
import csv
import hashlib
import json
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mmdocsum_desktop.errors import InputNotFoundError, MmdocsumError
from mmdocsum_desktop.fileio import write_bytes_atomic
from mmdocsum_desktop.jobs import JobControl, ensure_control


class BenchDataError(MmdocsumError):
    """A benchmark data or predictions file that does not have the expected shape."""


# ----------------------------------------------------------------------------------------- flow insertion


@dataclass
class FtiiArticle:
    id: str
    content: list[str]
    groundtruth: list[str]
    pool: list[str]


@dataclass
class FtiiMetrics:
    acc_b: float | None
    acc_i: float | None
    acc_ni: float | None
    n_slots: int
    n_image_slots: int = 0
    n_none_slots: int = 0
    correct: int = 0
    correct_image: int = 0
    correct_none: int = 0

    def as_json(self) -> dict[str, Any]:
        """The fields of ``metrics.json``."""
        return {"acc_b": self.acc_b, "acc_i": self.acc_i, "acc_ni": self.acc_ni, "n_slots": self.n_slots}

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def normalise_path(value: Any) -> str:
    """A gold or predicted slot as a comparable string ("" for none)."""
    if value is None:
        return ""
    text = str(value).strip().replace("\\", "/")
    return "" if text.lower() in ("", "none", "null") else text


def _quoted(value: Any, limit: int = 60) -> str:
    """A value from the data file as it may appear in a one-line message: quoted, escaped, shortened."""
    text = repr(str(value))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _read_json(path: str | Path) -> Any:
    source = Path(path)
    try:
        return json.loads(source.read_text(encoding="utf-8"))
    except FileNotFoundError as error:
        raise InputNotFoundError(f"{source}: no such file") from error
    except RecursionError as error:  # json.loads gives up on thousands of nested brackets this way
        raise BenchDataError(f"{source}: not readable JSON (nested too deeply)") from error
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise BenchDataError(f"{source}: not readable JSON ({error})") from error


def parse_flow_insertion(data: Any, *, source: str = "data") -> list[FtiiArticle]:
    """FTII flow-insertion groups (already parsed JSON) as articles with their candidate pools."""
    groups = [data] if isinstance(data, dict) else data
    if not isinstance(groups, list):
        raise BenchDataError(f"{source}: expected a list of groups with imagedatabase and news_text")
    articles: list[FtiiArticle] = []
    seen: set[str] = set()
    for g, group in enumerate(groups):
        if not isinstance(group, dict) or "news_text" not in group:
            raise BenchDataError(f"{source}: group {g} has no news_text")
        pool: list[str] = []
        database = group.get("imagedatabase") or []
        if not isinstance(database, list):
            raise BenchDataError(f"{source}: group {g}: imagedatabase is not a list")
        for entry in database:
            for path in entry if isinstance(entry, list) else [entry]:
                path = normalise_path(path)
                if path and path not in pool:
                    pool.append(path)
        news = group["news_text"]
        if isinstance(news, dict):
            news = [news]
        if not isinstance(news, list):
            raise BenchDataError(f"{source}: group {g}: news_text is not a list")
        for k, article in enumerate(news):
            if not isinstance(article, dict):
                raise BenchDataError(f"{source}: group {g} article {k} is not an object")
            ident = str(article.get("id", f"{g}-{k}"))
            content = article.get("content")
            truth = article.get("groundtruth")
            if isinstance(content, str):
                content = [content]
            if not isinstance(content, list) or not all(isinstance(p, str) or p is None for p in content):
                raise BenchDataError(f"{source}: article {_quoted(ident)}: content is not a list of paragraphs")
            if not isinstance(truth, list) or len(truth) != len(content):
                got = len(truth) if isinstance(truth, list) else type(truth).__name__
                raise BenchDataError(
                    f"{source}: article {_quoted(ident)}: {len(content)} paragraphs but groundtruth has {got} entries"
                )
            if ident in seen:
                raise BenchDataError(f"{source}: article id {_quoted(ident)} appears twice")
            seen.add(ident)
            gold = [normalise_path(t) for t in truth]
            article_pool = list(pool)
            for path in gold:  # a gold image missing from the database is still a candidate
                if path and path not in article_pool:
                    article_pool.append(path)
            articles.append(FtiiArticle(ident, [p or "" for p in content], gold, article_pool))
    return articles


def load_flow_insertion(path: str | Path) -> list[FtiiArticle]:
    return parse_flow_insertion(_read_json(path), source=str(path))


def flow_metrics(gold: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]]) -> FtiiMetrics:
    """Acc_b, Acc_i and Acc_ni over every paragraph slot of every article (FTII's scoring code)."""
    if len(gold) != len(predicted):
        raise BenchDataError(f"{len(gold)} articles but {len(predicted)} predictions")
    total = correct = images = correct_images = nones = correct_nones = 0
    for a, (truth, guess) in enumerate(zip(gold, predicted)):
        if len(truth) != len(guess):
            raise BenchDataError(f"article {a}: {len(truth)} paragraphs but {len(guess)} predictions")
        for t, p in zip(truth, guess):
            t, p = normalise_path(t), normalise_path(p)
            hit = t == p
            total += 1
            correct += hit
            if t:
                images += 1
                correct_images += hit
            else:
                nones += 1
                correct_nones += hit
    return FtiiMetrics(
        acc_b=correct / total if total else None,
        acc_i=correct_images / images if images else None,
        acc_ni=correct_nones / nones if nones else None,
        n_slots=total,
        n_image_slots=images,
        n_none_slots=nones,
        correct=correct,
        correct_image=correct_images,
        correct_none=correct_nones,
    )


def score_articles(articles: Sequence[FtiiArticle], predictions: Mapping[str, Sequence[str]]) -> FtiiMetrics:
    missing = [a.id for a in articles if a.id not in predictions]
    if missing:
        shown = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise BenchDataError(f"the predictions lack {len(missing)} article(s): {shown}")
    for article in articles:
        if len(predictions[article.id]) != len(article.content):
            raise BenchDataError(
                f"article {article.id}: {len(article.content)} paragraphs but {len(predictions[article.id])} predictions"
            )
    return flow_metrics([a.groundtruth for a in articles], [list(predictions[a.id]) for a in articles])


def load_predictions(path: str | Path) -> dict[str, list[str]]:
    """``{article id: [predicted image path or "" per paragraph]}``."""
    data = _read_json(path)
    if not isinstance(data, dict):
        raise BenchDataError(f"{path}: expected an object mapping article ids to lists of image paths")
    out: dict[str, list[str]] = {}
    for ident, values in data.items():
        if not isinstance(values, list):
            raise BenchDataError(f"{path}: the predictions of {_quoted(ident)} are not a list")
        out[str(ident)] = [normalise_path(v) for v in values]
    return out


@dataclass
class FlowRun:
    predictions: dict[str, list[str]]
    scores: dict[str, list[float]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def run_flow_insertion(
    articles: Sequence[FtiiArticle],
    engine,
    images_root: str | Path,
    *,
    captions: Mapping[str, Mapping[str, Any]] | None = None,
    strategy: str = "global",
    control: JobControl | None = None,
) -> FlowRun:
    """Place images with ``engine`` (a PlacementEngine) for every article; predictions as pool paths."""
    from mmdocsum_desktop.placement import ImageCandidate

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
        placements = engine.place(article.content, candidates, strategy=strategy)
        for path, candidate in zip(article.pool, candidates):
            if candidate.ocr_text is not None:
                ocr_done[path] = candidate.ocr_text
        run.predictions[article.id] = [article.pool[p.candidate] if p.candidate is not None else "" for p in placements]
        run.scores[article.id] = [round(p.score, 4) for p in placements]
        run.warnings.extend(f"{article.id}: {w}" for w in engine.warnings)
    control.report(len(articles), len(articles), "done")
    return run


# ------------------------------------------------------------------------------------------ single choice


@dataclass
class SingleChoiceItem:
    above: str
    below: str
    options: list[str]  # image paths relative to the images root, or base64 image data
    answer: int  # 0-based index into options


def load_single_choice(path: str | Path) -> list[SingleChoiceItem]:
    """FTII's single-choice TSV (``above_content``, ``below_content``, ``img*``, ``Answer``)."""
    source = Path(path)
    if not source.is_file():
        raise InputNotFoundError(f"{source}: no such file")
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))  # base64 images make long fields
    try:
        with source.open(encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle, delimiter="\t")
            fields = reader.fieldnames or []
            rows = list(reader)
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise BenchDataError(f"{source}: not a readable TSV file ({error})") from error
    lower = {f.lower().strip(): f for f in fields}
    missing = [name for name in ("above_content", "below_content", "answer") if name not in lower]
    image_columns = sorted(
        (f for f in fields if re.fullmatch(r"img_?\d+", f.strip(), re.IGNORECASE)),
        key=lambda f: int(re.sub(r"\D", "", f)),
    )
    if missing or not image_columns:
        needed = missing + ([] if image_columns else ["img1..."])
        raise BenchDataError(f"{source}: missing column(s) {', '.join(needed)}")
    items = []
    for number, row in enumerate(rows, start=2):
        options = [(row.get(c) or "").strip() for c in image_columns]
        given = (row.get(lower["answer"]) or "").strip()
        answer = _parse_answer(given, image_columns, options)
        if answer is None:
            raise BenchDataError(f"{source}: line {number}: cannot read the answer {_quoted(given)}")
        items.append(
            SingleChoiceItem(
                above=row.get(lower["above_content"]) or "",
                below=row.get(lower["below_content"]) or "",
                options=options,
                answer=answer,
            )
        )
    return items


def _parse_answer(value: str, columns: Sequence[str], options: Sequence[str]) -> int | None:
    if not value:
        return None
    if len(value) == 1 and value.isalpha():
        index = ord(value.upper()) - ord("A")
        return index if 0 <= index < len(columns) else None
    # isdecimal, not isdigit: int() refuses superscripts such as "²"; no question has 10**9 options.
    if value.isdecimal() and len(value) < 10:
        index = int(value) - 1
        return index if 0 <= index < len(columns) else None
    for k, column in enumerate(columns):
        if value.lower() == column.lower():
            return k
    if value in options:
        return list(options).index(value)
    return None


def single_choice_accuracy(items: Sequence[SingleChoiceItem], predicted: Sequence[int | None]) -> float | None:
    if len(items) != len(predicted):
        raise BenchDataError(f"{len(items)} questions but {len(predicted)} answers")
    if not items:
        return None
    return sum(1 for item, guess in zip(items, predicted) if guess == item.answer) / len(items)


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
    engine,
    images_root: str | Path,
    work_dir: str | Path,
    *,
    control: JobControl | None = None,
) -> list[int | None]:
    """For each question, the option whose image scores highest against the text around the gap."""
    from mmdocsum_desktop.placement import ImageCandidate

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


def _nanargmax(values) -> int:
    import numpy as np

    values = np.asarray(values, dtype=float)
    if not np.isfinite(values).any():
        return 0
    return int(np.nanargmax(values))
