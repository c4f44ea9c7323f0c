"""OCR speed: seconds per figure crop with RapidOCR (2 threads, cache off), median of 5 runs.

Crops are the ground-truth pictures of the docling corpus PDFs, rendered with PyMuPDF at 150 dpi
(``page.get_pixmap(clip=...)``); a whole page scaled to 100 dpi is timed too (scanned-page OCR).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import pymupdf
from _corpus import GROUNDTRUTH, PAPERS, write_result

from mmdocsum_desktop.models.ocr import OcrEngine, ocr_page_image


def figure_crops(dpi: int, limit: int, min_side_pt: float = 60.0) -> list[tuple[str, bytes, tuple[int, int]]]:
    crops = []
    for truth_path in sorted(GROUNDTRUTH.glob("*.json")):
        pdf_path = PAPERS / f"docling_{truth_path.stem}.pdf"
        if not pdf_path.exists():
            continue
        truth = json.loads(truth_path.read_text())
        with pymupdf.open(pdf_path) as pdf:
            for number, picture in enumerate(truth.get("pictures", [])):
                prov = picture["prov"][0]
                page = pdf[prov["page_no"] - 1]
                box = prov["bbox"]
                height = page.rect.height
                rect = pymupdf.Rect(box["l"], height - box["t"], box["r"], height - box["b"])
                if rect.width < min_side_pt or rect.height < min_side_pt:
                    continue  # icons and logos
                pixmap = page.get_pixmap(dpi=dpi, clip=rect)
                crops.append(
                    (f"{pdf_path.stem}#{number}", pixmap.tobytes("png"), (pixmap.width, pixmap.height))
                )
    return crops[:limit]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--dpi", type=int, default=150)
    parser.add_argument("--crops", type=int, default=12)
    args = parser.parse_args()

    crops = figure_crops(args.dpi, args.crops)
    started = time.perf_counter()
    engine = OcrEngine(cache=False, intra_op_threads=args.threads)
    load_s = time.perf_counter() - started
    engine.read(crops[0][1])  # warm-up

    per_run, cpu_per_run = [], []
    load_before = os.getloadavg()[0]
    per_crop: dict[str, list[float]] = {name: [] for name, _, _ in crops}
    lines: dict[str, int] = {}
    for _ in range(args.runs):
        run_started, cpu_started = time.perf_counter(), time.process_time()
        for name, png, _size in crops:
            started = time.perf_counter()
            result = engine.read(png)
            per_crop[name].append(time.perf_counter() - started)
            lines[name] = len(result.lines)
        per_run.append((time.perf_counter() - run_started) / len(crops))
        cpu_per_run.append((time.process_time() - cpu_started) / len(crops))

    with pymupdf.open(PAPERS / "docling_normal_4pages.pdf") as pdf:
        page_png = pdf[0].get_pixmap(dpi=100).tobytes("png")
    page_seconds = []
    for _ in range(args.runs):
        started = time.perf_counter()
        page_result = ocr_page_image(page_png, engine=engine)
        page_seconds.append(time.perf_counter() - started)

    median = statistics.median(per_run)
    result = {
        "engine": engine.engine_id,
        "intra_op_threads": args.threads,
        "dpi": args.dpi,
        "crops": len(crops),
        "crop_sizes": {name: list(size) for name, _, size in crops},
        "lines_found": lines,
        "seconds_per_crop_runs": [round(s, 3) for s in per_run],
        "median_seconds_per_crop": round(median, 3),
        "median_seconds_by_crop": {name: round(statistics.median(v), 3) for name, v in per_crop.items()},
        "page_100dpi_median_s": round(statistics.median(page_seconds), 3),
        "page_100dpi_lines": len(page_result.lines),
        "engine_load_s": round(load_s, 3),
        "median_cpu_seconds_per_crop": round(statistics.median(cpu_per_run), 3),
        "load_average_before": round(load_before, 2),
        "load_average_after": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
    }
    path = write_result("bench_ocr", result)
    print(
        f"{len(crops)} figure crops at {args.dpi} dpi, {args.threads} threads: median {median:.3f} s per crop; "
        f"a whole page at 100 dpi: {result['page_100dpi_median_s']:.2f} s ({len(page_result.lines)} lines); "
        f"{result['median_cpu_seconds_per_crop']:.3f} CPU-s per crop; load average {load_before:.1f}; written {path}"
    )


if __name__ == "__main__":
    main()
