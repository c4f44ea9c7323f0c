"""The limits that contain hostile documents, each with a clear message or a warning: file size (PDF and
the text formats), page count, image pixels (decompression bombs, figure crops, pages rendered for OCR)
and memory (hostile files read in a process with a bounded address space)."""

from __future__ import annotations

import io
import struct
import subprocess
import sys
import textwrap
import zlib

import pymupdf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from mmdocsum_desktop.document.limits import DEFAULT_LIMITS, ReadLimits, configure_pillow
from mmdocsum_desktop.document.pdf import _dpi_within_limit, _rendered_pixels
from mmdocsum_desktop.document.reader import export_document, read_document
from mmdocsum_desktop.document.scanned import OCR_MAX_PIXELS
from mmdocsum_desktop.errors import DocumentTooLargeError, ImageTooLargeError
from tests.conftest import DATA_PAPERS, REPO_ROOT, SAMPLE_PDF
from tests.fuzzing import ARTICLES


def _png_claiming(width: int, height: int) -> bytes:
    """A valid PNG header announcing ``width`` x ``height`` pixels, with almost no pixel data behind it."""

    def chunk(kind: bytes, payload: bytes) -> bytes:
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b"")


@pytest.fixture
def pillow_limit_restored():
    """Reading with small limits lowers Pillow's process-wide pixel limit; later tests need the default."""
    yield
    configure_pillow(DEFAULT_LIMITS)


# ------------------------------------------------------------------------------------ size limits


def test_article_formats_have_their_own_size_limit(tmp_path):
    path = tmp_path / "article.md"  # 60 kB of Markdown (PMC4521097)
    path.write_bytes((ARTICLES / "PMC4521097.md").read_bytes())
    with pytest.raises(DocumentTooLargeError, match="for HTML, Markdown and JATS files") as caught:
        read_document(path, limits=ReadLimits(max_text_bytes=1000))
    assert "\n" not in str(caught.value)
    assert read_document(path, limits=ReadLimits(max_text_bytes=10**6)).blocks
    assert ReadLimits().max_text_bytes == 128 * 1024**2
    # PDFs are not held as text: only max_file_bytes applies to them
    assert read_document(SAMPLE_PDF, limits=ReadLimits(max_text_bytes=1000)).blocks


def test_pdf_page_and_file_size_limits(tmp_path):
    with pytest.raises(DocumentTooLargeError, match="14 pages is over the limit of 13"):
        read_document(SAMPLE_PDF, limits=ReadLimits(max_pages=13))
    assert read_document(SAMPLE_PDF, limits=ReadLimits(max_pages=14)).page_count == 14
    with pytest.raises(DocumentTooLargeError, match="over the limit of"):
        read_document(SAMPLE_PDF, limits=ReadLimits(max_file_bytes=1000))


# ---------------------------------------------------------------------------------- pixel limits


@pytest.mark.parametrize("kind", ["md", "html"])
def test_decompression_bomb_image_is_skipped_with_a_warning(tmp_path, kind):
    (tmp_path / "bomb.png").write_bytes(_png_claiming(60_000, 60_000))  # 3.6 gigapixels
    page = tmp_path / f"page.{kind}"
    if kind == "md":
        page.write_text("Text of the page.\n\n![Figure 1: a bomb](bomb.png)\n\nFigure 1: a bomb\n")
    else:
        page.write_text('<html><body><p>Text.</p><figure><img src="bomb.png"><figcaption>Figure 1: a bomb'
                        "</figcaption></figure></body></html>")
    document = read_document(page)
    export_document(document, tmp_path / "out")
    assert document.figures[0].image is None
    assert any(w.startswith("fig1: image bomb.png was skipped: over the limit") for w in document.warnings)
    assert not list((tmp_path / "out" / "figures").iterdir())


def test_image_pixel_limit_is_configurable(tmp_path, pillow_limit_restored):
    Image.new("RGB", (200, 100), "white").save(tmp_path / "plot.png")
    page = tmp_path / "page.md"
    page.write_text("Text.\n\n![plot](plot.png)\n\nFigure 1: a plot\n")
    small = ReadLimits(max_image_pixels=10_000)
    document = read_document(page, limits=small)
    export_document(document, tmp_path / "small", limits=small)
    assert document.figures[0].image is None
    assert any(w.startswith("fig1: image plot.png was skipped: over the limit of 10,000 pixels")
               for w in document.warnings)
    document = read_document(page)
    export_document(document, tmp_path / "default")
    assert document.figures[0].image == "figures/fig1.png"


def test_pdf_crops_are_rendered_under_the_pixel_limit(tmp_path, pillow_limit_restored):
    limits = ReadLimits(max_render_pixels=40_000)  # crops have their own budget (issue 28)
    document = read_document(DATA_PAPERS / "PMC2803133.pdf", limits=limits)
    export_document(document, tmp_path, dpi=300, limits=limits)
    configure_pillow(DEFAULT_LIMITS)  # to open the crops here
    rendered = [visual for visual in document.visuals if visual.image]
    assert rendered
    for visual in rendered:
        with Image.open(tmp_path / visual.image) as image:
            assert image.width * image.height <= limits.max_render_pixels
    assert any("to stay under the pixel limit" in warning for warning in document.warnings)


def test_scanned_poster_page_is_rendered_for_ocr_under_the_pixel_limit(tmp_path):
    side = 14_400  # points: 200 inches, the largest page PDF allows; 40000 x 40000 pixels at 200 dpi
    pdf = pymupdf.open()
    page = pdf.new_page(width=side, height=side)
    page.insert_image(pymupdf.Rect(0, 0, side, side), stream=_small_png())
    pdf.save(tmp_path / "poster.pdf")
    seen: list[tuple[int, int]] = []

    def ocr(png: bytes) -> list[tuple[str, tuple[float, float, float, float]]]:
        with Image.open(io.BytesIO(png)) as image:
            seen.append(image.size)
        return [("A poster line of recognised text, long enough to count as a text layer.", (10, 10, 900, 40))]

    document = read_document(tmp_path / "poster.pdf", ocr=ocr)
    assert seen and seen[0][0] * seen[0][1] <= OCR_MAX_PIXELS
    assert "poster line" in document.body_text()
    assert any("read by OCR at" in warning for warning in document.warnings)


def _small_png() -> bytes:
    buffer = io.BytesIO()
    Image.new("L", (64, 64), 200).save(buffer, format="PNG")
    return buffer.getvalue()


def test_engine_refuses_a_bomb_image_with_a_clear_error(tmp_path):
    from mmdocsum_desktop.engines.base import encode_image

    bomb = tmp_path / "bomb.png"
    bomb.write_bytes(_png_claiming(60_000, 60_000))
    with pytest.raises(ImageTooLargeError, match="bomb.png"):
        encode_image(bomb, 448)


# ------------------------------------------------------------------------------------------ memory


def test_hostile_documents_are_read_within_a_bounded_address_space(tmp_path):
    """Deep nesting, an entity bomb and oversized markup, each read by a process that may not grow
    past 3 GiB of address space (the imports alone take about 0.8 GiB)."""
    script = textwrap.dedent(f"""
        import resource
        from pathlib import Path
        resource.setrlimit(resource.RLIMIT_AS, (3 * 1024**3, 3 * 1024**3))
        from mmdocsum_desktop.document.reader import read_document
        folder = Path({str(tmp_path)!r})
        bomb = '<!DOCTYPE article [<!ENTITY e0 "laugh">' + ''.join(
            f'<!ENTITY e{{n}} "{{("&e" + str(n - 1) + ";") * 10}}">' for n in range(1, 12)) + ']>'
        cases = {{
            "divs.html": "<html><body>" + "<div>" * 100_000 + "x",
            "attribute.html": '<html><body><p title="' + "a" * 30_000_000 + '">x</p>',
            "bomb.nxml": bomb + "<article><body><p>&e11;</p></body></article>",
            "sections.nxml": "<article><body>" + "<sec><p>x</p>" * 100_000,
            "quotes.md": "> " * 1_000_000,
        }}
        for name, text in cases.items():
            (folder / name).write_text(text)
            read_document(folder / name)
        print("read", len(cases))
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                            cwd=REPO_ROOT)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "read 5"


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(x0=st.floats(0, 14_000), y0=st.floats(0, 14_000), width=st.floats(0.5, 14_400), height=st.floats(0.5, 14_400),
       dpi=st.integers(36, 600), max_pixels=st.integers(1, 300_000_000))
def test_crop_resolution_keeps_the_pixmap_under_the_limit(x0, y0, width, height, dpi, max_pixels):
    clip = pymupdf.Rect(x0, y0, x0 + width, y0 + height)
    chosen = _dpi_within_limit(clip, dpi, max_pixels)
    assert 0 <= chosen <= dpi
    if chosen:
        assert _rendered_pixels(clip, chosen) <= max_pixels
    if _rendered_pixels(clip, dpi) <= max_pixels:
        assert chosen == dpi
