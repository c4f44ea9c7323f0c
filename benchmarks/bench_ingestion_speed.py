"""Ingestion speed over the real papers: pages per second including figure rendering, and peak memory.

Each run reads every paper and writes document.json plus all crops at 150 dpi; the median of the runs
is reported. Peak memory is the process's maximum resident set size (MuPDF allocates outside Python).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import tempfile
import time
from pathlib import Path

from _corpus import PAPERS, write_result

from mmdocsum_desktop.document.reader import export_document, read_document


def one_run(papers: list[Path], dpi: int) -> tuple[float, int, dict[str, float]]:
    pages = 0
    per_file: dict[str, float] = {}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for pdf in papers:
            t0 = time.perf_counter()
            document = read_document(pdf)
            export_document(document, Path(tmp) / pdf.stem, dpi=dpi)
            per_file[pdf.name] = time.perf_counter() - t0
            pages += document.page_count or 0
    return time.perf_counter() - started, pages, per_file


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--dpi", type=int, default=150)
    args = parser.parse_args()
    papers = sorted(PAPERS.glob("*.pdf"))
    one_run(papers[:1], args.dpi)  # warm-up: font loading and imports are not per-page costs
    rates, seconds = [], []
    pages = 0
    for run in range(args.runs):
        elapsed, pages, per_file = one_run(papers, args.dpi)
        rates.append(pages / elapsed)
        seconds.append(elapsed)
        print(f"run {run + 1}: {pages} pages in {elapsed:.2f} s = {pages / elapsed:.1f} pages/s")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    median_rate = statistics.median(rates)
    print(f"median {median_rate:.1f} pages/s over {len(papers)} papers ({pages} pages), peak RSS {peak_mb:.0f} MB")
    write_result(
        "ingestion_speed",
        {
            "pages": pages,
            "files": len(papers),
            "dpi": args.dpi,
            "runs_seconds": seconds,
            "median_pages_per_second": median_rate,
            "peak_rss_mb": peak_mb,
            "last_run_seconds_per_file": per_file,
        },
    )


if __name__ == "__main__":
    main()
