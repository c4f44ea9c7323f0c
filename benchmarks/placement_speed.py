"""Seconds of ``place`` per paper, cold and warm (issue 15): TEST half of pmc/, through the app layer.

For each test paper: the app's reading of the PDF (``--documents``: ``OUT/documents`` of a pairs run,
else the PDF is read here, not timed), its figure crops rendered once at ``--dpi`` (150, what
``mmdocsum place`` and the desktop app render; not timed: opening a document does that), and the app's
own paragraphs of the paper (every body paragraph: far more than a user's summary, the worst case).
Then, through the application layer (``app.placement.place`` with a Session):

* **cold** — a fresh process: importing the app's placement path, loading the models it needs, reading
  the text in the crops, embedding, rescoring, deciding (``--cold-papers`` of them), twice: with an
  empty content cache (a paper never opened before: every crop OCR'd, every sentence embedded) and
  with the cache the warm runs left (a paper opened before, in an earlier session);
* **first** — in a session whose models are loaded: the first ``place`` on a newly opened document
  (its crops not read yet, its sentences not embedded yet);
* **warm** — the same session, the same document, the paragraphs edited (one sentence appended to each):
  the crops' text comes from the content cache, only the new sentence is embedded, every rescored pair
  is new to the cross-encoder; **warm, one edit** — one paragraph edited (the authoring loop).

Each run gives wall seconds and CPU seconds (``time.process_time``: every thread of the process; the
machine is shared, so CPU seconds are the comparable number) and the engine's own step timings.

Configurations (``--config``; each run adds or replaces its entry in the JSON):

* ``app`` — what ``mmdocsum place DOC`` does with the saved settings: OCR on, the figures' citing
  sentences as context, the shipped sequence model (its ``top_k`` says whether the cross-encoder runs);
* ``captions-ce`` — OCR off, captions only (as the pairs benchmark gives the placer), ``--top-k`` paragraphs
  per figure rescored by the cross-encoder (4 unless given): the sequence strategy with the cross-encoder on.

Writes ``benchmarks/results/placement_speed.json``.

    .venv/bin/python benchmarks/placement_speed.py --documents /tmp/run/documents --config captions-ce
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _corpus import CORPUS, RESULTS, write_result

PMC = CORPUS / "pmc"
CONFIGS = ("app", "captions-ce")


def paper_inputs(name: str, documents: list[Path], crops: Path, dpi: int, captions_only: bool):
    """(paragraphs, pool, pages) of one paper, crops rendered under ``crops``."""
    from mmdocsum_desktop.bench.pairs_gold import strip_citations
    from mmdocsum_desktop.bench.suites.pairs import body_blocks
    from mmdocsum_desktop.placement.candidates import candidates_from_document
    from mmdocsum_desktop.schemas.document import Document

    folder = crops / f"{dpi}dpi" / name
    if not (folder / "done").exists():
        document = None
        for where in documents:
            path = where / f"{name}.json"
            if path.is_file():
                document = Document.model_validate(json.loads(path.read_text(encoding="utf-8"))["document"])
                break
        if document is None:
            from mmdocsum_desktop.document.reader import read_document

            document = read_document(PMC / f"{name}.pdf")
        from mmdocsum_desktop.document.limits import DEFAULT_LIMITS
        from mmdocsum_desktop.document.pdf import render_visuals
        from mmdocsum_desktop.jobs import ensure_control

        (folder / "figures").mkdir(parents=True, exist_ok=True)
        render_visuals(document, folder / "figures", dpi=dpi, password=None, limits=DEFAULT_LIMITS,
                       control=ensure_control(None))
        (folder / "document.json").write_text(document.model_dump_json(), encoding="utf-8")
        (folder / "done").write_text("")
    document = Document.model_validate_json((folder / "document.json").read_text(encoding="utf-8"))
    pool = candidates_from_document(document, folder, include_tables=True)
    if captions_only:  # as the pairs benchmark gives the placer: no citing sentences
        pool = [c.model_copy(update={"context": []}) for c in pool]
    paragraphs = [strip_citations(b.text) for b in body_blocks(document) if b.type == "paragraph"]
    return paragraphs, pool, document.page_count or 0


def settings_of(config: str):
    from mmdocsum_desktop.schemas.settings import PlacementSettings

    return PlacementSettings(ocr=config == "app")


def run_once(session, paragraphs, pool, config: str, top_k: int | None) -> dict:
    from mmdocsum_desktop.app.placement import place

    started, cpu = time.perf_counter(), time.process_time()
    run = place(session, paragraphs, [c.model_copy(deep=True) for c in pool], placement=settings_of(config),
                top_k=top_k)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    return {"seconds": round(wall, 3), "cpu_seconds": round(cpu, 3),
            **{k: round(v, 3) for k, v in run.timings.items()},
            "cross_encoder_ran": "rescore_s" in run.timings and any(
                p.why is not None and p.why.cross_encoder is not None for p in run.placements),
            "placed": sum(p.candidate is not None for p in run.placements), "warnings": run.warnings[:3]}


def cold_child(inputs: Path, config: str, top_k: int | None) -> None:
    """In a fresh process: from the first import of the app's placement path to the placements."""
    started, cpu = time.perf_counter(), time.process_time()
    from mmdocsum_desktop.app.placement import place  # noqa: F401 — timed: part of a cold start
    from mmdocsum_desktop.app.session import Session
    from mmdocsum_desktop.schemas.placement import ImageCandidate

    imports_wall, imports_cpu = time.perf_counter() - started, time.process_time() - cpu
    data = json.loads(inputs.read_text(encoding="utf-8"))  # what opening the extraction folder gives
    pool = [ImageCandidate.model_validate(c) for c in data["pool"]]
    result = run_once(Session(), data["paragraphs"], pool, config, top_k)
    result["cold_seconds"] = round(time.perf_counter() - started, 3)
    result["cold_cpu_seconds"] = round(time.process_time() - cpu, 3)
    result["imports_seconds"], result["imports_cpu_seconds"] = round(imports_wall, 3), round(imports_cpu, 3)
    print(json.dumps(result))


def median(values):
    values = [v for v in values if v is not None]
    return round(statistics.median(values), 3) if values else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", type=Path, action="append", default=[])
    parser.add_argument("--config", choices=CONFIGS, default="app")
    parser.add_argument("--top-k", type=int, default=None,
                        help="paragraphs rescored per figure (captions-ce: 4 unless given; app: the shipped model's)")
    parser.add_argument("--cold-papers", type=int, default=5)
    parser.add_argument("--limit", type=int, default=None, help="only the first N test papers")
    parser.add_argument("--dpi", type=int, default=150)
    parser.add_argument("--child", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--crops", type=Path, default=Path(tempfile.gettempdir()) / "placement_speed_crops")
    args = parser.parse_args()
    top_k = args.top_k if args.top_k is not None or args.config == "app" else 4
    if args.child:
        cold_child(args.child, args.config, top_k)
        return

    from mmdocsum_desktop.app.session import Session
    from mmdocsum_desktop.bench.pairs_split import pairs_in

    names = [p.name for p in pairs_in(PMC, "test") if p.pdf is not None][: args.limit or None]
    captions_only = args.config == "captions-ce"
    cold: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as scratch:
        cache = Path(scratch) / "cache"
        os.environ["MMDOCSUM_CACHE_DIR"] = str(cache)  # empty caches: nothing pre-read or pre-embedded
        inputs = {}
        for name in names:
            try:
                inputs[name] = paper_inputs(name, args.documents, args.crops, args.dpi, captions_only)
            except Exception as error:  # noqa: BLE001
                print(f"{name}: skipped ({error})", file=sys.stderr)
        mark, cpu = time.perf_counter(), time.process_time()
        session = Session()
        session.placement_engine(settings_of(args.config))  # the embedder (the others load on first need)
        load_s, load_cpu = time.perf_counter() - mark, time.process_time() - cpu
        # Cold runs with an empty cache first, while the warm runs' cache does not exist yet.
        cold_names = list(inputs)[: args.cold_papers]

        def cold_run(name: str, cache_dir: Path) -> dict | None:
            paragraphs, pool, _ = inputs[name]
            data = Path(scratch) / f"{name}.json"
            data.write_text(json.dumps({"paragraphs": paragraphs, "pool": [c.model_dump() for c in pool]}))
            env = dict(os.environ, MMDOCSUM_CACHE_DIR=str(cache_dir))
            started = time.perf_counter()
            out = subprocess.run(
                [sys.executable, __file__, "--child", str(data), "--config", args.config,
                 *(["--top-k", str(top_k)] if top_k is not None else [])],
                capture_output=True, text=True, env=env, cwd=Path(__file__).parent,
            )
            if out.returncode != 0:
                print(f"{name}: cold run failed: {out.stderr[-400:]}", file=sys.stderr)
                return None
            row = json.loads(out.stdout.strip().splitlines()[-1])
            row["process_wall_seconds"] = round(time.perf_counter() - started, 3)
            return row

        for name in cold_names:
            empty = Path(scratch) / f"cold-{name}"
            row = cold_run(name, empty)
            shutil.rmtree(empty, ignore_errors=True)
            if row:
                cold.setdefault(name, {})["empty_cache"] = row
                print(f"{name}: cold, empty cache {row['cold_seconds']:.2f} s ({row['cold_cpu_seconds']:.2f} CPU-s)",
                      file=sys.stderr)
        rows = {}
        for name, (paragraphs, pool, pages) in inputs.items():
            first = run_once(session, paragraphs, pool, args.config, top_k)
            edited = [p + " We note this again." if p.strip() else p for p in paragraphs]
            warm = run_once(session, edited, pool, args.config, top_k)
            middle = len(paragraphs) // 2  # the authoring loop: one paragraph rewritten, placed again
            one = [p + " We note this again." if i == middle and p.strip() else p for i, p in enumerate(paragraphs)]
            warm_one = run_once(session, one, pool, args.config, top_k)
            rows[name] = {"pages": pages, "paragraphs": len(paragraphs), "pool": len(pool), "first": first,
                          "warm": warm, "warm_one_edit": warm_one}
            print(f"{name}: {pages} pages, {len(paragraphs)} paragraphs, {len(pool)} images: "
                  f"first {first['seconds']:.2f} s ({first['cpu_seconds']:.2f} CPU-s), "
                  f"warm {warm['seconds']:.2f} s ({warm['cpu_seconds']:.2f} CPU-s)", file=sys.stderr)
        for name in cold_names:  # the same papers, now with the cache the session above filled
            row = cold_run(name, cache)
            if row:
                cold.setdefault(name, {})["cached"] = row
                print(f"{name}: cold, cache filled {row['cold_seconds']:.2f} s ({row['cold_cpu_seconds']:.2f} CPU-s)",
                      file=sys.stderr)

    steps = ("ocr_s", "embed_s", "rescore_s", "assign_s")

    def where(runs):
        runs = list(runs)
        return {s: median(r.get(s) for r in runs) for s in steps}

    def cold_summary(kind: str) -> dict:
        runs = [c[kind] for c in cold.values() if kind in c]
        return {"papers": len(runs), "median_seconds": median(r["cold_seconds"] for r in runs),
                "median_cpu_seconds": median(r["cold_cpu_seconds"] for r in runs),
                "median_imports_seconds": median(r["imports_seconds"] for r in runs),
                "median_imports_cpu_seconds": median(r["imports_cpu_seconds"] for r in runs),
                "median_process_wall_seconds": median(r["process_wall_seconds"] for r in runs),
                "where": where(runs)}

    long_papers = [r for r in rows.values() if r["pages"] >= 20]
    entry = {
        "config": args.config,
        "ocr": args.config == "app",
        "context": not captions_only,
        "top_k": top_k,
        "dpi": args.dpi,
        "papers": len(rows),
        "cross_encoder_ran_first": sum(r["first"]["cross_encoder_ran"] for r in rows.values()),
        "model_load_seconds": round(load_s, 3),
        "model_load_cpu_seconds": round(load_cpu, 3),
        "median_first_seconds": median(r["first"]["seconds"] for r in rows.values()),
        "median_first_cpu_seconds": median(r["first"]["cpu_seconds"] for r in rows.values()),
        "median_warm_seconds": median(r["warm"]["seconds"] for r in rows.values()),
        "median_warm_cpu_seconds": median(r["warm"]["cpu_seconds"] for r in rows.values()),
        "median_warm_one_edit_seconds": median(r["warm_one_edit"]["seconds"] for r in rows.values()),
        "median_warm_one_edit_cpu_seconds": median(r["warm_one_edit"]["cpu_seconds"] for r in rows.values()),
        "cold_empty_cache": cold_summary("empty_cache"),
        "cold_cache_filled": cold_summary("cached"),
        "long_papers_20_pages_or_more": {
            "count": len(long_papers),
            "median_first_seconds": median(r["first"]["seconds"] for r in long_papers),
            "median_first_cpu_seconds": median(r["first"]["cpu_seconds"] for r in long_papers),
            "median_warm_seconds": median(r["warm"]["seconds"] for r in long_papers),
            "median_warm_cpu_seconds": median(r["warm"]["cpu_seconds"] for r in long_papers),
            "median_warm_one_edit_cpu_seconds": median(r["warm_one_edit"]["cpu_seconds"] for r in long_papers),
        },
        "where_first": where(r["first"] for r in rows.values()),
        "where_warm": where(r["warm"] for r in rows.values()),
        "where_warm_one_edit": where(r["warm_one_edit"] for r in rows.values()),
        "median_pages": median(r["pages"] for r in rows.values()),
        "median_paragraphs": median(r["paragraphs"] for r in rows.values()),
        "median_pool": median(r["pool"] for r in rows.values()),
        "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
        "per_paper": rows,
        "cold": cold,
    }
    previous = RESULTS / "placement_speed.json"
    configurations = {}
    if previous.is_file():
        try:
            configurations = json.loads(previous.read_text(encoding="utf-8")).get("configurations", {})
        except ValueError:
            configurations = {}
    configurations[args.config] = entry
    payload = {
        "benchmark": "mmdocsum place through the app layer (app.placement.place with a Session): test half of pmc/",
        "cpu_count": os.cpu_count(),
        "note": "2 cores shared with other work while measured (see load_average_at_end): CPU seconds "
                "(time.process_time, all threads) are the comparable numbers, wall seconds alongside; "
                "cold = fresh process from the app's imports to the placements (document reading and crop "
                "rendering excluded); first = loaded session, new document; warm = same session and "
                "document, paragraphs edited",
        "configurations": configurations,
    }
    target = write_result("placement_speed", payload)
    print(json.dumps({k: v for k, v in entry.items() if k not in ("per_paper", "cold")}, indent=2))
    print(f"written {target}", file=sys.stderr)


if __name__ == "__main__":
    main()
