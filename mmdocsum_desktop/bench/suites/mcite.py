"""``mmdocsum bench mcite``: MCiteBench — answer a question from shuffled evidence and distractors,
citing the sources; scored by :mod:`mmdocsum_desktop.bench.metrics.mcite`.

Stages of a resumable run: **responses** (the engine answers every question, or ``--predictions`` is
read), rule-based scoring of the citations, **judge** (citation support and relevance, answer rating).
Without a model the engine is a lexical baseline (:func:`extractive_answer`).
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from mmdocsum_desktop.bench import report, runner, splits
from mmdocsum_desktop.bench.glue import build_judge, engine_file_hashes
from mmdocsum_desktop.bench.judge import Judge, SourceForJudge
from mmdocsum_desktop.bench.metrics.common import harmonic
from mmdocsum_desktop.bench.metrics.mcite import LABEL_MENTION, aggregate, score_record, sentence_citations
from mmdocsum_desktop.bench.schema import BenchmarkResult, MCiteRecord, Source
from mmdocsum_desktop.engines.auto import build_engine, choose_engine_name
from mmdocsum_desktop.engines.base import GenerationOptions, ImagePart, Message
from mmdocsum_desktop.errors import BenchError
from mmdocsum_desktop.jobs import ensure_control
from mmdocsum_desktop.settings import load_settings
from mmdocsum_desktop.text.sentences import split_sentences

SUITE = "mcite"

# ------------------------------------------------------------------------------------------ answering

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
    for word, number in LABEL_MENTION.findall(record.question):
        label = f"{'Table' if word.lower().startswith('tab') else 'Figure'} {int(number)}"
        if label in record.sources:
            parts.append(f"This is shown in {label}.")
    if not parts:
        parts.append("The provided parts do not answer this question.")
    return " ".join(parts)


# ------------------------------------------------------------------------------------------ judging


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


# ------------------------------------------------------------------------------------------ running


def _read_predictions(path: Path) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """question id → response text, from MCiteBench's own output JSONL (records with ``response``)
    or a folder of ``ID.json`` / ``ID.txt`` files; plus problems found (one per bad line or file)."""
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
    control = ensure_control(control)
    started = time.perf_counter()
    out = Path(out)
    loaded = splits.load_mcite(split, images_root)
    records = loaded.items
    skipped = [s.to_json() for s in loaded.skipped]
    mode = "predictions" if predictions is not None else "generate"
    engine = None
    owns_judge = judge is None and judge_spec is not None
    if owns_judge:
        judge = build_judge(judge_spec)
    try:
        settings = runner.split_settings(SUITE, loaded.path, mode, shuffle_seed=splits.SHUFFLE_SEED)
        if mode == "generate":
            engine_settings = load_settings().engines
            if choose_engine_name(engine_spec.request(), engine_settings) == "extractive":
                settings["engine"] = {"engine": "extractive", "model": "lexical baseline (no model)"}
            else:
                engine = build_engine(engine_spec.request(), engine_settings, embedder=None)
                settings["engine"] = engine.describe()
        else:
            settings["predictions"] = str(Path(predictions).resolve())
        folder = runner.RunFolder(out, settings, restart=restart)
        if mode == "generate":
            responses, generation = _responses_stage(folder, records, engine, concurrency, control, skipped)
        else:
            responses, generation = _given_responses(Path(predictions), records, skipped), None
        rows = _score_stage(records, responses)
        judge_info, judge_cancelled = _judge_stage(folder, records, responses, rows, judge, control)
        notes = (
            [] if judge is not None else ["no judge configured: Citation F1 and answer accuracy are absent"]
        )
        if (
            any(r.sources[s].kind != "text" for r in records for s in r.gold)
            and engine is not None
            and not getattr(engine, "supports_images", False)
        ):
            notes.append("the engine cannot see images: figures and tables were shown to it by label only")
        overall = aggregate(rows)
        by_category = overall.pop("by_category")
        metrics = BenchmarkResult(
            suite=SUITE,
            split=loaded.name,
            settings=settings,
            metrics=overall,
            rows=rows,
            details={
                "by_category": by_category,
                "skipped": skipped,
                "judge": judge_info,
                "notes": notes,
                "model_hashes": engine_file_hashes(engine),
                "timings": {
                    "generation_s": round(generation.seconds, 3) if generation else None,
                    "judge_s": judge_info["seconds"] if judge_info else None,
                    "total_s": round(time.perf_counter() - started, 3),
                },
                "cancelled": bool(generation and generation.cancelled) or judge_cancelled,
            },
        ).to_json()
        return report.finish_run(out, metrics, kept="questions")
    finally:
        if engine is not None:
            engine.close()
        if owns_judge and judge is not None:
            runner.close_engine(judge.engine)


def _responses_stage(
    folder: runner.RunFolder,
    records: list[MCiteRecord],
    engine: Any,
    concurrency: int,
    control: Any,
    skipped: list[dict[str, Any]],
) -> tuple[dict[str, dict[str, Any]], runner.StageOutcome]:
    """The engine (or, without one, the lexical baseline) answers every question; resumable."""

    def answer(record: MCiteRecord, ctl) -> dict[str, Any]:
        t = time.perf_counter()
        if engine is None:
            return {"response": extractive_answer(record), "seconds": round(time.perf_counter() - t, 4)}
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

    server = (
        engine is not None and getattr(engine, "name", "") == "openai"
    )  # only a server answers in parallel
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
    for key, reason in outcome.failed.items():
        skipped.append({"line": None, "id": key, "reason": f"generation failed: {reason}"})
    return outcome.results, outcome


def _given_responses(
    path: Path, records: list[MCiteRecord], skipped: list[dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """``--predictions``: the responses given; a question without one is scored as an empty answer."""
    if not path.exists():
        raise BenchError(f"{path}: no such predictions file or folder")
    given, problems = _read_predictions(path)
    skipped += problems
    ids = {r.id for r in records}
    for key in sorted(set(given) - ids):
        skipped.append(
            {"line": None, "id": key, "reason": "prediction for a question that is not in the split"}
        )
    responses: dict[str, dict[str, Any]] = {}
    for record in records:
        if record.id in given:
            responses[record.id] = {"response": given[record.id]}
        else:
            responses[record.id] = {"response": "", "missing": True}
            skipped.append(
                {"line": record.line, "id": record.id, "reason": "no prediction: scored as an empty answer"}
            )
    return responses


def _score_stage(records: list[MCiteRecord], responses: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Rule-based scores (cited sources against the gold evidence) per answered question."""
    rows = []
    for record in records:
        if record.id not in responses:
            continue
        row = score_record(record, responses[record.id].get("response") or "")
        row["response"] = responses[record.id].get("response")
        row["seconds"] = responses[record.id].get("seconds")
        rows.append(row)
    return rows


def _judge_stage(
    folder: runner.RunFolder,
    records: list[MCiteRecord],
    responses: dict[str, dict[str, Any]],
    rows: list[dict[str, Any]],
    judge: Judge | None,
    control: Any,
) -> tuple[dict[str, Any] | None, bool]:
    """Citation F1 and the answer rating from the judge, into ``rows`` (resumable; re-judged when the
    response or the judge changes). Returns (the judge's report entry, whether it was cancelled)."""
    if judge is None:
        return None, False
    by_id = {r.id: r for r in records}
    fingerprint = judge.fingerprint()

    def response_of(record_id: str) -> str:
        return responses.get(record_id, {}).get("response") or ""

    judged = runner.run_stage(
        folder,
        "judge",
        [by_id[r["id"]] for r in rows],
        lambda r: r.id,
        lambda r, ctl: {
            "judge": fingerprint,
            "response": response_of(r.id),
            **judge_record(r, response_of(r.id), judge, control=ctl),
        },
        control=control,
        label="judging",
        is_current=lambda saved: (
            saved.get("judge") == fingerprint and saved.get("response") == response_of(saved["id"])
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
    failures = [{"id": r["id"], "reasons": r["judge_failures"]} for r in rows if r.get("judge_failures")]
    failures += [{"id": key, "reasons": [reason]} for key, reason in judged.failed.items()]
    info = {
        "judge": judge.name,
        "fingerprint": fingerprint,
        "seconds": round(judged.seconds, 3),
        "failures": failures,
    }
    return info, judged.cancelled
