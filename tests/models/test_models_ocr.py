"""RapidOCR for real on images rendered here with known words; bad images give clear errors."""

from __future__ import annotations

import io
import struct
import time
import zlib

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont  # noqa: E402

from mmdocsum_desktop.errors import CorruptImageError, ImageTooLargeError, InputNotFoundError, MmdocsumError
from mmdocsum_desktop.models.cache import ContentCache
from mmdocsum_desktop.models.ocr import OcrEngine, OcrResult, decode_image, ocr_page_image  # noqa: E402


def render(lines: list[str], size=(640, 220), font_size=36) -> Image.Image:
    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=font_size)
    for row, text in enumerate(lines):
        draw.text((24, 24 + row * (font_size + 40)), text, fill="black", font=font)
    return image


def png_bytes(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


@pytest.fixture(scope="module")
def engine():
    return OcrEngine(cache=False)


@pytest.fixture(scope="module")
def figure_png():
    return png_bytes(render(["Accuracy", "Epoch 10"]))


def test_reads_known_words(engine, figure_png, tmp_path):
    result = engine.read(figure_png)
    assert isinstance(result, OcrResult) and not result.cached
    texts = [line.text for line in result.lines]
    assert any("accuracy" in t.lower() for t in texts), texts
    assert any("epoch 10" in t.lower() for t in texts), texts
    assert "Accuracy" in result.text and "\n" in result.text
    for _text, box, confidence in result:
        assert 0.5 <= confidence <= 1.0
        assert len(box) == 4
        assert all(0 <= x <= result.width and 0 <= y <= result.height for x, y in box)
    # reading order: "Accuracy" above "Epoch 10"
    assert result.lines[0].bbox[1] < result.lines[-1].bbox[1]

    # a path, the bytes and an RGBA array of the same picture reach RapidOCR as the same pixels
    path = tmp_path / "figure.png"
    path.write_bytes(figure_png)
    pixels, key = engine._load(figure_png)
    assert np.array_equal(engine._load(path)[0], pixels) and engine._load(path)[1] == key
    rgba = np.asarray(Image.open(io.BytesIO(figure_png)).convert("RGBA"))
    assert np.array_equal(engine._load(rgba)[0], pixels)


def test_results_are_cached_by_image_bytes(engine, figure_png, tmp_path):
    runs = engine.runs
    engine.cache = ContentCache(tmp_path / "ocr.sqlite")
    try:
        first = engine.read(figure_png)
        assert engine.runs == runs + 1
        started = time.perf_counter()
        second = engine.read(figure_png)
        assert time.perf_counter() - started < 0.5
        assert engine.runs == runs + 1 and second.cached
        assert second.lines == first.lines
        # the cache persists: reopened from the file, it still answers without running OCR
        engine.cache = ContentCache(tmp_path / "ocr.sqlite")
        assert engine.read(figure_png).lines == first.lines and engine.runs == runs + 1
        # another picture is a miss
        engine.read(png_bytes(render(["Loss"])))
        assert engine.runs == runs + 2
    finally:
        engine.cache = None


def test_blank_image_has_no_text(engine):
    result = engine.read(np.full((120, 300, 3), 255, dtype=np.uint8))
    assert result.lines == () and result.text == ""


def test_corrupt_and_truncated_images(engine, figure_png, tmp_path):
    with pytest.raises(CorruptImageError):
        engine.read(b"\x89PNG\r\n\x1a\n" + b"\x00" * 50)
    with pytest.raises(CorruptImageError):
        engine.read(figure_png[: len(figure_png) // 2])
    with pytest.raises(CorruptImageError):
        engine.read(b"plain text, not an image")
    with pytest.raises(CorruptImageError):
        engine.read(np.zeros((10, 10), dtype=np.float64))
    with pytest.raises(InputNotFoundError):
        engine.read(tmp_path / "absent.png")


def _png_bomb(width: int, height: int) -> bytes:
    """A real, valid 1-bit PNG of width x height pixels, all zero: tiny on disk, huge when decoded."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    row = b"\x00" * (1 + (width + 7) // 8)
    compressor = zlib.compressobj(9)
    parts = [compressor.compress(row * 1000) for _ in range(height // 1000)]
    parts.append(compressor.flush())
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", b"".join(parts)) + chunk(b"IEND", b"")
    )


def test_decompression_bomb_is_refused_before_decoding(engine):
    bomb = _png_bomb(40000, 40000)
    assert len(bomb) < 1_000_000
    started = time.perf_counter()
    with pytest.raises(ImageTooLargeError, match="too large"):
        engine.read(bomb)
    assert time.perf_counter() - started < 2.0
    assert issubclass(ImageTooLargeError, MmdocsumError)
    with pytest.raises(ImageTooLargeError, match="300x300"):
        decode_image(png_bytes(Image.new("L", (300, 300))), max_pixels=80_000)
    limit = engine.max_pixels
    engine.max_pixels = 1000
    try:
        with pytest.raises(ImageTooLargeError, match="100x100"):
            engine.read(np.zeros((100, 100, 3), dtype=np.uint8))
    finally:
        engine.max_pixels = limit


def test_ocr_page_image_on_a_rendered_pdf_page(engine):
    import pymupdf as fitz
    document = fitz.open()
    page = document.new_page(width=595, height=420)
    page.insert_text((72, 100), "Scanned Report", fontsize=28)
    page.insert_text((72, 180), "Figure 3 shows the validation loss", fontsize=18)
    png = page.get_pixmap(dpi=110).tobytes("png")
    result = ocr_page_image(png, engine=engine)
    text = result.text.lower()
    assert "scanned report" in text
    assert "validation loss" in text
