"""Ingestion speed over the PDF + JATS pairs (`../shared/corpus/pmc`), side by side with pymupdf4llm.

Each run reads every PDF with the app (``read_document``) and renders all its figure and table crops at
150 dpi (``export_document``); pymupdf4llm converts the same files to Markdown in the same run, file by
file in turn, so both see the same machine load. Both are timed by wall clock and by the process's CPU
time (MuPDF runs in-process, so its work is counted; pymupdf4llm's layout model threads too): on a
shared machine the CPU rate is the stable number. The median of the runs is reported.

pymupdf4llm (its default layout mode, OCR off: these PDFs have a text layer, and the app does no OCR on
them either; no images written) costs about a CPU-second per page, so by default it converts a fixed
sample of the files (every ``--sample-every``-th by name) and the ratio is computed on exactly those
files; ``--sample-every 1`` compares on all of them.

    .venv/bin/python benchmarks/bench_pairs_ingestion_speed.py [--runs 5] [--sample-every 10]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from _corpus import CORPUS, write_result

from mmdocsum_desktop.document.reader import export_document, read_document

PAIRS = CORPUS / "pmc"


def timed(work) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    work()
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--dpi", type=int, default=150)
    parser.add_argument("--sample-every", type=int, default=10, help="pymupdf4llm converts every N-th file")
    parser.add_argument("--limit", type=int, default=0, help="only the first N files (0: all)")
    args = parser.parse_args()

    import pymupdf
    import pymupdf4llm

    pdfs = sorted(PAIRS.glob("*.pdf"))
    if args.limit:
        pdfs = pdfs[: args.limit]
    sample = set(pdfs[:: max(1, args.sample_every)])
    pages = {pdf: pymupdf.open(pdf).page_count for pdf in pdfs}
    # warm-up: imports, fonts and the layout model load once per process, not per page
    read_document(pdfs[0])
    pymupdf4llm.to_markdown(str(pdfs[0]), use_ocr=False)

    runs = []
    for run in range(args.runs):
        ours_all = [0.0, 0.0]
        ours_sample = [0.0, 0.0]
        other_sample = [0.0, 0.0]
        with tempfile.TemporaryDirectory() as tmp:
            for pdf in pdfs:
                def ours(pdf: Path = pdf) -> None:
                    export_document(read_document(pdf), Path(tmp) / pdf.stem, dpi=args.dpi)

                wall, cpu = timed(ours)
                ours_all[0] += wall
                ours_all[1] += cpu
                if pdf in sample:
                    ours_sample[0] += wall
                    ours_sample[1] += cpu
                    wall, cpu = timed(lambda pdf=pdf: pymupdf4llm.to_markdown(str(pdf), use_ocr=False))
                    other_sample[0] += wall
                    other_sample[1] += cpu
        all_pages = sum(pages.values())
        sample_pages = sum(pages[p] for p in sample)
        row = {
            "ours_pages_per_s_wall": all_pages / ours_all[0],
            "ours_pages_per_cpu_s": all_pages / ours_all[1],
            "sample_ours_pages_per_s_wall": sample_pages / ours_sample[0],
            "sample_ours_pages_per_cpu_s": sample_pages / ours_sample[1],
            "sample_pymupdf4llm_pages_per_s_wall": sample_pages / other_sample[0],
            "sample_pymupdf4llm_pages_per_cpu_s": sample_pages / other_sample[1],
        }
        runs.append(row)
        print(
            f"run {run + 1}: app {row['ours_pages_per_s_wall']:.1f} pages/s wall, {row['ours_pages_per_cpu_s']:.1f} per CPU-s "
            f"over {all_pages} pages; sample of {sample_pages} pages: app {row['sample_ours_pages_per_cpu_s']:.1f}, "
            f"pymupdf4llm {row['sample_pymupdf4llm_pages_per_cpu_s']:.2f} per CPU-s",
            flush=True,
        )
    median = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    ratio_cpu = median["sample_ours_pages_per_cpu_s"] / median["sample_pymupdf4llm_pages_per_cpu_s"]
    ratio_wall = median["sample_ours_pages_per_s_wall"] / median["sample_pymupdf4llm_pages_per_s_wall"]
    print(
        f"median: app {median['ours_pages_per_s_wall']:.1f} pages/s wall, {median['ours_pages_per_cpu_s']:.1f} pages per CPU-s "
        f"(incl. crops at {args.dpi} dpi, {len(pdfs)} files, {sum(pages.values())} pages); "
        f"app / pymupdf4llm on the same {len(sample)} files: {ratio_cpu:.1f}x by CPU time, {ratio_wall:.1f}x by wall clock"
    )
    write_result(
        "pairs_ingestion_speed",
        {
            "corpus": "shared/corpus/pmc (all pairs; dev and test alike: speed is not fitted)",
            "files": len(pdfs),
            "pages": sum(pages.values()),
            "dpi": args.dpi,
            "runs": args.runs,
            "sample_files": sorted(p.name for p in sample),
            "sample_pages": sum(pages[p] for p in sample),
            "pymupdf4llm": f"{getattr(pymupdf4llm, 'VERSION', '?')}, to_markdown(use_ocr=False), default layout mode",
            "per_run": runs,
            "median": median,
            "ratio_app_over_pymupdf4llm_cpu": ratio_cpu,
            "ratio_app_over_pymupdf4llm_wall": ratio_wall,
        },
    )


if __name__ == "__main__":
    main()
