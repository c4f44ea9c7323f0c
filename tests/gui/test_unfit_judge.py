""""Judge this summary" with a judge model labelled unfit (SmolLM2-135M, the real GGUF): nothing runs
until the user insists; the panel says why and offers "Judge anyway", which starts the judge (issue 37,
point 4). A weak or fit judge is not asked. Its finished judgement stays marked as an unfit judge's
(issue 46, point 2)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.gui.test_judge_action import JUDGE_TIMEOUT, configure, smollm, summarized_window, wait_job  # noqa: F401 — fixture

pytestmark = pytest.mark.slow  # loads SmolLM2 once the user insists


def test_an_unfit_judge_runs_only_when_the_user_insists(qtbot, make_window, smollm, short_article):  # noqa: F811
    configure(model=smollm)
    window = summarized_window(qtbot, make_window, short_article)
    view = window.summary_view
    panel = view.judge_panel
    qtbot.mouseClick(view.judge_button, Qt.MouseButton.LeftButton)
    assert view.judge_job is None and not window.runner.running("judge")  # refused: no model loaded
    assert panel.isVisible() and panel.message.isVisible() and not panel.running
    text = panel.message.text()
    assert "SmolLM2-135M" in text and "too small to judge" in text and "Judge anyway" in text
    assert panel.insist_button.isVisible() and view.judge_button.isEnabled()

    qtbot.mouseClick(panel.insist_button, Qt.MouseButton.LeftButton)  # the user insists
    job = view.judge_job
    assert job is not None and job.kind == "judge"
    assert panel.running and not panel.insist_button.isVisible()
    assert "too small to judge" in panel.warning.text() and panel.warning.isVisible()  # still said while it runs
    qtbot.waitUntil(lambda: job.state == "running", timeout=30_000)
    view.cancel_judge()  # what it scores is test_judge_action's business
    wait_job(qtbot, view, job, 120_000)
    assert job.state in ("cancelled", "succeeded")


def test_a_finished_judgement_by_an_unfit_judge_keeps_its_warning(qtbot, make_window, smollm, short_article):  # noqa: F811
    configure(model=smollm)
    window = summarized_window(qtbot, make_window, short_article)
    view = window.summary_view
    panel = view.judge_panel
    qtbot.mouseClick(view.judge_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(panel.insist_button, Qt.MouseButton.LeftButton)  # the user insists
    job = view.judge_job
    assert job is not None
    wait_job(qtbot, view, job, JUDGE_TIMEOUT)
    assert job.state == "succeeded", job.error
    assert panel.table.isVisible() and panel.rows()  # the scores are shown...
    assert "unreliable" in panel.title.text()  # ...marked as an unfit judge's
    assert panel.warning.isVisible() and "too small to judge" in panel.warning.text()
    assert panel.overall.text().endswith("(unreliable)")
    # an edit makes the judgement stale: it is still an unfit judge's
    window.edit_paragraph(0, "A new opening paragraph, written by hand.")
    assert panel.message.isVisible() and "changed since it was judged" in panel.message.text()
    assert panel.warning.isVisible() and "too small to judge" in panel.warning.text()
