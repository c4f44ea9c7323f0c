"""The window's application state (gui/state.py) drives the views: a summary set on the state is what the
summary view shows, and a new document clears the previous one's summary, placements and answer.
Real window offscreen, real extractive pipeline output, real placement."""

from __future__ import annotations

from tests.gui.conftest import wait_job

# the documents are tests/gui/conftest.py's: two_figure_pdf (one page, two captioned figures) and
# one_table_pdf (another paper's page: one table)


def _open(qtbot, window, path):
    with qtbot.waitSignal(window.documentOpened, timeout=60_000):
        assert window.open_path(path) is not None


def _summarize(qtbot, window):
    with qtbot.waitSignal(window.summaryReady, timeout=120_000) as blocker:
        assert window.summarize() is not None
    qtbot.waitUntil(lambda: window.summary_view.filled, timeout=5_000)
    return blocker.args[0]


def _shown_texts(view) -> list[str]:
    return [card.paragraph.text for card in view.cards if card.paragraph is not None]


def test_a_summary_set_on_the_state_is_what_the_summary_view_shows(qtbot, make_window, two_figure_pdf):
    window = make_window()
    _open(qtbot, window, two_figure_pdf)
    summary = _summarize(qtbot, window)
    assert window.state.summary is summary and _shown_texts(window.summary_view) == [p.text for p in summary.paragraphs]

    edited = summary.model_copy(deep=True)
    edited.paragraphs[0].text = "A paragraph the state was given, not the view."
    with qtbot.waitSignal(window.state.summaryChanged) as changed:
        window.state.set_summary(edited)
    assert changed.args == [edited]
    qtbot.waitUntil(lambda: window.summary_view.filled, timeout=5_000)
    assert window.summary_view.summary is edited
    assert _shown_texts(window.summary_view)[0] == "A paragraph the state was given, not the view."
    assert window.workspace.project.summary is edited  # the state writes the project, as it is


def test_busy_follows_the_summary_job(qtbot, make_window, two_figure_pdf):
    window = make_window()
    _open(qtbot, window, two_figure_pdf)
    seen: list[bool] = []
    window.state.busyChanged.connect(seen.append)
    _summarize(qtbot, window)
    qtbot.waitUntil(lambda: not window.state.busy, timeout=5_000)
    assert seen == [True, False]
    assert window.summary_view.summarize_button.isEnabled()


def test_a_new_document_clears_the_previous_summary_placements_and_answer(qtbot, make_window, two_figure_pdf,
                                                                         one_table_pdf):
    window = make_window()
    _open(qtbot, window, two_figure_pdf)
    _summarize(qtbot, window)
    captions = [v.caption for v in window.workspace.document.visuals]
    view = window.authoring_view
    view.editor.setPlainText(f"What we did, in a few words.\n\n{captions[0]}\n\n{captions[1]}\n")
    job = view.place_images()
    wait_job(qtbot, job, 120_000)
    assert job.state == "succeeded", job.error
    assert window.state.placements and view.table.rowCount() == len(window.state.placements)
    old_document = window.state.document
    ask = window.ask_view
    ask.question.setText("What do the pictures show?")
    asked = ask.ask()
    wait_job(qtbot, asked, 180_000)
    assert asked.state == "succeeded", asked.error
    assert ask.answer is not None and ask.browser.toPlainText().strip()

    emitted: dict[str, object] = {}
    for name in ("documentChanged", "summaryChanged", "placementsChanged"):
        getattr(window.state, name).connect(lambda value, name=name: emitted.setdefault(name, value))
    _open(qtbot, window, one_table_pdf)
    assert window.state.document is not old_document and emitted["documentChanged"] is window.state.document
    assert emitted["summaryChanged"] is None and emitted["placementsChanged"] == []
    assert window.state.summary is None and window.summary_view.summary is None
    assert _shown_texts(window.summary_view) == []
    assert view.table.rowCount() == 0 and not view.table.isVisibleTo(view)
    assert window.document_view.document is window.state.document
    assert ask.answer is None and not ask.browser.toPlainText().strip()  # the answer was about the other paper
