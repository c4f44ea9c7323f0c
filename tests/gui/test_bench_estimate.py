"""The Benchmark view's first time estimate (issue 46, item 8): what a run with the chosen engine took
here, else the published CPU seconds of that engine — never the published wall seconds of a loaded
machine (4 to 25 times a desktop's run), never another engine's time."""

from __future__ import annotations

import json

import pytest

from mmdocsum_desktop.gui import bench_view


@pytest.fixture()
def runs(tmp_path, monkeypatch):
    monkeypatch.setenv("MMDOCSUM_DATA_DIR", str(tmp_path / "data"))
    return tmp_path


def _row(split: str, suite: str) -> dict:
    return next(r for r in bench_view.bundled_rows() if (r["split"], r["suite"]) == (split, suite))


def test_the_estimate_is_the_engines_cpu_time_not_a_loaded_machines_wall_time(runs):
    published = bench_view.published_numbers()["demo:mcite"]
    assert published["extractive"]["wall_s"] > 3 * published["extractive"]["cpu_s"]  # why the wall is no estimate
    row = _row("demo", "mcite")
    assert row["seconds"] == {"extractive": published["extractive"]["cpu_s"]}
    assert "of CPU" in row["took"] and "(extractive)" in row["took"]
    grounded = _row("pmc-test", "mdocsum")["seconds"]
    assert set(grounded) == {"extractive", "smollm2-grounded"}  # each engine its own


def test_a_run_here_with_the_same_engine_comes_first_and_another_engines_is_not_taken(runs):
    history = bench_view.history_dir("mcite", "demo")
    history.mkdir(parents=True)
    (history / "20261201-100000-llama.json").write_text(json.dumps({"engine": "llama", "wall_s": 300.0}))
    (history / "20261130-100000-extractive.json").write_text(json.dumps({"engine": "extractive", "wall_s": 5.5}))
    (history / "20261129-100000-extractive.json").write_text(json.dumps({"engine": "extractive", "wall_s": 9.0}))
    (history / "20261128-broken.json").write_text("{not json")
    row = _row("demo", "mcite")
    assert row["seconds"] == {"extractive": 5.5, "llama": 300.0}  # the latest run of each engine
    assert row["took"] == "5 min here (last run, llama)"
