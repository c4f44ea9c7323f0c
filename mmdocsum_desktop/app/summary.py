"""Summaries: write one, regenerate one paragraph of it, give a paragraph another figure.

The rules of an edited summary live here and nowhere else: a regenerated paragraph is one paragraph
(the other three stay as they are, word for word), and a figure is shown at most once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.document.reader import export_document
from mmdocsum_desktop.document.scanned import scan_notes
from mmdocsum_desktop.engines.base import GenerationOptions, Message
from mmdocsum_desktop.engines.extractive import ExtractiveEngine
from mmdocsum_desktop.errors import MmdocsumError
from mmdocsum_desktop.jobs import JobControl, ensure_control
from mmdocsum_desktop.schemas.document import Document
from mmdocsum_desktop.schemas.settings import EngineChoice
from mmdocsum_desktop.schemas.summary import (
    ROLE_TITLES,
    FigureChoice,
    NoFigure,
    Summary,
    SummaryOptions,
    SummaryParagraph,
)
from mmdocsum_desktop.summarize.citations import Citer
from mmdocsum_desktop.summarize.pipeline import summarize_document
from mmdocsum_desktop.text.sentences import split_sentences

PARAGRAPH_TOKENS = 256  # about 100 words asked for: room to finish a sentence, not to ramble

ROLE_AIMS = {
    "background": "the problem the document addresses and why it matters",
    "method": "how the work was done: data, methods, design",
    "results": "the main findings, with their numbers",
    "conclusion": "what the findings mean, their limits and what follows",
}


def summarize(
    session: Session,
    document: Document,
    assets: Path,
    *,
    choice: EngineChoice | None = None,
    options: dict[str, Any] | None = None,
    control: JobControl | None = None,
    on_text: Callable[[str], None] | None = None,
) -> Summary:
    """The four-paragraph summary of ``document`` (figure crops in ``assets``) with the session's engine.

    ``options``: SummaryOptions fields of this run (include_abstract, shuffle_seed, citations,
    time_limit_s, a seed); the others come from the settings and ``choice``."""
    with session.engine(choice) as run:
        summary = summarize_document(
            document, assets, engine=run.engine, embedder=session.embedder(), ocr=run.ocr,
            options=SummaryOptions(**{**run.option_values(), **(options or {})}), control=control,
            on_text=on_text,
        )
    # a summary of a scanned paper says so, and where the OCR was unsure
    summary.warnings = list(run.warnings) + scan_notes(document.warnings) + summary.warnings
    return summary


@dataclass
class FileSummary:
    """What :func:`summarize_file` gives: the document as read (figure crops exported) and its summary."""

    document: Document
    summary: Summary


StageControl = Callable[[str], AbstractContextManager[JobControl]]


def summarize_file(
    session: Session,
    path: Path,
    assets: Path,
    *,
    choice: EngineChoice | None = None,
    options: dict[str, Any] | None = None,
    password: str | None = None,
    ocr: bool = True,
    limits: Any = None,
    dpi: int = 150,
    stage: StageControl | None = None,
    on_text: Callable[[str], None] | None = None,
) -> FileSummary:
    """A file → its summary, the one way `mmdocsum summarize` and the benchmarks do it: read (scanned
    pages with OCR unless ``ocr`` is False), figure crops exported to ``assets``, then :func:`summarize`.

    ``stage(name)`` gives the JobControl of each stage ("reading", "figures", "summarising") as a context
    manager, so a front end can show one bar per stage; None runs them without progress."""
    stage = stage or _no_progress
    with stage("reading") as control:
        document = session.read(path, password=password, control=control, ocr=ocr, limits=limits)
    with stage("figures") as control:
        export_document(document, assets, dpi=dpi, password=password, control=control)
    with stage("summarising") as control:
        summary = summarize(session, document, assets, choice=choice, options=options, control=control,
                            on_text=on_text)
    return FileSummary(document, summary)


@contextmanager
def _no_progress(_stage: str) -> Iterator[JobControl]:
    yield JobControl()


# ------------------------------------------------------------------------------------ one paragraph


def regenerate_paragraph(
    session: Session,
    document: Document,
    summary: Summary,
    index: int,
    *,
    choice: EngineChoice | None = None,
    attempt: int = 1,
    control: JobControl | None = None,
    on_text: Callable[[str], None] | None = None,
) -> Summary:
    """A copy of ``summary`` whose paragraph ``index`` is written anew for its role; the other
    paragraphs, and this paragraph's figure, are kept as they are.

    An LLM engine writes the paragraph from the document and the other three (so it neither repeats
    them nor contradicts them), with the seed moved by ``attempt`` so that each attempt differs. The
    extractive engine takes the sentences it chooses for that role (the same each time: it is
    deterministic, which restores the extracted paragraph after an edit)."""
    if not 0 <= index < len(summary.paragraphs):
        raise MmdocsumError(f"the summary has no paragraph {index + 1}")
    control = ensure_control(control)
    old = summary.paragraphs[index]
    include_abstract = summary.options.include_abstract
    with session.engine(choice) as run:
        if isinstance(run.engine, ExtractiveEngine):
            drafted = run.engine.draft(document, include_abstract=include_abstract, control=control)
            draft = next((d for d in drafted.paragraphs if d.role == old.role), None)
            if draft is None or not draft.text.strip():
                raise MmdocsumError(f"the document has no sentences for the {old.title.lower()} paragraph")
            text, sources, source = draft.text, list(draft.sentences), "extracted"
        else:
            text = _write_paragraph(run.engine, document, summary, index, min(run.max_tokens, PARAGRAPH_TOKENS),
                                    run.temperature, run.seed + attempt, control, on_text)
            sources, source = None, "model"
    fresh = old.model_copy(deep=True)
    fresh.text, fresh.source, fresh.sentences = text, source, []
    if summary.options.citations:
        citer = Citer(document, session.embedder(), include_abstract=include_abstract)
        fresh.sentences = (citer.cite([s.text for s in sources], sources) if sources
                           else citer.cite(split_sentences(text)))
    result = summary.model_copy(deep=True)
    result.paragraphs[index] = fresh
    return result


def _write_paragraph(engine: Any, document: Document, summary: Summary, index: int, max_tokens: int,
                     temperature: float, seed: int, control: JobControl,
                     on_text: Callable[[str], None] | None) -> str:
    role = summary.paragraphs[index].role
    others = "\n\n".join(f"{p.title}: {p.text}" for i, p in enumerate(summary.paragraphs) if i != index)
    ask = (f"Write the {ROLE_TITLES.get(role, role)} paragraph of a summary of the document below: "
           f"{ROLE_AIMS.get(role, role)}. About 100 words, in your own words, one paragraph of plain text, "
           "nothing else. Do not repeat what the other paragraphs say.\n\n"
           f"The other paragraphs of the summary:\n{others}\n\nThe document")
    if document.title:
        ask += f" ({document.title.strip()})"
    ask += ":\n"
    budget = engine.context_length - max_tokens - engine.count_tokens(ask) - 64
    body = _fit(document.body_text(summary.options.include_abstract), engine, budget)
    messages = [Message("system", "You summarise scientific documents accurately."), Message("user", ask + body)]
    generation = engine.generate(
        messages, GenerationOptions(max_tokens=max_tokens, temperature=max(temperature, 0.3), seed=seed),
        control=control, on_text=on_text,
    )
    text = " ".join(generation.text.split())
    if not text:
        raise MmdocsumError("the model wrote nothing for this paragraph; try again or use another model")
    return text


def _fit(text: str, engine: Any, budget: int) -> str:
    """The start of ``text`` that fits in ``budget`` tokens (halving, then growing back by quarters)."""
    if budget <= 0:
        return ""
    if engine.count_tokens(text) <= budget:
        return text
    words = text.split()
    keep = len(words)
    while keep > 1 and engine.count_tokens(" ".join(words[:keep])) > budget:
        keep //= 2
    return " ".join(words[:keep])


# ------------------------------------------------------------------------------------ figures


@dataclass
class FigureSwap:
    """What :func:`swap_figure` did: the figure now shown (None: no figure) and the paragraph it was
    taken from (None: it was not shown elsewhere)."""

    figure: FigureChoice | None
    taken_from: int | None


def swap_figure(summary: Summary, paragraph_index: int, figure: str | FigureChoice | None, *,
                document: Document | None = None) -> FigureSwap:
    """Show ``figure`` (a figure id, a FigureChoice, or None for no figure) with paragraph
    ``paragraph_index``, in place. Each figure is shown at most once: a paragraph that showed it
    loses it. A figure id the summary did not offer is looked up in ``document``."""
    if not 0 <= paragraph_index < len(summary.paragraphs):
        raise MmdocsumError(f"the summary has no paragraph {paragraph_index + 1}")
    if isinstance(figure, str):
        choice = summary.figure_choice(figure, document)
        if choice is None:
            raise MmdocsumError(f"there is no figure {figure} in this document")
    else:
        choice = figure.model_copy(update={"chosen_by": "user"}) if figure is not None else None
    taken_from = None
    for other_index, other in enumerate(summary.paragraphs):
        if other_index != paragraph_index and choice is not None and other.figure_id == choice.id:
            other.figure, other.image_caption = None, ""
            # the paragraph that gave its figure away says why it shows none now
            other.no_figure = NoFigure(kind="shown_elsewhere", labels=[choice.label] if choice.label else [])
            taken_from = other_index
    paragraph: SummaryParagraph = summary.paragraphs[paragraph_index]
    paragraph.figure = choice
    paragraph.image_caption = (choice.caption or choice.label or "") if choice is not None else ""
    # a note on why there is no figure belongs only to a paragraph without one
    paragraph.no_figure = None if choice is not None else NoFigure(kind="removed")
    return FigureSwap(choice, taken_from)
