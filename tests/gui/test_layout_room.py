"""Layout (issue 37, point 8), in the real window at its default size: a long banner and a judgement do not
squeeze the summary to a few lines (the banner scrolls within three lines; the judgement sits above the
summary in a splitter, taking at most 40 % of the pane until the user drags the line); the line between
the authoring editor and the placement suggestions can be dragged."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from mmdocsum_desktop.app.judging import load_aspects
from mmdocsum_desktop.gui.summary_view import summary_fingerprint
from tests.gui.conftest import wait_job

LONG = "explanation " * 40


def _open(qtbot, window, path):
    with qtbot.waitSignal(window.documentOpened, timeout=60_000):
        assert window.open_path(path) is not None


def _drag(qtbot, splitter, dy: int) -> None:
    """Drag the splitter's line by ``dy`` pixels, as a mouse does."""
    handle = splitter.handle(1)
    start = handle.rect().center()
    QTest.mousePress(handle, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    for step in range(1, 11):
        QTest.mouseMove(handle, start + QPoint(0, dy * step // 10))
    QTest.mouseRelease(handle, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start + QPoint(0, dy))
    qtbot.wait(20)


def test_banner_and_judgement_leave_the_summary_room(qtbot, make_window, two_figure_pdf):
    window = make_window()
    _open(qtbot, window, two_figure_pdf)
    with qtbot.waitSignal(window.summaryReady, timeout=120_000):
        assert window.summarize() is not None
    view = window.summary_view
    qtbot.waitUntil(lambda: view.filled, timeout=10_000)
    window.tabs.setCurrentWidget(view)
    qtbot.wait(50)
    assert view.above_scroll.height() <= 2  # nothing above the summary: no room taken
    window.show_error("\n".join(f"line {n}: a settings file with many mistakes, each said" for n in range(8)),
                      "warning")
    # a judgement as the judge returns it: five aspects, each with a long explanation
    aspects = {name: {"score": 3.0, "status": "ok", "explanation": LONG} for name in load_aspects()}
    result = {"aspects": aspects, "overall": 3.0, "judge": "llama (a model.gguf)", "calls": 5, "seconds": 9.0,
              "figures_as_text": True, "aspect_titles": {n: a.title for n, a in load_aspects().items()}}
    view._judge_done(view.workspace, summary_fingerprint(view.summary), result)  # the judge job's end
    qtbot.wait(100)

    line = window.banner.label.fontMetrics().lineSpacing()
    assert window.banner.height() <= 3 * line + 20  # eight lines scroll within three
    pane = view.splitter.height()
    assert view.judge_panel.isVisible() and view.judge_panel.height() > 100
    assert view.cards_scroll.height() >= 0.55 * pane, (view.cards_scroll.height(), pane)
    # the user wants the judgement whole: the line drags down
    before = view.judge_panel.height()
    _drag(qtbot, view.splitter, 120)
    assert view.judge_panel.height() >= before + 100


def test_the_line_between_the_editor_and_the_suggestions_drags(qtbot, make_window, two_figure_pdf):
    window = make_window()
    _open(qtbot, window, two_figure_pdf)
    view = window.authoring_view
    window.tabs.setCurrentWidget(view)
    captions = [v.caption for v in window.workspace.document.visuals]
    view.editor.setPlainText("What we did, in a few words.\n\n" + "\n\n".join(captions) + "\n")
    job = view.place_images()
    wait_job(qtbot, job, 120_000)
    assert job.state == "succeeded", job.error
    qtbot.waitUntil(lambda: view.table.isVisible(), timeout=5_000)
    before = view.table.height()
    _drag(qtbot, view.splitter, -120)
    assert view.table.height() >= before + 100 and view.table.height() > 200  # no fixed 200-pixel cap
    assert view.editor.height() > 40  # the text stays
