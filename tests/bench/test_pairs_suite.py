"""The pairs suite on a few real PDF + JATS pairs (figures and text stages: fast), bad input included: the
committed pairs of tests/data/papers and one paper of the bundled pmc-test split."""

from __future__ import annotations

import json

import pytest

from mmdocsum_desktop.bench.suites.pairs import run_pairs
from mmdocsum_desktop.errors import InputNotFoundError
from tests.bench.conftest import PMC_TEST_PAPERS
from tests.conftest import DATA_PAPERS

PAIRS = ("PMC2803133", "PMC4736972")


def _folder(tmp_path, names=PAIRS, source=DATA_PAPERS):
    folder = tmp_path / "pairs"
    folder.mkdir()
    for name in names:
        for suffix in (".pdf", ".xml"):
            (folder / f"{name}{suffix}").symlink_to(source / f"{name}{suffix}")
    return folder


def test_figures_and_text_on_real_pairs_are_scored_resumed_and_reported(tmp_path):
    folder, out = _folder(tmp_path), tmp_path / "out"
    metrics = run_pairs(folder, out, stages=["figures", "text"])
    assert {r["id"] for r in metrics["papers"]} == set(PAIRS)
    overall = metrics["by_split"]["all"]
    assert 0.0 <= overall["label_recall"] <= 1.0 and overall["papers_figures"] == 2
    assert overall["leak_back"] < 0.05  # the reference lists and declarations are marked, not body text
    assert overall["references_found"] == 1.0
    for row in metrics["papers"]:
        assert row["text"]["paragraph_recall"] > 0.9
    assert (out / "report.md").read_text().count("| PMC") == 2 and (out / "report.html").exists()
    saved = json.loads((out / "metrics.json").read_text())
    assert saved["by_split"] == metrics["by_split"]
    # the same command again resumes: nothing is read or scored twice, the numbers are the same
    stamp = (out / "figures" / "PMC4736972.json").stat().st_mtime_ns
    again = run_pairs(folder, out, stages=["figures", "text"])
    assert again["by_split"] == metrics["by_split"]
    assert (out / "figures" / "PMC4736972.json").stat().st_mtime_ns == stamp


def test_malformed_xml_and_a_pdf_of_another_article_are_skipped_with_their_reason(tmp_path):
    folder = _folder(tmp_path, names=("PMC4736972",))
    (folder / "broken.xml").write_text("<article><body><p>unclosed</body>")
    (folder / "broken.pdf").symlink_to(DATA_PAPERS / "PMC4736972.pdf")
    (folder / "swapped.xml").symlink_to(DATA_PAPERS / "PMC2803133.xml")
    (folder / "swapped.pdf").symlink_to(DATA_PAPERS / "PMC4736972.pdf")
    metrics = run_pairs(folder, tmp_path / "out", stages=["text"])
    reasons = {entry["id"]: entry["reason"] for entry in metrics["skipped"]}
    assert "malformed XML" in reasons["broken"]
    assert "is not the article" in reasons["swapped"]
    assert [r["id"] for r in metrics["papers"]] == ["PMC4736972"]


def test_a_folder_without_pairs_is_one_clear_error(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputNotFoundError, match="no PDF \\+ JATS pairs"):
        run_pairs(tmp_path / "empty", tmp_path / "out")
    with pytest.raises(InputNotFoundError, match="no such folder"):
        run_pairs(tmp_path / "missing", tmp_path / "out")


@pytest.mark.slow
def test_the_summary_stage_reports_what_a_reader_sees(tmp_path):
    # a structured abstract: Background, Methods, Results, Conclusions
    folder = _folder(tmp_path, names=("PMC7376533",), source=PMC_TEST_PAPERS)
    metrics = run_pairs(folder, tmp_path / "out", stages=["text", "summary"])
    row = metrics["papers"][0]
    summary, text = row["summary"], row["text"]
    assert text["title_correct"] is True and text["body_words"] > 1000
    assert summary["empty_paragraphs"] == 0 and summary["run_in_labels"] == []
    # every paragraph shows a figure or says why not
    assert summary["illustrated"] + summary["explained"] == 4 and summary["unexplained"] == 0
    assert [f is None for f in summary["figures"]] == [n is not None for n in summary["no_figure"]]
    assert set(summary["rouge_roles"]) == {"background", "method", "results", "conclusion"}
    assert all(0.0 < v < 1.0 for v in summary["rouge_roles"].values())
    overall = metrics["by_split"]["all"]
    assert overall["papers_structured_abstract"] == 1 and overall["summary_foreign_per_1000"] <= 5
    report = (tmp_path / "out" / "report.md").read_text()
    assert "ROUGE-1 method vs its abstract section" in report and "titles right" in report
