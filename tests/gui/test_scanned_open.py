"""The desktop window opens a scanned PDF the way every command reads it: OCR'd, page by page."""

from __future__ import annotations

import pymupdf

from mmdocsum_desktop.document.scanned import scan_copy

TEXT = ("Results. The essential oil lowered serum cholesterol by a third in rats fed a high cholesterol diet. "
        "Liver enzymes returned to normal in the treated group.")


def test_the_window_opens_a_scanned_pdf_with_ocr(qtbot, make_window, tmp_path):
    with pymupdf.open() as typed:
        page = typed.new_page(width=320, height=220)
        page.insert_textbox(pymupdf.Rect(24, 24, 296, 196), TEXT, fontsize=11)
        typed.save(tmp_path / "typed.pdf")
    scan = scan_copy(tmp_path / "typed.pdf", tmp_path / "scan.pdf", dpi=150)
    window = make_window()
    with qtbot.waitSignal(window.documentOpened, timeout=600_000):
        assert window.open_path(scan) is not None
    document = window.workspace.document
    assert document.blocks and all(block.ocr for block in document.blocks)
    assert "cholesterol" in " ".join(block.text for block in document.blocks).lower()
    assert any("scanned page(s) read with OCR" in warning for warning in document.warnings)
