"""`mmdocsum bench judge`: summaries of any documents judged by a real GGUF judge (SmolLM2), with bad
documents and summaries reported per item, a resumable run, reports and `bench compare`."""

from __future__ import annotations

import json
import shutil

import pytest

from mmdocsum_desktop.bench.splits import DEMO_ROOT
from mmdocsum_desktop.cli import main
from tests.cli.test_extract_cli import run_cli
from tests.engines.conftest import require_llama

# runs a real language model (SmolLM2 or a tiny random GGUF): left out of `pytest -m "not slow"`
pytestmark = pytest.mark.slow

DOCS = DEMO_ROOT / "docs"
ASPECTS = "text_quality,faithfulness"


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("MMDOCSUM_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("MMDOCSUM_CACHE_DIR", str(tmp_path / "cache"))


def _judge_args(smollm, out, aspects):
    # SmolLM2 is labelled unfit to judge: these tests run it as a user who insists
    return ["--judge", "llama", "--judge-model", str(smollm), "--judge-n-ctx", "2048", "--allow-unfit-judge",
            "-o", str(out), "--quiet",
            "--aspects", aspects]


def test_judging_written_and_given_summaries_resuming_and_comparing(tmp_path, smollm):
    require_llama()
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7 this is not a pdf")
    out = tmp_path / "run"
    docs = [str(DOCS / "birds.md"), str(broken), str(tmp_path / "absent.pdf")]
    assert main(["bench", "judge", "--docs", *docs, *_judge_args(smollm, out, ASPECTS)]) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["suite"] == "judge" and metrics["n_docs"] == 1
    row = metrics["documents"][0]
    assert row["id"] == "birds" and row["calls"] >= 2
    for aspect in ASPECTS.split(","):
        assert row[aspect] is None or 0 <= row[aspect] <= 5
    reasons = {s["id"]: s["reason"] for s in metrics["skipped"]}
    assert set(reasons) == {"broken", "absent"} and "missing" in reasons["absent"]
    assert metrics["settings"]["judge"]["figures_as_text"] is True
    assert any(k.startswith("judge model:") for k in metrics["model_hashes"])  # the judge's sha256
    report = (out / "report.md").read_text()
    assert "## Explanations" in report and "Text quality" in report and "broken" in report
    saved = (out / "judgements" / "birds.json").stat().st_mtime_ns
    # the same command continues the run: the finished judgement is kept, not redone
    assert main(["bench", "judge", "--docs", *docs, *_judge_args(smollm, out, ASPECTS)]) == 0
    assert (out / "judgements" / "birds.json").stat().st_mtime_ns == saved
    assert json.loads((out / "metrics.json").read_text())["documents"][0]["overall"] == row["overall"]

    # given summaries: the one just written (our JSON form) and an M-DocSum answer list for another
    # document (birds' text: unfaithful to it)
    written = json.loads((out / "summaries" / "birds.json").read_text())["record"]
    given = tmp_path / "given"
    given.mkdir()
    (given / "birds.json").write_text(json.dumps(written))
    mdocsum = [{"summary": p["text"], "image": {"imageRef": "None", "imageCaption": ""}} for p in written["paragraphs"]]
    shutil.copy(DOCS / "bikes.html", tmp_path / "bikes.html")
    for image in DOCS.glob("bikes_*.png"):
        shutil.copy(image, tmp_path / image.name)
    (given / "bikes.json").write_text(json.dumps(mdocsum))
    second = tmp_path / "second"
    docs = [str(DOCS / "birds.md"), str(tmp_path / "bikes.html")]
    assert main(["bench", "judge", "--docs", *docs, "--summaries", str(given), *_judge_args(smollm, second, "text_quality")]) == 0
    metrics = json.loads((second / "metrics.json").read_text())
    assert [d["id"] for d in metrics["documents"]] == ["birds", "bikes"]
    assert metrics["settings"]["predictions"] == str(given.resolve())
    assert main(["bench", "compare", str(out), str(second), "-o", str(tmp_path / "cmp")]) == 0
    rows = json.loads((tmp_path / "cmp" / "compare.json").read_text())["suites"]["judge"]
    assert len(rows) == 2 and "judged by llama" in rows[0]["what"]


def test_a_judge_is_required_and_must_be_a_language_model(tmp_path):
    result = run_cli("bench", "judge", "--docs", str(DOCS / "birds.md"), "-o", str(tmp_path / "x"))
    assert result.returncode != 0 and "--judge" in result.stderr and "Traceback" not in result.stderr
    result = run_cli("bench", "judge", "--docs", str(DOCS / "birds.md"), "--judge", "llama", "-o", str(tmp_path / "y"))
    assert result.returncode != 0 and "judge" in result.stderr and "Traceback" not in result.stderr
    result = run_cli("bench", "judge", "--docs", str(DOCS / "birds.md"), "--judge", "llama", "--judge-model",
                     str(tmp_path / "missing.gguf"), "-o", str(tmp_path / "z"))
    assert result.returncode != 0 and "missing.gguf" in result.stderr and "Traceback" not in result.stderr
