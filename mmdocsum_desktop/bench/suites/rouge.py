"""``mmdocsum bench rouge``: LoRaLay-style ROUGE — summarise each document with its abstract removed
(or score given summaries) against the abstract; numbers from :mod:`mmdocsum_desktop.bench.metrics.rouge`.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

from mmdocsum_desktop.bench import report, runner, splits
from mmdocsum_desktop.bench.glue import BenchEngine
from mmdocsum_desktop.bench.metrics.rouge import mean_rouge, rouge, summary_text
from mmdocsum_desktop.errors import BenchError
from mmdocsum_desktop.jobs import JobControl, ensure_control
from mmdocsum_desktop.schemas.bench import BenchmarkResult, RougeItem

SUITE = "rouge"


def run_rouge(
    split: Any,
    out: Any,
    *,
    engine_spec: Any = None,
    predictions: Any = None,
    concurrency: int = 1,
    restart: bool = False,
    control: Any = None,
) -> dict[str, Any]:
    """LoRaLay-style ROUGE: summarise each document with its abstract removed (or score given
    predictions: a folder of ``ID.json``/``ID.txt``) against the abstract."""
    control = ensure_control(control)
    started = time.perf_counter()
    out = Path(out)
    loaded = splits.load_rouge(split)
    skipped = [s.to_json() for s in loaded.skipped]
    mode = "predictions" if predictions is not None else "generate"
    engine = BenchEngine.build(engine_spec) if mode == "generate" else None
    try:
        settings = runner.split_settings(SUITE, loaded.path, mode, no_abstract=True)
        if engine is not None:
            settings["engine"] = engine.describe()
        else:
            settings["predictions"] = str(Path(predictions).resolve())
        folder = runner.RunFolder(out, settings, restart=restart)
        if engine is not None:
            outcome = _summaries_stage(folder, loaded.items, engine, concurrency, control, skipped)
            summaries = {key: value.get("summary", "") for key, value in outcome.results.items()}
            seconds = {key: value.get("seconds") for key, value in outcome.results.items()}
        else:
            outcome, seconds = None, {}
            summaries = _given_summaries(Path(predictions), loaded.items, skipped)
        rows = []
        for item in loaded.items:
            if item.id not in summaries:
                continue
            scores = rouge(summaries[item.id], item.reference)
            rows.append({"id": item.id, **scores, "seconds": seconds.get(item.id)})
        metrics = BenchmarkResult(
            suite=SUITE,
            split=loaded.name,
            settings=settings,
            metrics={**mean_rouge(rows), "n_docs": len(rows)},
            rows=rows,
            details={
                "skipped": skipped,
                "papers": splits.papers_for(loaded.path, [item.id for item in loaded.items]),
                "model_hashes": engine.model_hashes() if engine is not None else {},
                "notes": [
                    "ROUGE F1 (rouge-score, Porter stemmer); rougeL is summary-level LCS over sentences one per line"
                ],
                "timings": {
                    "generation_s": round(outcome.seconds, 3) if outcome else None,
                    "total_s": round(time.perf_counter() - started, 3),
                },
                "cancelled": bool(outcome and outcome.cancelled),
            },
        ).to_dict()
        return report.finish_run(out, metrics, kept="documents")
    finally:
        if engine is not None:
            engine.close()


def _summaries_stage(
    folder: runner.RunFolder,
    items: list[RougeItem],
    engine: BenchEngine,
    concurrency: int,
    control: Any,
    skipped: list[dict[str, Any]],
) -> runner.StageOutcome[RougeItem]:
    """Each document summarised with its abstract removed (resumable)."""

    def summarise(item: RougeItem, ctl: JobControl) -> dict[str, Any]:
        if item.document is not None:
            if not item.document.is_file():
                raise BenchError(f"document missing: {item.document}")
            record = engine.summarize(item.document, include_abstract=False, control=ctl)
        else:  # LoRaLay words: summarise them as a plain-text Markdown document
            with tempfile.TemporaryDirectory(prefix="mmdocsum-rouge-") as tmp:
                path = Path(tmp) / f"{runner.safe_name(item.id)}.md"
                path.write_text(item.text or "", encoding="utf-8")
                record = engine.summarize(path, include_abstract=False, control=ctl)
        return {
            "summary": summary_text([p["summary"] for p in record["answer"]]),
            "seconds": record["seconds"],
            "warnings": record["warnings"],
        }

    outcome = runner.run_stage(
        folder,
        "summaries",
        items,
        lambda i: i.id,
        summarise,
        concurrency=1 if engine.in_process else concurrency,
        control=control,
        label="documents",
    )
    for key, reason in outcome.failed.items():
        skipped.append({"line": None, "id": key, "reason": f"generation failed: {reason}"})
    return outcome


def _given_summaries(folder: Path, items: list[RougeItem], skipped: list[dict[str, Any]]) -> dict[str, str]:
    """``--predictions DIR``: ``ID.txt``, or ``ID.json`` with text or M-DocSum paragraphs; a document
    without one is scored as an empty summary."""
    if not folder.is_dir():
        raise BenchError(f"{folder}: the predictions folder does not exist")
    files = {p.stem: p for p in folder.iterdir() if p.suffix in (".json", ".txt")}
    ids = {i.id for i in items}
    for stem in sorted(set(files) - ids):
        skipped.append({"line": None, "id": stem, "reason": "prediction for an id that is not in the split"})
    summaries: dict[str, str] = {}
    for item in items:
        path = files.get(item.id)
        if path is None:
            skipped.append({"line": item.line, "id": item.id, "reason": "no prediction: scored as empty"})
            summaries[item.id] = ""
            continue
        value = (
            splits.read_prediction_file(path) if path.suffix == ".json" else path.read_text(encoding="utf-8")
        )
        if isinstance(value, dict):
            value = value.get("summary", json.dumps(value))
        if isinstance(value, list):
            value = summary_text([p.get("summary", "") if isinstance(p, dict) else str(p) for p in value])
        summaries[item.id] = str(value)
    return summaries
