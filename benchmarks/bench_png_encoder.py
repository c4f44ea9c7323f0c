"""PNG encoders for figure crops: which one keeps exporting fast.

Renders a few whole pages of real papers at the crop resolution (150 dpi, no alpha, as render_visuals does)
and encodes each pixmap with every candidate; prints median CPU and wall seconds over the runs, the total
size, and checks that every candidate decodes to the same pixels.

    nice -n 10 .venv/bin/python benchmarks/bench_png_encoder.py --runs 5
"""

from __future__ import annotations

import argparse
import io
import statistics
import struct
import time
import zlib
from collections.abc import Callable
from pathlib import Path

import pymupdf
from _corpus import CORPUS
from PIL import Image


def handwritten_level1(pixmap: pymupdf.Pixmap) -> bytes:
    """The encoder document/pdf.py had before (unfiltered scanlines, zlib level 1), kept here as the baseline."""
    width, height, channels, stride = pixmap.width, pixmap.height, pixmap.n, pixmap.stride
    samples = pixmap.samples
    row = width * channels
    scanlines = b"".join(b"\x00" + samples[y * stride : y * stride + row] for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0 if channels == 1 else 2, 0, 0, 0)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return b"".join((b"\x89PNG\r\n\x1a\n", chunk(b"IHDR", header), chunk(b"IDAT", zlib.compress(scanlines, 1)),
                     chunk(b"IEND", b"")))


def mupdf_default(pixmap: pymupdf.Pixmap) -> bytes:
    return pixmap.tobytes("png")


def pillow(level: int) -> Callable[[pymupdf.Pixmap], bytes]:
    def encode(pixmap: pymupdf.Pixmap) -> bytes:
        mode = "L" if pixmap.n == 1 else "RGB"
        image = Image.frombuffer(mode, (pixmap.width, pixmap.height), pixmap.samples_mv, "raw", mode, pixmap.stride, 1)
        out = io.BytesIO()
        image.save(out, format="PNG", compress_level=level)
        return out.getvalue()

    return encode


ENCODERS: dict[str, Callable[[pymupdf.Pixmap], bytes]] = {
    "handwritten zlib 1": handwritten_level1,
    "mupdf tobytes('png')": mupdf_default,
    "pillow compress_level=1": pillow(1),
    "pillow compress_level=6": pillow(6),
}


def render_pages(papers: list[Path], pages_per_paper: int, dpi: int) -> list[pymupdf.Pixmap]:
    pixmaps = []
    zoom = dpi / 72
    for path in papers:
        with pymupdf.open(path) as pdf:
            for number in range(min(pages_per_paper, pdf.page_count)):
                pixmaps.append(pdf.load_page(number).get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False))
    return pixmaps


def pixels(png: bytes) -> bytes:
    with Image.open(io.BytesIO(png)) as image:
        return image.convert("RGB").tobytes()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--dpi", type=int, default=150)
    parser.add_argument("--papers", type=int, default=2)
    parser.add_argument("--pages", type=int, default=3, help="pages rendered per paper")
    args = parser.parse_args()
    papers = sorted((CORPUS / "pmc").glob("*.pdf"))[: args.papers]
    pixmaps = render_pages(papers, args.pages, args.dpi)
    megapixels = sum(p.width * p.height for p in pixmaps) / 1e6
    print(f"{len(pixmaps)} pages of {len(papers)} papers at {args.dpi} dpi, {megapixels:.1f} megapixels")
    reference = [pixels(handwritten_level1(p)) for p in pixmaps]
    for name, encode in ENCODERS.items():
        cpu, wall = [], []
        for _ in range(args.runs):
            c0, w0 = time.process_time(), time.perf_counter()
            encoded = [encode(p) for p in pixmaps]
            cpu.append(time.process_time() - c0)
            wall.append(time.perf_counter() - w0)
        same = all(pixels(png) == want for png, want in zip(encoded, reference, strict=True))
        size = sum(len(png) for png in encoded) / 1e6
        print(f"{name:26s} cpu {statistics.median(cpu):6.3f} s  wall {statistics.median(wall):6.3f} s  "
              f"{size:6.2f} MB  same pixels: {same}")


if __name__ == "__main__":
    main()
