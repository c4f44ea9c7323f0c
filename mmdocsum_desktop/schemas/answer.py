"""The Answer schema: what "ask the paper" returns, written as JSON by ``mmdocsum ask --format json`` and
kept in the project file by the app.

Every sentence carries its citations the way MCiteBench scores them and a reader checks them: the pages,
the figures ("Figure 3") and tables ("Table 2") it rests on, the block ids of the evidence, and a support
score (0..1, from the cross-encoder, or the embedding cosine without one). What was changed after the
model wrote it — a sentence dropped as unsupported, a citation of a figure the document does not have —
is listed in ``repairs``, so nothing is silently rewritten.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from mmdocsum_desktop.schemas.engine import EngineInfo, GenerationRecord
from mmdocsum_desktop.schemas.repair import Repair

SCHEMA = "mmdocsum-answer"
SCHEMA_VERSION = 1
NOT_IN_DOCUMENT = "The document does not say."

SentenceSource = Literal["extracted", "model", "notice"]


class AskOptions(BaseModel):
    """How ``app.ask.ask`` answers: evidence retrieved and shown to the model, the extractive answer's
    choices, the support a model sentence needs, and the model's budget. Unknown fields are refused."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    evidence_k: int = Field(default=8, ge=1)  # passages retrieved
    prompt_evidence: int = Field(default=6, ge=1)  # of which the model sees this many
    prompt_passage_chars: int = Field(default=420, ge=1)
    max_sentences: int = Field(default=2, ge=1)  # extractive: evidence passages quoted
    margin: float = 0.15  # extractive: a second passage must be this close to the best (support, 0..1)
    # support (0..1) below which the best evidence is "weak": the document does not say — unless some
    # passage's embedding cosine with the question reaches weak_cosine (the cross-encoder misses
    # paraphrases: "hearing test … second patient" against "audiogram for Case 2", cosine 0.60)
    weak_threshold: float = 0.05
    weak_cosine: float = 0.45
    support_threshold: float = 0.2  # a model sentence needs at least this to be kept
    max_tokens: int = Field(default=160, ge=1)
    temperature: float = Field(default=0.1, ge=0.0, le=2.0)
    time_limit_s: float | None = Field(default=None, gt=0)


class AnswerEvidence(BaseModel):
    """A retrieved passage as shown beside the answer (the ``[n]`` the model saw, 1-based)."""

    number: int
    kind: str  # sentence, caption, ocr
    text: str
    page: int | None = None
    block: str | None = None
    labels: list[str] = Field(default_factory=list)
    support: float = 0.0


class AnswerSentence(BaseModel):
    text: str
    source: SentenceSource = "extracted"
    pages: list[int] = Field(default_factory=list)
    figures: list[str] = Field(default_factory=list)  # "Figure 3", "Scheme 1"
    tables: list[str] = Field(default_factory=list)  # "Table 2"
    blocks: list[str] = Field(default_factory=list)
    evidence: list[int] = Field(default_factory=list)  # AnswerEvidence.number of what it rests on
    support: float | None = None  # 0..1; None for notices ("The document does not say.")

    @property
    def labels(self) -> list[str]:
        return [*self.figures, *self.tables]


class Answer(BaseModel):
    format: str = SCHEMA
    version: int = SCHEMA_VERSION
    source: str = ""  # the document's file
    question: str
    # the language of the answer's own words (its notices; a model's sentences): the question's, or the
    # document's when the question is too short to tell (document.language.question_language); None: English
    language: str | None = None
    sentences: list[AnswerSentence] = Field(default_factory=list)
    evidence: list[AnswerEvidence] = Field(default_factory=list)
    not_in_document: bool = False  # the evidence was too weak to answer
    # the figure or table that answers the question: the one it names, else the likeliest by the visual
    # scorer (retrieval/visuals.py); None when the document has none or the answer rests on none
    visual: str | None = None
    visual_probability: float | None = None
    repairs: list[Repair] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)  # what the user should know (no figures, no rescoring…)
    engine: EngineInfo = Field(default_factory=EngineInfo)
    generation: GenerationRecord | None = None  # token counts of the model's answer
    model_text: str | None = None  # the model's raw answer, before checking
    timings: dict[str, float] = Field(default_factory=dict)  # retrieval_s, first_token_s, total_s

    @property
    def text(self) -> str:
        return " ".join(s.text for s in self.sentences)

    @property
    def cited_labels(self) -> list[str]:
        """Every figure and table cited anywhere in the answer: the answer's ``visual`` first, then the
        others in first-cited order."""
        seen: list[str] = []
        if self.visual and any(self.visual in s.labels for s in self.sentences):
            seen.append(self.visual)
        for sentence in self.sentences:
            for label in sentence.labels:
                if label not in seen:
                    seen.append(label)
        return seen


__all__ = ["NOT_IN_DOCUMENT", "SCHEMA", "SCHEMA_VERSION", "Answer", "AnswerEvidence", "AnswerSentence", "AskOptions", "Repair"]
