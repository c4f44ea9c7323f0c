"""Resumable, concurrent runs: finished items survive a cancel or a crash; the same call continues."""

from __future__ import annotations

import json
import threading
import time

import pytest

from mmdocsum_desktop.bench.runner import RunFolder, run_stage, safe_name
from mmdocsum_desktop.errors import EngineError, JobCancelled, RunMismatchError
from mmdocsum_desktop.jobs import JobControl

SETTINGS = {"suite": "test", "engine": "a"}


def test_safe_names_are_unique_and_readable():
    assert safe_name("paper-1.v2") == "paper-1.v2"
    odd = safe_name("a/b c")
    assert odd.startswith("a_b_c-") and "/" not in odd
    assert safe_name("a/b") != safe_name("a?b")


def test_a_cancelled_stage_keeps_finished_items_and_the_same_call_continues(tmp_path):
    control = JobControl()
    calls: list[str] = []

    def work(item: str, ctl: JobControl) -> dict:
        calls.append(item)
        if item == "c":
            ctl.cancel()  # the user presses Cancel while c is in flight
            raise JobCancelled("stopped")
        return {"value": item.upper()}

    folder = RunFolder(tmp_path, SETTINGS)
    outcome = run_stage(folder, "s", ["a", "b", "c", "d"], str, work, control=control)
    assert outcome.cancelled and set(outcome.results) == {"a", "b"}
    assert json.loads((tmp_path / "s" / "a.json").read_text()) == {"id": "a", "value": "A"}

    calls.clear()
    again = run_stage(RunFolder(tmp_path, SETTINGS), "s", ["a", "b", "c", "d"], str,
                      lambda item, ctl: {"value": item.upper()})
    assert not again.cancelled and again.resumed == 2 and again.processed == 2
    assert {k: v["value"] for k, v in again.results.items()} == {"a": "A", "b": "B", "c": "C", "d": "D"}


def test_failures_are_reported_and_retried_next_time(tmp_path):
    def flaky(item: str, ctl) -> dict:
        if item == "b":
            raise EngineError("the server answered garbage")
        if item == "c":
            raise ValueError("a bug")
        return {}

    outcome = run_stage(RunFolder(tmp_path, SETTINGS), "s", ["a", "b", "c"], str, flaky)
    assert set(outcome.results) == {"a"}
    assert outcome.failed == {"b": "the server answered garbage", "c": "ValueError: a bug"}
    retry = run_stage(RunFolder(tmp_path, SETTINGS), "s", ["a", "b", "c"], str, lambda item, ctl: {})
    assert retry.resumed == 1 and retry.processed == 2


def test_a_damaged_item_file_is_redone(tmp_path):
    folder = RunFolder(tmp_path, SETTINGS)
    run_stage(folder, "s", ["a"], str, lambda item, ctl: {"v": 1})
    (tmp_path / "s" / "a.json").write_text("{truncated")
    outcome = run_stage(folder, "s", ["a"], str, lambda item, ctl: {"v": 2})
    assert outcome.processed == 1 and outcome.results["a"]["v"] == 2


def test_other_settings_are_refused_unless_restarted(tmp_path):
    RunFolder(tmp_path, SETTINGS)
    run_stage(RunFolder(tmp_path, SETTINGS), "s", ["a"], str, lambda item, ctl: {})
    with pytest.raises(RunMismatchError, match="engine"):
        RunFolder(tmp_path, {"suite": "test", "engine": "b"})
    folder = RunFolder(tmp_path, {"suite": "test", "engine": "b"}, restart=True)
    assert not (tmp_path / "s" / "a.json").exists()
    assert json.loads((tmp_path / "run.json").read_text())["settings"]["engine"] == "b"
    assert folder.load("s", "a") is None


def test_is_current_rejects_stale_results(tmp_path):
    folder = RunFolder(tmp_path, SETTINGS)
    run_stage(folder, "judge", ["a"], str, lambda item, ctl: {"judge": "old"})
    outcome = run_stage(folder, "judge", ["a"], str, lambda item, ctl: {"judge": "new"},
                        is_current=lambda saved: saved.get("judge") == "new")
    assert outcome.processed == 1 and outcome.results["a"]["judge"] == "new"


def test_concurrency_runs_items_in_parallel_up_to_the_limit(tmp_path):
    active = 0
    peak = 0
    lock = threading.Lock()

    together = threading.Barrier(4, timeout=60)  # broken (the item fails) unless four run at once

    def slow(item: str, ctl) -> dict:
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        if int(item) < 4:
            together.wait()
        with lock:
            active -= 1
        return {"n": int(item)}

    items = [str(i) for i in range(12)]
    outcome = run_stage(RunFolder(tmp_path, SETTINGS), "s", items, str, slow, concurrency=4)
    assert len(outcome.results) == 12 and outcome.processed == 12 and outcome.failed == {}
    assert not together.broken
    assert peak == 4  # never more than the limit


def test_cancel_during_a_concurrent_stage_keeps_what_finished(tmp_path):
    control = JobControl()

    def work(item: str, ctl: JobControl) -> dict:
        if item == "3":
            ctl.cancel()
        time.sleep(0.02)
        ctl.check()
        return {}

    items = [str(i) for i in range(20)]
    outcome = run_stage(RunFolder(tmp_path, SETTINGS), "s", items, str, work, concurrency=2, control=control)
    assert outcome.cancelled
    assert 0 < len(outcome.results) < 20
    saved = {p.stem for p in (tmp_path / "s").glob("*.json")}
    assert saved == set(outcome.results)


def test_progress_is_reported(tmp_path):
    seen = []
    control = JobControl(on_progress=lambda done, total, what: seen.append((done, total)))
    run_stage(RunFolder(tmp_path, SETTINGS), "s", ["a", "b"], str, lambda item, ctl: {}, control=control)
    assert seen[0] == (0, 2) and seen[-1] == (2, 2)
