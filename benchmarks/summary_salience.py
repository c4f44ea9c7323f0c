"""Salience weights against each other (issue 45): lead-k, today's weights, the newly fitted ones, on the
same documents in the same run, with the abstract left out (``--no-abstract``) and used as the reference.

Sets: ``pmc-test`` (the PDFs of the pmc/ test half, read as ``mmdocsum summarize`` reads them) and
``elife-test`` (the first ``--elife-limit`` JATS of eLife's test half), as ``bench_summary_rouge.py --sets``
names them; nothing here was fitted on either (``tools/fit_salience.py`` refuses test-half items).

Per paper the candidates are prepared once (``Extractor.prepare``: sentences, embeddings, role scores,
salience features) and each set of weights chooses from them (``Extractor.choose``), so the variants
differ only in their weights. Lead-k: the first clean body sentences, as many as reach today's summary's
length in words. ``--app`` also writes the summary the way the user gets it (``app.summary.summarize``,
``SummaryRequest(include_abstract=False)``) with the shipped weights, as a check that the shipped file is
what the comparison calls it.

    nice -n 15 .venv/bin/python benchmarks/summary_salience.py --work /tmp/salience --name summary_salience_45

Reported per set: mean and median ROUGE-1/2/Lsum of each variant, papers where the new weights beat
today's, and the median wall and CPU seconds of preparing a paper and of choosing once.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from statistics import mean, median

from _corpus import write_result
from bench_summary_rouge import lead_text, read_cached, reference_of, set_items

from mmdocsum_desktop.bench.metrics.rouge import rouge
from mmdocsum_desktop.summarize.extractive import (
    SALIENCE_WEIGHTS_FILE,
    ExtractiveResult,
    Extractor,
    load_salience_weights,
)

REPO = Path(__file__).resolve().parents[1]
TODAY = REPO / "tools" / "salience_weights_before_45.json"
NEW = REPO / "tools" / "salience_fit.json"
KEYS = ("rouge1", "rouge2", "rougeL")


def _scores(text: str, reference: str, language: str | None) -> dict[str, float]:
    found = rouge(text, reference, language)
    return {k: round(found[k], 4) for k in KEYS}


def run(sets: list[str], work: Path, elife_limit: int, limit: int | None, today_file: Path, new_file: Path,
        app: bool) -> dict:
    from mmdocsum_desktop.app.session import Session
    from mmdocsum_desktop.app.summary import summarize as app_summarize
    from mmdocsum_desktop.models.cache import ContentCache
    from mmdocsum_desktop.models.embed import TextEmbedder
    from mmdocsum_desktop.schemas.settings import EngineChoice
    from mmdocsum_desktop.schemas.summary import SummaryRequest

    variants = {"today": load_salience_weights(today_file), "new": load_salience_weights(new_file)}
    shipped = load_salience_weights()
    shipped_is = next((k for k, v in variants.items() if dict(v.weights) == dict(shipped.weights)
                       and v.share == shipped.share), None)
    embedder = TextEmbedder(cache=ContentCache(work / "embeddings.sqlite"))
    extractor = Extractor(embedder, salience=variants["today"])
    out: dict = {"shipped_weights_are": shipped_is or "neither"}
    with Session() as session:
        for name in sets:
            rows = []
            for item in set_items(name, elife_limit)[:limit]:
                try:
                    document = read_cached(session, item, work)
                except Exception as error:  # noqa: BLE001 — a paper the reader refuses is reported, not fatal
                    rows.append({"paper": item["name"], "error": str(error)[:200]})
                    continue
                reference, _ = reference_of(item, document)
                if not reference or len(reference.split()) < 30:
                    rows.append({"paper": item["name"], "error": "no abstract of 30 words"})
                    continue
                wall, cpu = time.perf_counter(), time.process_time()
                prepared = extractor.prepare(document, include_abstract=False)
                row: dict = {"paper": item["name"], "prepare_wall_s": round(time.perf_counter() - wall, 3),
                             "prepare_cpu_s": round(time.process_time() - cpu, 3)}
                if isinstance(prepared, ExtractiveResult):
                    rows.append({**row, "error": "no body prose"})
                    continue
                texts = {}
                for label, weights in variants.items():
                    wall, cpu = time.perf_counter(), time.process_time()
                    drafted = extractor.choose(prepared, salience=weights)
                    row[f"{label}_choose_wall_s"] = round(time.perf_counter() - wall, 4)
                    row[f"{label}_choose_cpu_s"] = round(time.process_time() - cpu, 4)
                    texts[label] = "\n".join(p.text for p in drafted.paragraphs if p.sentences)
                words = len(texts["today"].split())
                texts["lead"] = lead_text(document, words)
                for label, text in texts.items():
                    row[label] = _scores(text, reference, None)
                    row[f"{label}_words"] = len(text.split())
                if app:
                    summary = app_summarize(session, document, work / "assets" / name / item["name"],
                                            choice=EngineChoice(engine="extractive"),
                                            options=SummaryRequest(include_abstract=False))
                    text = "\n".join(p.text for p in summary.paragraphs if p.source != "absent" and p.text.strip())
                    row["app_shipped"] = _scores(text, reference, None)
                rows.append(row)
                print(f"{name:>10} {item['name']:<40} lead {row['lead']['rouge1']:.3f}  today {row['today']['rouge1']:.3f}"
                      f"  new {row['new']['rouge1']:.3f}" + (f"  app {row['app_shipped']['rouge1']:.3f}" if app else ""),
                      flush=True)
            scored = [r for r in rows if "error" not in r]
            labels = ["lead", "today", "new"] + (["app_shipped"] if app else [])
            summary_row = {
                "papers": len(rows), "scored": len(scored),
                **({label: {"mean": {k: round(mean(r[label][k] for r in scored), 4) for k in KEYS},
                            "median": {k: round(median(r[label][k] for r in scored), 4) for k in KEYS}}
                    for label in labels} if scored else {}),
                "new_beats_today": sum(r["new"]["rouge1"] > r["today"]["rouge1"] for r in scored),
                "new_loses_to_today": sum(r["new"]["rouge1"] < r["today"]["rouge1"] for r in scored),
                "words_median": {label: median(r[f"{label}_words"] for r in scored) for label in ("lead", "today", "new")}
                if scored else {},
                "seconds_median": {
                    "prepare_wall": median(r["prepare_wall_s"] for r in scored),
                    "prepare_cpu": median(r["prepare_cpu_s"] for r in scored),
                    **{f"{label}_choose_{kind}": median(r[f"{label}_choose_{kind}_s"] for r in scored)
                       for label in variants for kind in ("wall", "cpu")}} if scored else {},
            }
            print(f"{name}: {json.dumps(summary_row)}", flush=True)
            out[name] = {"summary": summary_row, "papers": rows}
    embedder.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", nargs="+", default=["pmc-test", "elife-test"])
    parser.add_argument("--work", type=Path, default=Path("/tmp/salience"))
    parser.add_argument("--elife-limit", type=int, default=40)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--today", type=Path, default=TODAY, help="today's weights (the constants before issue 45)")
    parser.add_argument("--new", type=Path, default=NEW, help="the fitted weights (tools/fit_salience.py's output)")
    parser.add_argument("--app", action="store_true", help="also the user's path with the shipped weights")
    parser.add_argument("--name", default="summary_salience")
    args = parser.parse_args()
    wall, cpu = time.perf_counter(), time.process_time()
    results = run(args.sets, args.work, args.elife_limit, args.limit, args.today, args.new, args.app)
    new = json.loads(args.new.read_text(encoding="utf-8"))
    target = write_result(args.name, {
        "metric": "rouge-score F1, Porter stemmer, one sentence per line; rougeL = rougeLsum; abstract left out of "
                  "the input and used as the reference; papers with an abstract of >= 30 words",
        "variants": {"lead": "first clean body sentences up to today's summary's words",
                     "today": str(args.today.relative_to(REPO)) if args.today.is_relative_to(REPO) else str(args.today),
                     "new": str(args.new.relative_to(REPO)) if args.new.is_relative_to(REPO) else str(args.new),
                     "new_chosen": new.get("provenance", {}).get("chosen"),
                     "shipped_file": SALIENCE_WEIGHTS_FILE.name},
        "seconds": {"wall": round(time.perf_counter() - wall, 1), "cpu": round(time.process_time() - cpu, 1)},
        "sets": results,
    })
    print(f"written {target}")


if __name__ == "__main__":
    main()
