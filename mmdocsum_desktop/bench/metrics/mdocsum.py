"""M-DocEval: the metrics of M-DocSum-Bench, computed the same way every time.

Scoring rules (issue 5; every number in the reports comes from these functions):

- A document's answer is a list of paragraphs, each with an image reference (1-based index into the
  document's images, or None). Gold has four paragraphs.
- **IF** is 1 for an answer that parses *and* follows every rule: exactly four paragraphs, every
  image reference an integer in 1..n_images or "None", no image used twice, every paragraph with its
  summary and image field (and the summaries parser's own instruction-following flag, when it gives one).
- An answer that cannot be parsed (no JSON value can be read from it, even leniently; paragraphs the
  app salvages from plain text do not count): IF 0, all four slots wrong (None slots too), Jaccard 0, Com and Acc 0.
- An answer that parses but breaks a rule: IF 0 and otherwise scored as given: paragraphs after the
  fourth are ignored, missing paragraphs are wrong slots, an out-of-range or non-numeric reference is a
  wrong slot (it never equals a gold value) and an out-of-range index still counts in the predicted
  image set for Jaccard (it was used, and matches nothing); a paragraph without an image field is
  scored as "None" (nothing was given).
- **OMatch** (all slots), **ImgAcc** (slots whose gold is an image) and **NonAcc** (slots whose gold
  is None) are micro-averaged over all paragraph slots of all documents.
- **JacSim** is computed per document between the sets of images used (None excluded), 1.0 when both
  sets are empty, and averaged over documents.
- **Com** (key points covered / key points) and **Acc** (correct sentences / sentences) come from a
  judge, per document, averaged over the documents the judge scored.
- **IS** = (OMatch + JacSim) / 2, **TS** = 2·Com·Acc / (Com + Acc) and **Total** = 0.1·IF + 0.45·TS +
  0.45·IS are computed from the overall means. Without a judge, Com/Acc/TS/Total are absent (None),
  never replaced by anything else; ROUGE against the gold summaries is reported under its own key.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from mmdocsum_desktop.bench.metrics.common import harmonic, mean
from mmdocsum_desktop.schemas.bench import (
    INVALID,
    METRIC_KEYS,
    MISSING,
    DocScore,
    GoldParagraph,
    JudgeScore,
    ParsedAnswer,
    PredParagraph,
)
from mmdocsum_desktop.text import summary_parse as answer_parser

LENGTH_BUCKET_TOKENS = 5000
IMAGE_BUCKET_SIZE = 3


# --------------------------------------------------------------------------------------------------
# Reading answers: the app's one tolerant parser (text/summary_parse.py), M-DocEval's rules applied here
# --------------------------------------------------------------------------------------------------


# Wrappers around a valid JSON list that M-DocEval forgives: models (GPT-4o included) fence their JSON.
BENIGN_FORMAT_ISSUES = frozenset(
    {"code fence", "text outside the code fence", "text before the JSON", "text after the JSON"}
)


def parse_answer(answer: Any, n_images: int | None) -> ParsedAnswer:
    """Read a model's answer (raw text or an already-decoded list) into paragraphs *as given*.

    The tolerant reading (code fences, trailing text, single quotes, plain text) is the summaries
    parser's job (``mmdocsum_desktop.text.summary_parse``); this function keeps the raw paragraph list it
    returns and applies M-DocEval's rules itself, so scoring never depends on a repair. Format: the
    answer must hold a valid JSON list (a code fence or text around it is forgiven, see
    BENIGN_FORMAT_ISSUES); anything the parser had to repair beyond that (single quotes, trailing
    commas, truncation, plain text, an object instead of a list) breaks the format rule.
    """
    items, format_issues, strict_flag = _decode_answer(answer)
    if items is None:
        return ParsedAnswer(parsed=False, problems=format_issues or ["the answer could not be parsed"])
    paragraphs = [_paragraph(item) for item in items]
    if not paragraphs:
        return ParsedAnswer(parsed=False, problems=["the answer holds no paragraph"])
    problems = [f"format: {issue}" for issue in format_issues if issue not in BENIGN_FORMAT_ISSUES]
    if len(paragraphs) != 4:
        problems.append(f"{len(paragraphs)} paragraphs instead of 4")
    seen: set[int] = set()
    for position, paragraph in enumerate(paragraphs, start=1):
        if not paragraph.summary.strip():
            problems.append(f"paragraph {position} has no summary")
        if not paragraph.has_image_field:
            problems.append(f"paragraph {position} has no image field")
        if paragraph.image == INVALID:
            problems.append(f"paragraph {position}: image reference is neither an index nor None")
        elif isinstance(paragraph.image, int):
            if paragraph.image < 1 or (n_images is not None and paragraph.image > n_images):
                bound = f" 1..{n_images}" if n_images is not None else ""
                problems.append(f"paragraph {position}: image {paragraph.image} is out of range{bound}")
            if paragraph.image in seen:
                problems.append(f"paragraph {position}: image {paragraph.image} is used twice")
            seen.add(paragraph.image)
    return ParsedAnswer(
        parsed=True,
        paragraphs=paragraphs,
        problems=problems,
        parser_follows_instructions=strict_flag,
    )


def _decode_answer(answer: Any) -> tuple[list[Any] | None, list[str], bool | None]:
    """Raw answer → (list of paragraph objects as given, or None; format issues; the summaries
    parser's strict instruction-following flag)."""
    if isinstance(answer, list):
        return answer, [], None
    if isinstance(answer, dict):
        for key in ("paragraphs", "summary", "summaries"):
            if isinstance(answer.get(key), list):
                return answer[key], ["answer wrapped in an object"], None
        return None, ["the answer is a JSON object, not a list of paragraphs"], None
    if not isinstance(answer, str):
        return None, [f"the answer is a {type(answer).__name__}, not text"], None
    return _parse_text(answer)


def _parse_text(text: str) -> tuple[list[Any] | None, list[str], bool | None]:
    """The app's parser reads the text; its ``raw`` paragraph objects (as the model gave them, before
    any repair), ``format_issues`` and ``instruction_following`` flag are what M-DocEval scores."""
    result = answer_parser.parse_answer(text)
    if not result.ok or result.raw is None:
        return None, result.format_issues or ["the answer could not be parsed"], False
    if any(issue.startswith("not JSON") for issue in result.format_issues):
        # the app salvages paragraphs from plain text; M-DocEval counts such an answer as unparseable
        return None, ["no JSON in the answer", *result.format_issues], False
    return list(result.raw), list(result.format_issues), result.instruction_following


def _paragraph(item: Any) -> PredParagraph:
    """One paragraph object as given, read by the app's parser; no repair is applied."""
    if not isinstance(item, dict | str):
        return PredParagraph(summary="", image=INVALID)
    paragraph, _ = answer_parser.read_paragraph(item)
    if paragraph.image_status == "missing":
        return PredParagraph(
            summary=paragraph.summary, image=None, caption=paragraph.caption, has_image_field=False
        )
    image = INVALID if paragraph.image_status == "invalid" else paragraph.image
    return PredParagraph(summary=paragraph.summary, image=image, caption=paragraph.caption)


def normalise_ref(ref: Any) -> int | None | str:
    """ "3", 3, "Image 3", "<image3>" → 3; "None", None, "", "null" → None; anything else → INVALID."""
    tag, status = answer_parser.normalise_ref(ref)
    return INVALID if status == "invalid" else tag


def parse_gold(entries: Sequence[Any]) -> list[GoldParagraph]:
    """Gold paragraphs from a split line; raises ValueError with a reason when they are unusable."""
    if not isinstance(entries, list) or len(entries) != 4:
        raise ValueError("gold must be a list of 4 paragraphs")
    gold = []
    for position, entry in enumerate(entries, start=1):
        paragraph = _paragraph(entry)
        if paragraph.image == INVALID or (isinstance(paragraph.image, int) and paragraph.image < 1):
            raise ValueError(f"gold paragraph {position} has an unusable imageRef")
        gold.append(GoldParagraph(paragraph.summary, paragraph.image, paragraph.caption))  # type: ignore[arg-type]
    used = [p.image for p in gold if p.image is not None]
    if len(used) != len(set(used)):
        raise ValueError("gold uses the same image twice")
    return gold


# --------------------------------------------------------------------------------------------------
# Per-document scoring
# --------------------------------------------------------------------------------------------------


def score_document(
    doc_id: str, gold: Sequence[int | None], answer: ParsedAnswer, n_images: int | None = None
) -> DocScore:
    gold = list(gold)
    if not answer.parsed:
        return DocScore(
            id=doc_id,
            parsed=False,
            follows_rules=False,
            gold=gold,
            predicted=[MISSING] * len(gold),
            correct=[False] * len(gold),
            jaccard=0.0,
            problems=list(answer.problems),
            strict_if=False,
        )
    considered = answer.paragraphs[: len(gold)]
    predicted: list[int | None | str] = [p.image for p in considered]
    predicted += [MISSING] * (len(gold) - len(predicted))
    correct = []
    for gold_ref, pred in zip(gold, predicted):
        in_range = isinstance(pred, int) and pred >= 1 and (n_images is None or pred <= n_images)
        correct.append((pred is None or in_range) and pred == gold_ref)
    predicted_set = {p for p in predicted if isinstance(p, int)}
    gold_set = {g for g in gold if g is not None}
    return DocScore(
        id=doc_id,
        parsed=True,
        follows_rules=not answer.problems,
        gold=gold,
        predicted=predicted,
        correct=correct,
        jaccard=jaccard(predicted_set, gold_set),
        problems=list(answer.problems),
        strict_if=(answer.parser_follows_instructions and not answer.problems)
        if answer.parser_follows_instructions is not None
        else not answer.problems,
    )


def jaccard(predicted: set[int], gold: set[int]) -> float:
    if not predicted and not gold:
        return 1.0
    return len(predicted & gold) / len(predicted | gold)


def score_answer(doc_id: str, gold: Sequence[int | None], answer: Any, n_images: int | None) -> DocScore:
    return score_document(doc_id, gold, parse_answer(answer, n_images), n_images)


# --------------------------------------------------------------------------------------------------
# Aggregation
# --------------------------------------------------------------------------------------------------


def aggregate(scores: Sequence[DocScore], judged: dict[str, JudgeScore] | None = None) -> dict[str, Any]:
    """Overall M-DocEval numbers, exactly by the rules in this module's docstring."""
    n_docs = len(scores)
    slots = sum(len(s.gold) for s in scores)
    correct = sum(sum(s.correct) for s in scores)
    img_slots = sum(1 for s in scores for g in s.gold if g is not None)
    img_correct = sum(1 for s in scores for g, c in zip(s.gold, s.correct) if g is not None and c)
    none_slots = slots - img_slots
    none_correct = correct - img_correct
    result: dict[str, Any] = {
        "n_docs": n_docs,
        "n_slots": slots,
        "if": sum(s.if_score for s in scores) / n_docs if n_docs else None,
        "if_strict": sum(bool(s.strict_if) for s in scores) / n_docs if n_docs else None,
        "omatch": correct / slots if slots else None,
        "imgacc": img_correct / img_slots if img_slots else None,
        "nonacc": none_correct / none_slots if none_slots else None,
        "jacsim": mean(s.jaccard for s in scores) if n_docs else None,
    }
    result["is"] = (
        (result["omatch"] + result["jacsim"]) / 2
        if result["omatch"] is not None and result["jacsim"] is not None
        else None
    )
    com = acc = None
    n_judged = 0
    if judged is not None:
        in_run = [judged[s.id] for s in scores if s.id in judged]
        com = mean(j.com for j in in_run)
        acc = mean(j.acc for j in in_run)
        n_judged = sum(1 for j in in_run if j.com is not None or j.acc is not None)
    result["com"] = com
    result["acc"] = acc
    result["ts"] = harmonic(com, acc)
    result["total"] = (
        0.1 * result["if"] + 0.45 * result["ts"] + 0.45 * result["is"]
        if None not in (result["if"], result["ts"], result["is"])
        else None
    )
    result["n_judged"] = n_judged
    return result


def per_paragraph(
    scores: Sequence[DocScore], judged: dict[str, JudgeScore] | None = None
) -> list[dict[str, Any]]:
    """OMatch / ImgAcc / NonAcc per paragraph position (micro over documents), Com / Acc when judged."""
    rows = []
    positions = max((len(s.gold) for s in scores), default=4)
    for index in range(positions):
        pairs = [(s.gold[index], s.correct[index]) for s in scores if index < len(s.gold)]
        img = [c for g, c in pairs if g is not None]
        non = [c for g, c in pairs if g is None]
        row: dict[str, Any] = {
            "paragraph": index + 1,
            "omatch": sum(c for _, c in pairs) / len(pairs) if pairs else None,
            "imgacc": sum(img) / len(img) if img else None,
            "nonacc": sum(non) / len(non) if non else None,
            "com": None,
            "acc": None,
        }
        if judged:
            judged_here = [judged[s.id] for s in scores if s.id in judged]
            row["com"] = mean(
                j.com_by_paragraph[index] for j in judged_here if index < len(j.com_by_paragraph)
            )
            row["acc"] = mean(
                j.acc_by_paragraph[index] for j in judged_here if index < len(j.acc_by_paragraph)
            )
        rows.append(row)
    return rows


def length_bucket(n_tokens: int | None, width: int = LENGTH_BUCKET_TOKENS) -> str:
    if n_tokens is None:
        return "unknown"
    low = (n_tokens // width) * width
    return f"{low // 1000}–{(low + width) // 1000}k"


def image_bucket(n_images: int | None, size: int = IMAGE_BUCKET_SIZE) -> str:
    if n_images is None:
        return "unknown"
    if n_images == 0:
        return "0"
    low = ((n_images - 1) // size) * size + 1
    return f"{low}–{low + size - 1}"


def _bucket_sort_key(label: str) -> tuple[int, float]:
    if label == "unknown":
        return (1, math.inf)
    match = re.match(r"(\d+)", label)
    return (0, float(match.group(1)) if match else math.inf)


def breakdown(
    scores: Sequence[DocScore], keys: dict[str, str], judged: dict[str, JudgeScore] | None = None
) -> list[dict[str, Any]]:
    """Overall metrics recomputed within each bucket (``keys`` maps document id → bucket label)."""
    groups: dict[str, list[DocScore]] = {}
    for score in scores:
        groups.setdefault(keys.get(score.id, "unknown"), []).append(score)
    return [
        {"bucket": label, **aggregate(groups[label], judged)}
        for label in sorted(groups, key=_bucket_sort_key)
    ]


_TOKEN = re.compile(r"\w+|[^\w\s]", re.UNICODE)


def count_tokens(text: str) -> int:
    """Document length in word and punctuation tokens (the paper counts model tokens; close enough
    for its 5k-token buckets, and the same on every machine)."""
    return sum(1 for _ in _TOKEN.finditer(text))


def decline_rate(base: float | None, ablated: float | None) -> float | None:
    """Relative drop from the normal run to the ablated run: (base − ablated) / base."""
    if base is None or ablated is None or base == 0:
        return None
    return (base - ablated) / base


# The scores an ablation can lower: mdocsum's own (counts and the strict variant of IF left out) and
# the ROUGE F1s, in the order metrics.json lists them.
_NOT_ABLATED = frozenset({"n_docs", "n_slots", "if_strict", "n_judged"})
ABLATION_METRICS = (
    *(key for key in METRIC_KEYS["mdocsum"] if key not in _NOT_ABLATED),
    *(key for key in METRIC_KEYS["rouge"] if key in ("rouge1", "rouge2", "rougeL")),
)


def decline_rates(base: dict[str, Any], ablated: dict[str, Any]) -> dict[str, float | None]:
    return {
        key: decline_rate(base.get(key), ablated.get(key))
        for key in ABLATION_METRICS
        if key in base or key in ablated
    }


def remap_tags(parsed: ParsedAnswer, tag_to_index: dict[str, int] | None) -> ParsedAnswer:
    """Map a model's image tags (prompt order) to document order, for answers given with shuffled
    images; a tag the model made up stays as it is (and is out of range)."""
    if not tag_to_index:
        return parsed
    for paragraph in parsed.paragraphs:
        if isinstance(paragraph.image, int) and str(paragraph.image) in tag_to_index:
            paragraph.image = tag_to_index[str(paragraph.image)]
    return parsed
