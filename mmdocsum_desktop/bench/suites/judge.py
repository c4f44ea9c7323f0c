"""``mmdocsum bench judge``: reference-free judging of the summaries of any documents.

For every document the run has a summary — read from ``--summaries DIR`` (``<document stem>.json``
as ``mmdocsum summarize -o X.json`` writes it, or an M-DocSum answer list) or written now by the
chosen engine — and a judgement of it on the aspects of :mod:`mmdocsum_desktop.judge.summary`
(averaged by :mod:`mmdocsum_desktop.bench.metrics.judge`). Both are stages of a
resumable run (:mod:`runner`): the same command continues where it stopped. A document that cannot be
read, a summary that is missing or malformed, a judge that fails: reported per document, the run goes
on. ``metrics.json`` (suite ``judge``) joins the reports and ``bench compare``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mmdocsum_desktop.app.extract import export
from mmdocsum_desktop.app.judging import check_aspects, summary_paragraphs
from mmdocsum_desktop.app.placement import figure_candidates
from mmdocsum_desktop.bench import report, runner
from mmdocsum_desktop.bench.glue import (
    BenchEngine,
    EngineSpec,
    current_session,
    engine_model_hashes,
    summary_judge,
)
from mmdocsum_desktop.bench.metrics.judge import summarize_judgements
from mmdocsum_desktop.errors import BenchError
from mmdocsum_desktop.jobs import JobControl, ensure_control
from mmdocsum_desktop.schemas.bench import METRIC_KEYS, BenchmarkResult
from mmdocsum_desktop.schemas.summary import ROLES

SUITE = "judge"


def document_ids(docs: Sequence[str | Path]) -> list[tuple[str, Path]]:
    """(id, path) per document: the file's stem, made unique with a number when two share it."""
    seen: dict[str, int] = {}
    items = []
    for doc in docs:
        path = Path(doc)
        stem = path.stem or "document"
        seen[stem] = seen.get(stem, 0) + 1
        items.append((stem if seen[stem] == 1 else f"{stem}-{seen[stem]}", path))
    return items


def record_from_mdocsum(answer: list[Any], document: Any, assets: Path) -> dict[str, Any]:
    """A summary record from an M-DocSum answer (four {"summary", "image": {"imageRef", ...}}), with
    the document's figures (numbered in document order, as M-DocSum's imageRef counts them)."""
    export(document, assets)
    candidates = figure_candidates(document, assets, require_image=False)
    figures = [
        {"index": k, "label": c.label, "kind": c.kind, "caption": c.caption, "image": c.image}
        for k, c in enumerate(candidates, start=1)
    ]
    paragraphs = []
    for k, item in enumerate(answer):
        if not isinstance(item, dict):
            raise BenchError(f"M-DocSum answer paragraph {k + 1} is not an object")
        ref = str((item.get("image") or {}).get("imageRef", "None")).strip()
        figure = figures[int(ref) - 1] if ref.isdigit() and 1 <= int(ref) <= len(figures) else None
        paragraphs.append(
            {
                "role": ROLES[k] if k < len(ROLES) else f"paragraph {k + 1}",
                "text": str(item.get("summary") or ""),
                "figure": figure,
                "image_caption": str((item.get("image") or {}).get("imageCaption") or ""),
            }
        )
    return {"source": document.source, "title": document.title, "paragraphs": paragraphs, "figures": figures}


def load_summary(path: Path, document: Any, assets: Path) -> tuple[dict[str, Any], Path]:
    """(record, folder its image paths are relative to) from a summary file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise BenchError(f"{path.name}: not a readable JSON summary ({error})") from error
    if isinstance(data, list):
        return record_from_mdocsum(data, document, assets), assets
    if isinstance(data, dict) and isinstance(data.get("answer"), list):
        return record_from_mdocsum(data["answer"], document, assets), assets
    summary_paragraphs(data)
    return data, path.parent


def run_judge_suite(
    docs: Sequence[str | Path],
    out: str | Path,
    *,
    judge_spec: Any,
    engine_spec: Any = None,
    summaries: str | Path | None = None,
    aspects: Sequence[str] | None = None,
    self_consistency: int = 1,
    time_limit_s: float | None = None,
    restart: bool = False,
    control: JobControl | None = None,
) -> dict[str, Any]:
    control = ensure_control(control)
    started = time.perf_counter()
    out = Path(out)
    names = check_aspects(aspects)
    items = document_ids(docs)
    if not items:
        raise BenchError("no documents to judge: give --docs FILE ...")
    summaries_dir = Path(summaries) if summaries is not None else None
    if summaries_dir is not None and not summaries_dir.is_dir():
        raise BenchError(f"{summaries_dir}: the summaries folder does not exist")
    # the session's judge engine, held for the run (the session keeps it and closes it with itself)
    with summary_judge(judge_spec, self_consistency=self_consistency, time_limit_s=time_limit_s) as judge:
        engine = None
        try:
            if summaries_dir is None:
                engine = BenchEngine.build(engine_spec or EngineSpec(engine="extractive"))
            settings: dict[str, Any] = {
                "suite": SUITE,
                "documents": [str(path.resolve()) for _, path in items],
                "aspects": list(names),
                "judge": judge.describe(),
            }
            if engine is not None:
                settings["engine"] = engine.describe()
            else:
                assert summaries_dir is not None  # no engine: the summaries are given
                settings["predictions"] = str(summaries_dir.resolve())
            folder = runner.RunFolder(out, settings, restart=restart)

            def summarise(item: tuple[str, Path], ctl: JobControl) -> dict[str, Any]:
                item_id, path = item
                if not path.is_file():
                    raise BenchError(f"document missing: {path}")
                assets = out / "summaries_files" / runner.safe_name(item_id)
                if engine is not None:
                    record = engine.summary_record(path, assets, control=ctl)
                    base = assets.parent
                else:
                    assert summaries_dir is not None
                    summary_file = summaries_dir / f"{item_id}.json"
                    if not summary_file.is_file():
                        raise BenchError(f"no summary {summary_file.name} in {summaries_dir}")
                    document = current_session().read(path, control=ctl)  # as summarize reads it (OCR)
                    record, base = load_summary(summary_file, document, assets)
                return {"record": record, "base_dir": str(Path(base).resolve())}

            made = runner.run_stage(
                folder, "summaries", items, lambda i: i[0], summarise, control=control, label="summaries"
            )
            skipped = [{"id": key, "reason": reason} for key, reason in made.failed.items()]
            ready = [item for item in items if item[0] in made.results]

            def judge_one(item: tuple[str, Path], ctl: JobControl) -> dict[str, Any]:
                item_id, path = item
                saved = made.results[item_id]
                document = current_session().read(path, control=ctl)  # as summarize reads it (OCR)
                judgement = judge.judge(
                    document, saved["record"], base_dir=saved["base_dir"], aspects=names, control=ctl
                )
                return {"source": str(path), **judgement.to_json()}

            judged = (
                runner.run_stage(
                    folder, "judgements", ready, lambda i: i[0], judge_one, control=control, label="judged"
                )
                if not made.cancelled
                else runner.StageOutcome(cancelled=True)
            )
            skipped += [
                {"id": key, "reason": f"judging failed: {reason}"} for key, reason in judged.failed.items()
            ]
            summary = summarize_judgements([judged.results[i] for i, _ in items if i in judged.results], names)
            rows = summary.pop("documents")
            metrics = BenchmarkResult(
                suite=SUITE,
                split=f"{len(items)} documents",
                settings=settings,
                metrics={key: summary.pop(key) for key in METRIC_KEYS[SUITE] if key in summary},
                rows=rows,
                details={
                    **summary,  # explanations and missing answers
                    "skipped": skipped,
                    "model_hashes": {
                        **({} if engine is None else engine.model_hashes()),
                        **{
                            f"judge {k}": v
                            for k, v in engine_model_hashes(judge.engine, judge.engine.name).items()
                        },
                    },
                    "notes": _notes(judge),
                    "timings": {
                        "summaries_s": round(made.seconds, 3),
                        "judging_s": round(judged.seconds, 3),
                        "total_s": round(time.perf_counter() - started, 3),
                    },
                    "cancelled": bool(made.cancelled or judged.cancelled),
                },
            ).to_dict()
            return report.finish_run(out, metrics, kept="documents")
        finally:
            if engine is not None:
                engine.close()


def _notes(judge: Any) -> list[str]:
    notes = [
        "scores 0-5 from a reference-free judge, one call per aspect; missing answers are left out, never 0"
    ]
    if not judge.sees_images:
        notes.append(
            "the judge reads no images: figures were given as label, caption and the text found in them"
        )
    if judge.self_consistency > 1:
        notes.append(
            f"each score is the mean of {judge.self_consistency} samples at temperature {judge.sample_temperature}"
        )
    return notes
