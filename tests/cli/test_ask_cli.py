"""`mmdocsum ask` end to end: once in a subprocess as a user runs it, the other cases through ``main()``
in this process (the same code, without paying the start-up each time). Real models throughout."""

from __future__ import annotations

import json
import subprocess
import sys

import pymupdf
import pytest

from mmdocsum_desktop.schemas.answer import Answer
from tests.conftest import DATA_PAPERS

# J. Clin. Biochem. Nutr. 2010: essential oils of holy basil in rats fed cholesterol; 3 figures, 4 tables
PAPER = DATA_PAPERS / "PMC2803133.pdf"
QUESTION = "Which figure shows the histopathology of the liver?"  # Fig. 2, p. 6


def test_ask_as_a_user_runs_it(env):
    result = subprocess.run(
        [sys.executable, "-m", "mmdocsum_desktop", "ask", str(PAPER), QUESTION, "--engine", "extractive"],
        capture_output=True, text=True, timeout=600, env=env,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    first_line = result.stdout.splitlines()[2]  # the answer, after the question and a blank line
    assert "Figure 2" in first_line and "p. 6" in first_line
    assert "**Evidence**" in result.stdout
    assert "Traceback" not in result.stderr


def test_json_answer_follows_the_schema(cli):
    code, out, _err = cli("ask", PAPER, "Where are the serum ALT and AST activities given?",
                          "--engine", "extractive", "--format", "json", "--quiet")
    assert code == 0
    answer = Answer.model_validate_json(out)
    assert "Table 3" in answer.cited_labels
    assert json.loads(out)["format"] == "mmdocsum-answer"


def test_answer_written_to_a_file(cli, tmp_path):
    target = tmp_path / "answer.json"
    code, out, _err = cli("ask", PAPER, QUESTION, "--engine", "extractive", "--format", "json",
                          "-o", target, "--quiet")
    assert code == 0 and out == ""
    assert "Figure 2" in json.loads(target.read_text())["sentences"][0]["figures"]


def test_empty_question_is_a_clear_error(cli):
    code, out, err = cli("ask", PAPER, "   ")
    assert code == 2 and out == ""
    assert err.strip().splitlines() == ["mmdocsum: error: the question is empty: ask something about the document"]


def test_missing_document_is_a_clear_error(cli, tmp_path):
    code, _out, err = cli("ask", tmp_path / "absent.pdf", QUESTION)
    assert code == 2 and "no such file" in err and "Traceback" not in err


def test_a_long_paste_is_cut_with_a_note(cli):
    paste = QUESTION + " " + "filler words " * 800  # 10,000+ chars
    assert len(paste) > 10_000
    code, out, err = cli("ask", PAPER, paste, "--engine", "extractive")
    assert code == 0
    assert "only its first 2000 were used" in err
    assert out.startswith("**Q:**")


def test_a_document_without_figures_says_so(cli, tmp_path):
    # pages 3-6 of a Hindawi review: body text and references, no figure or table printed or cited
    pages = tmp_path / "notch-review-pp3-6.pdf"
    with pymupdf.open(DATA_PAPERS / "PMC4736972.pdf") as source, pymupdf.open() as cut:
        cut.insert_pdf(source, from_page=2, to_page=5)
        cut.save(pages)
    code, out, err = cli("ask", pages, "Which breast cancer cell line was forced to express the Notch ligand Jagged1?",
                         "--engine", "extractive")
    assert code == 0
    assert "no figures or tables" in err
    assert "MDA-MB-231" in out


@pytest.fixture(scope="module")
def blank_scan(tmp_path_factory):
    """A PDF whose only page is an image with no text on it: no text layer, and nothing to OCR."""
    scanned = tmp_path_factory.mktemp("scan") / "scanned.pdf"
    with pymupdf.open() as pdf:
        page = pdf.new_page()
        pixmap = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 200, 100), False)
        pixmap.clear_with(200)
        page.insert_image(page.rect, pixmap=pixmap)
        pdf.save(scanned)
    return scanned


def test_a_scanned_pdf_is_refused_with_a_hint_when_ocr_is_off(cli, blank_scan):
    code, out, err = cli("ask", blank_scan, QUESTION, "--engine", "extractive", "--no-ocr", "--quiet")
    assert code == 4 and out == ""
    assert "OCR" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_a_scan_with_no_readable_text_is_a_clear_error(cli, blank_scan):
    code, out, err = cli("ask", blank_scan, QUESTION, "--engine", "extractive", "--quiet")
    assert code != 0 and out == ""
    assert err.startswith("mmdocsum: error:") and "Traceback" not in err


def test_llama_engine_streams_a_checked_answer(cli, smollm):
    code, out, err = cli("ask", PAPER, QUESTION, "--engine", "llama", "--model", str(smollm),
                         "--max-tokens", "32", "--threads", "1", "--format", "json", "--stream", "--quiet")
    assert code == 0, err
    answer = json.loads(out)
    assert answer["engine"]["engine"] == "llama"
    assert answer["model_text"] and answer["model_text"].strip() in err  # streamed to stderr as written
    assert answer["timings"]["first_token_s"] <= answer["timings"]["total_s"]
    assert answer["sentences"]
