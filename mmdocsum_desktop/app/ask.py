"""Ask the paper, as the CLI, the desktop app and the benchmarks call it: the session's engine, and one
retriever per session (kept by the session's models: MiniLM and the cross-encoder, loaded once), whose
index of each document is built on the first question and reused for the next ones."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mmdocsum_desktop.answer.ask import AskOptions, answer_question, prepare_question
from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.retrieval import Retriever
from mmdocsum_desktop.schemas.answer import Answer
from mmdocsum_desktop.schemas.document import Document
from mmdocsum_desktop.schemas.settings import EngineChoice


def retriever(session: Session, *, rerank: bool = True) -> Retriever:
    """The session's retriever (built once by its models; ``rerank=False`` gives one without rescoring)."""
    return session.models.retriever(rerank=rerank)


def ask(
    session: Session,
    document: Document,
    question: str,
    *,
    choice: EngineChoice | None = None,
    options: AskOptions | None = None,
    rerank: bool = True,
    control: JobControl | None = None,
    on_text: Callable[[str], None] | None = None,
    figure_text: dict[str, str] | None = None,
    keep: Callable[[Any], bool] | None = None,
) -> Answer:
    """Answer ``question`` about ``document`` with the engine ``choice`` names (extractive: no model).
    ``keep`` filters the evidence passages (benchmarks hide the sentence a claim was taken from)."""
    prepare_question(question)  # an empty question is refused before any model is loaded
    choice = choice or EngineChoice()
    options = options or AskOptions()
    if choice.max_tokens is not None or choice.temperature is not None:
        options = AskOptions(**{
            **options.__dict__,
            "max_tokens": choice.max_tokens or options.max_tokens,
            "temperature": choice.temperature if choice.temperature is not None else options.temperature,
        })
    search = retriever(session, rerank=rerank)
    if session.engine_name(choice) == "extractive":
        return answer_question(document, question, None, search, control, options=options, on_text=on_text,
                               figure_text=figure_text, keep=keep)
    # the answer reads no figure images: the engine needs no OCR of its own here
    with session.engine(choice.model_copy(update={"ocr": False})) as run:
        answer = answer_question(document, question, run.engine, search, control, options=options,
                                 on_text=on_text, figure_text=figure_text, keep=keep)
        answer.notes.extend(run.warnings)
        return answer
