"""Nested progress: a sub-job's progress fills one step of its parent's bar and shares its cancel."""

from __future__ import annotations

import pytest

from mmdocsum_desktop.errors import JobCancelled
from mmdocsum_desktop.jobs import JobControl, nested_control


def test_a_nested_control_fills_its_step_of_the_parent():
    seen: list[tuple[int, int, str]] = []
    parent = JobControl(on_progress=lambda d, t, w: seen.append((d, t, w)))
    child = nested_control(parent, 1, 4, "writing the methods paragraph")
    for done in (0, 10, 50, 100):
        child.report(done, 100, f"generating ({done}/100 tokens)")
    fractions = [d / t for d, t, _ in seen]
    assert fractions[0] == pytest.approx(0.25) and fractions[-1] == pytest.approx(0.5)
    assert fractions == sorted(fractions)
    assert seen[1][2] == "writing the methods paragraph: generating (10/100 tokens)"


def test_a_nested_control_never_leaves_its_step_and_shares_the_cancel():
    seen: list[float] = []
    parent = JobControl(on_progress=lambda d, t, w: seen.append(d / t))
    child = nested_control(parent, 2, 3)
    child.report(5, 0)  # no total yet: the start of the step
    child.report(150, 100)  # an over-report stays inside the step
    assert seen == [pytest.approx(2 / 3), pytest.approx(1.0)]
    parent.cancel()
    assert child.cancelled
    with pytest.raises(JobCancelled):
        child.report(1, 2)


def test_phases_of_the_inner_work_share_the_step_and_keep_the_bar_moving_forward():
    seen: list[float] = []
    parent = JobControl(on_progress=lambda d, t, w: seen.append(d / t))
    child = nested_control(parent, 0, 1, phases=(0.25, 0.75))
    for read in (0, 64, 128):  # first phase: 128 units
        child.report(read, 128)
    for generated in (1, 10, 20):  # second phase: counted from zero again, of another total
        child.report(generated, 20)
    assert seen == sorted(seen)
    assert seen[2] == pytest.approx(0.25) and seen[-1] == pytest.approx(1.0)


def test_a_repeated_round_of_phases_waits_instead_of_going_back():
    seen: list[float] = []
    parent = JobControl(on_progress=lambda d, t, w: seen.append(d / t))
    child = nested_control(parent, 0, 1, phases=(0.25, 0.75))
    for done, total in [(64, 64), (10, 20), (0, 64), (64, 64), (20, 20)]:  # a retried model call
        child.report(done, total)
    assert seen == sorted(seen) and seen[-1] == pytest.approx(1.0)
