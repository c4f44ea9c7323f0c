"""``mmdocsum bench mcite``: MCiteBench — answer a question from shuffled evidence and distractors,
citing the sources; scored by :mod:`mmdocsum_desktop.bench.metrics.mcite`.

Stages of a resumable run: **responses** (every question answered, or ``--predictions`` read),
rule-based scoring of the citations, **judge** (citation support and relevance, answer rating).

Answers come from the app's own answering path, the one ``mmdocsum ask`` uses, through the run's session
(:func:`~mmdocsum_desktop.app.ask.ask_sources`): the record's sources stand in for the search over a
document — text sources are split into sentences, a figure or table is the text OCR reads in its image
(MCiteBench gives no captions) — ranked by the same retriever (BM25 + MiniLM, rescored by the
cross-encoder), then answered extractively (no model) or by the language model, checked and cited.
Each answer is written in MCiteBench's output form: ``response`` (sentences ending in their citations,
``[1]`` for a text source, ``Figure N`` / ``Table N``) and ``sentence_citation_list``
(``{"Sentence", "Citation"}`` pairs, what MCiteBench's scripts score), in ``OUT/responses.jsonl``.
"""

from __future__ import annotations

import json
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from mmdocsum_desktop.app.ask import GivenSource, ask_sources, retriever
from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.bench import report, runner, splits
from mmdocsum_desktop.bench.glue import current_session, engine_file_hashes, source_judge
from mmdocsum_desktop.bench.metrics.common import harmonic
from mmdocsum_desktop.bench.metrics.mcite import aggregate, score_record, sentence_citations
from mmdocsum_desktop.errors import BenchError, MmdocsumError
from mmdocsum_desktop.fileio import write_text_atomic
from mmdocsum_desktop.jobs import JobControl, ensure_control
from mmdocsum_desktop.schemas.answer import Answer
from mmdocsum_desktop.schemas.bench import BenchmarkResult, MCiteRecord
from mmdocsum_desktop.schemas.settings import EngineChoice

SUITE = "mcite"

# ------------------------------------------------------------------------------------------ answering


def given_sources(record: MCiteRecord) -> list[GivenSource]:
    """The record's sources in the order they are shown, as the app's answering path takes them: a text
    source is prose, a figure or table is its image (read with OCR), each cited by its MCiteBench id."""
    return [
        GivenSource(source_id, text=source.text or "", image=source.image, visual=source.kind != "text")
        for source_id, source in ((i, record.sources[i]) for i in record.order)
    ]


def answer_record(session: Session, record: MCiteRecord, choice: EngineChoice | None = None, *,
                  control: JobControl | None = None) -> Answer:
    """The answer `mmdocsum ask` would give from the record's sources (``app.ask.ask_sources``)."""
    return ask_sources(session, record.question, given_sources(record), key=record.id, source=record.pdf_id,
                       choice=choice, control=control).answer


def sentence_citation_list(record: MCiteRecord, answer: Answer) -> list[dict[str, Any]]:
    """MCiteBench's ``sentence_citation_list``: each answer sentence with the source ids it cites (text
    ids from the passages it rests on, then its figures and tables); a notice cites nothing."""
    pairs = []
    for sentence in answer.sentences:
        cited = [b for b in sentence.blocks if b in record.sources and record.sources[b].kind == "text"]
        cited += [label for label in sentence.labels if label in record.sources]
        cited = list(dict.fromkeys(cited))
        if cited:
            pairs.append({"Sentence": sentence.text, "Citation": cited})
    return pairs


def response_text(answer: Answer, pairs: list[dict[str, Any]]) -> str:
    """The answer as MCiteBench's ``response``: every cited sentence ends with its citations."""
    by_sentence = {pair["Sentence"]: pair["Citation"] for pair in pairs}
    parts = []
    for sentence in answer.sentences:
        cited = by_sentence.get(sentence.text)
        if not cited:
            parts.append(sentence.text)
            continue
        marks = " ".join(f"[{c}]" if c.isdigit() else f"({c})" for c in cited)
        parts.append(f"{sentence.text.rstrip().rstrip('.')} {marks}.")
    return " ".join(parts)


# ------------------------------------------------------------------------------------------ judging


def judge_record(
    record: MCiteRecord,
    response: str,
    judge: Any,
    *,
    control: JobControl | None = None,
    sentence_citation_list: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Citation recall/precision/F1 and the answer rating from the judge; failures are recorded.
    The sentences and their citations come from ``sentence_citation_list`` when given (else by rules)."""
    failures: list[str] = []
    supports: list[float] = []
    precisions: list[float] = []
    complete = True
    pairs = (
        [(p["Sentence"], list(p["Citation"])) for p in sentence_citation_list if p["Citation"]]
        if sentence_citation_list is not None
        else sentence_citations(response)
    )
    for sentence, cited in pairs:
        found = [c for c in cited if c in record.sources]
        if not found:
            supports.append(0.0)
            precisions.append(0.0)
            continue
        # a record's Source has what the judge reads of a cited source: its id, text and image
        verdict = judge.support(sentence, [record.sources[c] for c in found], control=control)
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
            verdict = judge.relevance(sentence, record.sources[citation], control=control)
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


# ------------------------------------------------------------------------------------------ running


def _read_predictions(path: Path) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """question id → {"response", and "sentence_citation_list" when given}, from MCiteBench's own output
    JSONL (records with ``response``, optionally already split into sentence-citation pairs) or a folder
    of ``ID.json`` / ``ID.txt`` files; plus problems found (one per bad line or file)."""
    responses: dict[str, dict[str, Any]] = {}
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
            pairs = value.get("sentence_citation_list") if isinstance(value, dict) else None
            if isinstance(value, dict):
                value = value.get("response", value.get("answer"))
            if not isinstance(value, str):
                problems.append({"line": None, "id": file.stem, "reason": f"{file.name}: no response text"})
                continue
            responses[file.stem] = _given(value, pairs)
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
            responses[str(data["question_id"])] = _given(data["response"], data.get("sentence_citation_list"))
    return responses, problems


def _given(response: str, pairs: Any) -> dict[str, Any]:
    """A given prediction; its sentence-citation pairs are kept when they have MCiteBench's shape."""
    given: dict[str, Any] = {"response": response}
    if isinstance(pairs, list) and all(
        isinstance(p, dict) and isinstance(p.get("Sentence"), str) and isinstance(p.get("Citation"), list)
        for p in pairs
    ):
        given["sentence_citation_list"] = pairs
    return given


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
    judge: Any = None,
) -> dict[str, Any]:
    """Run (or resume) the MCiteBench suite into ``out``; returns the metrics written there."""
    control = ensure_control(control)
    started = time.perf_counter()
    out = Path(out)
    loaded = splits.load_mcite(split, images_root, control)
    records = loaded.items
    skipped = [s.to_json() for s in loaded.skipped]
    mode = "predictions" if predictions is not None else "generate"
    session = current_session()  # the run's: the settings the CLI or the window runs with
    with ExitStack() as held:
        if judge is None and judge_spec is not None:
            # the session's judge engine, held for the run (the session closes it with itself)
            judge = held.enter_context(source_judge(judge_spec))
        settings = runner.split_settings(SUITE, loaded.path, mode, shuffle_seed=splits.SHUFFLE_SEED)
        model_hashes: dict[str, str] = {}
        figure_text = False
        if mode == "generate":
            choice = engine_spec.request()
            if session.engine_name(choice) == "extractive":
                settings["engine"] = {"engine": "extractive", "model": "the app's extractive answer (no model)"}
            else:
                # the engine `mmdocsum ask` builds (loaded now: a bad model is reported before any question)
                with session.engine(choice.model_copy(update={"ocr": False})) as run:
                    settings["engine"] = run.describe().model_dump(mode="json")
                    model_hashes = engine_file_hashes(run.engine)
            figure_text = _ocr_loads(session)
            settings["answer"] = {"path": "app.ask.ask_sources", "reranker": retriever(session).uses_reranker,
                                  "figure_text": "ocr" if figure_text else "label only"}
        else:
            assert predictions is not None  # scoring given responses
            settings["predictions"] = str(Path(predictions).resolve())
        folder = runner.RunFolder(out, settings, restart=restart)
        answer_notes: list[str] = []
        if mode == "generate":
            responses, generation = _responses_stage(folder, records, session, engine_spec.request(), concurrency,
                                                     control, skipped, answer_notes)
            _write_responses(out, records, responses)
        else:
            assert predictions is not None
            responses, generation = _given_responses(Path(predictions), records, skipped), None
        rows = _score_stage(records, responses)
        judge_info, judge_cancelled = _judge_stage(folder, records, responses, rows, judge, control)
        notes = list(loaded.notes) + (
            [] if judge is not None else ["no judge configured: Citation F1 and answer accuracy are absent"]
        )
        if mode == "generate":
            notes += answer_notes
            notes.append("answers read figures and tables as the text OCR finds in them (the answering path shows "
                         "a model no images)" if figure_text else
                         "figures and tables were known by their labels only (no OCR)")
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
                "papers": splits.papers_for(loaded.path, [record.pdf_id for record in records]),
                "judge": judge_info,
                "notes": notes,
                "model_hashes": model_hashes,
                "timings": {
                    "generation_s": round(generation.seconds, 3) if generation else None,
                    "judge_s": judge_info["seconds"] if judge_info else None,
                    "total_s": round(time.perf_counter() - started, 3),
                },
                "cancelled": bool(generation and generation.cancelled) or judge_cancelled,
            },
        ).to_dict()
        return report.finish_run(out, metrics, kept="questions")


def _ocr_loads(session: Session) -> bool:
    """Whether figure and table images can be read (the session's OCR model loads)."""
    try:
        session.models.ocr()
    except MmdocsumError:
        return False
    return True


def _responses_stage(
    folder: runner.RunFolder,
    records: list[MCiteRecord],
    session: Session,
    choice: EngineChoice,
    concurrency: int,
    control: Any,
    skipped: list[dict[str, Any]],
    notes: list[str],
) -> tuple[dict[str, dict[str, Any]], runner.StageOutcome[MCiteRecord]]:
    """Every question answered through the app's answering path; resumable. What the answers note about
    the models (no OCR, an image not read, no rescoring) is collected once in ``notes``."""

    def answer(record: MCiteRecord, ctl: JobControl) -> dict[str, Any]:
        t = time.perf_counter()
        result = answer_record(session, record, choice, control=ctl)
        notes.extend(n for n in result.notes if n not in notes)
        pairs = sentence_citation_list(record, result)
        return {
            "response": response_text(result, pairs),
            "sentence_citation_list": pairs,
            "seconds": round(time.perf_counter() - t, 3),
            "answer": result.model_dump(mode="json"),
        }

    server = session.engine_name(choice) == "openai"  # only a server answers in parallel
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


def _write_responses(out: Path, records: list[MCiteRecord], responses: dict[str, dict[str, Any]]) -> None:
    """OUT/responses.jsonl in MCiteBench's output form (what its evaluation scripts read)."""
    lines = []
    for record in records:
        if record.id not in responses:
            continue
        given = responses[record.id]
        lines.append(json.dumps({
            "question_id": record.id,
            "pdf_id": record.pdf_id,
            "question_type": record.question_type,
            "evidence_count": record.evidence_count,
            "question": record.question,
            "response": given.get("response") or "",
            "sentence_citation_list": given.get("sentence_citation_list") or [],
        }, ensure_ascii=False))
    write_text_atomic(out / "responses.jsonl", "".join(line + "\n" for line in lines))


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
            responses[record.id] = given[record.id]
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
        given = responses[record.id]
        row = score_record(record, given.get("response") or "", given.get("sentence_citation_list"))
        row["response"] = responses[record.id].get("response")
        row["seconds"] = responses[record.id].get("seconds")
        rows.append(row)
    return rows


def _judge_stage(
    folder: runner.RunFolder,
    records: list[MCiteRecord],
    responses: dict[str, dict[str, Any]],
    rows: list[dict[str, Any]],
    judge: Any,
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
            **judge_record(r, response_of(r.id), judge, control=ctl,
                           sentence_citation_list=responses.get(r.id, {}).get("sentence_citation_list")),
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
