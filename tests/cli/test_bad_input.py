"""Bad input gives one clear line on stderr and a non-zero exit code, never a traceback.

Every bad file is built by the test itself."""

from __future__ import annotations

import json
import struct
import zlib

import pymupdf
import pytest

from mmdocsum_desktop.document.limits import ReadLimits
from mmdocsum_desktop.document.reader import read_document, save_image_as_png
from mmdocsum_desktop.errors import ImageTooLargeError, JobCancelled
from mmdocsum_desktop.jobs import JobControl
from tests.cli.test_extract_cli import run_cli
from tests.conftest import DATA_PAPERS, SAMPLE_PDF


def assert_one_line_error(result, code: int, *fragments: str) -> None:
    assert result.returncode == code, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    for fragment in fragments:
        assert fragment in lines[0]


def extract(path, tmp_path, *extra):
    return run_cli("extract", str(path), "-o", str(tmp_path / "out"), "--quiet", *extra)


def test_missing_file_and_folder_and_unknown_type(tmp_path):
    assert_one_line_error(extract(tmp_path / "nope.pdf", tmp_path), 2, "no such file")
    assert_one_line_error(extract(tmp_path, tmp_path), 2, "not a file")
    unknown = tmp_path / "notes.docx"
    unknown.write_bytes(b"PK\x03\x04 not a document we read")
    assert_one_line_error(extract(unknown, tmp_path), 2, "unsupported file type")


def test_garbage_named_pdf(tmp_path):
    garbage = tmp_path / "garbage.pdf"
    garbage.write_bytes(bytes(range(256)) * 40)
    assert_one_line_error(extract(garbage, tmp_path), 2, "garbage.pdf", "not a readable PDF")


def test_truncated_pdf_is_repaired_or_refused_cleanly(tmp_path):
    data = SAMPLE_PDF.read_bytes()
    for share in (0.05, 0.5, 0.9):
        truncated = tmp_path / f"truncated_{share}.pdf"
        truncated.write_bytes(data[: int(len(data) * share)])
        result = extract(truncated, tmp_path)
        assert "Traceback" not in result.stderr
        if result.returncode == 0:
            assert (tmp_path / "out" / "document.json").is_file()
        else:
            assert_one_line_error(result, result.returncode, truncated.name)


def test_encrypted_pdf_needs_its_password(tmp_path):
    source = pymupdf.open(DATA_PAPERS / "PMC4736972.pdf")  # Figure 1 on page 2
    locked = tmp_path / "locked.pdf"
    source.save(locked, encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="owner", user_pw="secret")
    assert_one_line_error(extract(locked, tmp_path), 3, "encrypted", "--password")
    assert_one_line_error(extract(locked, tmp_path, "--password", "wrong"), 3, "wrong password")
    opened = extract(locked, tmp_path, "--password", "secret")
    assert opened.returncode == 0, opened.stderr
    assert (tmp_path / "out" / "figures" / "fig1.png").is_file()


@pytest.fixture(scope="module")
def scanned_pdf(tmp_path_factory):
    """The first page of a real text PDF, rasterised: a scan with no text layer."""
    page = pymupdf.open(DATA_PAPERS / "PMC4736972.pdf")[0]
    scanned = pymupdf.open()
    new_page = scanned.new_page(width=page.rect.width, height=page.rect.height)
    new_page.insert_image(new_page.rect, pixmap=page.get_pixmap(dpi=150))
    path = tmp_path_factory.mktemp("scan") / "scan.pdf"
    scanned.save(path)
    return path


def test_scanned_pdf_without_ocr_says_it_has_no_text_layer(tmp_path, scanned_pdf):
    assert_one_line_error(extract(scanned_pdf, tmp_path, "--no-ocr"), 4, "no text layer", "OCR")


def test_scanned_pdf_is_read_with_ocr_and_marked_so(tmp_path, scanned_pdf):
    result = extract(scanned_pdf, tmp_path)
    assert result.returncode == 0, result.stderr
    document = json.loads((tmp_path / "out" / "document.json").read_text())
    assert document["blocks"] and all(block["ocr"] for block in document["blocks"])
    text = " ".join(block["text"] for block in document["blocks"])
    original = pymupdf.open(DATA_PAPERS / "PMC4736972.pdf")[0].get_text()
    words = {w.lower() for w in original.split() if len(w) > 5 and w.isalpha()}
    recognised = {w.lower().strip(".,;:") for w in text.split()}
    assert len(words & recognised) >= 0.6 * len(words)
    assert any("scanned page" in warning for warning in document["warnings"])


def test_pdf_with_zero_pages(tmp_path):
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [] /Count 0 >>"]
    body = b"%PDF-1.4\n"
    offsets = []
    for number, obj in enumerate(objects, start=1):
        offsets.append(len(body))
        body += b"%d 0 obj\n" % number + obj + b"\nendobj\n"
    xref = len(body)
    body += b"xref\n0 3\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    body += b"trailer\n<< /Size 3 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(body)
    result = extract(empty, tmp_path)
    assert_one_line_error(result, 2, "empty.pdf")
    assert "no pages" in result.stderr or "not a readable PDF" in result.stderr


def test_page_limit_is_enforced_with_a_clear_message(tmp_path):
    result = extract(SAMPLE_PDF, tmp_path, "--max-pages", "10")
    assert_one_line_error(result, 2, "14 pages", "--max-pages")


@pytest.mark.slow
def test_two_thousand_pages_with_progress_and_cancellation(tmp_path):
    big = pymupdf.open()
    for number in range(2000):
        page = big.new_page()
        page.insert_text((72, 72), f"Section {number}", fontsize=14)
        page.insert_textbox(
            pymupdf.Rect(72, 100, 520, 700),
            f"Paragraph on page {number}. " + "Words of running text fill the body of the page. " * 12,
            fontsize=10,
        )
    path = tmp_path / "long.pdf"
    big.save(path)
    seen: list[int] = []
    document = read_document(path, control=JobControl(on_progress=lambda done, total, _: seen.append(done)))
    assert document.page_count == 2000
    assert seen[-1] == 2000 and len(seen) >= 2000
    assert {b.page for b in document.blocks} == set(range(1, 2001))

    control = JobControl()

    def stop_at_page_50(done: int, total: int, what: str) -> None:
        if done >= 50:
            control.cancel()

    control.on_progress = stop_at_page_50
    with pytest.raises(JobCancelled):
        read_document(path, control=control)


def _png_header_only(width: int, height: int) -> bytes:
    """A PNG that declares its size but carries almost no pixel data: a decompression-bomb stand-in."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00")) + chunk(b"IEND", b"")


def test_huge_image_is_refused_before_decoding(tmp_path):
    bomb = tmp_path / "bomb.png"
    bomb.write_bytes(_png_header_only(40_000, 40_000))
    with pytest.raises(ImageTooLargeError):
        save_image_as_png(bomb, tmp_path / "out.png", limits=ReadLimits())
    assert not (tmp_path / "out.png").exists()


def test_file_size_limit(tmp_path):
    padded = tmp_path / "padded.pdf"  # a readable PDF of 2 MB: bytes after %%EOF are ignored by readers
    padded.write_bytes(SAMPLE_PDF.read_bytes() + b"\n%" + b"x" * (2 * 1024**2))
    result = extract(padded, tmp_path, "--max-file-mb", "1")
    assert_one_line_error(result, 2, "over the limit")
