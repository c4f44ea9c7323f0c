"""`mmdocsum ask` end to end: once in a subprocess as a user runs it, the other cases through ``main()``
in this process (the same code, without paying the start-up each time). Real models throughout."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mmdocsum_desktop.answer import Answer
from tests.conftest import PAPERS

HYDROLOGY = PAPERS / "mineru_demo1.pdf"
QUESTION = "Which figure shows the climate adjusted zero flow days?"


def test_ask_as_a_user_runs_it(env):
    result = subprocess.run(
        [sys.executable, "-m", "mmdocsum_desktop", "ask", str(HYDROLOGY), QUESTION, "--engine", "extractive"],
        capture_output=True, text=True, timeout=600, env=env,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    first_line = result.stdout.splitlines()[2]  # the answer, after the question and a blank line
    assert "Figure 5" in first_line and "p. 9" in first_line
    assert "**Evidence**" in result.stdout
    assert "Traceback" not in result.stderr


def test_json_answer_follows_the_schema(cli):
    code, out, _err = cli("ask", HYDROLOGY, "Where are the Thalf values of all catchments given?",
                          "--engine", "extractive", "--format", "json", "--quiet")
    assert code == 0
    answer = Answer.model_validate_json(out)
    assert "Table 4" in answer.cited_labels
    assert json.loads(out)["format"] == "mmdocsum-answer"


def test_answer_written_to_a_file(cli, tmp_path):
    target = tmp_path / "answer.json"
    code, out, _err = cli("ask", HYDROLOGY, QUESTION, "--engine", "extractive", "--format", "json",
                          "-o", target, "--quiet")
    assert code == 0 and out == ""
    assert "Figure 5" in json.loads(target.read_text())["sentences"][0]["figures"]


def test_empty_question_is_a_clear_error(cli):
    code, out, err = cli("ask", HYDROLOGY, "   ")
    assert code == 2 and out == ""
    assert err.strip().splitlines() == ["mmdocsum: error: the question is empty: ask something about the document"]


def test_missing_document_is_a_clear_error(cli, tmp_path):
    code, _out, err = cli("ask", tmp_path / "absent.pdf", QUESTION)
    assert code == 2 and "no such file" in err and "Traceback" not in err


def test_a_long_paste_is_cut_with_a_note(cli):
    paste = "Which figure shows the climate adjusted zero flow days? " + "filler words " * 800  # 10,000+ chars
    assert len(paste) > 10_000
    code, out, err = cli("ask", HYDROLOGY, paste, "--engine", "extractive")
    assert code == 0
    assert "only its first 2000 were used" in err
    assert out.startswith("**Q:**")


def test_a_document_without_figures_says_so(cli):
    code, out, err = cli("ask", PAPERS / "docling_multi_page.pdf", "When was the typewriter patented?",
                         "--engine", "extractive")
    assert code == 0
    assert "no figures or tables" in err
    assert "1868" in out


@pytest.fixture(scope="module")
def blank_scan(tmp_path_factory):
    """A PDF whose only page is an image with no text on it: no text layer, and nothing to OCR."""
    import pymupdf

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
    code, out, err = cli("ask", HYDROLOGY, QUESTION, "--engine", "llama", "--model", str(smollm),
                         "--max-tokens", "32", "--threads", "1", "--format", "json", "--stream", "--quiet")
    assert code == 0, err
    answer = json.loads(out)
    assert answer["engine"]["engine"] == "llama"
    assert answer["model_text"] and answer["model_text"].strip() in err  # streamed to stderr as written
    assert answer["timings"]["first_token_s"] <= answer["timings"]["total_s"]
    assert answer["sentences"]
