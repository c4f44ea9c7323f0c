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

from collections.abc import Mapping, Sequence
from typing import Any

from mmdocsum_desktop.bench.metrics.common import slot_accuracies
from mmdocsum_desktop.schemas.bench import BenchDataError, FtiiArticle, FtiiMetrics, SingleChoiceItem


def normalise_path(value: Any) -> str:
    """A gold or predicted slot as a comparable string ("" for none)."""
    if value is None:
        return ""
    text = str(value).strip().replace("\\", "/")
    return "" if text.lower() in ("", "none", "null") else text


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
        **slot_accuracies(correct, total, correct_images, images, correct_nones, nones),
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


def single_choice_accuracy(
    items: Sequence[SingleChoiceItem], predicted: Sequence[int | None]
) -> float | None:
    if len(items) != len(predicted):
        raise BenchDataError(f"{len(items)} questions but {len(predicted)} answers")
    if not items:
        return None
    return sum(1 for item, guess in zip(items, predicted) if guess == item.answer) / len(items)
