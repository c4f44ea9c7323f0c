"""Summaries: write one, regenerate one paragraph of it, give a paragraph another figure.

The rules of an edited summary live here and nowhere else: a regenerated paragraph is one paragraph
(the other three stay as they are, word for word), and a figure is shown at most once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.document.limits import ReadLimits
from mmdocsum_desktop.document.reader import export_document
from mmdocsum_desktop.document.recognised import scan_notes
from mmdocsum_desktop.engines.factory import ConfiguredEngine
from mmdocsum_desktop.errors import MmdocsumError
from mmdocsum_desktop.jobs import JobControl, ensure_control
from mmdocsum_desktop.schemas.document import Document
from mmdocsum_desktop.schemas.settings import EngineChoice
from mmdocsum_desktop.schemas.summary import (
    EngineInfo,
    FigureChoice,
    NoFigure,
    Summary,
    SummaryOptions,
    SummaryParagraph,
    SummaryRequest,
)
from mmdocsum_desktop.summarize.citations import Citer
from mmdocsum_desktop.summarize.pipeline import summarize_document
from mmdocsum_desktop.summarize.roles import (
    section_role as section_role,  # the pairs benchmark counts roles with it
)
from mmdocsum_desktop.summarize.strategies.base import RewriteSettings, SummaryStrategy
from mmdocsum_desktop.summarize.strategies.choice import choose_strategy
from mmdocsum_desktop.text.sentences import split_sentences


def summary_strategy(session: Session, run: ConfiguredEngine) -> SummaryStrategy:
    """How the session's configured engine writes summaries: extractive without a language model,
    grounded or full-document with one (``llm_mode``)."""
    return choose_strategy(run.engine, embedder=session.embedder(), llm_mode=run.llm_mode)


def describe_engine(session: Session, choice: EngineChoice | None = None) -> EngineInfo:
    """What would write a summary with these settings (``Summary.engine`` as it will be): the engine is
    built now, so a bad model file or endpoint setting is reported before any long work."""
    with session.engine(choice) as run:
        return summary_strategy(session, run).describe()


def summarize(
    session: Session,
    document: Document,
    assets: Path,
    *,
    choice: EngineChoice | None = None,
    options: SummaryRequest | None = None,
    control: JobControl | None = None,
    on_text: Callable[[str], None] | None = None,
) -> Summary:
    """The four-paragraph summary of ``document`` (figure crops in ``assets``) with the session's engine.

    ``options``: what this run asks for (include_abstract, shuffle_seed, citations, time_limit_s); the
    engine's options come from the settings and ``choice``."""
    request = options if options is not None else SummaryRequest()
    with session.engine(choice) as run:
        values = SummaryOptions.model_validate({**run.option_values(), **request.option_values()})
        strategy = choose_strategy(run.engine, embedder=session.embedder(), llm_mode=values.llm_mode)
        summary = summarize_document(document, assets, strategy=strategy, embedder=session.embedder(), ocr=run.ocr,
                                     options=values, control=control, on_text=on_text)
    # a summary of a scanned paper says so, and where the OCR was unsure
    summary.warnings = list(run.warnings) + scan_notes(document.warnings) + summary.warnings
    return summary


@dataclass
class FileSummary:
    """What :func:`summarize_file` gives: the document as read (figure crops exported) and its summary."""

    document: Document
    summary: Summary


StageControl = Callable[[str], AbstractContextManager[JobControl]]


class SummarizeFileRequest(BaseModel):
    """What :func:`summarize_file` asks for: the file, where its figure crops go (``assets``), the engine
    (``choice``: None, the settings'), the run's :class:`SummaryRequest`, and how to read the file (its
    ``password``, OCR of scanned pages, the read limits, the crops' ``dpi``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: Path
    assets: Path
    choice: EngineChoice | None = None
    options: SummaryRequest = Field(default_factory=SummaryRequest)
    password: str | None = None
    ocr: bool = True
    limits: ReadLimits | None = None
    dpi: int = Field(default=150, ge=36, le=600)


def summarize_file(
    session: Session,
    request: SummarizeFileRequest,
    *,
    stage: StageControl | None = None,
    on_text: Callable[[str], None] | None = None,
) -> FileSummary:
    """A file → its summary, the one way `mmdocsum summarize` and the benchmarks do it: read (scanned
    pages with OCR unless ``request.ocr`` is False), figure crops exported to ``request.assets``, then
    :func:`summarize`.

    ``stage(name)`` gives the JobControl of each stage ("reading", "figures", "summarising") as a context
    manager, so a front end can show one bar per stage; None runs them without progress."""
    stage = stage or _no_progress
    with stage("reading") as control:
        document = session.read(request.path, password=request.password, control=control, ocr=request.ocr,
                                limits=request.limits)
    with stage("figures") as control:
        export_document(document, request.assets, dpi=request.dpi, password=request.password, control=control)
    with stage("summarising") as control:
        summary = summarize(session, document, request.assets, choice=request.choice, options=request.options,
                            control=control, on_text=on_text)
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

    The summary's strategy writes it (``SummaryStrategy.rewrite_paragraph``): a language model from the
    document and the other three paragraphs, with the seed moved by ``attempt`` so that each attempt
    differs; the extractive summary takes the sentences it chooses for that role (the same each time: it
    is deterministic, which restores the extracted paragraph after an edit)."""
    if not 0 <= index < len(summary.paragraphs):
        raise MmdocsumError(f"the summary has no paragraph {index + 1}")
    control = ensure_control(control)
    old = summary.paragraphs[index]
    include_abstract = summary.options.include_abstract
    with session.engine(choice) as run:
        settings = RewriteSettings(max_tokens=run.max_tokens, temperature=run.temperature, seed=run.seed + attempt)
        rewritten = summary_strategy(session, run).rewrite_paragraph(document, summary, index, settings,
                                                                     control=control, on_text=on_text)
    sources = rewritten.sources
    fresh = old.model_copy(deep=True)
    fresh.text, fresh.source, fresh.sentences = rewritten.text, rewritten.source, []
    if summary.options.citations:
        citer = Citer(document, session.embedder(), include_abstract=include_abstract)
        fresh.sentences = (citer.cite([s.text for s in sources], sources) if sources
                           else citer.cite(split_sentences(rewritten.text)))
    result = summary.model_copy(deep=True)
    result.paragraphs[index] = fresh
    return result


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
