"""`mmdocsum bench mdocsum | mcite | rouge | compare | report` from the command line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mmdocsum_desktop.bench.splits import DEMO_ROOT, demo_ftii
from mmdocsum_desktop.cli import main
from tests.cli.test_extract_cli import run_cli
from tests.conftest import CORPUS

SAMPLE = CORPUS / "mcitebench_sample"  # MCiteBench's own three-record sample, in the evaluation corpus


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("MMDOCSUM_CONFIG_DIR", str(tmp_path / "config"))


def _paragraphs(*refs):
    return [{"summary": "A sentence about the work.", "image": {"imageRef": r, "imageCaption": ""}} for r in refs]


@pytest.fixture
def predictions(tmp_path) -> Path:
    folder = tmp_path / "predictions"
    folder.mkdir()
    for line in (DEMO_ROOT / "mdocsum.jsonl").read_text().splitlines():
        record = json.loads(line)
        (folder / f"{record['id']}.json").write_text(json.dumps(record["gold"]))  # the gold answers
    (folder / "stranger.json").write_text(json.dumps(_paragraphs("None", "None", "None", "None")))
    return folder


def _table(text: str) -> dict[str, str]:
    rows = {}
    for line in text.splitlines():
        parts = line.split(None, 1)
        if len(parts) == 2:
            rows.setdefault(parts[0], parts[1].strip())
    return rows


def test_mdocsum_scores_predictions_and_says_what_it_skipped(tmp_path, predictions, capsys):
    out = tmp_path / "run"
    assert main(["bench", "mdocsum", "--split", "demo", "--predictions", str(predictions), "-o", str(out), "--quiet"]) == 0
    assert capsys.readouterr().out == ""
    assert main(["bench", "mdocsum", "--split", "demo", "--predictions", str(predictions), "-o", str(out)]) == 0
    table = _table(capsys.readouterr().out)
    assert table["IF"] == "1.000" and table["OMatch"] == "1.000" and table["JacSim"] == "1.000"
    assert table["TS"] == "—" and table["Total"] == "—" and table["ROUGE-1"] == "1.000"
    assert table["skipped"].startswith("1 ") and "stranger" in capsys.readouterr().out + json.dumps(
        json.loads((out / "metrics.json").read_text())["skipped"]
    )
    assert (out / "report.html").exists() and (out / "report.md").exists()


def test_a_folder_with_another_run_is_not_mixed_up(tmp_path, predictions, capsys):
    out = tmp_path / "run"
    assert main(["bench", "mdocsum", "--predictions", str(predictions), "-o", str(out), "--quiet"]) == 0
    other = tmp_path / "other"
    other.mkdir()
    assert main(["bench", "mdocsum", "--predictions", str(other), "-o", str(out), "--quiet"]) == 2
    assert "--restart" in capsys.readouterr().err
    assert main(["bench", "mdocsum", "--predictions", str(other), "-o", str(out), "--quiet", "--restart"]) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["if"] == 0.0 and len(metrics["missing_predictions"]) == 5  # no answers: all unparseable


@pytest.mark.corpus
def test_mcite_on_the_benchmark_sample(tmp_path, capsys):
    responses = tmp_path / "responses.jsonl"
    lines = [json.loads(line) for line in (SAMPLE / "data_example.jsonl").read_text().splitlines()]
    answers = ["GROD is better in every task (Table 2).", "Attention sinks appear anywhere (Figure 1).", "Sigmoid learns faster [1]."]
    responses.write_text(
        "\n".join(json.dumps({"question_id": r["question_id"], "response": a}) for r, a in zip(lines, answers))
        + "\n{broken\n"
    )
    out = tmp_path / "mcite"
    assert main(["bench", "mcite", "--split", str(SAMPLE), "--predictions", str(responses), "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    # per record: {Table 2} vs {Table 2, Table 6} -> F1 2/3; {Figure 1} = {Figure 1} -> 1; {1} vs {Figure 1} -> 0
    assert re.search(r"^Source F1\s+0\.556$", printed, re.MULTILINE), printed
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["source_f1"] == pytest.approx((2 / 3 + 1.0 + 0.0) / 3)
    assert metrics["source_em"] == pytest.approx(1 / 3)
    assert metrics["citation_f1"] is None and metrics["answer_accuracy"] is None
    assert any("malformed JSON" in s["reason"] for s in metrics["skipped"])


def test_rouge_ftii_report_and_compare(tmp_path, capsys):
    summaries = tmp_path / "summaries"
    summaries.mkdir()
    for line in (DEMO_ROOT / "rouge.jsonl").read_text().splitlines():
        record = json.loads(line)
        (summaries / f"{record['id']}.txt").write_text(record["abstract"])  # the reference itself
    rouge_out = tmp_path / "rouge"
    assert main(["bench", "rouge", "--predictions", str(summaries), "-o", str(rouge_out), "--quiet"]) == 0
    assert json.loads((rouge_out / "metrics.json").read_text())["rougeL"] == 1.0

    data, images_root, _ = demo_ftii()
    articles = json.loads(data.read_text())[0]["news_text"]
    guesses = tmp_path / "ftii_predictions.json"
    guesses.write_text(json.dumps({a["id"]: [""] * len(a["content"]) for a in articles}))
    ftii_out = tmp_path / "ftii"
    assert main(["bench", "ftii", "--data", str(data), "--predictions", str(guesses), "-o", str(ftii_out), "--quiet"]) == 0
    assert main(["bench", "report", str(ftii_out)]) == 0
    assert "Acc_b" in (ftii_out / "report.md").read_text()
    assert '<img alt="FTII"' in (ftii_out / "report.html").read_text()

    capsys.readouterr()
    assert main(["bench", "compare", str(rouge_out), str(ftii_out), "-o", str(tmp_path / "cmp")]) == 0
    printed = capsys.readouterr().out
    assert "## rouge" in printed and "## ftii" in printed
    assert (tmp_path / "cmp" / "compare.html").exists()


def test_bad_input_gives_one_line_and_an_exit_code(tmp_path):
    result = run_cli("bench", "mdocsum", "--split", str(tmp_path / "nope.jsonl"), "-o", str(tmp_path / "o"), "--quiet")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "no such split" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    result = run_cli("bench", "compare", str(tmp_path))
    assert result.returncode == 2 and "no metrics.json" in result.stderr


def test_ablations_need_generation(tmp_path, predictions):
    with pytest.raises(SystemExit, match="ablations need generation"):
        main(["bench", "mdocsum", "--predictions", str(predictions), "--no-abstract", "-o", str(tmp_path / "o")])
