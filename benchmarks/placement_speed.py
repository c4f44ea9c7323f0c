"""Seconds of ``place`` per paper, cold and warm, with the cross-encoder on (issue 15): TEST half of pmc/.

For each test paper: the app's reading of the PDF (``--documents``: ``OUT/documents`` of a pairs run,
else the PDF is read here, not timed), its figure crops rendered once (not timed: opening a document
does that), and the app's own paragraphs of the paper (every body paragraph: far more than a user's
summary, the worst case). Then, through the application layer (``app.placement.place`` with a Session):

* **cold** — a fresh process with empty model caches: imports, loading MiniLM, the cross-encoder and
  OCR, reading the text in every crop, embedding, rescoring, deciding (``--cold-papers`` of them);
* **first** — in a session whose models are loaded: the first ``place`` on a newly opened document
  (its crops not read yet);
* **warm** — the same session, the same document, the paragraphs edited (one sentence appended to each):
  the crops' text comes from the content cache, only the new paragraphs are embedded.

Medians and where the time goes (the engine's own timings). Writes ``benchmarks/results/placement_speed.json``.

    .venv/bin/python benchmarks/placement_speed.py --documents /tmp/run/documents [--cold-papers 8]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _corpus import CORPUS, write_result

PMC = CORPUS / "pmc"


def paper_inputs(name: str, documents: list[Path], crops: Path):
    """(paragraphs, pool, pages) of one paper, crops rendered under ``crops``."""
    from mmdocsum_desktop.bench.pairs_gold import strip_citations
    from mmdocsum_desktop.bench.suites.pairs import body_blocks
    from mmdocsum_desktop.document.limits import DEFAULT_LIMITS
    from mmdocsum_desktop.document.model import Document
    from mmdocsum_desktop.document.pdf import render_visuals
    from mmdocsum_desktop.placement import candidates_from_document

    document = None
    for folder in documents:
        path = folder / f"{name}.json"
        if path.is_file():
            document = Document.model_validate(json.loads(path.read_text(encoding="utf-8"))["document"])
            break
    if document is None:
        from mmdocsum_desktop.document.reader import read_document

        document = read_document(PMC / f"{name}.pdf")
    folder = crops / name
    if not (folder / "done").exists():
        (folder / "figures").mkdir(parents=True, exist_ok=True)
        from mmdocsum_desktop.jobs import ensure_control

        render_visuals(document, folder / "figures", dpi=72, password=None, limits=DEFAULT_LIMITS,
                       control=ensure_control(None))
        (folder / "document.json").write_text(document.model_dump_json(), encoding="utf-8")
        (folder / "done").write_text("")
    else:  # the crops and their paths as rendered the first time
        document = Document.model_validate_json((folder / "document.json").read_text(encoding="utf-8"))
    pool = candidates_from_document(document, folder, include_tables=True)
    paragraphs = [strip_citations(b.text) for b in body_blocks(document) if b.type == "paragraph"]
    return paragraphs, pool, document.page_count or 0


def run_once(session, paragraphs, pool) -> dict:
    from mmdocsum_desktop.app.placement import place

    started = time.perf_counter()
    run = place(session, paragraphs, [c.model_copy(deep=True) for c in pool])
    total = time.perf_counter() - started
    engine_timings = getattr(run, "timings", None) or {}
    return {"seconds": round(total, 3), **{k: round(v, 3) for k, v in engine_timings.items()},
            "placed": sum(p.candidate is not None for p in run.placements), "warnings": run.warnings[:3]}


def cold_child(name: str, documents: list[Path], crops: Path) -> None:
    """In a fresh process: everything from the first import."""
    started = time.perf_counter()
    from mmdocsum_desktop.app.session import Session

    paragraphs, pool, pages = paper_inputs(name, documents, crops)
    setup = time.perf_counter() - started  # reading the cached document: not placement's time
    mark = time.perf_counter()
    session = Session()
    result = run_once(session, paragraphs, pool)
    result["cold_seconds"] = round(time.perf_counter() - mark + (mark - started - setup), 3)
    print(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", type=Path, action="append", default=[])
    parser.add_argument("--cold-papers", type=int, default=8)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--crops", type=Path, default=Path(tempfile.gettempdir()) / "placement_speed_crops")
    args = parser.parse_args()
    if args.child:
        cold_child(args.child, args.documents, args.crops)
        return

    from mmdocsum_desktop.app.session import Session
    from mmdocsum_desktop.bench.pairs_split import pairs_in

    names = [p.name for p in pairs_in(PMC, "test") if p.pdf is not None][: args.limit or None]
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["MMDOCSUM_CACHE_DIR"] = str(Path(scratch) / "cache")  # empty caches: nothing pre-read
        inputs = {}
        for name in names:
            try:
                inputs[name] = paper_inputs(name, args.documents, args.crops)
            except Exception as error:  # noqa: BLE001
                print(f"{name}: skipped ({error})", file=sys.stderr)
        mark = time.perf_counter()
        session = Session()
        session.placement_engine()  # loads the models once
        load_s = time.perf_counter() - mark
        rows = {}
        for name, (paragraphs, pool, pages) in inputs.items():
            first = run_once(session, paragraphs, pool)
            edited = [p + " We note this again." if p.strip() else p for p in paragraphs]
            warm = run_once(session, edited, pool)
            rows[name] = {"pages": pages, "paragraphs": len(paragraphs), "pool": len(pool), "first": first, "warm": warm}
            print(f"{name}: {pages} pages, {len(paragraphs)} paragraphs, {len(pool)} images: "
                  f"first {first['seconds']:.2f} s, warm {warm['seconds']:.2f} s", file=sys.stderr)
        cold = {}
        for name in list(inputs)[: args.cold_papers]:
            env = dict(os.environ, MMDOCSUM_CACHE_DIR=str(Path(scratch) / f"cold-{name}"))
            started = time.perf_counter()
            out = subprocess.run(
                [sys.executable, __file__, "--child", name, "--crops", str(args.crops),
                 *[a for d in args.documents for a in ("--documents", str(d))]],
                capture_output=True, text=True, env=env, cwd=Path(__file__).parent,
            )
            wall = time.perf_counter() - started
            if out.returncode != 0:
                print(f"{name}: cold run failed: {out.stderr[-400:]}", file=sys.stderr)
                continue
            cold[name] = {**json.loads(out.stdout.strip().splitlines()[-1]), "process_wall_seconds": round(wall, 3)}
            print(f"{name}: cold {cold[name]['cold_seconds']:.2f} s (process {wall:.2f} s)", file=sys.stderr)

    def median(values):
        values = [v for v in values if v is not None]
        return round(statistics.median(values), 3) if values else None

    steps = ("ocr_s", "embed_s", "rescore_s", "assign_s")
    long_papers = [r for r in rows.values() if r["pages"] >= 20]
    payload = {
        "benchmark": "mmdocsum place through the app layer, cross-encoder on, OCR on: test half of pmc/",
        "papers": len(rows),
        "cpu_count": os.cpu_count(),
        "model_load_seconds": round(load_s, 3),
        "median_first_seconds": median(r["first"]["seconds"] for r in rows.values()),
        "median_warm_seconds": median(r["warm"]["seconds"] for r in rows.values()),
        "median_cold_seconds": median(r["cold_seconds"] for r in cold.values()),
        "median_cold_process_wall_seconds": median(r["process_wall_seconds"] for r in cold.values()),
        "long_papers_20_pages_or_more": {
            "count": len(long_papers),
            "median_first_seconds": median(r["first"]["seconds"] for r in long_papers),
            "median_warm_seconds": median(r["warm"]["seconds"] for r in long_papers),
        },
        "where_first": {s: median(r["first"].get(s) for r in rows.values()) for s in steps},
        "where_warm": {s: median(r["warm"].get(s) for r in rows.values()) for s in steps},
        "where_cold": {s: median(r.get(s) for r in cold.values()) for s in steps},
        "median_pages": median(r["pages"] for r in rows.values()),
        "median_paragraphs": median(r["paragraphs"] for r in rows.values()),
        "per_paper": rows,
        "cold": cold,
        "note": "2 cores shared with other work while measured; cold = fresh process, empty caches, models "
                "loaded from disk (document reading excluded); warm = loaded session, paragraphs edited",
    }
    target = write_result("placement_speed", payload)
    print(json.dumps({k: v for k, v in payload.items() if k not in ("per_paper", "cold")}, indent=2))
    print(f"written {target}", file=sys.stderr)


if __name__ == "__main__":
    main()
