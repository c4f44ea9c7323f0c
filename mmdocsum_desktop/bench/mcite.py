"""MCiteBench: answer a question from shuffled evidence and distractors, citing the sources.

Sources carry normalised ids: a text passage is its index ("1", "2", …), a figure "Figure N", a table
"Table N". Scores, per record and then averaged over records (0..1; the paper prints ×100):

- **Source F1 / Source EM**: the set of ids cited anywhere in the answer against the gold evidence ids
  (as MCiteBench's scoring code builds them: figure/table numbers from ``evidence_keys``, text ids from
  ``text_2_idx``). F1 is 0 when nothing is cited; EM is 1 only for a non-empty exact set match.
- **Citation F1** (judge): per sentence that cites something, *support* 0/1/2 of the concatenated cited
  sources (→ 0, 0.5, 1; 0 when none of its citations exists) and *relevance* 0/1 of each cited source
  (0 for one that does not exist); recall = mean support, precision = mean over sentences of the mean
  relevance; F1 = their harmonic mean.
- **Answer accuracy** (judge): rating 0/1/2 against the reference answer, reported as sum / (2·n).

Differences from the MCiteBench scripts, on purpose: sentences and citations are split by rules here
(they ask GPT-4o to do it), and an answer that cites nothing scores 0 instead of being dropped
(their ``process_record`` drops it, which would reward never citing); ``n_uncited`` counts those.
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mmdocsum_desktop.bench.judge import Judge, SourceForJudge
from mmdocsum_desktop.bench.mdocsum import harmonic

SHUFFLE_SEED = 42  # the presentation order of evidence and distractors, fixed as MCiteBench fixes it


@dataclass
class Source:
    id: str  # "1", "Figure 3", "Table 2"
    kind: str  # "text", "figure" or "table"
    text: str | None = None
    image: Path | None = None


@dataclass
class MCiteRecord:
    id: str
    pdf_id: str
    question_type: str
    question: str
    answer: str
    evidence_count: int
    evidence_modal: str
    gold: list[str]
    sources: dict[str, Source]
    order: list[str]  # source ids in the order they are shown to the model
    missing: list[str] = field(default_factory=list)  # image sources whose files are absent
    line: int = 0

    @property
    def category(self) -> str:
        kind = self.question_type.lower() or "unknown"
        return f"{kind}_{'single' if self.evidence_count <= 1 else 'multi'}"


# -------------------------------------------------------------------------------------- loading


_FIGURE = re.compile(r"figure\s*(\d+)", re.IGNORECASE)
_TABLE = re.compile(r"table\s*(\d+)", re.IGNORECASE)


def _string_map(data: dict[str, Any], key: str) -> dict[str, str]:
    value = data.get(key) or {}
    if not isinstance(value, dict):
        raise ValueError(f"{key} is a JSON {type(value).__name__}, not an object")
    return {str(k): str(v) for k, v in value.items()}


def _list_field(data: dict[str, Any], key: str) -> list[Any]:
    value = data.get(key) or []
    if not isinstance(value, list):
        raise ValueError(f"{key} is a JSON {type(value).__name__}, not a list")
    return value


def _evidence_count(value: Any, fallback: int) -> int:
    if not value:
        return fallback
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError) as error:  # a list, "three", NaN, Infinity
        raise ValueError(f"evidence_count is not a whole number ({error})") from error


def _image_file(images_root: Path, pdf_id: str, name: str) -> Path | None:
    """The image a record names inside the images folder; None when the name leads out of it ("../",
    an absolute path), so a split cannot make the app show the model any other file."""
    root = Path(os.path.normpath(images_root))
    candidate = Path(os.path.normpath(root / pdf_id / name))
    return candidate if candidate.is_relative_to(root) and candidate != root else None


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):  # a name too long for the file system, or holding a NUL
        return False


def record_from_json(data: dict[str, Any], images_root: Path | None, line: int = 0) -> MCiteRecord:
    """One MCiteBench JSONL record → MCiteRecord; raises KeyError/ValueError with the reason."""
    if data.get("question_id") in (None, ""):
        raise ValueError("the record has no question_id")
    question_id = str(data["question_id"])
    pdf_id = str(data.get("pdf_id", "")).replace(".pdf", "")
    idx_2_text = _string_map(data, "idx_2_text")
    text_2_idx = _string_map(data, "text_2_idx")
    image_2_idx = _string_map(data, "image_2_idx")
    table_2_idx = _string_map(data, "table_2_idx")
    evidence_keys = _list_field(data, "evidence_keys")
    evidence_contents = _list_field(data, "evidence_contents")
    distractor_contents = _list_field(data, "distractor_contents")
    if not isinstance(data.get("question"), str) or not data["question"].strip():
        raise ValueError("the record has no question")

    sources: dict[str, Source] = {}
    missing: list[str] = []
    for index, text in idx_2_text.items():
        sources[index] = Source(index, "text", text=text)
    for kind, mapping in (("figure", image_2_idx), ("table", table_2_idx)):
        for path, index in mapping.items():
            source_id = f"{kind.capitalize()} {index}"
            image = _image_file(images_root, pdf_id, path) if images_root is not None else None
            if image is None or not _is_file(image):
                missing.append(source_id)
            sources[source_id] = Source(source_id, kind, image=image)

    gold: list[str] = []
    for key, content in zip(evidence_keys, evidence_contents):
        key, content = str(key), str(content)
        if content.startswith("images/"):
            figure, table = _FIGURE.search(key), _TABLE.search(key)
            if figure:
                gold.append(f"Figure {int(figure.group(1))}")
            elif table:
                gold.append(f"Table {int(table.group(1))}")
        elif content in text_2_idx:
            gold.append(text_2_idx[content])

    combined = [str(c) for c in evidence_contents + distractor_contents]
    random.Random(SHUFFLE_SEED).shuffle(combined)
    order: list[str] = []
    for content in combined:
        source_id = None
        if content in text_2_idx:
            source_id = text_2_idx[content]
        elif content in image_2_idx:
            source_id = f"Figure {image_2_idx[content]}"
        elif content in table_2_idx:
            source_id = f"Table {table_2_idx[content]}"
        if source_id is not None and source_id in sources and source_id not in order:
            order.append(source_id)
    order += [s for s in sources if s not in order]

    modal = data.get("evidence_modal")
    modal = modal[0] if isinstance(modal, list) and len(modal) == 1 else modal
    return MCiteRecord(
        id=question_id,
        pdf_id=pdf_id,
        question_type=str(data.get("question_type", "")),
        question=data["question"],
        answer=str(data.get("answer", "")),
        evidence_count=_evidence_count(data.get("evidence_count"), len(gold) or 1),
        evidence_modal=str(modal if isinstance(modal, str) else "mixed"),
        gold=gold,
        sources=sources,
        order=order,
        missing=missing,
        line=line,
    )


# -------------------------------------------------------------------------------------- citations


_BRACKETS = re.compile(r"\[([^\[\]]{1,40})\]")
_LABEL = re.compile(r"\b(figure|fig\.?|image|img\.?|table|tab\.?)\s*(\d+)", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")


def split_sentences(text: str) -> list[str]:
    """Sentences of an answer; a citation bracket right after the full stop stays with its sentence."""
    text = re.sub(r"([.!?])\s*((?:\[[^\[\]]{1,40}\]\s*)+)(?=\s|$)", r" \2\1", text.strip())
    parts = []
    for block in re.split(r"\n\s*\n|\n(?=\s*[-*•\d]+[.)]?\s)", text):
        block = " ".join(block.split())
        parts.extend(p.strip() for p in _SENTENCE.split(block) if p.strip())
    return parts


def citations_in(sentence: str) -> list[str]:
    """Normalised source ids cited in one sentence: "[1][2]", "[1, 3]", "[2-4]", "Figure 3(a)",
    "Fig. 3", "Image 2" (a figure), "Table 4", "[Table 2]"."""
    found: list[str] = []

    def add(source_id: str) -> None:
        if source_id not in found:
            found.append(source_id)

    for inner in _BRACKETS.findall(sentence):
        for piece in re.split(r"[,;]|\]\s*\[", inner):
            piece = piece.strip()
            span = re.fullmatch(r"(\d+)\s*[-–]\s*(\d+)", piece)
            if span and int(span.group(2)) - int(span.group(1)) < 20:
                for number in range(int(span.group(1)), int(span.group(2)) + 1):
                    add(str(number))
            elif piece.isdigit():
                add(str(int(piece)))
    for word, number in _LABEL.findall(sentence):
        add(f"{'Table' if word.lower().startswith('tab') else 'Figure'} {int(number)}")
    return found


def sentence_citations(response: str) -> list[tuple[str, list[str]]]:
    """(sentence, cited ids) for the sentences that cite something, in order."""
    pairs = []
    for sentence in split_sentences(response or ""):
        cited = citations_in(sentence)
        if cited:
            pairs.append((sentence, cited))
    return pairs


def source_scores(gold: Sequence[str], predicted: Sequence[str]) -> dict[str, float]:
    gold_set, pred_set = set(gold), set(predicted)
    correct = len(gold_set & pred_set)
    recall = correct / len(gold_set) if gold_set else 0.0
    precision = correct / len(pred_set) if pred_set else 0.0
    return {
        "source_recall": recall,
        "source_precision": precision,
        "source_f1": harmonic(recall, precision) or 0.0,
        "source_em": 1.0 if gold_set and gold_set == pred_set else 0.0,
    }


def score_record(record: MCiteRecord, response: str) -> dict[str, Any]:
    """Rule-based part of a record's score (no judge)."""
    pairs = sentence_citations(response)
    predicted = [c for _, cited in pairs for c in cited]
    row: dict[str, Any] = {
        "id": record.id,
        "category": record.category,
        "evidence_modal": record.evidence_modal,
        "gold": record.gold,
        "cited": sorted(set(predicted)),
        "unknown_citations": sorted({c for c in predicted if c not in record.sources}),
        "sentences": [{"sentence": s, "citations": c} for s, c in pairs],
        "uncited": not pairs,
        **source_scores(record.gold, predicted),
    }
    return row


def judge_record(record: MCiteRecord, response: str, judge: Judge, *, control=None) -> dict[str, Any]:
    """Citation recall/precision/F1 and the answer rating from the judge; failures are recorded."""
    failures: list[str] = []
    supports: list[float] = []
    precisions: list[float] = []
    complete = True
    for sentence, cited in sentence_citations(response):
        found = [c for c in cited if c in record.sources]
        if not found:
            supports.append(0.0)
            precisions.append(0.0)
            continue
        verdict = judge.support(sentence, [_for_judge(record.sources[c]) for c in found], control=control)
        if verdict.ok:
            supports.append(verdict.value / 2)
        else:
            complete = False
            failures.append(
                f"support of {found}: {verdict.error}"
                + (f" (answer: {verdict.raw[:200]!r})" if verdict.raw else "")
            )
        relevances = []
        for citation in cited:
            if citation not in record.sources:
                relevances.append(0.0)
                continue
            verdict = judge.relevance(sentence, _for_judge(record.sources[citation]), control=control)
            if verdict.ok:
                relevances.append(float(verdict.value))
            else:
                complete = False
                failures.append(
                    f"relevance of {citation}: {verdict.error}"
                    + (f" (answer: {verdict.raw[:200]!r})" if verdict.raw else "")
                )
        if relevances:
            precisions.append(sum(relevances) / len(relevances))
    result: dict[str, Any] = {"citation_recall": None, "citation_precision": None, "citation_f1": None}
    if complete:
        recall = sum(supports) / len(supports) if supports else 0.0
        precision = sum(precisions) / len(precisions) if precisions else 0.0
        result = {
            "citation_recall": recall,
            "citation_precision": precision,
            "citation_f1": harmonic(recall, precision),
        }
    rating = judge.answer_rating(record.question, record.answer, response, control=control)
    result["answer_rating"] = rating.value if rating.ok else None
    if not rating.ok:
        failures.append(
            f"answer rating: {rating.error}" + (f" (answer: {rating.raw[:200]!r})" if rating.raw else "")
        )
    result["judge_failures"] = failures
    return result


def _for_judge(source: Source) -> SourceForJudge:
    return SourceForJudge(source.id, text=source.text, image=source.image)


# -------------------------------------------------------------------------------------- aggregation

CATEGORIES = ("explanation_single", "explanation_multi", "locating_single")


def aggregate(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    def mean(key: str, subset: Sequence[dict[str, Any]]) -> float | None:
        values = [r[key] for r in subset if r.get(key) is not None]
        return sum(values) / len(values) if values else None

    def accuracy(subset: Sequence[dict[str, Any]]) -> float | None:
        ratings = [r["answer_rating"] for r in subset if r.get("answer_rating") is not None]
        return sum(ratings) / (2 * len(ratings)) if ratings else None

    result: dict[str, Any] = {
        "n_records": len(rows),
        "n_uncited": sum(1 for r in rows if r.get("uncited")),
        "source_f1": mean("source_f1", rows),
        "source_em": mean("source_em", rows),
        "citation_f1": mean("citation_f1", rows),
        "citation_recall": mean("citation_recall", rows),
        "citation_precision": mean("citation_precision", rows),
        "answer_accuracy": accuracy(rows),
        "n_judged_citations": sum(1 for r in rows if r.get("citation_f1") is not None),
        "n_judged_answers": sum(1 for r in rows if r.get("answer_rating") is not None),
    }
    by_category = {}
    for category in sorted({r.get("category", "unknown") for r in rows} | set(CATEGORIES)):
        subset = [r for r in rows if r.get("category") == category]
        if not subset:
            continue
        by_category[category] = {
            "n": len(subset),
            "source_f1": mean("source_f1", subset),
            "source_em": mean("source_em", subset),
            "citation_f1": mean("citation_f1", subset),
            "answer_accuracy": accuracy(subset),
        }
    result["by_category"] = by_category
    return result


# -------------------------------------------------------------------------------------- answering

PROMPT = (
    "Answer the question using only the numbered parts of a paper given below (text passages, figures "
    "and tables; some are unrelated to the question). Every sentence of your answer must end with the "
    'citations of the parts that support it: [n] for a text passage numbered n, and "Figure N" or '
    '"Table N" for a figure or a table, for example: "The error falls with depth [2] (Figure 3)." '
    "Cite at most three parts per sentence, and only parts that really support the sentence. "
    "Write two to four sentences in a neutral tone."
)


def build_messages(record: MCiteRecord, *, vision: bool = True) -> list[Any]:
    """Messages for a TextEngine: sources in the shuffled order, then the question. A model that
    cannot see images is told which figures and tables exist (MCiteBench gives no captions)."""
    from mmdocsum_desktop.engines.base import ImagePart, Message

    content: list[Any] = []
    for source_id in record.order:
        source = record.sources[source_id]
        if source.kind == "text":
            content.append(f"[{source_id}] {(source.text or '').strip()}\n\n")
        elif source.image is not None and source.image.is_file() and not vision:
            content.append(
                f"{source_id}: (an image of this {source.kind}; it cannot be shown to this model)\n\n"
            )
        elif source.image is not None and source.image.is_file():
            content.append(f"{source_id}:\n")
            content.append(ImagePart(source.image, label=source_id))
            content.append("\n\n")
        else:
            content.append(f"{source_id}: (image not available)\n\n")
    content.append(f"Question: {record.question}")
    return [Message("system", PROMPT), Message("user", content)]


_WORDS = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "a an the of to in on for and or is are was were be been by with as at from that this these those it its "
    "what which how why does do did can could we our they their than then there about into over under".split()
)


def extractive_answer(record: MCiteRecord) -> str:
    """A lexical baseline (no model): the text passage sharing most content words with the question,
    its best sentence cited, and any figure/table the question names. Faithful by construction."""

    def words(text: str) -> set[str]:
        return {w for w in _WORDS.findall(text.lower()) if w not in _STOP and len(w) > 2}

    question = words(record.question)
    best: tuple[float, str, str] | None = None
    for source_id in record.order:
        source = record.sources[source_id]
        if source.kind != "text" or not source.text:
            continue
        for sentence in split_sentences(source.text):
            overlap = len(question & words(sentence)) / (1 + len(question))
            if best is None or overlap > best[0]:
                best = (overlap, sentence, source_id)
    parts = []
    if best is not None and best[0] > 0:
        sentence = best[1].rstrip(" .")
        parts.append(f"{sentence} [{best[2]}].")
    for word, number in _LABEL.findall(record.question):
        label = f"{'Table' if word.lower().startswith('tab') else 'Figure'} {int(number)}"
        if label in record.sources:
            parts.append(f"This is shown in {label}.")
    if not parts:
        parts.append("The provided parts do not answer this question.")
    return " ".join(parts)


# -------------------------------------------------------------------------------------- running


def _read_predictions(path: Path) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """question id → response text, from MCiteBench's own output JSONL (records with ``response``)
    or a folder of ``ID.json`` / ``ID.txt`` files; plus problems found (one per bad line or file)."""
    import json

    responses: dict[str, str] = {}
    problems: list[dict[str, Any]] = []
    if path.is_dir():
        for file in sorted(path.iterdir()):
            if file.suffix not in (".json", ".txt"):
                continue
            text = file.read_text(encoding="utf-8", errors="replace")
            try:
                value = json.loads(text) if file.suffix == ".json" else text
            except json.JSONDecodeError:
                value = text
            if isinstance(value, dict):
                value = value.get("response", value.get("answer"))
            if not isinstance(value, str):
                problems.append({"line": None, "id": file.stem, "reason": f"{file.name}: no response text"})
                continue
            responses[file.stem] = value
        return responses, problems
    with path.open(encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as error:
                problems.append(
                    {"line": number, "id": None, "reason": f"predictions: malformed JSON ({error.msg})"}
                )
                continue
            if (
                not isinstance(data, dict)
                or "question_id" not in data
                or not isinstance(data.get("response"), str)
            ):
                problems.append(
                    {
                        "line": number,
                        "id": None,
                        "reason": "predictions: a line without question_id and response",
                    }
                )
                continue
            responses[str(data["question_id"])] = data["response"]
    return responses, problems


def run_mcite(
    split: str | Path,
    out: str | Path,
    *,
    engine_spec: Any = None,
    predictions: str | Path | None = None,
    judge_spec: Any = None,
    images_root: str | Path | None = None,
    concurrency: int = 1,
    restart: bool = False,
    control: Any = None,
    judge: Judge | None = None,
) -> dict[str, Any]:
    """Run (or resume) the MCiteBench suite into ``out``; returns the metrics written there."""
    import time

    from mmdocsum_desktop.bench import report, runner, splits
    from mmdocsum_desktop.bench.glue import build_judge
    from mmdocsum_desktop.errors import BenchError, JobCancelled
    from mmdocsum_desktop.jobs import ensure_control

    control = ensure_control(control)
    started = time.perf_counter()
    out = Path(out)
    loaded = splits.load_mcite(split, images_root)
    records = loaded.items
    skipped = [s.to_json() for s in loaded.skipped]
    mode = "predictions" if predictions is not None else "generate"
    engine = None
    engine_name = None
    owns_judge = judge is None and judge_spec is not None
    if owns_judge:
        judge = build_judge(judge_spec)
    try:
        settings: dict[str, Any] = {
            "suite": "mcite",
            "split": str(loaded.path),
            "split_sha256": runner.file_sha256(loaded.path),
            "mode": mode,
            "shuffle_seed": SHUFFLE_SEED,
        }
        if mode == "generate":
            from mmdocsum_desktop.engines.auto import build_engine, choose_engine_name
            from mmdocsum_desktop.settings import load_settings

            engine_settings = load_settings().engines
            engine_name = choose_engine_name(engine_spec.request(), engine_settings)
            if engine_name == "extractive":
                settings["engine"] = {"engine": "extractive", "model": "lexical baseline (no model)"}
            else:
                engine = build_engine(engine_spec.request(), engine_settings, embedder=None)
                settings["engine"] = engine.describe()
        else:
            settings["predictions"] = str(Path(predictions).resolve())
        folder = runner.RunFolder(out, settings, restart=restart)
        responses: dict[str, dict[str, Any]] = {}
        outcome = None
        if mode == "generate":
            from mmdocsum_desktop.engines.base import GenerationOptions

            def answer(record: MCiteRecord, ctl) -> dict[str, Any]:
                t = time.perf_counter()
                if engine is None:
                    return {
                        "response": extractive_answer(record),
                        "seconds": round(time.perf_counter() - t, 4),
                    }
                generation = engine.generate(
                    build_messages(record, vision=bool(getattr(engine, "supports_images", False))),
                    GenerationOptions(max_tokens=400, temperature=0.0, seed=0),
                    control=ctl,
                )
                return {
                    "response": generation.text,
                    "seconds": round(time.perf_counter() - t, 3),
                    "generation": generation.to_json(),
                }

            server = engine is not None and getattr(engine, "name", "") == "openai"
            outcome = runner.run_stage(
                folder,
                "responses",
                records,
                lambda r: r.id,
                answer,
                concurrency=concurrency if server else 1,
                control=control,
                label="questions",
            )
            responses = outcome.results
            for key, reason in outcome.failed.items():
                skipped.append({"line": None, "id": key, "reason": f"generation failed: {reason}"})
        else:
            path = Path(predictions)
            if not path.exists():
                raise BenchError(f"{path}: no such predictions file or folder")
            given, problems = _read_predictions(path)
            skipped += problems
            ids = {r.id for r in records}
            for key in sorted(set(given) - ids):
                skipped.append(
                    {"line": None, "id": key, "reason": "prediction for a question that is not in the split"}
                )
            for record in records:
                if record.id in given:
                    responses[record.id] = {"response": given[record.id]}
                else:
                    responses[record.id] = {"response": "", "missing": True}
                    skipped.append(
                        {
                            "line": record.line,
                            "id": record.id,
                            "reason": "no prediction: scored as an empty answer",
                        }
                    )

        rows = []
        by_id = {r.id: r for r in records}
        for record in records:
            if record.id not in responses:
                continue
            row = score_record(record, responses[record.id].get("response") or "")
            row["response"] = responses[record.id].get("response")
            row["seconds"] = responses[record.id].get("seconds")
            rows.append(row)
        judge_info = None
        if judge is not None:
            fingerprint = judge.fingerprint()
            judged = runner.run_stage(
                folder,
                "judge",
                [by_id[r["id"]] for r in rows],
                lambda r: r.id,
                lambda r, ctl: {
                    "judge": fingerprint,
                    "response": responses[r.id].get("response") or "",
                    **judge_record(r, responses[r.id].get("response") or "", judge, control=ctl),
                },
                control=control,
                label="judging",
                is_current=lambda saved: (
                    saved.get("judge") == fingerprint
                    and saved.get("response") == (responses.get(saved["id"], {}).get("response") or "")
                ),
            )
            for row in rows:
                result = judged.results.get(row["id"])
                if result:
                    for key in (
                        "citation_recall",
                        "citation_precision",
                        "citation_f1",
                        "answer_rating",
                        "judge_failures",
                    ):
                        row[key] = result.get(key)
            judge_info = {
                "judge": judge.name,
                "fingerprint": fingerprint,
                "seconds": round(judged.seconds, 3),
                "failures": [
                    {"id": r["id"], "reasons": r["judge_failures"]} for r in rows if r.get("judge_failures")
                ]
                + [{"id": key, "reasons": [reason]} for key, reason in judged.failed.items()],
            }
            if judged.cancelled:
                outcome = outcome or runner.StageOutcome()
                outcome.cancelled = True
        from mmdocsum_desktop.bench.glue import engine_file_hashes

        metrics: dict[str, Any] = {
            "suite": "mcite",
            "split": loaded.name,
            "settings": settings,
            **aggregate(rows),
            "records": rows,
            "skipped": skipped,
            "judge": judge_info,
            "notes": []
            if judge is not None
            else ["no judge configured: Citation F1 and answer accuracy are absent"],
            "model_hashes": engine_file_hashes(engine),
            "timings": {
                "generation_s": round(outcome.seconds, 3) if outcome else None,
                "judge_s": judge_info["seconds"] if judge_info else None,
                "total_s": round(time.perf_counter() - started, 3),
            },
            "cancelled": bool(outcome and outcome.cancelled),
        }
        if (
            any(r.sources[s].kind != "text" for r in records for s in r.gold)
            and engine is not None
            and not getattr(engine, "supports_images", False)
        ):
            metrics["notes"].append(
                "the engine cannot see images: figures and tables were shown to it by label only"
            )
        report.write_run(out, metrics)
        if metrics["cancelled"]:
            raise JobCancelled(f"cancelled; finished questions are kept in {out}")
        return metrics
    finally:
        if engine is not None:
            engine.close()
        if owns_judge and judge is not None:
            close = getattr(judge.engine, "close", None)
            if callable(close):
                close()

