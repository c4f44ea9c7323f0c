"""Collect the headline numbers of `mmdocsum bench pairs` runs into benchmarks/results/pairs_<name>.json.

Stages can run in separate output folders (cheap figures and text over both halves, the slow flow and
summary stages over the test half); this merges their ``metrics.json`` per half of the fixed split, and
keeps each run's settings (which ingestion version, which documents) and the worst papers.

    .venv/bin/python benchmarks/pairs_results.py after /tmp/run_all /tmp/run_test_slow_stages
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from _corpus import write_result


def main() -> None:
    name, folders = sys.argv[1], [Path(f) for f in sys.argv[2:]]
    merged: dict[str, dict] = {}
    runs = []
    worst: list[dict] = []
    for folder in folders:
        metrics = json.loads((folder / "metrics.json").read_text(encoding="utf-8"))
        runs.append({"folder": str(folder), "stages": metrics["stages"], "settings": metrics["settings"],
                     "timings": metrics["timings"], "skipped": metrics["skipped"]})
        for split, numbers in metrics["by_split"].items():
            if split == "all" and metrics["settings"]["split"] != "all":
                continue  # "all" of a one-half run is that half, not both
            target = merged.setdefault(split, {})
            for key, value in numbers.items():
                # papers/pages/read_s come from every run; keep the run that read the most papers
                if key in ("papers", "pages", "read_s", "pages_per_s") and key in target and target.get("papers", 0) >= numbers.get("papers", 0):
                    continue
                target[key] = value
        if "figures" in metrics["stages"] or "text" in metrics["stages"]:
            for row in metrics["papers"][:8]:
                worst.append({k: row.get(k) for k in ("id", "split", "badness")} | {
                    "missed": (row.get("figures") or {}).get("missed"),
                    "spurious": (row.get("figures") or {}).get("spurious"),
                    "shared_regions": (row.get("figures") or {}).get("shared_regions"),
                    "leak_examples": (row.get("text") or {}).get("leak_examples", [])[:2],
                    "broken": (row.get("text") or {}).get("broken"),
                    "title": (row.get("text") or {}).get("title"),
                    "title_correct": (row.get("text") or {}).get("title_correct"),
                    "body_foreign_examples": (row.get("text") or {}).get("body_foreign_examples"),
                })
        if "summary" in metrics["stages"]:
            # what a reader meets in the summaries: words the JATS never uses, parts said to be absent,
            # paragraphs without a figure and why
            for row in metrics["papers"]:
                summary = row.get("summary") or {}
                if summary.get("foreign_examples") or summary.get("absent") or summary.get("run_in_labels"):
                    worst.append({"id": row["id"], "split": row["split"],
                                  "summary_foreign_examples": summary.get("foreign_examples"),
                                  "absent": summary.get("absent"), "run_in_labels": summary.get("run_in_labels"),
                                  "no_figure": summary.get("no_figure")})
    path = write_result(f"pairs_{name}", {"by_split": merged, "runs": runs, "worst_papers": worst})
    print(path)
    for split, numbers in merged.items():
        shown = {k: round(v, 4) if isinstance(v, float) else v for k, v in numbers.items() if not isinstance(v, dict)}
        print(split, json.dumps(shown))


if __name__ == "__main__":
    main()
