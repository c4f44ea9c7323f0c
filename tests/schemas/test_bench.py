"""BenchmarkResult: typed metrics, per-item rows, and the same metrics.json the reports already read."""

from __future__ import annotations

import json

import pytest

from mmdocsum_desktop.bench import report
from mmdocsum_desktop.bench.suites.mdocsum import run_mdocsum
from mmdocsum_desktop.bench.suites.rouge import run_rouge
from mmdocsum_desktop.schemas.bench import METRIC_KEYS, BenchmarkResult


def test_a_real_run_reads_back_typed_and_writes_the_same_json(tmp_path):
    predictions = tmp_path / "predictions"
    predictions.mkdir()
    gold = [
        {
            "summary": "Herbs were grown in flooded raised beds.",
            "image": {"imageRef": "1", "imageCaption": ""},
        }
    ]
    (predictions / "marsh.json").write_text(json.dumps(gold * 4))  # image 1 four times: a rule broken
    run_mdocsum("demo", tmp_path / "run", predictions=predictions)
    written = report.load_metrics(tmp_path / "run")
    result = BenchmarkResult.from_dict(written)
    assert result.suite == "mdocsum" and result.split == "demo"
    assert set(result.metrics) == set(METRIC_KEYS["mdocsum"])
    assert result.metrics["n_docs"] == 5 and isinstance(result.metrics["omatch"], float)
    assert result.metrics["com"] is None  # no judge: absent, not 0
    assert [row["id"] for row in result.rows][:1] == ["marsh"] and len(result.rows) == 5
    assert "per_paragraph" in result.details and "documents" not in result.details
    assert result.to_dict() == written


def test_rouge_run_round_trip_keeps_its_rows(tmp_path):
    predictions = tmp_path / "predictions"
    predictions.mkdir()
    (predictions / "marsh.txt").write_text(
        "Community gardens on estuary shores are flooded by brackish water."
    )
    written = run_rouge("demo", tmp_path / "run", predictions=predictions)
    result = BenchmarkResult.from_dict(written)
    assert result.metrics["rouge1"] == written["rouge1"] and 0 < result.metrics["rouge1"] < 1
    assert {row["id"] for row in result.rows} >= {"marsh"}
    assert result.to_dict() == written == report.load_metrics(tmp_path / "run")


def test_metric_values_are_numbers_or_absent():
    BenchmarkResult("rouge", metrics={"rouge1": 0.5, "n_docs": 3, "rouge2": None})
    with pytest.raises(TypeError, match="rouge1"):
        BenchmarkResult("rouge", metrics={"rouge1": "0.5"})
    with pytest.raises(TypeError, match="if"):
        BenchmarkResult("mdocsum", metrics={"if": True})
    with pytest.raises(ValueError, match="NaN"):
        BenchmarkResult("mdocsum", metrics={"omatch": float("nan")})


def test_an_ftii_metrics_file_without_a_suite_key_is_recognised():
    result = BenchmarkResult.from_dict({"acc_b": 0.5, "acc_i": 0.25, "acc_ni": 1.0, "n_slots": 8})
    assert result.suite == "ftii" and result.metrics["n_slots"] == 8 and result.rows is None
