"""Ask the paper: a question about one document answered from its evidence, every sentence cited
(page, Figure N, Table N, block ids), in the :class:`~mmdocsum_desktop.schemas.answer.Answer` schema."""

from __future__ import annotations

from mmdocsum_desktop.answer.ask import AskOptions, answer_from_evidence, answer_question, prepare_question
from mmdocsum_desktop.schemas.answer import NOT_IN_DOCUMENT, Answer, AnswerEvidence, AnswerSentence, Repair

__all__ = [
    "NOT_IN_DOCUMENT",
    "Answer",
    "AnswerEvidence",
    "AnswerSentence",
    "AskOptions",
    "Repair",
    "answer_from_evidence",
    "answer_question",
    "prepare_question",
]
