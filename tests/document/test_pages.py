"""The page service (document/pages.py): a committed paper's pages rendered and its words read under the
PyMuPDF lock, the same from two threads at once as from one, and the window's import of it loads no
PyMuPDF."""

from __future__ import annotations

import io
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

from PIL import Image

from mmdocsum_desktop.document.mupdf import MUPDF_LOCK
from mmdocsum_desktop.document.pages import PdfPages, page_words
from tests.conftest import DATA_PAPERS, REPO_ROOT

PAPER = DATA_PAPERS / "PMC2803133.pdf"  # four tables of values; its JATS beside it
ZOOM = 0.6


def _pngs(pdf: PdfPages, pages: range) -> list[bytes]:
    return [pdf.render(page, ZOOM, png=True).png or b"" for page in pages]


def test_pages_rendered_from_two_threads_are_the_pages_rendered_from_one():
    with PdfPages(PAPER) as pdf:
        pages = range(min(3, pdf.page_count))
        alone = _pngs(pdf, pages)
        words_alone = [pdf.words(page) for page in pages]
        with ThreadPoolExecutor(max_workers=2) as pool:  # one document, two threads in it at once
            rendering = [pool.submit(_pngs, pdf, pages) for _ in range(3)]
            reading = [pool.submit(lambda: [pdf.words(page) for page in pages]) for _ in range(3)]
            assert all(future.result() == alone for future in rendering)
            assert all(future.result() == words_alone for future in reading)
    assert all(png.startswith(b"\x89PNG") for png in alone)
    assert len(set(alone)) == len(alone)  # different pages, different pictures


def test_a_render_waits_for_the_lock_and_its_pixels_are_its_png():
    with PdfPages(PAPER) as pdf:
        done = threading.Event()
        result = {}

        def render() -> None:
            result["pixels"] = pdf.render(0, ZOOM, png=True)
            done.set()

        with MUPDF_LOCK:  # another thread is in PyMuPDF: the render does not start
            worker = threading.Thread(target=render)
            worker.start()
            assert not done.wait(0.3)
        worker.join(60)
        pixels = result["pixels"]
        width, height = pdf.sizes[0]
    assert abs(pixels.width - width * ZOOM) <= 1 and abs(pixels.height - height * ZOOM) <= 1  # MuPDF rounds out
    assert pixels.stride == 3 * pixels.width  # RGB, no alpha
    with Image.open(io.BytesIO(pixels.png)) as image:
        assert image.mode == "RGB" and image.size == (pixels.width, pixels.height)
        assert image.tobytes() == pixels.samples


def test_a_region_has_the_words_inside_it_and_a_gray_clip_one_byte_a_pixel():
    with PdfPages(PAPER) as pdf:
        width, height = pdf.sizes[0]
        top_half = pdf.clip(0, (-50.0, -50.0, width + 50, height / 2))
        assert top_half == (0.0, 0.0, width, height / 2)  # cut to the page
        assert pdf.clip(0, (width + 10, 0.0, width + 90, 40.0)) is None  # off the page
        every = pdf.words(0)
        inside = pdf.words(0, clip=top_half)
        assert 0 < len(inside) < len(every)
        assert all(word[1] < height / 2 for word in inside)
        gray = pdf.render(0, clip=top_half, dpi=18, gray=True)
        assert gray.stride == gray.width and len(gray.samples) == gray.width * gray.height
        assert abs(gray.width - width * 18 / 72) <= 1


def test_words_of_several_pages_in_one_go_leave_out_pages_past_the_end():
    with PdfPages(PAPER) as pdf:
        count, first = pdf.page_count, pdf.words(0)
    found = page_words(PAPER, [0, 0, count - 1, count, -1])
    assert sorted(found) == [0, count - 1]
    assert found[0] == first


def test_the_page_service_loads_no_pymupdf_until_a_pdf_is_opened():
    code = ("import sys; import mmdocsum_desktop.app.pages as pages; print('pymupdf' in sys.modules); "
            f"pages.PdfPages({str(PAPER)!r}).close(); print('pymupdf' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert result.stdout.split() == ["False", "True"], result.stderr[-2000:]
