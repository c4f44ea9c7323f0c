"""A scanned PDF through every command, as a user runs them: summarize (a subprocess), place and ask
(through ``main()`` in this process); --no-ocr refuses with the way out; the old --ocr still works and
says what it is called now. The scan is made here: two small pages of typed text at 150 dpi."""

from __future__ import annotations

import json
import subprocess
import sys

import pymupdf
import pytest

from mmdocsum_desktop.document.scanned import scan_copy

PAGES = [
    "Background. Rats fed a high cholesterol diet develop fatty livers and damaged hearts. "
    "Essential oils of holy basil leaves may lower serum lipids. We tested this in a seven week trial. "
    "Methods. Forty rats were fed the diet with or without the oil. Serum lipids were measured weekly.",
    "Results. The oil lowered serum cholesterol by a third and triglycerides by a quarter. "
    "Liver enzymes returned to normal in the treated rats. "
    "Conclusion. The essential oil protects the liver and the heart of rats on a high cholesterol diet.",
]


@pytest.fixture(scope="module")
def scan(tmp_path_factory):
    folder = tmp_path_factory.mktemp("scan")
    with pymupdf.open() as typed:
        for text in PAGES:
            page = typed.new_page(width=320, height=300)
            page.insert_textbox(pymupdf.Rect(24, 24, 296, 276), text, fontsize=11)
        typed.save(folder / "typed.pdf")
    return scan_copy(folder / "typed.pdf", folder / "scan.pdf", dpi=150)


def test_summarize_reads_a_scan_says_so_and_cites_it_as_ocr(env, scan, tmp_path):
    out = tmp_path / "summary.json"
    result = subprocess.run(
        [sys.executable, "-m", "mmdocsum_desktop", "summarize", str(scan), "-o", str(out), "--quiet", "--ocr"],
        capture_output=True, text=True, timeout=900, env=env,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "--ocr is deprecated; it is now --figure-text" in result.stderr
    summary = json.loads(out.read_text())
    assert any("2 scanned page(s) read with OCR" in warning for warning in summary["warnings"])
    text = " ".join(p["text"] for p in summary["paragraphs"]).lower()
    assert "cholesterol" in text
    evidence = [e for p in summary["paragraphs"] for s in p["sentences"] for e in s["evidence"]]
    assert evidence and all(e["ocr"] for e in evidence)
    document = json.loads((tmp_path / "summary_files" / "document.json").read_text())
    assert document["blocks"] and all(b["ocr"] for b in document["blocks"])


def test_no_ocr_refuses_the_scan_and_says_how_to_get_it_read(cli, scan, tmp_path):
    code, _, err = cli("summarize", scan, "-o", tmp_path / "s.json", "--quiet", "--no-ocr")
    assert code == 4
    assert "no text layer" in err and "without --no-ocr" in err and "Traceback" not in err


def test_place_and_ask_read_the_scan(cli, scan, tmp_path):
    paragraphs = tmp_path / "text.md"
    paragraphs.write_text("The oil lowered serum cholesterol.\n\nThe liver recovered.\n")
    code, _, err = cli("place", "--paragraphs", paragraphs, "--images", scan, "-o", tmp_path / "out",
                       "--no-figure-text", "--quiet")
    assert code == 0, err
    document = json.loads((tmp_path / "out" / "document.json").read_text())
    assert document["blocks"] and all(b["ocr"] for b in document["blocks"])

    code, out, err = cli("ask", scan, "By how much did the oil lower serum cholesterol?", "--format", "json",
                         "--quiet", "--no-rerank")
    assert code == 0, err
    answer = json.loads(out)
    assert "third" in " ".join(s["text"] for s in answer["sentences"]).lower()
