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

import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

# A slot whose reference is present but unusable ("abc", 0, 1.5): never equal to any gold value.
INVALID = "invalid"
# A paragraph the answer does not have (answer too short, or unparseable).
MISSING = "missing"

LENGTH_BUCKET_TOKENS = 5000
IMAGE_BUCKET_SIZE = 3


# --------------------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GoldParagraph:
    summary: str
    image: int | None
    caption: str = ""


@dataclass
class MDocSumItem:
    """One line of an M-DocSum split."""

    id: str
    document: Path | None
    gold: list[GoldParagraph]
    key_points: list[list[str]] | None = None
    n_images: int | None = None  # from the split record when given, otherwise counted from the document
    n_tokens: int | None = None
    line: int = 0

    @property
    def gold_refs(self) -> list[int | None]:
        return [paragraph.image for paragraph in self.gold]


@dataclass
class PredParagraph:
    summary: str
    image: int | None | str  # an int as given, None, or INVALID
    caption: str = ""
    has_image_field: bool = True


@dataclass
class ParsedAnswer:
    """An answer as the model gave it: ``parsed`` False means nothing usable could be read."""

    parsed: bool
    paragraphs: list[PredParagraph] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    parser_follows_instructions: bool | None = None


@dataclass
class DocScore:
    id: str
    parsed: bool
    follows_rules: bool
    gold: list[int | None]
    predicted: list[int | None | str]  # four slots as scored: int, None, INVALID or MISSING
    correct: list[bool]
    jaccard: float
    problems: list[str] = field(default_factory=list)
    strict_if: bool | None = None  # the summaries parser's flag: no format issue forgiven at all

    @property
    def if_score(self) -> int:
        return int(self.parsed and self.follows_rules)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["if"] = self.if_score
        return data


# --------------------------------------------------------------------------------------------------
# Parsing predictions (one adapter over the summaries issue's parser)
# --------------------------------------------------------------------------------------------------


def read_prediction_file(path: Path) -> Any:
    """An ``ID.json`` holds the raw answer text (as a JSON string, or as the file's plain text when it
    is not JSON) or the M-DocSum JSON list; ``{"answer": ...}`` / ``{"raw": ...}`` wrappers are accepted."""
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # not only JSONDecodeError: huge integers, deep nesting
        return text
    if isinstance(value, dict):
        for key in ("answer", "raw", "raw_answer", "output", "response", "prediction"):
            if key in value:
                return value[key]
    return value


# Wrappers around a valid JSON list that M-DocEval forgives: models (GPT-4o included) fence their JSON.
BENIGN_FORMAT_ISSUES = frozenset(
    {"code fence", "text outside the code fence", "text before the JSON", "text after the JSON"}
)


def parse_answer(answer: Any, n_images: int | None) -> ParsedAnswer:
    """Read a model's answer (raw text or an already-decoded list) into paragraphs *as given*.

    The tolerant reading (code fences, trailing text, single quotes, plain text) is the summaries
    parser's job (``mmdocsum_desktop.summarize.parse``); this function keeps the raw paragraph list it
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
    return _parse_text_with_summaries_parser(answer)


def _parse_text_with_summaries_parser(text: str) -> tuple[list[Any] | None, list[str], bool | None]:
    """ADAPTER over issue 4's tolerant parser, ``summarize.parse.parse_answer(text)``: its ``ok``,
    ``raw`` (the paragraph objects as the model gave them), ``format_issues`` and
    ``instruction_following``. Without that module a strict local reading is used (the first JSON
    list in the text, JSON or Python-literal syntax)."""
    try:
        from mmdocsum_desktop.summarize import parse as summaries_parse
    except ImportError:
        summaries_parse = None
    if summaries_parse is not None and hasattr(summaries_parse, "parse_answer"):
        try:
            result = summaries_parse.parse_answer(text)
        except Exception as error:  # noqa: BLE001 — a parser crash is an unparseable answer, reported
            return None, [f"parser error: {type(error).__name__}: {error}"], None
        ok = _first_attr(result, ("ok", "parsed", "success"), default=True)
        raw = _first_attr(result, ("raw", "raw_paragraphs", "items"), default=None)
        issues = list(_first_attr(result, ("format_issues",), default=[]) or [])
        flag = _first_attr(result, ("instruction_following", "follows_instructions"), default=None)
        if not ok or raw is None:
            return None, issues or ["the answer could not be parsed"], False
        if any(issue.startswith("not JSON") for issue in issues):
            # the app salvages paragraphs from plain text; M-DocEval counts such an answer as unparseable
            return None, ["no JSON in the answer", *issues], False
        return [_as_plain(item) for item in raw], issues, (bool(flag) if flag is not None else None)
    return _strict_local_parse(text)


def _first_attr(obj: Any, names: Sequence[str], default: Any) -> Any:
    for name in names:
        if isinstance(obj, dict) and name in obj:
            return obj[name]
        if hasattr(obj, name):
            return getattr(obj, name)
    return default


def _as_plain(item: Any) -> Any:
    if hasattr(item, "model_dump"):
        return item.model_dump()
    if hasattr(item, "__dataclass_fields__"):
        return asdict(item)
    return item


_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def _strict_local_parse(text: str) -> tuple[list[Any] | None, list[str], bool | None]:
    import ast

    candidates = [match.group(1) for match in _FENCE.finditer(text)] + [text]
    for candidate in candidates:
        start, end = candidate.find("["), candidate.rfind("]")
        if start < 0 or end <= start:
            continue
        snippet = candidate[start : end + 1]
        try:
            value = json.loads(snippet)
            issues: list[str] = []
        except ValueError:
            try:
                value = ast.literal_eval(snippet)
                issues = ["Python literal syntax"]
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                continue
        if isinstance(value, list):
            return value, issues, None
    return None, ["no JSON list of paragraphs found in the answer"], False


def _paragraph(item: Any) -> PredParagraph:
    if isinstance(item, str):
        return PredParagraph(summary=item, image=None, has_image_field=False)
    if not isinstance(item, dict):
        return PredParagraph(summary="", image=INVALID)
    summary = item.get("summary", item.get("text", ""))
    summary = summary if isinstance(summary, str) else str(summary)
    image_field = item.get("image")
    if image_field is None and "imageRef" in item:
        image_field = {"imageRef": item["imageRef"], "imageCaption": item.get("imageCaption", "")}
    if image_field is None:
        return PredParagraph(summary=summary, image=None, has_image_field=False)
    if isinstance(image_field, dict):
        if "imageRef" not in image_field:
            return PredParagraph(summary=summary, image=None, has_image_field=False)
        ref = image_field.get("imageRef")
        caption = image_field.get("imageCaption", "")
    else:
        ref, caption = image_field, ""
    return PredParagraph(summary=summary, image=normalise_ref(ref), caption=str(caption or ""))


def normalise_ref(ref: Any) -> int | None | str:
    """ "3", 3, "Image 3", "<image3>" → 3; "None", None, "", "null" → None; anything else → INVALID."""
    if ref is None:
        return None
    if isinstance(ref, bool):
        return INVALID
    if isinstance(ref, int):
        return ref
    if isinstance(ref, float):
        return int(ref) if ref.is_integer() else INVALID
    if isinstance(ref, str):
        text = ref.strip()
        if text.lower() in {"none", "", "null", "no image", "n/a"}:
            return None
        # At most nine digits: int() refuses strings of thousands, and no document has that many images.
        match = re.fullmatch(
            r"(?:<?\s*(?:image|img|figure|fig\.?|idx)\s*[_#:]?\s*)?(-?\d{1,9})\s*>?", text, re.IGNORECASE
        )
        if match:
            return int(match.group(1))
    return INVALID


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


@dataclass
class JudgeScore:
    """Judge results for one document (per paragraph: covered/total key points, correct/total sentences)."""

    com: float | None = None
    acc: float | None = None
    com_by_paragraph: list[float | None] = field(default_factory=list)
    acc_by_paragraph: list[float | None] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def _mean(values: Iterable[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


def harmonic(a: float | None, b: float | None) -> float | None:
    if a is None or b is None:
        return None
    return 0.0 if a + b == 0 else 2 * a * b / (a + b)


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
        "jacsim": _mean(s.jaccard for s in scores) if n_docs else None,
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
        com = _mean(j.com for j in in_run)
        acc = _mean(j.acc for j in in_run)
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
            row["com"] = _mean(
                j.com_by_paragraph[index] for j in judged_here if index < len(j.com_by_paragraph)
            )
            row["acc"] = _mean(
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


ABLATION_METRICS = (
    "if",
    "omatch",
    "imgacc",
    "nonacc",
    "jacsim",
    "is",
    "com",
    "acc",
    "ts",
    "total",
    "rouge1",
    "rouge2",
    "rougeL",
)


def decline_rates(base: dict[str, Any], ablated: dict[str, Any]) -> dict[str, float | None]:
    return {
        key: decline_rate(base.get(key), ablated.get(key))
        for key in ABLATION_METRICS
        if key in base or key in ablated
    }


# --------------------------------------------------------------------------------------------------
# Running the suite (generation or given predictions, judge, breakdowns, ablations)
# --------------------------------------------------------------------------------------------------


@dataclass
class MDocSumOptions:
    no_abstract: bool = False
    shuffle_seed: int | None = None
    concurrency: int = 1
    restart: bool = False
    ablate_shuffle: int | None = None  # --shuffle-images SEED: also run with shuffled images
    ablate_no_abstract: bool = False  # --no-abstract ablation: also run without the abstract


def _answer_hash(answer: Any) -> str:
    import hashlib

    return hashlib.sha256(json.dumps(answer, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


def remap_tags(parsed: ParsedAnswer, tag_to_index: dict[str, int] | None) -> ParsedAnswer:
    """Map a model's image tags (prompt order) to document order, for answers given with shuffled
    images; a tag the model made up stays as it is (and is out of range)."""
    if not tag_to_index:
        return parsed
    for paragraph in parsed.paragraphs:
        if isinstance(paragraph.image, int) and str(paragraph.image) in tag_to_index:
            paragraph.image = tag_to_index[str(paragraph.image)]
    return parsed


def _judge_document(judge: Any, item: MDocSumItem, parsed: ParsedAnswer, control: Any) -> dict[str, Any]:
    from mmdocsum_desktop.bench.mcite import split_sentences

    com_by: list[float | None] = []
    acc_by: list[float | None] = []
    covered = total_points = correct = total_sentences = 0
    failures: list[str] = []
    raw: list[dict[str, Any]] = []
    for index, gold in enumerate(item.gold):
        points = item.key_points[index] if item.key_points else []
        paragraph = (
            parsed.paragraphs[index].summary if parsed.parsed and index < len(parsed.paragraphs) else ""
        )
        sentences = split_sentences(paragraph) if paragraph.strip() else []
        # Com: key points of this paragraph stated by the paragraph (none can be when it is missing)
        if points:
            if sentences:
                verdict = judge.coverage(points, paragraph, control=control)
                raw.append({"paragraph": index + 1, "question": "coverage", "answer": verdict.raw})
                if verdict.ok:
                    covered += sum(verdict.value)
                    total_points += len(points)
                    com_by.append(sum(verdict.value) / len(points))
                else:
                    failures.append(f"paragraph {index + 1} coverage: {verdict.error}")
                    com_by.append(None)
            else:
                total_points += len(points)
                com_by.append(0.0)
        else:
            com_by.append(None)
        # Acc: sentences of this paragraph that are correct against the gold paragraph
        if sentences:
            verdict = judge.sentence_accuracy(sentences, gold.summary, points, control=control)
            raw.append({"paragraph": index + 1, "question": "accuracy", "answer": verdict.raw})
            if verdict.ok:
                correct += sum(verdict.value)
                total_sentences += len(sentences)
                acc_by.append(sum(verdict.value) / len(sentences))
            else:
                failures.append(f"paragraph {index + 1} accuracy: {verdict.error}")
                acc_by.append(None)
        else:
            acc_by.append(None)
    complete = not failures
    com = (covered / total_points if total_points else None) if complete and item.key_points else None
    if not parsed.parsed:
        com, acc = (0.0 if item.key_points else None), 0.0
    else:
        acc = (correct / total_sentences if total_sentences else 0.0) if complete else None
    return {
        "com": com,
        "acc": acc,
        "com_by_paragraph": com_by,
        "acc_by_paragraph": acc_by,
        "failures": failures,
        "raw": raw,
    }


def run_mdocsum(
    split: str | Path,
    out: str | Path,
    *,
    engine_spec: Any = None,
    predictions: str | Path | None = None,
    judge_spec: Any = None,
    options: MDocSumOptions | None = None,
    control: Any = None,
    engine: Any = None,
    judge: Any = None,
    _ablation: str | None = None,
) -> dict[str, Any]:
    """Run (or resume) the M-DocSum suite into ``out`` and return the metrics written to
    ``out/metrics.json``; Markdown and HTML reports are written beside it."""
    import time as _time

    from mmdocsum_desktop.bench import report, runner, splits
    from mmdocsum_desktop.bench.glue import BenchEngine, build_judge, document_stats
    from mmdocsum_desktop.bench.rouge import mean_rouge, rouge, summary_text
    from mmdocsum_desktop.errors import BenchError, JobCancelled
    from mmdocsum_desktop.jobs import ensure_control

    options = options or MDocSumOptions()
    control = ensure_control(control)
    started = _time.perf_counter()
    out = Path(out)
    loaded = splits.load_mdocsum(split)
    items = loaded.items
    skipped = [s.to_json() for s in loaded.skipped]
    mode = "predictions" if predictions is not None else "generate"
    owns_engine = owns_judge = False
    if mode == "generate" and engine is None:
        engine = BenchEngine.build(engine_spec)
        owns_engine = True
    if judge is None and judge_spec is not None:
        judge = build_judge(judge_spec)
        owns_judge = True
    try:
        settings: dict[str, Any] = {
            "suite": "mdocsum",
            "split": str(loaded.path),
            "split_sha256": runner.file_sha256(loaded.path),
            "mode": mode,
            "no_abstract": options.no_abstract,
            "shuffle_seed": options.shuffle_seed,
        }
        if mode == "generate":
            settings["engine"] = engine.describe()
        else:
            settings["predictions"] = str(Path(predictions).resolve())
        folder = runner.RunFolder(out, settings, restart=options.restart)
        concurrency = options.concurrency
        notes: list[str] = []
        if mode == "generate" and concurrency > 1 and engine.in_process:
            notes.append(
                f"--concurrency {concurrency} ignored: the {engine.name} engine runs in this process"
            )
            concurrency = 1

        # 1. predictions: generated (resumable) or read from the folder
        by_id = {item.id: item for item in items}
        prediction_rows: dict[str, dict[str, Any]] = {}
        outcome = None
        if mode == "generate":
            runnable = []
            for item in items:
                if item.document is None or not item.document.is_file():
                    skipped.append(
                        {"line": item.line, "id": item.id, "reason": f"document missing: {item.document}"}
                    )
                else:
                    runnable.append(item)
            outcome = runner.run_stage(
                folder,
                "predictions",
                runnable,
                lambda item: item.id,
                lambda item, ctl: engine.summarize(
                    item.document,
                    include_abstract=not options.no_abstract,
                    shuffle_seed=options.shuffle_seed,
                    control=ctl,
                ),
                concurrency=concurrency,
                control=control,
                label="documents",
            )
            prediction_rows = outcome.results
            for item_id, reason in outcome.failed.items():
                skipped.append(
                    {"line": by_id[item_id].line, "id": item_id, "reason": f"generation failed: {reason}"}
                )
        else:
            pred_dir = Path(predictions)
            if not pred_dir.is_dir():
                raise BenchError(f"{pred_dir}: the predictions folder does not exist")
            files = {p.stem: p for p in pred_dir.glob("*.json")}
            known = {runner.safe_name(i.id): i.id for i in items} | {i.id: i.id for i in items}
            for stem in sorted(set(files) - set(known)):
                skipped.append(
                    {"line": None, "id": stem, "reason": "prediction for an id that is not in the split"}
                )
            for item in items:
                path = files.get(item.id) or files.get(runner.safe_name(item.id))
                if path is None:
                    prediction_rows[item.id] = {"answer": None, "missing": True}
                    continue
                try:
                    value = read_prediction_file(path)
                except OSError as error:
                    value = None
                    skipped.append(
                        {"line": item.line, "id": item.id, "reason": f"prediction unreadable: {error}"}
                    )
                row = {"answer": value}
                if not isinstance(value, dict):
                    try:
                        raw_json = json.loads(path.read_text(encoding="utf-8"))
                    except (OSError, ValueError, RecursionError):
                        raw_json = None
                    if isinstance(raw_json, dict):
                        row = {**raw_json, "answer": value}
                prediction_rows[item.id] = row

        # 2. document statistics for scoring (images shown, length), cached per document
        need_stats = [
            i
            for i in items
            if i.id in prediction_rows
            and (
                prediction_rows[i.id].get("n_images") is None
                and i.n_images is None
                or i.n_tokens is None
                and prediction_rows[i.id].get("n_tokens") is None
            )
            and i.document is not None
            and i.document.is_file()
        ]
        stats: dict[str, dict[str, Any]] = {}
        unreadable: dict[str, str] = {}
        if need_stats:
            read = runner.run_stage(
                folder,
                "documents",
                need_stats,
                lambda i: i.id,
                lambda i, ctl: document_stats(i.document),
                control=control,
                label="documents",
            )
            stats, unreadable = read.results, read.failed

        # 3. scoring by M-DocEval's rules
        scores: list[DocScore] = []
        model_scores: list[DocScore] = []
        parsed_by_id: dict[str, ParsedAnswer] = {}
        rows: list[dict[str, Any]] = []
        rouge_rows: dict[str, dict[str, float]] = {}
        tokens: dict[str, int | None] = {}
        images: dict[str, int | None] = {}
        missing_predictions = []
        for item in items:
            if item.id not in prediction_rows:
                continue
            record = prediction_rows[item.id]
            info = stats.get(item.id, {})
            n_images = record.get("n_images") if record.get("n_images") is not None else item.n_images
            if n_images is None:
                n_images = info.get("n_images")
            n_tokens = (
                item.n_tokens if item.n_tokens is not None else record.get("n_tokens", info.get("n_tokens"))
            )
            if n_images is None:
                why = (
                    f"the document could not be read ({unreadable[item.id]})"
                    if item.id in unreadable
                    else "the document is missing"
                )
                skipped.append(
                    {
                        "line": item.line,
                        "id": item.id,
                        "reason": f"image count unknown: {why} and the split gives no n_images",
                    }
                )
                continue
            gold_max = max((g for g in item.gold_refs if g is not None), default=0)
            if gold_max > n_images:
                skipped.append(
                    {
                        "line": item.line,
                        "id": item.id,
                        "reason": f"gold refers to image {gold_max} but the document has {n_images} images",
                    }
                )
                continue
            tokens[item.id], images[item.id] = n_tokens, n_images
            if record.get("missing"):
                missing_predictions.append(item.id)
            parsed = parse_answer(record.get("answer"), n_images)
            if record.get("missing"):
                parsed = ParsedAnswer(parsed=False, problems=["no prediction file for this document"])
            parsed_by_id[item.id] = parsed
            score = score_document(item.id, item.gold_refs, parsed, n_images)
            scores.append(score)
            if record.get("raw_answer") is not None:
                model_parsed = remap_tags(
                    parse_answer(record["raw_answer"], n_images), record.get("tag_to_index")
                )
                model_scores.append(score_document(item.id, item.gold_refs, model_parsed, n_images))
            if parsed.parsed:
                prediction_text = summary_text([p.summary for p in parsed.paragraphs[:4]])
                rouge_rows[item.id] = rouge(prediction_text, summary_text([g.summary for g in item.gold]))
            else:
                rouge_rows[item.id] = rouge("", summary_text([g.summary for g in item.gold]))
            row = score.to_json()
            row.update(
                n_images=n_images,
                n_tokens=n_tokens,
                rouge=rouge_rows[item.id],
                seconds=record.get("seconds"),
                repairs=record.get("repairs"),
                warnings=record.get("warnings", []),
            )
            rows.append(row)

        # 4. judge (resumable; re-judged when the prediction or the judge changes)
        judged: dict[str, JudgeScore] | None = None
        judge_info: dict[str, Any] | None = None
        if judge is not None:
            fingerprint = judge.fingerprint()
            judgeable = [item for item in items if item.id in parsed_by_id]
            hashes = {item.id: _answer_hash(prediction_rows[item.id].get("answer")) for item in judgeable}
            judge_outcome = runner.run_stage(
                folder,
                "judge",
                judgeable,
                lambda item: item.id,
                lambda item, ctl: {
                    "judge": fingerprint,
                    "prediction": hashes[item.id],
                    **_judge_document(judge, item, parsed_by_id[item.id], ctl),
                },
                concurrency=1
                if not options.concurrency > 1 or not _server_engine(judge)
                else options.concurrency,
                control=control,
                label="judging",
                is_current=lambda saved: (
                    saved.get("judge") == fingerprint and saved.get("prediction") == hashes.get(saved["id"])
                ),
            )
            judged = {
                key: JudgeScore(
                    com=value.get("com"),
                    acc=value.get("acc"),
                    com_by_paragraph=value.get("com_by_paragraph", []),
                    acc_by_paragraph=value.get("acc_by_paragraph", []),
                    failures=value.get("failures", []),
                )
                for key, value in judge_outcome.results.items()
            }
            judge_failures = [
                {"id": key, "reasons": value.failures} for key, value in judged.items() if value.failures
            ] + [{"id": key, "reasons": [reason]} for key, reason in judge_outcome.failed.items()]
            judge_info = {
                "judge": judge.name,
                "fingerprint": fingerprint,
                "seconds": round(judge_outcome.seconds, 3),
                "failures": judge_failures,
            }
            for row in rows:
                if row["id"] in judged:
                    row["com"], row["acc"] = judged[row["id"]].com, judged[row["id"]].acc
                    row["judge_failures"] = judged[row["id"]].failures
            if judge_outcome.cancelled:
                outcome = outcome or runner.StageOutcome()
                outcome.cancelled = True

        # 5. aggregate, breakdowns
        overall = aggregate(scores, judged)
        rouge_overall = mean_rouge(rouge_rows.values())
        metrics: dict[str, Any] = {
            "suite": "mdocsum",
            "split": loaded.name,
            "settings": settings,
            **overall,
            "rouge": rouge_overall,
            "per_paragraph": per_paragraph(scores, judged),
            "by_length": breakdown(scores, {k: length_bucket(v) for k, v in tokens.items()}, judged),
            "by_image_count": breakdown(scores, {k: image_bucket(v) for k, v in images.items()}, judged),
            "documents": rows,
            "skipped": skipped,
            "missing_predictions": missing_predictions,
            "notes": notes,
            "judge": judge_info,
            "model_hashes": engine.model_hashes() if engine is not None else {},
            "timings": {
                "generation_s": round(outcome.seconds, 3) if outcome else None,
                "generation_s_per_doc": _per_doc_seconds(prediction_rows),
                "resumed": outcome.resumed if outcome else 0,
                "processed": outcome.processed if outcome else 0,
                "judge_s": judge_info["seconds"] if judge_info else None,
            },
            "cancelled": bool(outcome and outcome.cancelled),
        }
        if model_scores:
            metrics["model_answer"] = {
                **aggregate(model_scores, None),
                "per_paragraph": per_paragraph(model_scores, None),
                "note": "the model's own answer scored as M-DocSum does (before the app's repairs and figure choice)",
            }
        if judge is None:
            metrics["notes"].append(
                "no judge configured: Com, Acc, TS and Total are absent; ROUGE is reported under its own name"
            )

        # 6. ablations (generation only): the same run with shuffled images / without the abstract
        if _ablation is None and mode == "generate" and not metrics["cancelled"]:
            ablations = {}
            for name, enabled, change in (
                (
                    "shuffle_images",
                    options.ablate_shuffle is not None,
                    {"shuffle_seed": options.ablate_shuffle},
                ),
                ("no_abstract", options.ablate_no_abstract, {"no_abstract": True}),
            ):
                if not enabled:
                    continue
                sub_options = MDocSumOptions(
                    **{**options.__dict__, **change, "ablate_shuffle": None, "ablate_no_abstract": False}
                )
                report.write_run(out, metrics)  # the normal run is complete whatever happens to this one
                try:
                    sub = run_mdocsum(
                        split,
                        out / "ablations" / name,
                        engine=engine,
                        judge=judge,
                        options=sub_options,
                        control=control,
                        _ablation=name,
                    )
                except JobCancelled:
                    ablations[name] = {"cancelled": True, "metrics": {}, "decline_rate": {}}
                    metrics["cancelled"] = True
                    metrics["notes"].append(f"ablation {name} was cancelled; the same command continues it")
                    break
                ablations[name] = {
                    "metrics": {k: sub.get(k) for k in ABLATION_METRICS if k in sub}
                    | {f"rouge_{k}": v for k, v in sub["rouge"].items()},
                    "decline_rate": decline_rates(
                        {**overall, **{k: rouge_overall.get(k) for k in ("rouge1", "rouge2", "rougeL")}},
                        {**sub, **{k: sub["rouge"].get(k) for k in ("rouge1", "rouge2", "rougeL")}},
                    ),
                    "cancelled": sub.get("cancelled", False),
                }
            if ablations:
                metrics["ablations"] = ablations
        metrics["timings"]["total_s"] = round(_time.perf_counter() - started, 3)
        report.write_run(out, metrics)
        if metrics["cancelled"]:
            raise JobCancelled(
                f"cancelled; finished documents are kept in {out} (the same command continues)"
            )
        return metrics
    finally:
        if owns_engine and engine is not None:
            engine.close()
        if owns_judge and judge is not None:
            close = getattr(judge.engine, "close", None)
            if callable(close):
                close()


def _server_engine(judge: Any) -> bool:
    return getattr(judge.engine, "name", "") == "openai"


def _per_doc_seconds(rows: dict[str, dict[str, Any]]) -> float | None:
    seconds = [r["seconds"] for r in rows.values() if isinstance(r.get("seconds"), int | float)]
    return round(sum(seconds) / len(seconds), 3) if seconds else None
