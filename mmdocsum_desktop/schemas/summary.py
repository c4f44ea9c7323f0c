"""The one Summary schema: what the pipeline produces, the project file stores, the GUI edits, the judge
reads and every export renders.

A Summary round-trips through JSON (``Summary.model_validate(json.loads(text))``). The JSON is the
``mmdocsum summarize --format json`` file: the fields below, plus derived ones written for readers
(``title`` and ``words`` of each paragraph, ``mdocsum`` and ``instruction_following`` of the summary),
which are recomputed, never read back.

Image paths (``FigureChoice.image``, ``FigureEntry.image``) are relative to the folder of the
document's ``document.json`` (a project's workspace, ``mmdocsum summarize``'s ``OUT_files/``), so a
summary stays valid when that folder moves; the renderer is told the folder.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    SerializerFunctionWrapHandler,
    computed_field,
    model_serializer,
    model_validator,
)

from mmdocsum_desktop.schemas.document import Document
from mmdocsum_desktop.schemas.engine import EngineInfo, GenerationRecord
from mmdocsum_desktop.schemas.record import Record
from mmdocsum_desktop.schemas.repair import Repair
from mmdocsum_desktop.schemas.settings import FigureMode, LlmMode
from mmdocsum_desktop.text.reader_strings import reader_strings

# The four paragraphs of every summary, in order, and the heading each shows.
ROLES = ("background", "method", "results", "conclusion")
ROLE_TITLES = {
    "background": "Research background",
    "method": "Method",
    "results": "Results",
    "conclusion": "Conclusion",
}
SCHEMA = "mmdocsum-summary"
SCHEMA_VERSION = 2  # 2: options as SummaryOptions (1 wrote "shuffle_images" for shuffle_seed)

# Scores are kept exact in memory and written with four decimals: more is noise in the files.
Score = Annotated[float, PlainSerializer(lambda value: round(float(value), 4), return_type=float)]


class SummaryOptions(BaseModel):
    """The settings a summary was written with (all of them, so the file says how to reproduce it).

    Unknown fields are refused and the modes are Literals: ``SummaryOptions(include_abstact=False)`` or
    ``llm_mode="nonsense"`` is a ValidationError, not a summary written with the defaults. (A stored
    summary's options are read through :class:`Summary`, which drops fields a later version removed.)"""

    model_config = ConfigDict(extra="forbid")

    figure_mode: FigureMode = "hybrid"  # LLM engines: who chooses each paragraph's figure
    include_abstract: bool = True
    shuffle_seed: int | None = None
    max_tokens: int = Field(default=1024, ge=1)
    temperature: float = Field(default=0.2, ge=0.0, le=2.0)
    seed: int = 0
    ocr: bool | None = None  # None: read figure text for text-only LLMs, not for the extractive engine
    citations: bool = True
    note_words: int = Field(default=150, ge=1)
    repeat_penalty: float = 1.1
    placement_threshold: float | None = None
    # Seconds for all the model calls of one summary; a call still running at the end stops with the
    # text so far (finish_reason "timeout"), later calls get no time. None: no limit.
    time_limit_s: float | None = Field(default=None, gt=0)
    # Language models: "grounded" (extract evidence per paragraph, the model writes each paragraph from its
    # evidence, every sentence checked) or "full" (the whole document in the prompt, for long contexts).
    llm_mode: LlmMode = "grounded"


class SummaryRequest(BaseModel):
    """What one call of ``app.summarize``/``app.summarize_file`` asks for on top of the engine's settings
    (the engine, figure mode, llm_mode, tokens, temperature and seed come from the settings and the
    :class:`~mmdocsum_desktop.schemas.settings.EngineChoice`). The CLI builds it from its flags, the
    window and the benchmarks from theirs; defaults are today's behaviour."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    include_abstract: bool = True  # False: the abstract is not evidence (M-DocSum's ablation, ROUGE)
    shuffle_seed: int | None = None  # figures offered in a shuffled order (M-DocSum's ablation)
    citations: bool = True  # per-sentence citations (pages, figures, tables)
    time_limit_s: float | None = Field(default=None, gt=0)  # for all the model calls of the summary
    note_words: int | None = Field(default=None, ge=1)  # long documents: words per note (None: 150)

    def option_values(self) -> dict[str, object]:
        """The :class:`SummaryOptions` fields this request sets (the others keep the engine's values)."""
        values: dict[str, object] = {"include_abstract": self.include_abstract, "shuffle_seed": self.shuffle_seed,
                                     "citations": self.citations, "time_limit_s": self.time_limit_s}
        if self.note_words is not None:
            values["note_words"] = self.note_words
        return values


class Evidence(BaseModel):
    """One piece of the document a sentence rests on; ``how``: extracted, mention or similarity."""

    block: str
    page: int | None = None
    score: Score = 0.0
    how: str = "similarity"
    ocr: bool = False  # the block was read with OCR from a scanned page: its words may be misread


class SentenceCitation(BaseModel):
    """Where one summary sentence comes from: pages, figure and table labels, block ids."""

    text: str
    pages: list[int] = Field(default_factory=list)
    figures: list[str] = Field(default_factory=list)
    tables: list[str] = Field(default_factory=list)
    blocks: list[str] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)

    @property
    def marker(self) -> str:
        """A short human-readable citation: "(p. 3; Figure 2)", "(p. 3, OCR)" for text of a scanned page."""
        return citation_marker(self.pages, [*self.figures, *self.tables], ocr=any(e.ocr for e in self.evidence))


def citation_marker(pages: list[int], labels: list[str], *, ocr: bool = False) -> str:
    parts = []
    if pages:
        unique = sorted(set(pages))
        parts.append(("p. " if len(unique) == 1 else "pp. ") + ", ".join(str(p) for p in unique)
                     + (", OCR" if ocr else ""))
    parts.extend(dict.fromkeys(labels))
    return f"({'; '.join(parts)})" if parts else ""


class FigureEntry(BaseModel):
    """A figure or table the summary could show, at its place in document order (``index``, 1-based:
    M-DocSum's imageRef)."""

    index: int
    id: str | None = None  # the document's figure id
    label: str | None = None
    kind: str = "figure"
    caption: str = ""
    image: str | None = None
    ocr_text: str | None = None


class FigureChoice(BaseModel):
    """The figure shown after a paragraph, and who chose it: placement, model, hybrid, repair or user."""

    index: int  # 1-based position in document order (FigureEntry.index)
    id: str | None = None
    label: str | None = None
    kind: str = "figure"
    caption: str = ""
    image: str | None = None
    score: Score = 0.0
    chosen_by: str = "placement"
    signals: dict[str, Score] = Field(default_factory=dict)

    @property
    def candidate(self) -> int:
        """0-based position in document order."""
        return self.index - 1

    @classmethod
    def of(cls, entry: FigureEntry, *, score: float = 0.0, chosen_by: str, signals: dict[str, Any] | None = None) -> FigureChoice:
        return cls(index=entry.index, id=entry.id, label=entry.label, kind=entry.kind, caption=entry.caption,
                   image=entry.image, score=float(score), chosen_by=chosen_by, signals=dict(signals or {}))


# Why a paragraph shows no figure; a reader is told rather than left to wonder.
NoFigureKind = Literal[
    "document_has_none",  # the document has no figure or table with an image
    "not_cited",  # neither the paragraph's sentences nor the passages they come from cite a figure or table
    "shown_elsewhere",  # what they cite is shown with another paragraph (each figure is shown once)
    "no_image",  # what they cite has no image the summary could show (a figure the reader did not crop)
    "no_text",  # the paragraph has no text to illustrate
    "no_match",  # placement (full-document language models) found no figure close enough to the paragraph
    "removed",  # the user took the figure away (or gave it to another paragraph)
]
NO_FIGURE_MESSAGES: dict[str, str] = {
    "document_has_none": "the document has no figures or tables with an image",
    "not_cited": "the passages this paragraph comes from cite no figure or table",
    "shown_elsewhere": "the figures its passages cite are shown with another paragraph",
    "no_image": "the figures its passages cite have no image",
    "no_text": "the paragraph has no text from the paper to illustrate",
    "no_match": "no figure matched this paragraph closely enough",
    "removed": "you removed its figure",
}


class NoFigure(BaseModel):
    """Why a paragraph shows no figure (set only while ``figure`` is None): a typed reason, the labels
    concerned ("Figure 2" shown with another paragraph), and the sentence a reader sees."""

    kind: NoFigureKind
    labels: list[str] = Field(default_factory=list)

    @property
    def message(self) -> str:
        base = NO_FIGURE_MESSAGES[self.kind]
        if self.labels and self.kind in ("shown_elsewhere", "no_image"):
            named = " and ".join([", ".join(self.labels[:-1]), self.labels[-1]] if len(self.labels) > 1 else self.labels)
            verb = "are" if len(self.labels) > 1 else "is"
            base = (f"{named}, cited here, {verb} shown with another paragraph" if self.kind == "shown_elsewhere"
                    else f"{named}, cited here, {'have' if len(self.labels) > 1 else 'has'} no image")
        return base[:1].upper() + base[1:] + "."

    def message_in(self, language: str | None) -> str:
        """:attr:`message` as a reader of a paper in ``language`` reads it ("Tabela 2, que este parágrafo
        cita, não tem imagem.")."""
        return reader_strings(language).no_figure(self.kind, self.labels)


class SummaryParagraph(BaseModel):
    role: str
    text: str
    source: str = "model"  # model, extracted, extracted-fallback, user, absent (the paper has no such part)
    figure: FigureChoice | None = None
    no_figure: NoFigure | None = None  # why no figure is shown (None while one is)
    image_caption: str = ""
    proposed_image: int | None = None  # the model's proposal (document-order index), when valid
    sentences: list[SentenceCitation] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def title(self) -> str:
        return ROLE_TITLES.get(self.role, self.role.title())

    @computed_field  # type: ignore[prop-decorator]
    @property
    def words(self) -> int:
        return len(self.text.split())

    @property
    def figure_id(self) -> str | None:
        return self.figure.id if self.figure is not None else None

    def cited_sentences(self) -> list[SentenceCitation] | None:
        """The sentence citations when they still describe the text (an edit of the text makes them
        stale: then None, and renderers cite the paragraph as a whole)."""
        if not self.sentences:
            return None
        joined = " ".join(s.text for s in self.sentences)
        return self.sentences if joined.split() == self.text.split() else None

    def marker(self) -> str:
        """All the paragraph's citations as one marker: "(pp. 1, 3; Figure 2)"."""
        return citation_marker([p for s in self.sentences for p in s.pages],
                               [label for s in self.sentences for label in (*s.figures, *s.tables)],
                               ocr=any(e.ocr for s in self.sentences for e in s.evidence))


class ParseRecord(BaseModel):
    """The tolerant parser's record of a model's whole-summary answer (full-document mode)."""

    parsed: bool = False  # the answer could be read as four paragraphs
    instruction_following: bool = False  # parsed, in the asked format, no rule broken
    format_issues: list[str] = Field(default_factory=list)  # "code fence", "single quotes"…
    rule_breaks: list[str] = Field(default_factory=list)
    parser_repairs: list[str] = Field(default_factory=list)  # what the parser itself fixed


class LongDocumentRecord(Record):
    """How a document longer than the context was read: notes on parts, notes of notes, then the summary."""

    strategy: str = ""
    document_tokens: int = 0
    context: int = 0  # the model's context in tokens
    parts: int = 0
    levels: int = 1  # of notes (2 or more: notes were merged)
    notes_cut: bool | None = None  # True: the merged notes were still too long and were cut


class GroundingItem(BaseModel):
    """One evidence sentence a grounded paragraph was written from (``n``: its number in the prompt)."""

    n: int
    page: int | None = None
    block: str = ""
    cites: list[str] = Field(default_factory=list)  # figure and table labels it mentions
    text: str = ""


class GroundingEvidence(BaseModel):
    role: str
    items: list[GroundingItem] = Field(default_factory=list)


class GroundingRecord(Record):
    """The grounded writer's record: its support check, sentence counts and the evidence per paragraph."""

    writer: str = "grounded"
    support: str = ""  # what scored support: "cross-encoder" or "MiniLM cosine"
    support_threshold: float = 0.0
    written: int = 0  # sentences the model wrote
    supported: int = 0
    dropped: int = 0
    replaced: int = 0  # unsupported sentences replaced by their closest evidence sentence
    evidence: list[GroundingEvidence] = Field(default_factory=list)


class Summary(BaseModel):
    format: str = SCHEMA
    version: int = SCHEMA_VERSION
    source: str = ""
    title: str | None = None
    # the document's language (ISO 639-1): headings, link text and notes are rendered in it
    # (text/reader_strings.py); None (a file written before it was kept) reads as English
    language: str | None = None
    engine: EngineInfo = Field(default_factory=EngineInfo)  # the engine's describe(): name, model, device…
    options: SummaryOptions = Field(default_factory=SummaryOptions)
    paragraphs: list[SummaryParagraph] = Field(default_factory=list)
    figures: list[FigureEntry] = Field(default_factory=list)  # what could be shown, in document order
    parse: ParseRecord | None = None  # the tolerant parser's record of the model's answer
    repairs: list[Repair] = Field(default_factory=list)
    long_document: LongDocumentRecord | None = None
    generations: list[GenerationRecord] = Field(default_factory=list)
    timings: dict[str, float] = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list)
    raw_answer: str | None = None
    # the grounded writer's record: evidence per paragraph, support threshold, sentences written, supported
    # and dropped (None for other engines)
    grounding: GroundingRecord | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_version_1(cls, data: Any) -> Any:
        """Version 1 files wrote a few options under other names; what is read is the current version."""
        if not isinstance(data, dict):
            return data
        data = {**data, "format": SCHEMA, "version": SCHEMA_VERSION}
        if isinstance(data.get("engine"), str):  # the app's own copy in project files of format 1
            data["engine"] = {"engine": data["engine"]}
        if isinstance(data.get("options"), dict):
            options = dict(data["options"])
            if "shuffle_images" in options:
                options["shuffle_seed"] = options.pop("shuffle_images")
            # a stored summary is data, not a request: an option a later version dropped is ignored
            # rather than making the file unreadable (SummaryOptions itself refuses unknown fields)
            data["options"] = {k: v for k, v in options.items() if k in SummaryOptions.model_fields}
        return data

    @model_serializer(mode="wrap")
    def _language_when_known(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """No ``"language": null``: a summary of a document whose language is not known is written as files
        were before the field was kept (and they read back the same)."""
        data: dict[str, Any] = handler(self)
        if data.get("language", "") is None:
            del data["language"]
        return data

    @computed_field  # type: ignore[prop-decorator]
    @property
    def instruction_following(self) -> bool | None:
        return None if self.parse is None else self.parse.instruction_following

    @computed_field  # type: ignore[prop-decorator]
    @property
    def mdocsum(self) -> list[dict[str, Any]]:
        return mdocsum_answer(self)

    @property
    def engine_label(self) -> str:
        """"extractive", "llama (model.gguf)": the engine as a person reads it."""
        return self.engine.label

    @property
    def seconds(self) -> float | None:
        value = self.timings.get("wall_s", self.timings.get("total_s"))
        return None if value is None else float(value)

    def notes(self) -> list[str]:
        """The warnings, then the repairs made to the engine's answer, as lines a person reads."""
        return [*self.warnings, *(repair.line() for repair in self.repairs)]

    def figure_entry(self, figure_id: str | None) -> FigureEntry | None:
        return next((f for f in self.figures if figure_id is not None and f.id == figure_id), None)

    def figure_choice(self, figure_id: str, document: Document | None = None, *,
                      chosen_by: str = "user") -> FigureChoice | None:
        """The choice of the document's figure ``figure_id`` (one a person picked, typically). A figure
        the pipeline did not offer (no image crop) is added at the end of ``figures``, so that it still
        has an index; None when neither the summary nor ``document`` knows the id."""
        entry = self.figure_entry(figure_id)
        if entry is None and document is not None:
            visual = next((v for v in document.visuals if v.id == figure_id), None)
            if visual is not None:
                entry = FigureEntry(index=len(self.figures) + 1, id=visual.id, label=visual.label, kind=visual.kind,
                                    caption=visual.caption, image=visual.image)
                self.figures.append(entry)
        return None if entry is None else FigureChoice.of(entry, score=1.0, chosen_by=chosen_by)


def mdocsum_answer(summary: Summary) -> list[dict[str, Any]]:
    """M-DocSum's answer: four ``{"summary", "image": {"imageRef", "imageCaption"}}``; imageRef is the
    1-based index of the image in document order as a string, or "None"."""
    return [
        {
            "summary": paragraph.text,
            "image": {
                "imageRef": str(paragraph.figure.index) if paragraph.figure is not None else "None",
                "imageCaption": paragraph.image_caption if paragraph.figure is not None else "",
            },
        }
        for paragraph in summary.paragraphs
    ]


__all__ = [
    "SCHEMA",
    "SCHEMA_VERSION",
    "EngineInfo",
    "Evidence",
    "FigureChoice",
    "FigureEntry",
    "GenerationRecord",
    "GroundingEvidence",
    "GroundingItem",
    "GroundingRecord",
    "LongDocumentRecord",
    "NoFigure",
    "ParseRecord",
    "Repair",
    "SentenceCitation",
    "Summary",
    "SummaryOptions",
    "SummaryParagraph",
    "SummaryRequest",
    "citation_marker",
    "mdocsum_answer",
]
