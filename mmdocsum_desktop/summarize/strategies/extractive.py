"""The extractive summary: the extractor's four paragraphs of the document's own sentences (no language
model), each its own evidence, so a paragraph shows a figure its sentences' passages discuss."""

from __future__ import annotations

from collections.abc import Callable

from mmdocsum_desktop.errors import MmdocsumError
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.schemas.document import Document
from mmdocsum_desktop.schemas.summary import EngineInfo, Summary, SummaryParagraph
from mmdocsum_desktop.summarize.evidence import evidence_from_drafts
from mmdocsum_desktop.summarize.extractive import Extractor
from mmdocsum_desktop.summarize.sentences import Embedder
from mmdocsum_desktop.summarize.strategies.base import (
    Draft,
    EvidenceFigures,
    RewriteSettings,
    Rewritten,
    SummaryContext,
)


class ExtractiveStrategy(EvidenceFigures):
    name = "extractive"
    cites_itself = False

    def __init__(self, embedder: Embedder) -> None:
        self.extractor = Extractor(embedder)

    @property
    def warnings(self) -> list[str]:
        return []

    def describe(self) -> EngineInfo:
        extractor = self.extractor
        return EngineInfo(engine=self.name, model=extractor.model_name, mmr_lambda=extractor.mmr_lambda,
                          words_per_paragraph=[extractor.min_words, extractor.max_words])

    def reads_figure_text(self) -> bool:
        return False  # figures are chosen by what the evidence cites, not by what they show

    def write(self, context: SummaryContext) -> Draft:
        drafted = self.extractor.draft(context.document, include_abstract=context.options.include_abstract,
                                       control=context.control)
        evidence = evidence_from_drafts(context.document, drafted.paragraphs)
        return Draft(
            paragraphs=[SummaryParagraph(role=d.role, text=d.text, source="extracted" if d.sentences else "absent")
                        for d in drafted.paragraphs],
            sources=[list(d.sentences) for d in drafted.paragraphs],
            warnings=list(drafted.warnings),
            evidence=evidence,
            used=[e.items for e in evidence],
        )

    def rewrite_paragraph(self, document: Document, summary: Summary, index: int, settings: RewriteSettings, *,
                          control: JobControl, on_text: Callable[[str], None] | None = None) -> Rewritten:
        """The sentences the extractor chooses for that role: the same each time (it is deterministic),
        which restores the extracted paragraph after an edit."""
        role = summary.paragraphs[index].role
        drafted = self.extractor.draft(document, include_abstract=summary.options.include_abstract, control=control)
        draft = next((d for d in drafted.paragraphs if d.role == role), None)
        if draft is None or not draft.text.strip():
            raise MmdocsumError(f"the document has no sentences for the {summary.paragraphs[index].title.lower()} paragraph")
        return Rewritten(draft.text, list(draft.sentences), "extracted")
