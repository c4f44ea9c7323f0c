"""Ask the paper, as the CLI, the desktop app and the benchmarks call it: the session's engine, and one
retriever per session (kept by the session's models: MiniLM and the cross-encoder, loaded once), whose
index of each document is built on the first question and reused for the next ones."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from mmdocsum_desktop.answer.ask import answer_from_evidence, answer_question, prepare_question
from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.document.language import guess_language
from mmdocsum_desktop.engines.base import TextEngine
from mmdocsum_desktop.errors import MmdocsumError
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.retrieval.passages import MAX_OCR_CHARS, MIN_SENTENCE_CHARS, Passage, PassageKind
from mmdocsum_desktop.retrieval.search import Retriever
from mmdocsum_desktop.schemas.answer import Answer, AskOptions
from mmdocsum_desktop.schemas.document import Document
from mmdocsum_desktop.schemas.settings import EngineChoice
from mmdocsum_desktop.text.sentences import split_sentences


def retriever(session: Session, *, rerank: bool = True) -> Retriever:
    """The session's retriever (built once by its models; ``rerank=False`` gives one without rescoring)."""
    return session.models.retriever(rerank=rerank)


def check_question(question: str) -> str:
    """The question whitespace-normalised; EmptyQuestionError (a clear message) before anything loads."""
    return prepare_question(question)[0]


def question_language_note(question: str) -> str | None:
    """A note when the question is not English: the evidence models rank English best."""
    language = guess_language(question)
    if language and language != "en":
        return (f"the question looks {language}, the evidence models are English-only: "
                "answers may miss, ask in English for the best evidence")
    return None


def _with_choice(options: AskOptions | None, choice: EngineChoice) -> AskOptions:
    options = options or AskOptions()
    if choice.max_tokens is None and choice.temperature is None:
        return options
    return options.model_copy(update={
        "max_tokens": choice.max_tokens or options.max_tokens,
        "temperature": choice.temperature if choice.temperature is not None else options.temperature,
    })


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
    keep: Callable[[Passage], bool] | None = None,
) -> Answer:
    """Answer ``question`` about ``document`` with the engine ``choice`` names (extractive: no model).
    ``keep`` filters the evidence passages (benchmarks hide the sentence a claim was taken from)."""
    prepare_question(question)  # an empty question is refused before any model is loaded
    choice = choice or EngineChoice()
    options = _with_choice(options, choice)
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


@dataclass(frozen=True)
class GivenSource:
    """One piece of evidence a caller gives in place of a document (MCiteBench's sources): prose, or a
    figure or table whose image the session's OCR reads."""

    id: str
    text: str = ""
    image: Path | None = None
    visual: bool = False  # a figure or table: cited by its id


@dataclass
class SourcesAnswer:
    answer: Answer
    passages: list[Passage]  # the sources as the retriever saw them, in the order given


def source_passages(session: Session, sources: Sequence[GivenSource], *, notes: list[str] | None = None,
                    control: JobControl | None = None) -> list[Passage]:
    """The sources as retrieval passages, in the order given; a passage's block is its source's id, so
    what an answer rests on maps back to the caller's ids. Prose is split into sentences (a text source
    rests on itself: a figure its prose mentions is not one of the sources); a visual is the text OCR reads
    in its image, or its id alone. An image that cannot be read is noted in ``notes``."""
    found: list[Passage] = []

    def add(kind: PassageKind, text: str, source_id: str, labels: Sequence[str]) -> None:
        found.append(Passage(len(found), kind, text, None, source_id, tuple(labels),
                             figure=None if not labels else source_id))

    for source in sources:
        if not source.visual:
            text = " ".join(source.text.split())
            pieces = [p for p in split_sentences(text) if len(p) >= MIN_SENTENCE_CHARS] or ([text] if text else [])
            for piece in pieces:
                add("sentence", piece, source.id, [])
            continue
        image_text = _image_text(session, source, notes, control)
        if image_text:
            add("ocr", f"Text in {source.id}: {image_text[:MAX_OCR_CHARS]}", source.id, [source.id])
        else:
            add("caption", source.id, source.id, [source.id])
    return found


def _image_text(session: Session, source: GivenSource, notes: list[str] | None, control: JobControl | None) -> str:
    if source.image is None or not source.image.is_file():
        return ""
    try:
        return " ".join(session.models.ocr().read_text(source.image, control=control).split())
    except MmdocsumError as error:  # a damaged image (or no OCR) is read as no text; the answer goes on
        note = f"{source.image.name}: not read ({error})"
        if notes is not None and note not in notes:
            notes.append(note)
        return ""


def ask_sources(
    session: Session,
    question: str,
    sources: Sequence[GivenSource],
    *,
    key: str,
    source: str = "",
    choice: EngineChoice | None = None,
    ocr: bool = True,
    control: JobControl | None = None,
) -> SourcesAnswer:
    """Answer ``question`` from the ``sources`` given (not a document), with the engine ``choice`` names,
    citing the sources' ids: what ``ask`` does after reading, for a benchmark that gives the evidence.
    ``key`` names the sources' index (kept by the session's retriever); ``ocr=False`` knows figures by
    their ids only."""
    choice = choice or EngineChoice()
    notes: list[str] = []
    given = sources if ocr else [GivenSource(s.id, s.text, None, s.visual) for s in sources]
    if ocr and any(s.visual and s.image is not None for s in sources):
        try:
            session.models.ocr()
        except MmdocsumError as error:
            notes.append(f"no OCR ({error}): figures and tables are known by their labels only")
            given = [GivenSource(s.id, s.text, None, s.visual) for s in sources]
    started = time.perf_counter()
    passages = source_passages(session, given, notes=notes, control=control)
    search = retriever(session)
    labels = frozenset(s.id for s in sources if s.visual)
    index = search.index_passages(passages, known_labels=labels, key=key, control=control)
    evidence = search.search(index, question, k=max(1, len(passages)), control=control)
    options = _with_choice(AskOptions(evidence_k=max(1, len(passages))), choice)

    def answer_with(engine: TextEngine | None) -> Answer:
        return answer_from_evidence(question, evidence, index, engine, search, control, options=options,
                                    source=source, notes=[*search.notes, *notes], started=started)

    if session.engine_name(choice) == "extractive":
        return SourcesAnswer(answer_with(None), passages)
    with session.engine(choice.model_copy(update={"ocr": False})) as run:
        answer = answer_with(run.engine)
        answer.notes.extend(run.warnings)
        return SourcesAnswer(answer, passages)
