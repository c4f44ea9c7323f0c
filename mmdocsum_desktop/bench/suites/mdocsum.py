"""``mmdocsum bench mdocsum``: M-DocSum-Bench scored with M-DocEval (the rules are in
:mod:`mmdocsum_desktop.bench.metrics.mdocsum`).

A run is a chain of resumable stages in its output folder (:mod:`mmdocsum_desktop.bench.runner`):

1. **predictions** — the engine summarises every document (or ``--predictions DIR`` is read);
2. **documents** — image count and length of the documents the split does not describe;
3. scoring by M-DocEval's rules, ROUGE against the gold summaries;
4. **judge** — Com and Acc from a judge model, re-judged when the answer or the judge changes;
5. aggregation and breakdowns (per paragraph, by length, by image count) into ``metrics.json``;
6. ablations (generation only): the same run with shuffled images or without the abstract, as
   decline rates.
"""

from __future__ import annotations

import hashlib
import json
import time
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mmdocsum_desktop.bench import report, runner, splits
from mmdocsum_desktop.bench.glue import BenchEngine, document_stats, source_judge
from mmdocsum_desktop.bench.metrics.mdocsum import (
    ABLATION_METRICS,
    aggregate,
    breakdown,
    decline_rates,
    image_bucket,
    length_bucket,
    parse_answer,
    per_paragraph,
    remap_tags,
    score_document,
)
from mmdocsum_desktop.bench.metrics.rouge import mean_rouge, rouge, summary_text
from mmdocsum_desktop.errors import BenchError, JobCancelled
from mmdocsum_desktop.jobs import JobControl, ensure_control
from mmdocsum_desktop.schemas.bench import (
    BenchmarkResult,
    DocScore,
    JudgeScore,
    MDocSumItem,
    ParsedAnswer,
)
from mmdocsum_desktop.text.sentences import split_answer_sentences

SUITE = "mdocsum"


@dataclass
class MDocSumOptions:
    no_abstract: bool = False
    shuffle_seed: int | None = None
    concurrency: int = 1
    restart: bool = False
    ablate_shuffle: int | None = None  # --shuffle-images SEED: also run with shuffled images
    ablate_no_abstract: bool = False  # --no-abstract ablation: also run without the abstract


@dataclass
class _Run:
    """What every stage of one run reads: the split, the folder, the engine and judge, the options."""

    loaded: splits.Split[MDocSumItem]
    folder: runner.RunFolder
    settings: dict[str, Any]
    options: MDocSumOptions
    control: JobControl
    mode: str  # "generate" or "predictions"
    engine: BenchEngine | None
    judge: Any
    predictions: Path | None
    skipped: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    concurrency: int = 1

    @property
    def items(self) -> list[MDocSumItem]:
        return self.loaded.items

    def skip(self, item: MDocSumItem | None, reason: str, item_id: str | None = None) -> None:
        self.skipped.append(
            {"line": item.line if item else None, "id": item.id if item else item_id, "reason": reason}
        )


@dataclass
class _Scored:
    """Stage 3's output: M-DocEval scores and ROUGE per document, with what the breakdowns need."""

    scores: list[DocScore] = field(default_factory=list)
    model_scores: list[DocScore] = field(default_factory=list)  # the model's own answer, before repairs
    parsed: dict[str, ParsedAnswer] = field(default_factory=dict)
    rows: list[dict[str, Any]] = field(default_factory=list)
    rouge_rows: dict[str, dict[str, float]] = field(default_factory=dict)
    tokens: dict[str, int | None] = field(default_factory=dict)
    images: dict[str, int | None] = field(default_factory=dict)
    missing_predictions: list[str] = field(default_factory=list)


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
    options = options or MDocSumOptions()
    control = ensure_control(control)
    started = time.perf_counter()
    out = Path(out)
    mode = "predictions" if predictions is not None else "generate"
    owns_engine = mode == "generate" and engine is None
    if owns_engine:
        engine = BenchEngine.build(engine_spec)
    with ExitStack() as held:
        if judge is None and judge_spec is not None:
            # the session's judge engine, held for the run (the session closes it with itself)
            judge = held.enter_context(source_judge(judge_spec))
        try:
            run = _open_run(split, out, mode, engine, judge, predictions, options, control)
            prediction_rows, generation = _predictions_stage(run)
            stats, unreadable = _documents_stage(run, prediction_rows)
            scored = _score_stage(run, prediction_rows, stats, unreadable)
            judged, judge_info, judge_cancelled = _judge_stage(run, prediction_rows, scored)
            metrics = _metrics(run, scored, judged, judge_info, generation, prediction_rows)
            metrics["cancelled"] = bool(generation and generation.cancelled) or judge_cancelled
            if _ablation is None and mode == "generate" and not metrics["cancelled"]:
                _ablations_stage(run, split, out, metrics)
            metrics["timings"]["total_s"] = round(time.perf_counter() - started, 3)
            return report.finish_run(out, metrics, kept="documents", hint=" (the same command continues)")
        finally:
            if owns_engine and engine is not None:
                engine.close()


# ------------------------------------------------------------------------------------------ stages


def _open_run(
    split: str | Path,
    out: Path,
    mode: str,
    engine: BenchEngine | None,
    judge: Any,
    predictions: str | Path | None,
    options: MDocSumOptions,
    control: JobControl,
) -> _Run:
    """Load the split and open (or resume) the run folder; a folder of another run is refused."""
    loaded = splits.load_mdocsum(split, control)
    if loaded.no_abstract and not options.no_abstract:  # gold taken from the abstracts: never shown them
        options = replace(options, no_abstract=True)
    settings = runner.split_settings(
        SUITE, loaded.path, mode, no_abstract=options.no_abstract, shuffle_seed=options.shuffle_seed
    )
    if engine is not None and mode == "generate":
        settings["engine"] = engine.describe()
    else:
        assert predictions is not None  # no engine: the answers are given
        settings["predictions"] = str(Path(predictions).resolve())
    run = _Run(
        loaded=loaded,
        folder=runner.RunFolder(out, settings, restart=options.restart),
        settings=settings,
        options=options,
        control=control,
        mode=mode,
        engine=engine if mode == "generate" else None,
        judge=judge,
        predictions=Path(predictions) if predictions is not None else None,
        skipped=[s.to_json() for s in loaded.skipped],
        notes=list(loaded.notes),
        concurrency=options.concurrency,
    )
    if run.engine is not None and run.concurrency > 1 and run.engine.in_process:
        run.notes.append(
            f"--concurrency {run.concurrency} ignored: the {run.engine.name} engine runs in this process"
        )
        run.concurrency = 1
    return run


def _document_of(item: MDocSumItem) -> Path:
    """The document file of an item the stage kept (items without one were skipped before)."""
    assert item.document is not None
    return item.document


def _predictions_stage(run: _Run) -> tuple[dict[str, dict[str, Any]], runner.StageOutcome[MDocSumItem] | None]:
    """Stage 1: an answer record per document, generated (resumable) or read from the folder."""
    if run.engine is None:
        return _read_predictions(run), None
    engine = run.engine
    runnable: list[MDocSumItem] = []
    for item in run.items:
        if item.document is None or not item.document.is_file():
            run.skip(item, f"document missing: {item.document}")
        else:
            runnable.append(item)
    outcome = runner.run_stage(
        run.folder,
        "predictions",
        runnable,
        lambda item: item.id,
        lambda item, ctl: engine.summarize(
            _document_of(item),
            include_abstract=not run.options.no_abstract,
            shuffle_seed=run.options.shuffle_seed,
            control=ctl,
        ),
        concurrency=run.concurrency,
        control=run.control,
        label="documents",
    )
    by_id = {item.id: item for item in run.items}
    for item_id, reason in outcome.failed.items():
        run.skip(by_id[item_id], f"generation failed: {reason}")
    return outcome.results, outcome


def _read_predictions(run: _Run) -> dict[str, dict[str, Any]]:
    """``--predictions DIR``: one ``ID.json`` per document (a missing one is scored as unparseable)."""
    pred_dir = run.predictions
    if pred_dir is None or not pred_dir.is_dir():
        raise BenchError(f"{pred_dir}: the predictions folder does not exist")
    files = {p.stem: p for p in pred_dir.glob("*.json")}
    known = {runner.safe_name(i.id): i.id for i in run.items} | {i.id: i.id for i in run.items}
    for stem in sorted(set(files) - set(known)):
        run.skip(None, "prediction for an id that is not in the split", item_id=stem)
    rows: dict[str, dict[str, Any]] = {}
    for item in run.items:
        path = files.get(item.id) or files.get(runner.safe_name(item.id))
        if path is None:
            rows[item.id] = {"answer": None, "missing": True}
            continue
        try:
            value = splits.read_prediction_file(path)
        except OSError as error:
            value = None
            run.skip(item, f"prediction unreadable: {error}")
        row = {"answer": value}
        if not isinstance(value, dict):
            try:
                raw_json = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError, RecursionError):
                raw_json = None
            if isinstance(raw_json, dict):  # a record with its extras (n_images, seconds, raw_answer ...)
                row = {**raw_json, "answer": value}
        rows[item.id] = row
    return rows


def _documents_stage(
    run: _Run, prediction_rows: dict[str, dict[str, Any]]
) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """Stage 2: image count and length of the documents neither the split nor the answer describes."""
    need = [
        item
        for item in run.items
        if item.id in prediction_rows
        and (
            (prediction_rows[item.id].get("n_images") is None and item.n_images is None)
            or (item.n_tokens is None and prediction_rows[item.id].get("n_tokens") is None)
        )
        and item.document is not None
        and item.document.is_file()
    ]
    if not need:
        return {}, {}
    read = runner.run_stage(
        run.folder,
        "documents",
        need,
        lambda item: item.id,
        lambda item, ctl: document_stats(_document_of(item)),
        control=run.control,
        label="documents",
    )
    return read.results, read.failed


def _score_stage(
    run: _Run,
    prediction_rows: dict[str, dict[str, Any]],
    stats: dict[str, dict[str, Any]],
    unreadable: dict[str, str],
) -> _Scored:
    """Stage 3: every answer scored by M-DocEval's rules (and its ROUGE against the gold summaries)."""
    scored = _Scored()
    for item in run.items:
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
            run.skip(item, f"image count unknown: {why} and the split gives no n_images")
            continue
        gold_max = max((g for g in item.gold_refs if g is not None), default=0)
        if gold_max > n_images:
            run.skip(item, f"gold refers to image {gold_max} but the document has {n_images} images")
            continue
        scored.tokens[item.id], scored.images[item.id] = n_tokens, n_images
        if record.get("missing"):
            scored.missing_predictions.append(item.id)
            parsed = ParsedAnswer(parsed=False, problems=["no prediction file for this document"])
        else:
            parsed = parse_answer(record.get("answer"), n_images)
        scored.parsed[item.id] = parsed
        score = score_document(item.id, item.gold_refs, parsed, n_images)
        scored.scores.append(score)
        if record.get("raw_answer") is not None:
            model_parsed = remap_tags(
                parse_answer(record["raw_answer"], n_images), record.get("tag_to_index")
            )
            scored.model_scores.append(score_document(item.id, item.gold_refs, model_parsed, n_images))
        gold_text = summary_text([g.summary for g in item.gold])
        prediction_text = summary_text([p.summary for p in parsed.paragraphs[:4]]) if parsed.parsed else ""
        scored.rouge_rows[item.id] = rouge(prediction_text, gold_text)
        row = score.to_dict()
        row.update(
            n_images=n_images,
            n_tokens=n_tokens,
            rouge=scored.rouge_rows[item.id],
            rouge_by_role=_rouge_by_role(item, parsed),
            seconds=record.get("seconds"),
            repairs=record.get("repairs"),
            warnings=record.get("warnings", []),
        )
        scored.rows.append(row)
    return scored


def _judge_stage(
    run: _Run, prediction_rows: dict[str, dict[str, Any]], scored: _Scored
) -> tuple[dict[str, JudgeScore] | None, dict[str, Any] | None, bool]:
    """Stage 4: Com and Acc per document from the judge (resumable; re-judged when the answer or the
    judge changes). Returns (scores by id, the judge's report entry, whether it was cancelled)."""
    judge = run.judge
    if judge is None:
        return None, None, False
    fingerprint = judge.fingerprint()
    judgeable = [item for item in run.items if item.id in scored.parsed]
    hashes = {item.id: _answer_hash(prediction_rows[item.id].get("answer")) for item in judgeable}
    server = getattr(judge.engine, "name", "") == "openai"  # only a server judges in parallel
    outcome = runner.run_stage(
        run.folder,
        "judge",
        judgeable,
        lambda item: item.id,
        lambda item, ctl: {
            "judge": fingerprint,
            "prediction": hashes[item.id],
            **judge_document(judge, item, scored.parsed[item.id], ctl),
        },
        concurrency=run.options.concurrency if run.options.concurrency > 1 and server else 1,
        control=run.control,
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
        for key, value in outcome.results.items()
    }
    failures = [{"id": key, "reasons": value.failures} for key, value in judged.items() if value.failures]
    failures += [{"id": key, "reasons": [reason]} for key, reason in outcome.failed.items()]
    info = {
        "judge": judge.name,
        "fingerprint": fingerprint,
        "seconds": round(outcome.seconds, 3),
        "failures": failures,
    }
    for row in scored.rows:
        if row["id"] in judged:
            row["com"], row["acc"] = judged[row["id"]].com, judged[row["id"]].acc
            row["judge_failures"] = judged[row["id"]].failures
    return judged, info, outcome.cancelled


def _metrics(
    run: _Run,
    scored: _Scored,
    judged: dict[str, JudgeScore] | None,
    judge_info: dict[str, Any] | None,
    generation: runner.StageOutcome[MDocSumItem] | None,
    prediction_rows: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    """Stage 5: the overall numbers and breakdowns, as the JSON of a :class:`BenchmarkResult`."""
    overall = aggregate(scored.scores, judged)
    notes = list(run.notes)
    if run.judge is None:
        notes.append(
            "no judge configured: Com, Acc, TS and Total are absent; ROUGE is reported under its own name"
        )
    details: dict[str, Any] = {
        "rouge": mean_rouge(scored.rouge_rows.values()),
        "rouge_by_role": _mean_rouge_by_role(scored.rows),
        "per_paragraph": per_paragraph(scored.scores, judged),
        "by_length": breakdown(
            scored.scores, {k: length_bucket(v) for k, v in scored.tokens.items()}, judged
        ),
        "by_image_count": breakdown(
            scored.scores, {k: image_bucket(v) for k, v in scored.images.items()}, judged
        ),
        "skipped": run.skipped,
        "papers": splits.papers_for(run.loaded.path, [item.id for item in run.items]),
        "missing_predictions": scored.missing_predictions,
        "notes": notes,
        "judge": judge_info,
        "model_hashes": run.engine.model_hashes() if run.engine is not None else {},
        "timings": {
            "generation_s": round(generation.seconds, 3) if generation else None,
            "generation_s_per_doc": _per_doc_seconds(prediction_rows),
            "resumed": generation.resumed if generation else 0,
            "processed": generation.processed if generation else 0,
            "judge_s": judge_info["seconds"] if judge_info else None,
        },
    }
    if scored.model_scores:
        details["model_answer"] = {
            **aggregate(scored.model_scores, None),
            "per_paragraph": per_paragraph(scored.model_scores, None),
            "note": "the model's own answer scored as M-DocSum does (before the app's repairs and figure choice)",
        }
    result = BenchmarkResult(
        suite=SUITE,
        split=run.loaded.name,
        settings=run.settings,
        metrics=overall,
        rows=scored.rows,
        details=details,
    )
    return result.to_dict()


def _ablations_stage(run: _Run, split: str | Path, out: Path, metrics: dict[str, Any]) -> None:
    """Stage 6 (generation only): the same run with shuffled images / without the abstract, in
    ``out/ablations/NAME``, reported as decline rates of every metric."""
    options = run.options
    ablations: dict[str, Any] = {}
    rouge_keys = ("rouge1", "rouge2", "rougeL")
    base = {**metrics, **{k: metrics["rouge"].get(k) for k in rouge_keys}}
    for name, enabled, change in (
        ("shuffle_images", options.ablate_shuffle is not None, {"shuffle_seed": options.ablate_shuffle}),
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
                engine=run.engine,
                judge=run.judge,
                options=sub_options,
                control=run.control,
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
            "decline_rate": decline_rates(base, {**sub, **{k: sub["rouge"].get(k) for k in rouge_keys}}),
            "cancelled": sub.get("cancelled", False),
        }
    if ablations:
        metrics["ablations"] = ablations


# ------------------------------------------------------------------------------------------ judging


def judge_document(judge: Any, item: MDocSumItem, parsed: ParsedAnswer, control: Any) -> dict[str, Any]:
    """Com (key points of each gold paragraph the answer's paragraph states) and Acc (sentences of the
    answer correct against the gold paragraph) of one document, asked of the judge paragraph by
    paragraph; a judge answer that cannot be used leaves the number absent and is listed."""
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
        sentences = split_answer_sentences(paragraph) if paragraph.strip() else []
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
    acc: float | None
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


ROLES = ("background", "method", "results", "conclusion")  # what M-DocSum's four paragraphs are


def _rouge_by_role(item: MDocSumItem, parsed: ParsedAnswer) -> list[dict[str, float] | None]:
    """ROUGE of each answer paragraph against the gold paragraph of its role; None where the gold has
    no text (a study protocol's abstract has no results section)."""
    scores: list[dict[str, float] | None] = []
    for index, gold in enumerate(item.gold):
        if not gold.summary.strip():
            scores.append(None)
            continue
        answer = parsed.paragraphs[index].summary if parsed.parsed and index < len(parsed.paragraphs) else ""
        scores.append(rouge(answer, gold.summary))
    return scores


def _mean_rouge_by_role(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per role: mean ROUGE-1/2/L over the documents whose gold has text in that role, and how many."""
    out: dict[str, dict[str, Any]] = {}
    for index, role in enumerate(ROLES):
        values = [r["rouge_by_role"][index] for r in rows
                  if index < len(r.get("rouge_by_role") or []) and r["rouge_by_role"][index] is not None]
        out[role] = {**mean_rouge(values), "n_docs": len(values)}
    return out


def _answer_hash(answer: Any) -> str:
    return hashlib.sha256(json.dumps(answer, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


def _per_doc_seconds(rows: dict[str, dict[str, Any]]) -> float | None:
    seconds = [r["seconds"] for r in rows.values() if isinstance(r.get("seconds"), int | float)]
    return round(sum(seconds) / len(seconds), 3) if seconds else None
