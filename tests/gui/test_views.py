"""The authoring view (Place images with accept/reject), the benchmark view (run, results, plots,
compare) and the worker pattern (progress, streamed text, cancel)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from mmdocsum_desktop.bench import report
from mmdocsum_desktop.gui.summary_view import paragraph_html
from mmdocsum_desktop.gui.workers import Job, JobRunner
from mmdocsum_desktop.schemas.summary import NoFigure, SummaryParagraph
from tests.gui.conftest import wait_job


def test_place_images_with_accept_and_reject(qtbot, make_window, two_figure_pdf):
    window = make_window()
    with qtbot.waitSignal(window.documentOpened, timeout=60_000):
        window.open_path(two_figure_pdf)
    document = window.workspace.document
    captions = [v.caption for v in document.visuals]
    assert len(captions) == 2
    view = window.authoring_view
    window.tabs.setCurrentWidget(view)
    view.editor.setPlainText(
        "An introduction to what we did, without any picture in mind.\n\n"
        f"{captions[0]}\n\n"
        f"{captions[1]}\n"
    )
    job = view.place_images()
    wait_job(qtbot, job, 120_000)
    assert job.state == "succeeded", job.error
    suggestions = window.workspace.project.placements
    assert suggestions and all(0 <= s.paragraph < 3 and s.image for s in suggestions)
    assert view.table.rowCount() == len(suggestions)
    assert all(0.0 <= s.score <= 1.0 for s in suggestions)

    first = suggestions[0]
    view.accept(0)
    text = view.editor.toPlainText()
    link = re.search(r"!\[[^\]]*\]\(([^)]+)\)", text).group(1)
    # copied into the project under the figure's label and linked relatively, never a workspace path
    assert first.status == "accepted" and link.startswith("images/") and (window.workspace.root / link).is_file()
    assert str(window.workspace.root) not in text
    paragraphs = text.split("\n\n")
    assert paragraphs[first.paragraph + 1].startswith("![")  # right after its paragraph
    if len(suggestions) > 1:
        view.reject(1)
        assert suggestions[1].status == "rejected"
        assert text == view.editor.toPlainText()
    qtbot.waitUntil(lambda: "<img" in view.preview.toHtml(), timeout=3_000)
    # the project keeps the decisions
    def saved() -> dict:
        return json.loads((window.workspace.root / "project.json").read_text(encoding="utf-8"))

    qtbot.waitUntil(lambda: [p["status"] for p in saved()["placements"]][:1] == ["accepted"], timeout=5_000)
    assert saved()["authoring"] == view.editor.toPlainText()


def test_place_images_without_paragraphs_says_what_to_do(make_window):
    window = make_window()
    assert window.authoring_view.place_images() is None
    assert "paragraphs" in window.banner.text


def test_markdown_preview_escapes_raw_html(qtbot, make_window):
    window = make_window()
    view = window.authoring_view
    view.editor.setPlainText("# Title\n\n<b>not bold</b> and *emphasis*")
    view.refresh_preview()
    html = view.preview.toHtml()
    assert "&lt;b&gt;not bold&lt;/b&gt;" in html and "font-style:italic" in html


def _ftii_run(folder: Path, acc_i: float) -> Path:
    report.write_run(folder, {"suite": "ftii", "split": "demo", "acc_b": 0.9, "acc_i": acc_i, "acc_ni": 0.95,
                              "n_slots": 40})
    return folder


def _key(view, row: int) -> str:
    """The metric's key, from the end of its name's tooltip ("… [acc_i]")."""
    tip = view.table.item(row, 0).toolTip()
    found = re.search(r"\[(\w+)\]$", tip)
    return found.group(1) if found else tip


def test_benchmark_view_shows_and_compares_runs(qtbot, make_window, tmp_path):
    window = make_window()
    view = window.bench_view
    first = _ftii_run(tmp_path / "runs" / "a", 0.5)
    second = _ftii_run(tmp_path / "runs" / "b", 0.75)
    wait_job(qtbot, view.show_run(first))
    values = {_key(view, r): view.table.item(r, 1).text() for r in range(view.table.rowCount())}
    assert values["acc_i"] == "0.5000" and values["n_slots"] == "40"
    # the table reads as words, the key and its meaning in the tooltip
    names = [view.table.item(r, 0).text() for r in range(view.table.rowCount())]
    assert "Placement accuracy, image places" in names and "acc_i" not in names
    assert view.report_button.isEnabled() and view.report_path() == first / "report.html"
    wait_job(qtbot, view.compare([first, second]))
    assert view.table.columnCount() == 3
    row = next(r for r in range(view.table.rowCount()) if _key(view, r) == "acc_i")
    assert view.table.item(row, 2).text() == "0.7500 (+0.250)"


def test_benchmark_run_on_a_small_split(qtbot, make_window, tmp_path, monkeypatch, two_figure_pdf):
    split = tmp_path / "split.jsonl"
    gold = [{"summary": "x", "image": {"imageRef": ref, "imageCaption": ""}} for ref in ("1", "None", "2", "None")]
    split.write_text(json.dumps({"id": "doc1", "document": str(two_figure_pdf),
                                 "gold": gold}) + "\n", encoding="utf-8")
    window = make_window()
    view = window.bench_view
    view.split.setEditText(str(split))
    job = view.run()
    wait_job(qtbot, job, 120_000)
    assert job.state == "succeeded", job.error
    qtbot.waitUntil(lambda: view.table.rowCount() > 0 and view.report_button.isEnabled(), timeout=30_000)
    values = {_key(view, r): view.table.item(r, 1) for r in range(view.table.rowCount())}
    assert values["n_docs"].text() == "1" and values["ts"].text() == "—"  # no judge: TS is absent, never invented
    assert "need a judge" in values["ts"].toolTip()
    assert view.plot_count >= 1


def test_benchmark_bad_split_is_reported(qtbot, make_window, tmp_path):
    window = make_window()
    view = window.bench_view
    view.split.setEditText(str(tmp_path / "nope.jsonl"))
    job = view.run()
    wait_job(qtbot, job)
    assert job.state == "failed" and "nope.jsonl" in window.banner.text
    assert view.run_button.isEnabled()


def test_worker_progress_stream_and_cancel(qtbot, logfail):
    logfail.append(r"^failing failed")  # an internal error is logged with its traceback: expected here
    runner = JobRunner()
    progress: list[tuple[int, int, str]] = []
    streamed: list[str] = []

    def work(control, stream):
        for step in range(200):
            control.report(step, 200, "writing")
            stream(f"w{step} ")
            time.sleep(0.005)
        return "never"

    job = Job("writing", work)
    job.signals.progress.connect(lambda *args: progress.append(args))
    job.signals.text.connect(streamed.append)
    runner.start(job)
    qtbot.waitUntil(lambda: len(streamed) >= 2, timeout=10_000)
    job.cancel()
    wait_job(qtbot, job)
    assert job.state == "cancelled"
    text = "".join(streamed)
    assert text.startswith("w0 w1 ") and "w199" not in text
    assert progress and all(total == 200 for _, total, _ in progress)
    assert len(progress) < 100  # throttled: the GUI is not flooded

    failing = Job("failing", lambda control, stream: 1 / 0)
    runner.start(failing)
    wait_job(qtbot, failing)
    assert failing.state == "failed" and "ZeroDivisionError" in failing.error
    assert runner.wait(5_000)


def test_a_summary_card_says_why_its_paragraph_shows_no_figure(qtbot):
    noted = SummaryParagraph(role="method", text="We measured flow.",
                             no_figure=NoFigure(kind="shown_elsewhere", labels=["Figure 2"]))
    html_text = paragraph_html(noted, None)
    assert "Figure 2, cited here, is shown with another paragraph." in html_text
    assert "shown with another" not in paragraph_html(SummaryParagraph(role="method", text="We measured flow."), None)
