"""What every summary strategy is given, what it gives back, and the protocol it follows.

A strategy writes the four paragraphs' text (:meth:`SummaryStrategy.write` → :class:`Draft`), chooses
their figures (:meth:`SummaryStrategy.choose_figures`) and writes one paragraph again
(:meth:`SummaryStrategy.rewrite_paragraph`). What is the same for every strategy (the document's figure
candidates, their text, the absence sentences, captions, citations, the Summary itself) is done once,
by :func:`mmdocsum_desktop.summarize.pipeline.summarize_document`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from mmdocsum_desktop.engines.base import GenerationOptions, Message, TextEngine
from mmdocsum_desktop.errors import MmdocsumError
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.schemas.document import Document
from mmdocsum_desktop.schemas.summary import (
    ROLE_TITLES,
    EngineInfo,
    FigureEntry,
    GroundingRecord,
    LongDocumentRecord,
    ParseRecord,
    Repair,
    Summary,
    SummaryOptions,
    SummaryParagraph,
)
from mmdocsum_desktop.summarize import prompt as prompts
from mmdocsum_desktop.summarize.evidence import (
    EvidenceItem,
    Matcher,
    ParagraphEvidence,
    assign_evidence_figures,
)
from mmdocsum_desktop.summarize.sentences import Embedder, Sentence

PARAGRAPH_TOKENS = 256  # a regenerated paragraph: about 100 words asked for, room to finish a sentence

ROLE_AIMS = {
    "background": "the problem the document addresses and why it matters",
    "method": "how the work was done: data, methods, design",
    "results": "the main findings, with their numbers",
    "conclusion": "what the findings mean, their limits and what follows",
}


@dataclass
class SummaryContext:
    """One summary run: the document, its figure candidates (placement's ``ImageCandidate``) and their
    prompt slots, the options, and the shared models."""

    document: Document
    candidates: list[Any]
    slots: list[prompts.ImageSlot]
    options: SummaryOptions
    control: JobControl
    embedder: Embedder | None
    ocr: Any = None
    with_figure_text: bool = False  # the figures' OCR text was read (and a prompt may quote it)
    on_text: Callable[[str], None] | None = None


@dataclass
class Draft:
    """The paragraphs a strategy wrote, and what it records of how."""

    paragraphs: list[SummaryParagraph]
    # per paragraph, the document sentences it is made of (None: a sentence not from the document); an
    # empty list when unknown, and then its sentences are cited by similarity
    sources: list[list[Sentence | None]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    repairs: list[Repair] = field(default_factory=list)
    generations: list[Any] = field(default_factory=list)  # GenerationRecords (or their dicts)
    parse: ParseRecord | None = None
    long_document: LongDocumentRecord | None = None
    grounding: GroundingRecord | None = None
    raw_answer: str | None = None
    # evidence strategies: each paragraph's evidence and the items its text rests on (figures follow them)
    evidence: list[ParagraphEvidence] | None = None
    used: list[list[EvidenceItem]] = field(default_factory=list)
    # full-document answers: the image the model proposed per paragraph (document order), and the rule
    # each broken proposal broke
    proposals: dict[int, int] = field(default_factory=dict)
    broken: dict[int, str] = field(default_factory=dict)


@dataclass
class Rewritten:
    """One paragraph written again: its text, the document sentences it is made of (None: the model's
    own words), and where it comes from ("extracted" or "model")."""

    text: str
    sources: list[Sentence] | None
    source: str


@dataclass
class RewriteSettings:
    """The generation values of one regenerated paragraph (a language model's; the extractor has none)."""

    max_tokens: int
    temperature: float
    seed: int


class SummaryStrategy(Protocol):
    """How the four paragraphs of a summary are written: ``extractive``, ``grounded`` or ``full``."""

    name: str
    # the strategy cites each sentence itself (the grounded writer cites its evidence); otherwise the
    # pipeline cites the paragraphs
    cites_itself: bool

    @property
    def warnings(self) -> list[str]:
        """What the strategy's engine has to say before any document (a model loaded with a fallback)."""
        ...

    def describe(self) -> EngineInfo:
        """``Summary.engine``: what wrote the summary."""
        ...

    def reads_figure_text(self) -> bool:
        """Whether the figures' text is read (OCR) when the options do not say."""
        ...

    def write(self, context: SummaryContext) -> Draft:
        """The four paragraphs' text (a paragraph nothing could fill may be empty: the pipeline says so)."""
        ...

    def choose_figures(self, draft: Draft, entries: list[FigureEntry], context: SummaryContext) -> list[Repair]:
        """Set each paragraph's figure (and why there is none); returns the repairs made."""
        ...

    def rewrite_paragraph(self, document: Document, summary: Summary, index: int, settings: RewriteSettings, *,
                          control: JobControl, on_text: Callable[[str], None] | None = None) -> Rewritten:
        """Paragraph ``index`` of ``summary`` written again for its role."""
        ...


class EvidenceFigures:
    """Figures of a summary written from evidence (extractive, grounded): a paragraph shows a figure its
    evidence discusses, or none and says why (:func:`evidence.assign_evidence_figures`)."""

    # placement's matcher; "citations" and "caption" are measured beside it (benchmarks/summary_figures.py)
    matcher: Matcher = "placement"

    def choose_figures(self, draft: Draft, entries: list[FigureEntry], context: SummaryContext) -> list[Repair]:
        assert draft.evidence is not None, "an evidence strategy's draft carries its evidence"
        texts = [p.text if p.source != "absent" else "" for p in draft.paragraphs]
        chosen = assign_evidence_figures(draft.evidence, draft.used, entries, texts, context.embedder,
                                         matcher=self.matcher, control=context.control)
        for paragraph, (choice, note) in zip(draft.paragraphs, chosen):
            paragraph.figure, paragraph.no_figure = choice, note
        return []


class LanguageModelText:
    """What the strategies that write with a language model share: its description and warnings, figure
    text for a model that cannot see images, and one paragraph written again from the document."""

    engine: TextEngine

    @property
    def warnings(self) -> list[str]:
        return list(getattr(self.engine, "warnings", []))

    def describe(self) -> EngineInfo:
        return EngineInfo.model_validate(self.engine.describe())

    def reads_figure_text(self) -> bool:
        return not self.engine.supports_images

    def rewrite_paragraph(self, document: Document, summary: Summary, index: int, settings: RewriteSettings, *,
                          control: JobControl, on_text: Callable[[str], None] | None = None) -> Rewritten:
        """The model writes the paragraph from the document and the other three (so it neither repeats
        nor contradicts them), at a sampling temperature of at least 0.3 so that each attempt differs."""
        text = write_paragraph(self.engine, document, summary, index, settings, control, on_text)
        return Rewritten(text, None, "model")


def write_paragraph(engine: TextEngine, document: Document, summary: Summary, index: int, settings: RewriteSettings,
                    control: JobControl, on_text: Callable[[str], None] | None) -> str:
    role = summary.paragraphs[index].role
    others = "\n\n".join(f"{p.title}: {p.text}" for i, p in enumerate(summary.paragraphs) if i != index)
    ask = (f"Write the {ROLE_TITLES.get(role, role)} paragraph of a summary of the document below: "
           f"{ROLE_AIMS.get(role, role)}. About 100 words, in your own words, one paragraph of plain text, "
           "nothing else. Do not repeat what the other paragraphs say.\n\n"
           f"The other paragraphs of the summary:\n{others}\n\nThe document")
    if document.title:
        ask += f" ({document.title.strip()})"
    ask += ":\n"
    max_tokens = min(settings.max_tokens, PARAGRAPH_TOKENS)
    budget = engine.context_length - max_tokens - engine.count_tokens(ask) - 64
    body = _fit(document.body_text(summary.options.include_abstract), engine, budget)
    messages = [Message("system", "You summarise scientific documents accurately."), Message("user", ask + body)]
    generation = engine.generate(
        messages,
        GenerationOptions(max_tokens=max_tokens, temperature=max(settings.temperature, 0.3), seed=settings.seed),
        control=control, on_text=on_text,
    )
    text = " ".join(generation.text.split())
    if not text:
        raise MmdocsumError("the model wrote nothing for this paragraph; try again or use another model")
    return text


def _fit(text: str, engine: TextEngine, budget: int) -> str:
    """The start of ``text`` that fits in ``budget`` tokens (halving the words until it fits)."""
    if budget <= 0:
        return ""
    if engine.count_tokens(text) <= budget:
        return text
    words = text.split()
    keep = len(words)
    while keep > 1 and engine.count_tokens(" ".join(words[:keep])) > budget:
        keep //= 2
    return " ".join(words[:keep])
