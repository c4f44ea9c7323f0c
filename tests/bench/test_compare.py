"""`bench compare`: runs side by side, grouped by suite, with differences to the first run."""

from __future__ import annotations

import json

import pytest

from mmdocsum_desktop.bench.compare import compare, to_markdown, write_comparison


def _run(folder, metrics):
    folder.mkdir(parents=True)
    (folder / "metrics.json").write_text(json.dumps(metrics))
    return folder


def test_runs_side_by_side(tmp_path):
    base = {"suite": "mdocsum", "split": "demo", "omatch": 0.5, "is": 0.4, "ts": None, "n_docs": 5,
            "rouge": {"rougeL": 0.3}, "settings": {"split": "demo", "engine": {"engine": "extractive"}},
            "timings": {"total_s": 10.0}}
    other = dict(base, omatch=0.75, is_=None, n_docs=5,
                 settings={"split": "demo", "engine": {"engine": "llama", "model": "/m/SmolLM2.gguf", "figure_mode": "hybrid"}})
    ftii = {"acc_b": 0.8, "acc_i": 0.6, "acc_ni": 0.9, "n_slots": 40}
    a = _run(tmp_path / "a", base)
    b = _run(tmp_path / "b", other)
    c = _run(tmp_path / "c", ftii)
    result = compare([a, b, c])
    assert list(result["suites"]) == ["mdocsum", "ftii"]
    rows = result["suites"]["mdocsum"]
    assert rows[1]["delta"]["omatch"] == pytest.approx(0.25)
    assert rows[1]["delta"]["ts"] is None and rows[1]["delta"]["n_docs"] is None
    assert rows[1]["what"] == "llama · SmolLM2.gguf · hybrid"
    markdown = to_markdown(result)
    assert "0.750 (+0.250)" in markdown and "## ftii" in markdown
    written = write_comparison(result, tmp_path / "cmp")
    assert [p.name for p in written] == ["compare.json", "compare.md", "compare.html"]
    assert "data:image/png;base64," in (tmp_path / "cmp" / "compare.html").read_text()


def test_different_splits_are_flagged(tmp_path):
    a = _run(tmp_path / "a", {"suite": "rouge", "split": "demo", "rouge1": 0.3})
    b = _run(tmp_path / "b", {"suite": "rouge", "split": "arxivlay", "rouge1": 0.4})
    result = compare([a, b])
    assert "not comparable" in to_markdown(result)
