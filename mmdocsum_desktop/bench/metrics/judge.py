"""Reference-free judging: per-aspect means of the judge's 0–5 scores over documents (the aspects are
``judge.summary.ASPECTS`` or the ones a run asked for)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any


def summarize_judgements(rows: list[dict[str, Any]], aspects: Sequence[str]) -> dict[str, Any]:
    """Per-aspect means over documents (missing and not-applicable scores left out), the overall mean,
    per-document rows, explanations and what was missing."""
    documents = []
    explanations = []
    missing = []
    for row in rows:
        entry: dict[str, Any] = {"id": row["id"], "overall": row.get("overall")}
        for name in aspects:
            aspect = (row.get("aspects") or {}).get(name) or {}
            entry[name] = aspect.get("score")
            if aspect.get("status") == "missing":
                missing.append({"id": row["id"], "aspect": name, "reason": aspect.get("error")})
            elif aspect:
                explanations.append(
                    {
                        "id": row["id"],
                        "aspect": name,
                        "score": aspect.get("score"),
                        "status": aspect.get("status"),
                        "explanation": aspect.get("explanation"),
                    }
                )
        entry["seconds"] = row.get("seconds")
        entry["calls"] = row.get("calls")
        documents.append(entry)
    metrics: dict[str, Any] = {}
    for name in [*aspects, "overall"]:
        values = [d[name] for d in documents if d.get(name) is not None]
        metrics[name] = sum(values) / len(values) if values else None
    seconds = [d["seconds"] for d in documents if d.get("seconds") is not None]
    metrics.update(
        {
            "n_docs": len(documents),
            "documents": documents,
            "explanations": explanations,
            "missing": missing,
            "seconds_per_document": statistics.median(seconds) if seconds else None,
        }
    )
    return metrics
