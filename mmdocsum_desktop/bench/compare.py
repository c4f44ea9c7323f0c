"""Runs side by side: ``mmdocsum bench compare RUN_A RUN_B …``.

Runs are grouped by suite (an M-DocSum run is never put in a column with an FTII run); within a suite
every run is a row of its headline numbers, with the difference to the first run. Engines, models and
splits are listed so that a reader sees what differed. ``write_comparison`` writes compare.json,
compare.md and a self-contained compare.html with one bar chart per suite.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mmdocsum_desktop.bench import report
from mmdocsum_desktop.fileio import write_json_atomic, write_text_atomic

COUNT_KEYS = {"n_docs", "n_records", "n_slots"}


def _describe(metrics: dict[str, Any]) -> str:
    settings = metrics.get("settings") or {}
    engine = settings.get("engine") or {}
    if isinstance(engine, dict) and engine:
        name = engine.get("engine", "?")
        model = engine.get("model")
        described = f"{name}" + (f" · {Path(str(model)).name}" if model and name != "extractive" else "")
        if engine.get("figure_mode") and name != "extractive":
            described += f" · {engine['figure_mode']}"
    elif settings.get("predictions"):
        described = f"predictions {Path(str(settings['predictions'])).name}"
    else:
        described = str(metrics.get("strategy") or metrics.get("engine") or "")
    judge = settings.get("judge")
    if isinstance(judge, dict) and judge.get("judge"):
        described += f" · judged by {judge['judge']}"
    extras = [k for k in ("no_abstract",) if settings.get(k)]
    if settings.get("shuffle_seed") is not None:
        extras.append(f"shuffle {settings['shuffle_seed']}")
    return described + (f" ({', '.join(extras)})" if extras else "")


def compare(runs: Sequence[str | Path]) -> dict[str, Any]:
    loaded = [(str(run), report.load_metrics(run)) for run in runs]
    suites: dict[str, list[dict[str, Any]]] = {}
    for name, metrics in loaded:
        suite = report.suite_of(metrics)
        suites.setdefault(suite, []).append(
            {
                "run": name,
                "split": metrics.get("split") or (metrics.get("settings") or {}).get("split"),
                "what": _describe(metrics),
                "metrics": report.headline(metrics),
                "seconds": (metrics.get("timings") or {}).get("total_s"),
            }
        )
    for rows in suites.values():
        base = rows[0]["metrics"]
        for row in rows:
            row["delta"] = {
                key: (value - base[key])
                if isinstance(value, int | float)
                and isinstance(base.get(key), int | float)
                and key not in COUNT_KEYS
                else None
                for key, value in row["metrics"].items()
            }
        splits = {str(r["split"]) for r in rows}
        if len(splits) > 1:
            for row in rows:
                row.setdefault("warnings", []).append("runs on different splits: numbers are not comparable")
    return {"runs": [name for name, _ in loaded], "suites": suites}


def _rows(rows: list[dict[str, Any]]) -> tuple[list[str], list[list[Any]]]:
    keys = list(rows[0]["metrics"])
    header = ["run", "engine / predictions", *[report.MDOCSUM_LABELS.get(k, k) for k in keys], "seconds"]
    table = []
    for index, row in enumerate(rows):
        cells: list[Any] = [Path(row["run"]).name, row["what"]]
        for key in keys:
            value, delta = row["metrics"].get(key), row["delta"].get(key)
            text = report.fmt(value)
            if index and delta is not None and value is not None:
                text += f" ({delta:+.3f})"
            cells.append(text)
        cells.append(row.get("seconds"))
        table.append(cells)
    return header, table


def to_markdown(result: dict[str, Any]) -> str:
    parts = ["# Benchmark runs compared", ""]
    for suite, rows in result["suites"].items():
        header, table = _rows(rows)
        parts += [f"## {suite}", "", report._table_md(header, table), ""]
        if any(r.get("warnings") for r in rows):
            parts += ["_runs on different splits: numbers are not comparable_", ""]
    return "\n".join(parts)


def to_html(result: dict[str, Any]) -> str:
    body = ["<h1>Benchmark runs compared</h1>"]
    for suite, rows in result["suites"].items():
        header, table = _rows(rows)
        body.append(f"<h2>{html.escape(suite)}</h2>")
        body.append(report._table_html(header, table))
        keys = [k for k in rows[0]["metrics"] if k not in COUNT_KEYS]
        series = {Path(r["run"]).name: [r["metrics"].get(k) for k in keys] for r in rows}
        chart = report.bar_chart(
            f"{suite}: runs side by side", [report.MDOCSUM_LABELS.get(k, k) for k in keys], series
        )
        body.append(f'<img alt="{html.escape(suite)}" src="data:image/png;base64,{chart}">')
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Benchmark runs compared</title>'
        f"<style>{report._CSS}</style></head><body>{''.join(body)}</body></html>\n"
    )


def write_comparison(result: dict[str, Any], out: str | Path) -> list[Path]:
    out = Path(out)
    return [
        write_json_atomic(out / "compare.json", result),
        write_text_atomic(out / "compare.md", to_markdown(result)),
        write_text_atomic(out / "compare.html", to_html(result)),
    ]
