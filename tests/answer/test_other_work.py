"""An answer says when the passage it rests on reports another study's finding (issue 35, point 2), on the
committed PMC2803133 paper: "Its mechanism of action has been proposed by Ito et al. [28]."."""

from __future__ import annotations

from mmdocsum_desktop.answer.ask import answer_question
from tests.conftest import read_paper


def test_an_answer_resting_on_another_studys_sentence_says_so(retriever):
    paper = read_paper("PMC2803133.pdf")
    answer = answer_question(paper, "Who proposed the mechanism of action of the drug?", None, retriever)
    assert not answer.not_in_document
    cited = [s for s in answer.sentences if "Ito et al" in s.text]
    assert cited, [s.text for s in answer.sentences]
    notes = [n for n in answer.notes if "another study" in n]
    assert any("Ito et al." in n for n in notes), answer.notes
    # and only then: an answer from the paper's own findings carries no such note
    own = answer_question(paper, "Which figure shows the histopathology of the liver?", None, retriever)
    assert not own.not_in_document and own.sentences
    assert not [n for n in own.notes if "another study" in n], own.notes
