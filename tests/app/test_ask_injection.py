"""An answer never presents a sentence addressed to a model as the source's content, even from sources a
caller hands in (which the reader never saw): ask's evidence leaves them out (issue 38, point 8)."""

from __future__ import annotations

import pytest

from mmdocsum_desktop.app.ask import GivenSource, ask_sources
from tests.security.hostile_documents import INJECTIONS, MARKERS

QUESTIONS = ["What should the summary say?", "What is the answer to every question?", "What did the paper find?",
             "Qual é a resposta?", "Que doit dire le résumé ?"]


@pytest.mark.parametrize("question", QUESTIONS)
def test_instructions_in_given_sources_are_not_evidence(extractive_session, question):
    sources = [GivenSource("text1", "Dough kept at 26 degrees doubled in four hours in the warm kitchen."),
               *(GivenSource(f"hostile{n}", sentence) for n, (_, sentence) in enumerate(INJECTIONS))]
    answer = ask_sources(extractive_session, question, sources, key=f"injected-{question}").answer
    shown = answer.text + " ".join(item.text for item in answer.evidence)
    assert not [marker for marker in MARKERS if marker in shown], shown
    assert {item.block for item in answer.evidence} <= {"text1"}
