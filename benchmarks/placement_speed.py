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
* ``open`` — issue 39's goals for figure text (OCR on, citing sentences, the shipped model), against what
  opening the document costs: per paper, ``mmdocsum extract PDF -o DIR`` in a fresh process (the CPU of
  the whole command: reading and rendering the crops, what opening a document does); a cold ``place`` in
  a fresh process with an empty cache (every crop read); then, in a loaded session, the window's
  background reading (``app.placement.prepare_figure_text``) followed by the first ``place`` on the open
  document (crop text cached, paragraphs never embedded before); the paragraphs edited and embedded in the
  background as the Authoring view does while the user writes (``app.placement.prepare_text``), then
  ``place`` again; and a cold process after it.

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
CONFIGS = ("app", "captions-ce", "open")


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

    return PlacementSettings(ocr=config in ("app", "open"))


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
    top_k = args.top_k if args.top_k is not None or args.config in ("app", "open") else 4
    if args.child:
        cold_child(args.child, args.config, top_k)
        return

    from mmdocsum_desktop.app.session import Session
    from mmdocsum_desktop.bench.pairs_split import pairs_in

    names = [p.name for p in pairs_in(PMC, "test") if p.pdf is not None][: args.limit or None]
    if args.config == "open":
        save_entry("open", open_document_runs(names, top_k))
        return
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
    save_entry(args.config, entry)


def save_entry(config: str, entry: dict) -> None:
    """Add or replace ``config``'s entry in placement_speed.json; print its medians."""
    previous = RESULTS / "placement_speed.json"
    configurations = {}
    if previous.is_file():
        try:
            configurations = json.loads(previous.read_text(encoding="utf-8")).get("configurations", {})
        except ValueError:
            configurations = {}
    configurations[config] = entry
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


def child_cpu(command: list[str], env: dict) -> tuple[subprocess.CompletedProcess, float, float]:
    """Run ``command``; (its result, wall seconds, CPU seconds of the process and every thread of it)."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    out = subprocess.run(command, capture_output=True, text=True, env=env, cwd=Path(__file__).parent)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return out, wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def open_document_runs(names: list[str], top_k: int | None) -> dict:
    """The ``open`` configuration: extract, cold place, background reading and place on the open document."""
    from mmdocsum_desktop.app.placement import image_pool, prepare_figure_text, prepare_text
    from mmdocsum_desktop.app.session import Session
    from mmdocsum_desktop.bench.pairs_gold import strip_citations
    from mmdocsum_desktop.bench.suites.pairs import body_blocks
    from mmdocsum_desktop.schemas.document import Document

    rows: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as scratch:
        cache = Path(scratch) / "cache"
        os.environ["MMDOCSUM_CACHE_DIR"] = str(cache)  # the loaded session's cache: empty at the start
        session = Session()
        mark, cpu = time.perf_counter(), time.process_time()
        session.placement_engine(settings_of("open"))  # the embedder (the others load on first need)
        load = {"seconds": round(time.perf_counter() - mark, 3), "cpu_seconds": round(time.process_time() - cpu, 3)}
        for name in names:
            folder = Path(scratch) / name
            empty = Path(scratch) / f"empty-{name}"
            env = dict(os.environ, MMDOCSUM_CACHE_DIR=str(empty))
            out, wall, cpu_s = child_cpu([sys.executable, "-m", "mmdocsum_desktop", "extract", str(PMC / f"{name}.pdf"),
                                          "-o", str(folder), "--quiet"], env)
            if out.returncode != 0:
                print(f"{name}: extract failed: {out.stderr[-400:]}", file=sys.stderr)
                continue
            extract_row = {"seconds": round(wall, 3), "cpu_seconds": round(cpu_s, 3)}
            document = Document.model_validate_json((folder / "document.json").read_text(encoding="utf-8"))
            pool = image_pool(document=document, root=folder)  # what `mmdocsum place DIR` places
            paragraphs = [strip_citations(b.text) for b in body_blocks(document) if b.type == "paragraph"]
            data = Path(scratch) / f"{name}.json"
            data.write_text(json.dumps({"paragraphs": paragraphs, "pool": [c.model_dump() for c in pool]}))
            command = [sys.executable, __file__, "--child", str(data), "--config", "open",
                       *(["--top-k", str(top_k)] if top_k is not None else [])]
            out, wall, cpu_s = child_cpu(command, env)  # cold, empty cache: every crop read
            shutil.rmtree(empty, ignore_errors=True)
            if out.returncode != 0:
                print(f"{name}: cold place failed: {out.stderr[-400:]}", file=sys.stderr)
                continue
            cold = json.loads(out.stdout.strip().splitlines()[-1])
            cold.update(process_seconds=round(wall, 3), process_cpu_seconds=round(cpu_s, 3))
            mark, cpu = time.perf_counter(), time.process_time()  # the window's background job
            reading = prepare_figure_text(session, pool)
            background = {"seconds": round(time.perf_counter() - mark, 3),
                          "cpu_seconds": round(time.process_time() - cpu, 3), "read": reading.read,
                          "cached": reading.cached, "failed": len(reading.failed)}
            opened = run_once(session, paragraphs, pool, "open", top_k)  # Place images on the open document
            # the Authoring view embeds the user's text while they write (a moment after typing stops): the
            # paragraphs edited, prepared in the background, then Place images
            edited = [p + f" We note this again in paragraph {i + 1}." if p.strip() else p
                      for i, p in enumerate(paragraphs)]  # a new sentence in every paragraph
            mark, cpu = time.perf_counter(), time.process_time()
            prepare_text(session, edited, pool, figure_text=True)
            text_ahead = {"seconds": round(time.perf_counter() - mark, 3),
                          "cpu_seconds": round(time.process_time() - cpu, 3)}
            typed = run_once(session, edited, pool, "open", top_k)
            again = prepare_figure_text(session, pool)  # a second reading: hashes only
            out, wall, cpu_s = child_cpu(command, dict(os.environ, MMDOCSUM_CACHE_DIR=str(cache)))
            cold_cached = json.loads(out.stdout.strip().splitlines()[-1]) if out.returncode == 0 else None
            if cold_cached is not None:
                cold_cached.update(process_seconds=round(wall, 3), process_cpu_seconds=round(cpu_s, 3))
            rows[name] = {"pages": document.page_count or 0, "paragraphs": len(paragraphs), "pool": len(pool),
                          "extract": extract_row, "cold_place_empty_cache": cold, "background_reading": background,
                          "place_open_document": opened, "text_prepared_while_typing": text_ahead,
                          "place_open_document_text_prepared": typed,
                          "reading_again_seconds": round(again.seconds, 3),
                          "cold_place_cache_filled": cold_cached,
                          "cold_cpu_over_extract_cpu": round(cold["process_cpu_seconds"] / extract_row["cpu_seconds"], 2)}
            print(f"{name}: extract {extract_row['cpu_seconds']:.2f} CPU-s ({extract_row['seconds']:.2f} s); cold place "
                  f"{cold['process_cpu_seconds']:.2f} CPU-s ({cold['process_seconds']:.2f} s); background reading "
                  f"{background['cpu_seconds']:.2f} CPU-s; place on the open document {opened['seconds']:.2f} s "
                  f"({opened['cpu_seconds']:.2f} CPU-s), text prepared {typed['seconds']:.2f} s "
                  f"({typed['cpu_seconds']:.2f} CPU-s)", file=sys.stderr)
    values = list(rows.values())
    cached_runs = [r["cold_place_cache_filled"] for r in values if r["cold_place_cache_filled"]]
    return {
        "config": "open", "ocr": True, "context": True, "top_k": top_k, "dpi": 150, "papers": len(values),
        "model_load": load,
        "median_extract_seconds": median(r["extract"]["seconds"] for r in values),
        "median_extract_cpu_seconds": median(r["extract"]["cpu_seconds"] for r in values),
        "median_cold_place_seconds": median(r["cold_place_empty_cache"]["process_seconds"] for r in values),
        "median_cold_place_cpu_seconds": median(r["cold_place_empty_cache"]["process_cpu_seconds"] for r in values),
        "median_cold_cpu_over_extract_cpu": median(r["cold_cpu_over_extract_cpu"] for r in values),
        "papers_cold_within_3x_extract_cpu": sum(r["cold_cpu_over_extract_cpu"] <= 3 for r in values),
        "median_background_reading_seconds": median(r["background_reading"]["seconds"] for r in values),
        "median_background_reading_cpu_seconds": median(r["background_reading"]["cpu_seconds"] for r in values),
        "median_place_open_document_seconds": median(r["place_open_document"]["seconds"] for r in values),
        "median_place_open_document_cpu_seconds": median(r["place_open_document"]["cpu_seconds"] for r in values),
        "papers_place_open_document_within_1_s": sum(r["place_open_document"]["seconds"] <= 1 for r in values),
        "median_place_open_document_ocr_seconds": median(r["place_open_document"].get("ocr_s") for r in values),
        "median_place_open_document_embed_seconds": median(r["place_open_document"].get("embed_s") for r in values),
        "median_text_prepared_while_typing_cpu_seconds": median(r["text_prepared_while_typing"]["cpu_seconds"]
                                                                for r in values),
        "median_place_open_document_text_prepared_seconds": median(
            r["place_open_document_text_prepared"]["seconds"] for r in values),
        "median_place_open_document_text_prepared_cpu_seconds": median(
            r["place_open_document_text_prepared"]["cpu_seconds"] for r in values),
        "papers_place_open_document_text_prepared_within_1_s": sum(
            r["place_open_document_text_prepared"]["seconds"] <= 1 for r in values),
        "median_reading_again_seconds": median(r["reading_again_seconds"] for r in values),
        "median_cold_place_cache_filled_seconds": median(r["process_seconds"] for r in cached_runs),
        "median_cold_place_cache_filled_cpu_seconds": median(r["process_cpu_seconds"] for r in cached_runs),
        "median_pages": median(r["pages"] for r in values),
        "median_paragraphs": median(r["paragraphs"] for r in values),
        "median_pool": median(r["pool"] for r in values),
        "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
        "per_paper": rows,
    }


if __name__ == "__main__":
    main()
