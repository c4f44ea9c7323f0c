"""What reading the text inside figures (OCR) gives placement, and what it costs (issue 27).

On the first ``--papers`` papers (name order) of the TEST half of ``pmc/`` that have the app's reading
under /tmp (``placement_relevance.py --read-pdfs test``: the figure crops rendered as ``place`` renders
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

from _corpus import write_result
from placement_relevance import PMC, WORK, jats_item

from mmdocsum_desktop.bench.metrics import pairs as m
from mmdocsum_desktop.bench.pairs_split import pairs_in
from mmdocsum_desktop.placement import PlacementEngine


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
        sys.exit("no app readings under /tmp/placement_relevance/docs: run placement_relevance.py --read-pdfs test")
    embedder = TextEmbedder(cache=ContentCache(args.cache), intra_op_threads=1)
    ocr = OcrEngine(cache=False, intra_op_threads=1)
    per_crop_wall, per_crop_cpu, per_paper = [], [], []
    for item in items:
        paper_wall = paper_cpu = 0.0
        for candidate in item.candidates:
            if not candidate.image:
                candidate.ocr_text = ""
                continue
            wall, cpu = time.perf_counter(), time.process_time()
            candidate.ocr_text = ocr.read_text(candidate.image)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            per_crop_wall.append(wall)
            per_crop_cpu.append(cpu)
            paper_wall += wall
            paper_cpu += cpu
        per_paper.append({"paper": item.name, "crops": sum(bool(c.image) for c in item.candidates),
                          "ocr_wall_s": round(paper_wall, 2), "ocr_cpu_s": round(paper_cpu, 2),
                          "ocr_words": sum(len((c.ocr_text or "").split()) for c in item.candidates)})
        print(per_paper[-1], file=sys.stderr)

    results = {}
    for name, use_ocr in (("with figure text (OCR)", True), ("captions only (no OCR)", False)):
        rows = []
        warnings = set()
        wall, cpu = time.perf_counter(), time.process_time()
        for item in items:
            engine = PlacementEngine(embedder, None, None, use_ocr=use_ocr)
            placed = engine.place(item.paragraphs, [c.model_copy() for c in item.candidates], sections=item.sections)
            warnings.update(engine.warnings)
            predicted = [item.keys[p.candidate] if p.candidate is not None else None for p in placed]
            rows.append(m.flow_scores(item.gold, predicted))
        pooled = m.pool_flow_scores(rows).to_json()
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
        "ocr_seconds_per_crop_median": {"wall": round(statistics.median(per_crop_wall), 2),
                                        "cpu": round(statistics.median(per_crop_cpu), 2)},
        "ocr_seconds_per_paper_median": {"wall": round(statistics.median(p["ocr_wall_s"] for p in per_paper), 2),
                                         "cpu": round(statistics.median(p["ocr_cpu_s"] for p in per_paper), 2)},
        "per_paper": per_paper,
        "results": results,
        "machine_note": "shared 2-core machine under load from other work; OCR with 1 thread, no cache",
    }
    print(write_result("placement_ocr", payload), file=sys.stderr)


if __name__ == "__main__":
    main()
