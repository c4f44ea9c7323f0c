"""Reports of a benchmark run: ``metrics.json`` (everything), ``report.md`` and ``report.html``.

The HTML report is one self-contained file: tables, and matplotlib plots embedded as base64 PNG
(per-paragraph bars, by-length and by-image-count lines, ablation decline rates), the run's settings,
model hashes, timings, and what was skipped and why. Every suite's ``metrics.json`` carries
``"suite"``; FTII runs written without it (``acc_b``/``acc_i``/``acc_ni``) are recognised
too, so ``mmdocsum bench report RUN`` renders any run.
"""

from __future__ import annotations

import base64
import html
import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mmdocsum_desktop.errors import InputNotFoundError, JobCancelled
from mmdocsum_desktop.fileio import write_json_atomic, write_text_atomic

ABSENT = "—"

MDOCSUM_KEYS = ("if", "omatch", "imgacc", "nonacc", "jacsim", "is", "com", "acc", "ts", "total")
MDOCSUM_LABELS = {
    "if": "IF",
    "if_strict": "IF (strict)",
    "omatch": "OMatch",
    "imgacc": "ImgAcc",
    "nonacc": "NonAcc",
    "jacsim": "JacSim",
    "is": "IS",
    "com": "Com",
    "acc": "Acc",
    "ts": "TS",
    "total": "Total",
    "rouge1": "ROUGE-1",
    "rouge2": "ROUGE-2",
    "rougeL": "ROUGE-L",
    "source_f1": "Source F1",
    "source_em": "Source EM",
    "citation_f1": "Citation F1",
    "answer_accuracy": "Answer acc.",
    "acc_b": "Acc_b",
    "acc_i": "Acc_i",
    "acc_ni": "Acc_ni",
    "text_quality": "Text quality",
    "text_image_coherence": "Text-image coherence",
    "image_choice": "Image choice",
    "faithfulness": "Faithfulness",
    "helpfulness": "Helpfulness",
    "overall": "Overall",
}
JUDGE_KEYS = ("text_quality", "text_image_coherence", "image_choice", "faithfulness", "helpfulness", "overall")


def suite_of(metrics: dict[str, Any]) -> str:
    if metrics.get("suite"):
        return str(metrics["suite"])
    if "acc_b" in metrics or "acc_i" in metrics:
        return "ftii"
    return "unknown"


def fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return ABSENT
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def headline(metrics: dict[str, Any]) -> dict[str, Any]:
    """The overall numbers of a run, by suite, in display order (used by reports and compare)."""
    suite = suite_of(metrics)
    if suite == "mdocsum":
        row = {key: metrics.get(key) for key in MDOCSUM_KEYS}
        row.update({key: (metrics.get("rouge") or {}).get(key) for key in ("rouge1", "rouge2", "rougeL")})
        row["n_docs"] = metrics.get("n_docs")
        return row
    if suite == "mcite":
        keys = ("source_f1", "source_em", "citation_f1", "answer_accuracy", "n_records")
        return {key: metrics.get(key) for key in keys}
    if suite == "rouge":
        return {key: metrics.get(key) for key in ("rouge1", "rouge2", "rougeL", "n_docs")}
    if suite == "ftii":
        return {key: metrics.get(key) for key in ("acc_b", "acc_i", "acc_ni", "n_slots")}
    if suite == "judge":
        return {key: metrics.get(key) for key in (*JUDGE_KEYS, "n_docs")}
    return {k: v for k, v in metrics.items() if isinstance(v, int | float) and not isinstance(v, bool)}


# ------------------------------------------------------------------------------------------ plots


def _png(figure: Any) -> str:  # a matplotlib Figure (matplotlib is imported lazily)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90, bbox_inches="tight", metadata={"Software": None})
    _pyplot().close(figure)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _pyplot() -> Any:
    """matplotlib with its file-only backend. Imported here, not at the top: it takes about a second and
    only the HTML report and the GUI's plots need it, not every command that reads a metrics file."""
    import matplotlib  # lazy: about a second to import, for the HTML report's plots only

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt  # after choosing the file-only backend above

    return plt


def bar_chart(
    title: str, groups: Sequence[str], series: Mapping[str, Sequence[float | None]], ylabel: str = ""
) -> str:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    names = [n for n, values in series.items() if any(v is not None for v in values)]
    width = 0.8 / max(1, len(names))
    for k, name in enumerate(names):
        values = [v if v is not None else 0.0 for v in series[name]]
        positions = [i + (k - (len(names) - 1) / 2) * width for i in range(len(groups))]
        ax.bar(positions, values, width=width, label=MDOCSUM_LABELS.get(name, name))
    ax.set_xticks(range(len(groups)), list(groups))
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    ax.axhline(0, color="black", lw=0.6)
    if names:
        ax.legend(fontsize=7, ncol=min(len(names), 5))
    ax.grid(axis="y", alpha=0.3)
    return _png(fig)


def line_chart(title: str, xs: Sequence[str], series: dict[str, Sequence[float | None]], xlabel: str) -> str:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    for name, values in series.items():
        points = [(i, v) for i, v in enumerate(values) if v is not None]
        if points:
            ax.plot(
                [p[0] for p in points],
                [p[1] for p in points],
                marker="o",
                label=MDOCSUM_LABELS.get(name, name),
            )
    ax.set_xticks(range(len(xs)), list(xs))
    ax.set_ylim(0, 1.05)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=3)
    return _png(fig)


def plots(metrics: dict[str, Any]) -> list[tuple[str, str]]:
    """(title, base64 PNG) for every plot this run has data for."""
    suite = suite_of(metrics)
    out: list[tuple[str, str]] = []
    keys: Sequence[str]
    if suite == "mdocsum":
        rows = metrics.get("per_paragraph") or []
        if rows:
            keys = [
                k
                for k in ("omatch", "imgacc", "nonacc", "com", "acc")
                if any(r.get(k) is not None for r in rows)
            ]
            out.append(
                (
                    "Per paragraph",
                    bar_chart(
                        "Per paragraph (1 background · 2 method · 3 results · 4 conclusion)",
                        [str(r["paragraph"]) for r in rows],
                        {k: [r.get(k) for r in rows] for k in keys},
                    ),
                )
            )
        for key, title, xlabel in (
            ("by_length", "By document length", "tokens"),
            ("by_image_count", "By number of images", "images in the document"),
        ):
            buckets = metrics.get(key) or []
            if buckets:
                series_keys = [
                    k
                    for k in ("omatch", "jacsim", "is", "ts", "total")
                    if any(b.get(k) is not None for b in buckets)
                ]
                out.append(
                    (
                        title,
                        line_chart(
                            title,
                            [b["bucket"] for b in buckets],
                            {k: [b.get(k) for b in buckets] for k in series_keys},
                            xlabel,
                        ),
                    )
                )
        ablations = metrics.get("ablations") or {}
        if ablations:
            keys = [k for k in ("if", "omatch", "imgacc", "nonacc", "jacsim", "is", "ts", "total", "rougeL")]
            keys = [
                k
                for k in keys
                if any((a.get("decline_rate") or {}).get(k) is not None for a in ablations.values())
            ]
            out.append(
                (
                    "Ablations",
                    bar_chart(
                        "Decline rate under ablation ((normal − ablated) / normal)",
                        [MDOCSUM_LABELS.get(k, k) for k in keys],
                        {
                            name: [(a.get("decline_rate") or {}).get(k) for k in keys]
                            for name, a in ablations.items()
                        },
                        ylabel="decline rate",
                    ),
                )
            )
    elif suite == "mcite":
        categories = metrics.get("by_category") or {}
        if categories:
            names = list(categories)
            keys = [
                k
                for k in ("source_f1", "source_em", "citation_f1", "answer_accuracy")
                if any(c.get(k) is not None for c in categories.values())
            ]
            out.append(
                (
                    "By question type",
                    bar_chart(
                        "By question type and evidence count",
                        names,
                        {k: [categories[n].get(k) for n in names] for k in keys},
                    ),
                )
            )
    elif suite == "rouge":
        keys = ("rouge1", "rouge2", "rougeL")
        out.append(
            (
                "ROUGE",
                bar_chart(
                    "ROUGE F1 (mean over documents)",
                    [MDOCSUM_LABELS[k] for k in keys],
                    {"F1": [metrics.get(k) for k in keys]},
                ),
            )
        )
    elif suite == "judge":
        documents = metrics.get("documents") or []
        out.append(
            (
                "Judge scores",
                bar_chart(
                    "Judge scores per aspect (0-5, mean over documents)",
                    [MDOCSUM_LABELS[k] for k in JUDGE_KEYS],
                    {"mean": [metrics.get(k) for k in JUDGE_KEYS]},
                ),
            )
        )
        if 1 < len(documents) <= 30:
            out.append(
                (
                    "Judge scores per document",
                    bar_chart(
                        "Judge scores per document (0-5)",
                        [str(d["id"])[:14] for d in documents],
                        {k: [d.get(k) for d in documents] for k in JUDGE_KEYS[:-1]},
                    ),
                )
            )
    elif suite == "ftii":
        keys = ("acc_b", "acc_i", "acc_ni")
        out.append(
            (
                "FTII",
                bar_chart(
                    "FTII accuracies (micro over paragraph slots)",
                    [MDOCSUM_LABELS[k] for k in keys],
                    {"accuracy": [metrics.get(k) for k in keys]},
                ),
            )
        )
    return out


# ------------------------------------------------------------------------------------------ tables


def _table_md(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        lines.append("| " + " | ".join(fmt(v).replace("|", "\\|").replace("\n", " ") for v in row) + " |")
    return "\n".join(lines)


def _table_html(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(fmt(v))}</td>" for v in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def sections(metrics: dict[str, Any]) -> list[tuple[str, list[str], list[list[Any]]]]:
    """(title, header, rows) of every table of a run."""
    suite = suite_of(metrics)
    out: list[tuple[str, list[str], list[list[Any]]]] = []
    keys: Sequence[str]
    top = headline(metrics)
    out.append(("Overall", [MDOCSUM_LABELS.get(k, k) for k in top], [list(top.values())]))
    if suite == "mdocsum":
        if metrics.get("model_answer"):
            answer = metrics["model_answer"]
            keys = ("if", "if_strict", "omatch", "imgacc", "nonacc", "jacsim", "is")
            out.append(
                (
                    "The model's own answer (scored as M-DocSum does)",
                    [MDOCSUM_LABELS[k] for k in keys],
                    [[answer.get(k) for k in keys]],
                )
            )
        rows = metrics.get("per_paragraph") or []
        out.append(
            (
                "Per paragraph",
                ["paragraph", "OMatch", "ImgAcc", "NonAcc", "Com", "Acc"],
                [
                    [
                        r["paragraph"],
                        r.get("omatch"),
                        r.get("imgacc"),
                        r.get("nonacc"),
                        r.get("com"),
                        r.get("acc"),
                    ]
                    for r in rows
                ],
            )
        )
        for key, title in (
            ("by_length", "By document length (tokens)"),
            ("by_image_count", "By number of images"),
        ):
            buckets = metrics.get(key) or []
            out.append(
                (
                    title,
                    ["bucket", "docs", "IF", "OMatch", "ImgAcc", "NonAcc", "JacSim", "IS", "TS", "Total"],
                    [
                        [
                            b["bucket"],
                            b["n_docs"],
                            b.get("if"),
                            b.get("omatch"),
                            b.get("imgacc"),
                            b.get("nonacc"),
                            b.get("jacsim"),
                            b.get("is"),
                            b.get("ts"),
                            b.get("total"),
                        ]
                        for b in buckets
                    ],
                )
            )
        for name, ablation in (metrics.get("ablations") or {}).items():
            rates = ablation.get("decline_rate") or {}
            values = ablation.get("metrics") or {}
            keys = [
                k
                for k in ("if", "omatch", "imgacc", "nonacc", "jacsim", "is", "ts", "total", "rougeL")
                if k in rates
            ]
            out.append(
                (
                    f"Ablation: {name.replace('_', ' ')}",
                    ["", *[MDOCSUM_LABELS.get(k, k) for k in keys]],
                    [
                        ["ablated", *[values.get(k, values.get(f"rouge_{k}")) for k in keys]],
                        ["decline rate", *[rates.get(k) for k in keys]],
                    ],
                )
            )
        docs = metrics.get("documents") or []
        out.append(
            (
                "Documents",
                [
                    "id",
                    "IF",
                    "gold",
                    "predicted",
                    "JacSim",
                    "ROUGE-L",
                    "Com",
                    "Acc",
                    "images",
                    "tokens",
                    "seconds",
                    "problems",
                ],
                [
                    [
                        d["id"],
                        d.get("if"),
                        " ".join("None" if g is None else str(g) for g in d.get("gold", [])),
                        " ".join("None" if p is None else str(p) for p in d.get("predicted", [])),
                        d.get("jaccard"),
                        (d.get("rouge") or {}).get("rougeL"),
                        d.get("com"),
                        d.get("acc"),
                        d.get("n_images"),
                        d.get("n_tokens"),
                        d.get("seconds"),
                        "; ".join(d.get("problems", []) + d.get("judge_failures", []))[:300],
                    ]
                    for d in docs
                ],
            )
        )
    elif suite == "mcite":
        categories = metrics.get("by_category") or {}
        out.append(
            (
                "By question type",
                ["category", "records", "Source F1", "Source EM", "Citation F1", "Answer acc."],
                [
                    [
                        name,
                        c.get("n"),
                        c.get("source_f1"),
                        c.get("source_em"),
                        c.get("citation_f1"),
                        c.get("answer_accuracy"),
                    ]
                    for name, c in categories.items()
                ],
            )
        )
        out.append(
            (
                "Records",
                [
                    "id",
                    "category",
                    "gold",
                    "cited",
                    "Source F1",
                    "EM",
                    "Citation F1",
                    "rating",
                    "judge failures",
                ],
                [
                    [
                        r["id"][:16],
                        r.get("category"),
                        ", ".join(r.get("gold", [])),
                        ", ".join(r.get("cited", [])),
                        r.get("source_f1"),
                        r.get("source_em"),
                        r.get("citation_f1"),
                        r.get("answer_rating"),
                        "; ".join(r.get("judge_failures", []))[:300],
                    ]
                    for r in metrics.get("records") or []
                ],
            )
        )
    elif suite == "rouge":
        out.append(
            (
                "Documents",
                ["id", "ROUGE-1", "ROUGE-2", "ROUGE-L", "seconds"],
                [
                    [d["id"], d.get("rouge1"), d.get("rouge2"), d.get("rougeL"), d.get("seconds")]
                    for d in metrics.get("documents") or []
                ],
            )
        )
    elif suite == "judge":
        out.append(
            (
                "Documents",
                ["id", *[MDOCSUM_LABELS[k] for k in JUDGE_KEYS], "judge calls", "seconds"],
                [
                    [d["id"], *[d.get(k) for k in JUDGE_KEYS], d.get("calls"), d.get("seconds")]
                    for d in metrics.get("documents") or []
                ],
            )
        )
        out.append(
            (
                "Explanations",
                ["id", "aspect", "score", "how", "explanation"],
                [
                    [e["id"], MDOCSUM_LABELS.get(e["aspect"], e["aspect"]), e.get("score"), e.get("status"),
                     e.get("explanation")]
                    for e in metrics.get("explanations") or []
                ],
            )
        )
        out.append(
            (
                "Missing judge answers (left out of the means)",
                ["id", "aspect", "reason"],
                [[m["id"], m["aspect"], m.get("reason")] for m in metrics.get("missing") or []],
            )
        )
    skipped = metrics.get("skipped") or []
    out.append(
        (
            "Skipped or not scored",
            ["line", "id", "reason"],
            [[s.get("line"), s.get("id"), s.get("reason")] for s in skipped],
        )
    )
    judge = metrics.get("judge") or {}
    failures = judge.get("failures") or []
    if failures:
        out.append(
            (
                "Judge answers that could not be used",
                ["id", "reasons"],
                [[f["id"], "; ".join(f["reasons"])[:500]] for f in failures],
            )
        )
    out += _paper_sections(metrics)
    return out


def _paper_sections(metrics: dict[str, Any]) -> list[tuple[str, list[str], list[list[Any]]]]:
    """Per-role ROUGE (splits whose gold paragraphs have roles) and the papers a run used with their
    licences (bundled splits of real papers)."""
    out: list[tuple[str, list[str], list[list[Any]]]] = []
    by_role = metrics.get("rouge_by_role") or {}
    if by_role:
        out.append((
            "ROUGE per role (each paragraph against the gold paragraph of its role)",
            ["role", "ROUGE-1", "ROUGE-2", "ROUGE-L", "documents"],
            [[role, v.get("rouge1"), v.get("rouge2"), v.get("rougeL"), v.get("n_docs")] for role, v in by_role.items()],
        ))
    papers = metrics.get("papers") or []
    if papers:
        out.append((
            "Papers (redistributed under their licences; see the split's ATTRIBUTION.md)",
            ["id", "title", "authors", "journal", "year", "DOI", "licence"],
            [[p.get("id"), p.get("title"), p.get("authors"), p.get("journal"), p.get("year"), p.get("doi"),
              " ".join(x for x in (p.get("licence"), p.get("licence_url")) if x)] for p in papers],
        ))
    return out


def _settings_rows(metrics: dict[str, Any]) -> list[list[Any]]:
    rows: list[list[Any]] = []
    for key, value in (metrics.get("settings") or {}).items():
        rows.append(
            [
                key,
                json.dumps(value, ensure_ascii=False, default=str)
                if isinstance(value, dict | list)
                else value,
            ]
        )
    for key, value in (metrics.get("model_hashes") or {}).items():
        rows.append([f"sha256 {key}", value])
    judge = metrics.get("judge") or {}
    if judge:
        rows.append(["judge", f"{judge.get('judge')} ({judge.get('fingerprint')})"])
    for key, value in (metrics.get("timings") or {}).items():
        rows.append([f"time {key}", value])
    if metrics.get("cancelled"):
        rows.append(["cancelled", "yes — the numbers cover the documents finished before the cancel"])
    for note in metrics.get("notes") or []:
        rows.append(["note", note])
    return rows


def title_of(metrics: dict[str, Any]) -> str:
    suite = suite_of(metrics)
    split = metrics.get("split") or (metrics.get("settings") or {}).get("split", "")
    return f"mmdocsum bench {suite} — {Path(str(split)).name if split else ''}".rstrip(" —")


def to_markdown(metrics: dict[str, Any]) -> str:
    parts = [f"# {title_of(metrics)}", ""]
    for title, header, rows in sections(metrics):
        parts += [f"## {title}", "", _table_md(header, rows) if rows else "_none_", ""]
    parts += ["## Run", "", _table_md(["setting", "value"], _settings_rows(metrics)), ""]
    return "\n".join(parts)


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f2f2f2}
img{max-width:100%;border:1px solid #eee;margin:.5em 0}
h2{margin-top:1.6em;border-bottom:1px solid #ddd}
"""


def to_html(metrics: dict[str, Any]) -> str:
    title = html.escape(title_of(metrics))
    body = [f"<h1>{title}</h1>"]
    for heading, header, rows in sections(metrics):
        body.append(f"<h2>{html.escape(heading)}</h2>")
        body.append(_table_html(header, rows) if rows else "<p><em>none</em></p>")
    pictures = plots(metrics)
    if pictures:
        body.append("<h2>Plots</h2>")
        for caption, data in pictures:
            body.append(
                f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{data}"><figcaption>{html.escape(caption)}</figcaption></figure>'
            )
    body.append("<h2>Run</h2>")
    body.append(_table_html(["setting", "value"], _settings_rows(metrics)))
    return f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title><style>{_CSS}</style></head><body>{"".join(body)}</body></html>\n'


def write_reports(out: str | Path, metrics: dict[str, Any]) -> list[Path]:
    """report.md and report.html beside metrics.json (atomic writes)."""
    out = Path(out)
    return [
        write_text_atomic(out / "report.md", to_markdown(metrics)),
        write_text_atomic(out / "report.html", to_html(metrics)),
    ]


def write_run(out: str | Path, metrics: dict[str, Any]) -> list[Path]:
    out = Path(out)
    return [write_json_atomic(out / "metrics.json", metrics), *write_reports(out, metrics)]


def finish_run(out: str | Path, metrics: dict[str, Any], *, kept: str, hint: str = "") -> dict[str, Any]:
    """Write a suite's run (metrics.json and the reports) and return its metrics; a cancelled run is
    written too, then raises :class:`JobCancelled` saying which finished ``kept`` items stay in ``out``
    (``hint`` is added to that message)."""
    write_run(out, metrics)
    if metrics["cancelled"]:
        raise JobCancelled(f"cancelled; finished {kept} are kept in {out}{hint}")
    return metrics


def load_metrics(run: str | Path) -> dict[str, Any]:
    """A run's metrics from its folder (or from a metrics.json path)."""
    path = Path(run)
    if path.is_dir():
        path = path / "metrics.json"
    if not path.is_file():
        raise InputNotFoundError(f"{run}: no metrics.json (is it the output folder of a bench run?)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise InputNotFoundError(f"{path}: not a readable metrics file ({error})") from error
    if not isinstance(data, dict):
        raise InputNotFoundError(f"{path}: not a metrics object")
    return data
