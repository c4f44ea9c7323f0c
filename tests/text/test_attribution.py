"""text.attribution: whose finding a sentence reports, on sentences of the committed papers and on the
other languages' cue phrases (issue 35, point 2)."""

from __future__ import annotations

import pytest

from mmdocsum_desktop.text.attribution import attribute, cited_authors, reports_other_work
from mmdocsum_desktop.text.sentences import split_sentences
from tests.conftest import read_paper


def _sentence(paper: str, start: str) -> str:
    """The body sentence of a committed paper that opens with ``start``, as the reader gives it."""
    document = read_paper(paper)
    found = [s for b in document.blocks if b.type == "paragraph" for s in split_sentences(b.text) if s.startswith(start)]
    assert found, f"{paper} has no sentence opening with {start!r}"
    return found[0]


def test_a_named_study_with_a_numbered_reference_is_other_work():
    sentence = _sentence("PMC2803133.pdf", "Its mechanism of action has been proposed by Ito")
    found = reports_other_work(sentence)
    assert found is not None and found.kind == "citation"
    assert cited_authors(sentence) == "Ito et al."


def test_an_author_year_reference_is_other_work():
    sentence = _sentence("PMC4521097.pdf", "Although there is evidence that at least some adults")
    found = attribute(sentence)
    assert found is not None and found.kind == "citation"
    assert "Pomeroy et al" in (cited_authors(sentence) or "")


@pytest.mark.parametrize("text, kind", [
    ("Previous studies have shown that the enzyme is inhibited by copper.", "other study"),
    ("Scott et al. found a lower risk among coffee drinkers.", "citation"),
    ("Estudos anteriores demonstraram que a dieta reduz o risco cardiovascular.", "other study"),
    ("Segundo os autores, a produção científica chinesa cresceu.", "other study"),
    ("Según la literatura, el bajo peso al nacer es frecuente en trabajadoras.", "other study"),
    ("Selon Bourdieu, le capital culturel se transmet dans la famille.", "other study"),
    ("Frühere Studien zeigten einen Zusammenhang zwischen Schlaf und Gedächtnis.", "other study"),
    ("Studi precedenti hanno dimostrato un effetto protettivo della dieta.", "other study"),
    ("P. – Bien… c'est le français international.", "quotation"),
    ("“I never felt that the nurses listened to me at all,” one mother said.", "quotation"),
    ("Why do so few patients return for the second dose?", "question"),
    ("¿Por qué las trabajadoras no reciben apoyo?", "question"),
])
def test_other_work_quotations_and_questions_are_named(text, kind):
    found = attribute(text)
    assert found is not None and found.kind == kind


@pytest.mark.parametrize("text", [
    "Unlike previous studies, we found that the enzyme was not inhibited by copper.",
    "Nossos resultados mostraram que, diferentemente de estudos anteriores, a dieta reduz o risco.",
    "Mean age was 45.2 years and 60% of the participants were women.",
    "Survival was longer in group A (January 2015), as Fig.2 shows.",
    "The rate increased from 2010 to 2015 (Figure 2).",
])
def test_the_papers_own_findings_are_not_flagged(text):
    assert attribute(text) is None


def test_an_introduction_sentence_is_not_a_finding():
    found = attribute("Copper nanoparticles are used as catalysts.", section_role="background")
    assert found is not None and found.kind == "introduction"
    assert attribute("Copper nanoparticles are used as catalysts.", section_role="results") is None
