"""The Ask pane keeps its questions and answers (issue 37, point 6): a second answer does not replace the
first, whose citation links still move the reader; opening another paper empties the question box and
the history (they were about the paper before). Real window, real ask use case, committed PDFs."""

from __future__ import annotations

import re

from mmdocsum_desktop.gui.ask_view import answer_html
from tests.gui.conftest import wait_job

QUESTIONS = ("How did the essential oils change the serum lipids?", "What does Fig. 2 show?")


def _open(qtbot, window, path):
    with qtbot.waitSignal(window.documentOpened, timeout=60_000):
        assert window.open_path(path) is not None


def _ask(qtbot, view, question):
    view.question.setText(question)
    job = view.ask()
    assert job is not None
    wait_job(qtbot, job, 180_000)
    assert job.state == "succeeded", job.error
    return view.answer


def test_answers_stay_in_the_pane_and_another_paper_starts_afresh(qtbot, make_window, two_figure_pdf,
                                                                    one_table_pdf):
    window = make_window()
    _open(qtbot, window, two_figure_pdf)
    view = window.ask_view
    window.tabs.setCurrentWidget(view)
    first = _ask(qtbot, view, QUESTIONS[0])
    second = _ask(qtbot, view, QUESTIONS[1])
    assert first is not second and first.sentences and second.sentences
    shown = view.browser.toPlainText()
    for question in QUESTIONS:  # both questions, in the order asked
        assert f"Q: {question}" in shown
    assert shown.index(QUESTIONS[0]) < shown.index(QUESTIONS[1])
    for answer in (first, second):  # and both answers
        assert all(sentence.text in shown for sentence in answer.sentences)
    assert [q for q, _ in view.history] == list(QUESTIONS)
    # the first answer's sources are still links in the pane
    links = re.findall(r'href="(cite:[^"]+)"', answer_html(first, window.workspace.document))
    assert links and all(f'href="{link}"' in view.browser.toHtml() for link in links)

    view.question.setText("A question typed, not asked yet")
    _open(qtbot, window, one_table_pdf)
    assert view.question.text() == ""  # not a question about this paper
    assert view.history == [] and not view.browser.toPlainText().strip()


def test_each_open_paper_keeps_its_questions_across_tab_switches(qtbot, make_window, two_figure_pdf,
                                                                 one_table_pdf):
    """Issue 46, point 1: the answers asked about one paper come back with its tab."""
    window = make_window()
    _open(qtbot, window, two_figure_pdf)
    first = window.workspace
    view = window.ask_view
    window.tabs.setCurrentWidget(view)
    answer = _ask(qtbot, view, QUESTIONS[0])
    view.question.setText("Typed about the first paper")
    _open(qtbot, window, one_table_pdf)  # a second tab
    second = window.workspace
    assert second is not first and window.papers.bar.count() == 2
    assert view.history == [] and view.question.text() == "" and not view.browser.toPlainText().strip()
    view.question.setText("Typed about the second paper")

    window.papers.bar.setCurrentIndex(0)  # back to the first paper's tab
    assert window.workspace is first
    assert view.history == [(QUESTIONS[0], answer)] and view.answer is answer
    shown = view.browser.toPlainText()
    assert f"Q: {QUESTIONS[0]}" in shown and all(s.text in shown for s in answer.sentences)
    links = re.findall(r'href="(cite:[^"]+)"', answer_html(answer, first.document))
    assert links and all(f'href="{link}"' in view.browser.toHtml() for link in links)
    assert view.question.text() == "Typed about the first paper"

    window.papers.bar.setCurrentIndex(1)
    assert view.history == [] and view.question.text() == "Typed about the second paper"
    assert not view.browser.toPlainText().strip()
