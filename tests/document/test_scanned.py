"""Scanned PDFs read with the real RapidOCR: text, captions and figure regions as on the born-digital
original, sideways scans, mixed documents, progress and cancel, and bad scans.

Scans are made here from committed PDFs (tests/data) (pages rendered to images on image-only PDFs), one page at 150 dpi
where a real paper is needed, small pages of typed text elsewhere: OCR costs seconds a page. One OCR engine
with an in-memory cache serves the module, so a page image recognised once is not recognised again.
"""

from __future__ import annotations

import pymupdf
import pytest

from mmdocsum_desktop.document.figures import PageRegions
from mmdocsum_desktop.document.limits import ReadLimits
from mmdocsum_desktop.document.pdf_layout import intersection_area
from mmdocsum_desktop.document.reader import read_document
from mmdocsum_desktop.document.recognised import scan_notes
from mmdocsum_desktop.document.scanned import ScannedPage, scan_copy, scanned_summary
from mmdocsum_desktop.errors import JobCancelled, ModelError, ScannedDocumentError
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.models.cache import ContentCache
from mmdocsum_desktop.models.ocr import OcrEngine, page_reader
from tests.conftest import DATA_PAPERS

PAPER = DATA_PAPERS / "PMC2803133.pdf"
FIGURE_PAGE = 3  # 0-based: "Fig. 1" (a chromatogram) above "Table 1"

TEXT = (
    "Results of the trial. The treated group lost weight over seven weeks while the control group did not. "
    "Serum cholesterol fell by a third in the treated rats."
)


@pytest.fixture(scope="module")
def engine():
    return OcrEngine(cache=ContentCache(":memory:"))


@pytest.fixture(scope="module")
def original():
    return read_document(PAPER)


@pytest.fixture(scope="module")
def scanned_page(tmp_path_factory):
    return scan_copy(PAPER, tmp_path_factory.mktemp("scan") / "scan.pdf", dpi=150, pages=[FIGURE_PAGE])


def typed_pages(path, texts: list[str], *, dpi: int = 150, size: float = 11, width: float = 300, height: float = 200):
    """Small pages of typed text, scanned at ``dpi`` onto an image-only PDF (cheap to recognise)."""
    with pymupdf.open() as source:
        for text in texts:
            page = source.new_page(width=width, height=height)
            page.insert_textbox(pymupdf.Rect(20, 20, width - 20, height - 20), text, fontsize=size)
        source.save(path.with_suffix(".text.pdf"))
    return scan_copy(path.with_suffix(".text.pdf"), path, dpi=dpi)


def overlap(a, b) -> float:
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return intersection_area(a, b) / smaller


@pytest.mark.slow  # OCR of a whole page of a paper: about 25 s on two cores
def test_a_scanned_page_gives_text_captions_and_figure_region_like_the_original(engine, original, scanned_page):
    document = read_document(scanned_page, ocr=page_reader(engine))
    assert document.blocks and all(block.ocr for block in document.blocks)
    assert any("scanned page(s) read with OCR" in warning for warning in document.warnings)
    born = {v.label: v for v in original.visuals if v.page == FIGURE_PAGE + 1}
    found = {v.label: v for v in document.visuals}
    assert {"Figure 1", "Table 1"} <= set(born) and "Figure 1" in found
    assert found["Figure 1"].caption_block is not None and "chromatogram" in found["Figure 1"].caption.lower()
    # the region is the chromatogram's own area of the page, as on the born-digital page
    assert overlap(found["Figure 1"].bbox, born["Figure 1"].bbox) > 0.85
    text = " ".join(block.text for block in document.blocks).lower()
    assert "essential oil" in text and "table 1" in text


@pytest.mark.slow  # OCR of a whole page of a paper, turned: about 35 s on two cores
def test_a_sideways_scan_is_read_upright_and_mapped_back_to_the_page(engine, original, tmp_path):
    sideways = scan_copy(PAPER, tmp_path / "sideways.pdf", dpi=150, pages=[FIGURE_PAGE], quarter_turns=1)
    document = read_document(sideways, ocr=page_reader(engine))
    assert any("read turned upright" in warning for warning in document.warnings)
    figure = next(v for v in document.visuals if v.label == "Figure 1")
    assert "chromatogram" in figure.caption.lower()
    # the page is landscape now: the figure sits on its left (the top of the upright page turned left)
    width = document.page_sizes[0][0]
    assert figure.bbox[2] < 0.5 * width and figure.bbox[3] - figure.bbox[1] > figure.bbox[2] - figure.bbox[0]


def test_a_mixed_document_reads_its_text_layer_and_ocrs_only_its_scanned_page(engine, tmp_path):
    mixed = scan_copy(PAPER, tmp_path / "mixed.pdf", dpi=150, pages=[0, FIGURE_PAGE], only=[FIGURE_PAGE])
    runs = engine.runs
    document = read_document(mixed, ocr=page_reader(engine))
    assert engine.runs - runs <= 1  # one scanned page (none when the earlier test recognised it already)
    by_page = {page: [b.ocr for b in document.blocks if b.page == page] for page in (1, 2)}
    assert by_page[1] and not any(by_page[1])
    assert by_page[2] and all(by_page[2])
    assert any(v.label == "Figure 1" and v.page == 2 for v in document.visuals)
    assert any("1 scanned page(s)" in warning for warning in document.warnings)


def test_progress_names_each_ocr_page_and_cancel_stops_between_pages(engine, tmp_path):
    scan = typed_pages(tmp_path / "three.pdf", [TEXT, "Second page. " + TEXT, "Third page. " + TEXT])
    seen: list[str] = []
    control = JobControl(on_progress=lambda done, total, what: seen.append(what))
    document = read_document(scan, ocr=page_reader(engine), control=control)
    assert [w for w in seen if w.startswith("OCR page")] == ["OCR page 1", "OCR page 2", "OCR page 3"]
    assert "cholesterol" in " ".join(b.text for b in document.blocks).lower()

    runs = engine.runs
    stopping = JobControl()

    def stop_at_second(done: int, total: int, what: str) -> None:
        if what == "OCR page 2":
            stopping.cancel()

    stopping.on_progress = stop_at_second
    fresh = typed_pages(tmp_path / "other.pdf", ["Another text. " + TEXT, "More. " + TEXT, "End. " + TEXT])
    with pytest.raises(JobCancelled):
        read_document(fresh, ocr=page_reader(engine), control=stopping)
    assert engine.runs - runs == 1  # the first page only


def test_no_ocr_refuses_a_scan_and_says_how_to_get_it_read(scanned_page):
    with pytest.raises(ScannedDocumentError) as raised:
        read_document(scanned_page, ocr=None)
    message = str(raised.value)
    assert "no text layer" in message and "without --no-ocr" in message and "\n" not in message


def test_a_blank_scan_says_ocr_found_no_text(engine, tmp_path):
    blank = typed_pages(tmp_path / "blank.pdf", ["", ""])
    with pytest.raises(ScannedDocumentError, match="OCR found no text on its 2 scanned page"):
        read_document(blank, ocr=page_reader(engine))


def test_a_72_dpi_scan_is_read_with_a_warning(engine, tmp_path):
    coarse = typed_pages(tmp_path / "coarse.pdf", [TEXT[:90]], dpi=72, size=16)
    document = read_document(coarse, ocr=page_reader(engine))
    assert any("scanned at about 72 dpi" in warning for warning in document.warnings)
    assert document.blocks


def test_a_page_image_over_the_pixel_limit_is_skipped_and_the_rest_read(engine, tmp_path):
    # the 20,000 x 20,000 case, scaled down: a 1,500 px square scan against a 1 Mpx limit
    mixed = scan_copy(PAPER, tmp_path / "mixed.pdf", dpi=150, pages=[0, FIGURE_PAGE], only=[FIGURE_PAGE])
    limits = ReadLimits(max_image_pixels=1_000_000)
    document = read_document(mixed, ocr=page_reader(engine), limits=limits)
    assert document.blocks and all(b.page == 1 for b in document.blocks)
    assert any(w.startswith("page 2: scanned page not read") and "over the limit" in w for w in document.warnings)


def test_a_missing_or_corrupt_ocr_model_is_a_clear_error_and_text_pages_still_read(tmp_path, scanned_page):
    corrupt = tmp_path / "det.onnx"
    corrupt.write_bytes(b"not an onnx model")
    for paths in ({"det": tmp_path / "missing.onnx"}, {"det": corrupt}):
        with pytest.raises(ModelError, match="OCR models cannot be loaded.*reinstall"):
            OcrEngine(cache=False, model_paths=paths)

    def broken():
        return OcrEngine(cache=False, model_paths={"det": corrupt})

    mixed = scan_copy(PAPER, tmp_path / "mixed.pdf", dpi=150, pages=[0, FIGURE_PAGE], only=[FIGURE_PAGE])
    document = read_document(mixed, ocr=page_reader(engine_factory=broken))
    assert document.blocks and all(b.page == 1 for b in document.blocks)
    assert any(w.startswith("page 2: scanned page not read: the OCR models cannot be loaded") for w in document.warnings)
    with pytest.raises(ScannedDocumentError, match="could not be read with OCR: the OCR models cannot be loaded"):
        read_document(scanned_page, ocr=page_reader(engine_factory=broken))


def test_low_confidence_pages_are_named_in_the_warnings():
    pages = {1: ScannedPage([], PageRegions(), 100, 0.97), 3: ScannedPage([], PageRegions(), 80, 0.61)}
    notes = scanned_summary(pages)
    assert notes[0].startswith("2 scanned page(s) read with OCR")
    assert len(notes) == 2 and "low OCR confidence on page(s) 3 (0.61)" in notes[1]
    assert scanned_summary({1: pages[1]}) == ["1 scanned page(s) read with OCR; their text is marked as OCR'd"]
    # what a summary repeats of the reader's warnings: the scan's, not the others
    warnings = [*notes, "fig2 (Figure 2) on page 4: caption found but no region", "page 5: scanned at about 72 dpi; …"]
    assert scan_notes(warnings) == [*notes, warnings[-1]]
