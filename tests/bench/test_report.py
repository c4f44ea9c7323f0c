"""Reports: everything in JSON, Markdown tables, one self-contained HTML file with embedded plots."""

from __future__ import annotations

import json
import re

import pytest

from mmdocsum_desktop.bench import report
from mmdocsum_desktop.bench.metrics.mdocsum import aggregate, breakdown, per_paragraph, score_answer
from mmdocsum_desktop.errors import InputNotFoundError


def _mdocsum_metrics() -> dict:
    answer = [{"summary": "A sentence.", "image": {"imageRef": r, "imageCaption": ""}} for r in ("1", "None", "2", "None")]
    scores = [score_answer("a", [1, None, 2, None], answer, 2), score_answer("b", [None] * 4, "garbage", 7)]
    overall = aggregate(scores)
    return {
        "suite": "mdocsum",
        "split": "demo",
        "settings": {"suite": "mdocsum", "engine": {"engine": "extractive"}, "mode": "generate"},
        **overall,
        "rouge": {"rouge1": 0.5, "rouge2": 0.25, "rougeL": 0.4},
        "per_paragraph": per_paragraph(scores),
        "by_length": breakdown(scores, {"a": "0–5k", "b": "5–10k"}),
        "by_image_count": breakdown(scores, {"a": "1–3", "b": "7–9"}),
        "documents": [s.to_dict() | {"rouge": {"rougeL": 0.4}} for s in scores],
        "skipped": [{"line": 3, "id": "c", "reason": "document missing: c.pdf"}],
        "judge": {"judge": "llama:smol", "fingerprint": "f", "failures": [{"id": "a", "reasons": ["paragraph 1 coverage: garbage"]}]},
        "ablations": {
            "shuffle_images": {"metrics": {"omatch": 0.4}, "decline_rate": {"omatch": 0.2, "is": 0.1}},
            "no_abstract": {"metrics": {"omatch": 0.5}, "decline_rate": {"omatch": 0.0, "is": -0.05}},
        },
        "model_hashes": {"embedder:model.onnx": "ab" * 32},
        "timings": {"total_s": 1.5},
        "notes": ["no judge configured: Com, Acc, TS and Total are absent"],
    }


def test_mdocsum_report_has_tables_plots_settings_and_skips(tmp_path):
    metrics = _mdocsum_metrics()
    written = report.write_run(tmp_path, metrics)
    assert [p.name for p in written] == ["metrics.json", "report.md", "report.html"]
    assert json.loads((tmp_path / "metrics.json").read_text()) == json.loads(json.dumps(metrics))
    markdown = (tmp_path / "report.md").read_text()
    assert "| IF | OMatch | ImgAcc | NonAcc | JacSim | IS | Com | Acc | TS | Total |" in markdown
    # IF 1/2; OMatch 4/8; ImgAcc 2/2 (only doc a has image slots); NonAcc 2/6; JacSim (1 + 0) / 2; IS 0.5;
    # the judge's metrics are absent and shown as —, never as 0
    assert "| 0.500 | 0.500 | 1.000 | 0.333 | 0.500 | 0.500 | — | — | — | — |" in markdown
    assert "document missing: c.pdf" in markdown and "paragraph 1 coverage: garbage" in markdown
    assert "Ablation: shuffle images" in markdown
    assert "sha256 embedder:model.onnx" in markdown
    page = (tmp_path / "report.html").read_text()
    images = re.findall(r'<img alt="([^"]+)" src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert [alt for alt, _ in images] == ["Per paragraph", "By document length", "By number of images", "Ablations"]
    assert all(len(data) > 1000 for _, data in images)
    assert "http://" not in page and "https://" not in page and "<script" not in page  # self-contained


def test_absent_values_never_look_like_zero():
    assert report.fmt(None) == "—" and report.fmt(0.0) == "0.000" and report.fmt(True) == "yes"


@pytest.mark.parametrize(
    ("metrics", "suite", "plot"),
    [
        ({"acc_b": 0.75, "acc_i": 0.5, "acc_ni": 0.9, "n_slots": 8}, "ftii", "FTII"),
        ({"suite": "rouge", "rouge1": 0.4, "rouge2": 0.1, "rougeL": 0.3, "n_docs": 2, "documents": []}, "rouge", "ROUGE"),
        (
            {"suite": "mcite", "source_f1": 0.5, "source_em": 0.0, "citation_f1": None, "answer_accuracy": None,
             "n_records": 3, "by_category": {"explanation_single": {"n": 1, "source_f1": 0.5}}, "records": []},
            "mcite",
            "By question type",
        ),
    ],
)
def test_every_suite_renders_including_ftii(tmp_path, metrics, suite, plot):
    assert report.suite_of(metrics) == suite
    report.write_run(tmp_path, metrics)
    page = (tmp_path / "report.html").read_text()
    assert f'<img alt="{plot}"' in page
    markdown = (tmp_path / "report.md").read_text()
    assert "## Overall" in markdown


def test_ftii_run_written_by_the_placement_suite_gets_reports(tmp_path):
    (tmp_path / "metrics.json").write_text(json.dumps({"acc_b": 0.5, "acc_i": 0.25, "acc_ni": 0.75, "n_slots": 8}))
    metrics = report.load_metrics(tmp_path)
    report.write_reports(tmp_path, metrics)
    assert "| 0.500 | 0.250 | 0.750 | 8 |" in (tmp_path / "report.md").read_text()


def test_load_metrics_explains_what_is_wrong(tmp_path):
    with pytest.raises(InputNotFoundError, match="no metrics.json"):
        report.load_metrics(tmp_path)
    (tmp_path / "metrics.json").write_text("{cut")
    with pytest.raises(InputNotFoundError, match="not a readable metrics file"):
        report.load_metrics(tmp_path)
