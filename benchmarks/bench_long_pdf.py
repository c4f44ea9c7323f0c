"""A 2,000-page PDF end to end through `mmdocsum extract`: seconds, pages/s and peak memory (bounded?)."""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pymupdf
from _corpus import write_result

PROSE = "Running text of a very long report, repeated to fill the body of every page. " * 14


def build(path: Path, pages: int) -> None:
    pdf = pymupdf.open()
    for number in range(pages):
        page = pdf.new_page()
        page.insert_text((72, 72), f"{number + 1} Section", fontsize=14)
        page.insert_textbox(pymupdf.Rect(72, 90, 540, 400), PROSE, fontsize=10)
        if number % 10 == 0:
            page.draw_rect(pymupdf.Rect(100, 420, 500, 640), color=(0, 0, 0))
            page.draw_polyline([(100, 640), (200, 500), (300, 560), (500, 430)], color=(0, 0, 1))
            page.insert_text((100, 660), f"Figure {number // 10 + 1}: Progress of section {number + 1}.", fontsize=9)
    pdf.save(path)


def main(pages: int = 2000) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "long.pdf"
        build(path, pages)
        started = time.perf_counter()
        result = subprocess.run(
            [sys.executable, "-m", "mmdocsum_desktop", "extract", str(path), "-o", str(Path(tmp) / "out"), "--quiet"],
            capture_output=True,
            text=True,
        )
        seconds = time.perf_counter() - started
        if result.returncode != 0:
            raise SystemExit(result.stderr)
        figures = len(list((Path(tmp) / "out" / "figures").glob("*.png")))
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"{pages} pages, {figures} figures in {seconds:.1f} s = {pages / seconds:.1f} pages/s; peak RSS {peak_mb:.0f} MB")
    write_result("long_pdf", {"pages": pages, "figures": figures, "seconds": seconds, "peak_rss_mb": peak_mb})


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
