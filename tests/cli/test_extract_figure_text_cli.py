"""`mmdocsum extract --figure-text` (issue 39, point 4): the crops' text read ahead into the content cache,
so that a second extraction of the same paper (the same crops) and `place --figure-text` read none. Real
RapidOCR; the module's own cache folder."""

from __future__ import annotations

import pytest

from tests.conftest import DATA_PAPERS

PAPER = DATA_PAPERS / "pymupdf_test_3780.pdf"  # 3 labelled figures


def _figure_text_line(out: str) -> str:
    lines = [line for line in out.splitlines() if line.startswith("figure text")]
    assert len(lines) == 1, out
    return lines[0].removeprefix("figure text").strip()


@pytest.mark.slow  # RapidOCR reads three crops: about ten seconds here
def test_extract_reads_figure_text_once(cli, tmp_path):
    code, out, err = cli("extract", PAPER, "-o", tmp_path / "first", "--figure-text")
    assert code == 0, err
    figures = len(list((tmp_path / "first" / "figures").glob("*.png")))
    assert figures >= 3
    assert _figure_text_line(out) == f"{figures} crops read, 0 already cached"
    # the same paper again: the same crops, every one in the cache, none read
    code, out, err = cli("extract", PAPER, "-o", tmp_path / "second", "--figure-text")
    assert code == 0, err
    assert _figure_text_line(out) == f"0 crops read, {figures} already cached"


def test_figure_text_without_ocr_is_refused(cli, tmp_path):
    with pytest.raises(SystemExit, match="--figure-text reads figures with OCR"):
        cli("extract", PAPER, "-o", tmp_path / "out", "--figure-text", "--no-ocr")
    assert not (tmp_path / "out").exists()  # refused before any work
