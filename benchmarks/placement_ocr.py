"""What reading the text inside figures (OCR) gives placement, and what it costs (issue 27).

On the first ``--papers`` papers (name order) of the TEST half of ``pmc/`` that have the app's reading
under /tmp (``tools/fit_placement.py --read-pdfs test``: the figure crops rendered as ``place`` renders
them): JATS paragraphs with the figure citations removed, gold = the paragraph that first cites each
figure, the app's figure pool with its crops. The same engine and shipped model place them twice: with
the crops read by RapidOCR (``use_ocr=True``, what ``place`` did by default) and without. OCR time is
measured with no cache (every crop read afresh, as on a paper opened for the first time): wall and CPU
seconds per crop and per paper. A small sample on purpose: the machine is a loaded 2-core one.

    nice -n 10 .venv/bin/python benchmarks/placement_ocr.py [--papers 6]

Result: ``benchmarks/results/placement_ocr.json``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from _corpus import REPO_ROOT, write_result

from mmdocsum_desktop.bench.metrics import pairs as m
from mmdocsum_desktop.bench.pairs_split import pairs_in
from mmdocsum_desktop.placement.engine import PlacementEngine

sys.path.insert(0, str(REPO_ROOT))  # the fitting tool's data loading: same papers, same gold
from tools.fit_placement import PMC, WORK, jats_item  # noqa: E402

# The first run of this script (no cache, 4 papers, the loaded 2-core machine, OCR with 1 thread):
# OCR seconds per paper, wall / CPU. Kept here because later runs take the crops' text from the cache.
FIRST_RUN = {"PMC4238170": [53.94, 5.21, 4], "PMC4678086": [13.68, 1.35, 1], "PMC4691483": [39.55, 5.24, 8],
             "PMC4706908": [15.96, 2.42, 5], "columns": ["wall_s", "cpu_s", "crops"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=6)
    parser.add_argument("--cache", type=Path, default=WORK / "embeddings.sqlite")
    args = parser.parse_args()
    from mmdocsum_desktop.models.cache import ContentCache
    from mmdocsum_desktop.models.embed import TextEmbedder
    from mmdocsum_desktop.models.ocr import OcrEngine

    items = []
    for pair in pairs_in(PMC, "test"):
        item = jats_item(pair.xml, pair.name, "pmc", "test", use_app=True)
        if item is not None and item.pool == "app" and any(c.image for c in item.candidates):
            items.append(item)
        if len(items) >= args.papers:
            break
    if not items:
        sys.exit("no app readings under /tmp/placement_relevance/docs: run tools/fit_placement.py --read-pdfs test")
    embedder = TextEmbedder(cache=ContentCache(args.cache), intra_op_threads=1)
    # Read texts are kept in /tmp so a rerun (another model) does not read the crops again; only crops
    # read afresh in this run (a cache miss: ``ocr.runs`` grows) count for the timing.
    ocr = OcrEngine(cache=ContentCache(WORK / "ocr.sqlite"), intra_op_threads=1)
    per_crop_wall, per_crop_cpu, per_paper = [], [], []
    for item in items:
        paper_wall = paper_cpu = 0.0
        for candidate in item.candidates:
            if not candidate.image:
                candidate.ocr_text = ""
                continue
            wall, cpu, runs = time.perf_counter(), time.process_time(), ocr.runs
            candidate.ocr_text = ocr.read_text(candidate.image)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            if ocr.runs == runs:  # from the cache: no timing
                continue
            per_crop_wall.append(wall)
            per_crop_cpu.append(cpu)
            paper_wall += wall
            paper_cpu += cpu
        per_paper.append({"paper": item.name, "crops": sum(bool(c.image) for c in item.candidates),
                          "ocr_wall_s": round(paper_wall, 2), "ocr_cpu_s": round(paper_cpu, 2),
                          "ocr_words": sum(len((c.ocr_text or "").split()) for c in item.candidates)})
        print(per_paper[-1], file=sys.stderr)

    results = {}
    # With OCR text the engine has no sequence model (fitted on captions only) and falls back to the
    # "global" strategy with the older caption+OCR profile; the third row isolates the OCR text: captions
    # alone through that same strategy.
    for name, use_ocr, strategy in (("with figure text (OCR)", True, "sequence"),
                                    ("captions only (no OCR)", False, "sequence"),
                                    ("captions only, global strategy (as with OCR, without its text)", False, "global")):
        rows = []
        warnings = set()
        wall, cpu = time.perf_counter(), time.process_time()
        for item in items:
            engine = PlacementEngine(embedder, None, None, use_ocr=use_ocr)
            placed = engine.place(item.paragraphs, [c.model_copy() for c in item.candidates], strategy=strategy,
                                  sections=item.sections)
            warnings.update(engine.warnings)
            predicted = [item.keys[p.candidate] if p.candidate is not None else None for p in placed]
            rows.append(m.flow_scores(item.gold, predicted))
        pooled = m.pool_flow_scores(rows).to_dict()
        results[name] = {**{k: (round(v, 4) if isinstance(v, float) else v) for k, v in pooled.items()},
                         "place_wall_s": round(time.perf_counter() - wall, 2),
                         "place_cpu_s": round(time.process_time() - cpu, 2),
                         "notes": sorted(warnings)}
        print(name, results[name], file=sys.stderr)
    payload = {
        "benchmark": "placement with and without the text read in figure crops, test half of pmc (JATS paragraphs, "
                     "the app's figure pool and crops)",
        "papers": [i.name for i in items],
        "image_slots": sum(bool(g) for i in items for g in i.gold),
        "crops_read_this_run": len(per_crop_wall),
        "ocr_seconds_per_crop_median_this_run": {"wall": round(statistics.median(per_crop_wall), 2),
                                                 "cpu": round(statistics.median(per_crop_cpu), 2)} if per_crop_wall else None,
        "ocr_first_run_4_papers": FIRST_RUN,
        "per_paper": per_paper,
        "results": results,
        "machine_note": "shared 2-core machine under load from other work; OCR with 1 thread, no cache",
    }
    print(write_result("placement_ocr", payload), file=sys.stderr)


if __name__ == "__main__":
    main()
