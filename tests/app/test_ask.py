"""Ask as the front ends and the benchmarks call it: from given sources (MCiteBench's way) with the
session's real retriever (MiniLM + cross-encoder), and the checks a front end makes before loading."""

from __future__ import annotations

import pytest

from mmdocsum_desktop.app.ask import GivenSource, ask_sources, check_question, question_language_note
from mmdocsum_desktop.errors import MmdocsumError

SOURCES = [
    GivenSource("text1", "Mice given the drug slept four hours longer than the controls. The effect lasted a week."),
    GivenSource("text2", "The cohort was recruited in two hospitals in Lisbon between 2015 and 2018."),
    GivenSource("Figure 1", visual=True),  # no image: known by its id only
]


def test_an_answer_from_given_sources_cites_them_by_their_ids(extractive_session):
    result = ask_sources(extractive_session, "How much longer did the mice sleep?", SOURCES, key="q1")
    assert [p.block for p in result.passages] == ["text1", "text1", "text2", "Figure 1"]
    assert result.passages[-1].kind == "caption" and result.passages[-1].labels == ("Figure 1",)
    answer = result.answer
    assert not answer.not_in_document and answer.engine.engine == "extractive"
    cited = {block for sentence in answer.sentences for block in sentence.blocks}
    assert cited and cited <= {"text1", "text2", "Figure 1"}
    assert "text1" in cited  # the sentence that answers it
    assert "four hours" in answer.text


def test_an_unreadable_figure_image_is_noted_and_known_by_its_id(extractive_session, tmp_path):
    broken = tmp_path / "figure.png"
    broken.write_bytes(b"\x89PNG\r\n\x1a\n not really")
    sources = [*SOURCES[:2], GivenSource("Figure 1", image=broken, visual=True)]
    result = ask_sources(extractive_session, "Where was the cohort recruited?", sources, key="q2")
    assert result.passages[-1].kind == "caption"
    assert any("figure.png" in note for note in result.answer.notes)


def test_questions_are_checked_before_anything_loads():
    assert check_question("  what   is shown?\n") == "what is shown?"
    with pytest.raises(MmdocsumError, match="empty"):
        check_question(" \n\t")
    assert question_language_note("What does Figure 2 show about the mice?") is None
    note = question_language_note("O que mostra a figura dois sobre os ratos tratados com o medicamento?")
    assert note is not None and "English" in note
