"""The grounded summary ("extract, then write"): a language model writes each paragraph from the
evidence the extractor picked for it, every sentence checked and cited (:mod:`summarize.grounded`); a
paragraph shows a figure its evidence discusses."""

from __future__ import annotations

from mmdocsum_desktop.engines.base import TextEngine
from mmdocsum_desktop.summarize.evidence import select_evidence
from mmdocsum_desktop.summarize.grounded import GroundedWriter
from mmdocsum_desktop.summarize.sentences import Embedder
from mmdocsum_desktop.summarize.strategies.base import (
    Draft,
    EvidenceFigures,
    LanguageModelText,
    SummaryContext,
)


class GroundedStrategy(EvidenceFigures, LanguageModelText):
    name = "grounded"
    cites_itself = True  # each sentence cites the evidence that supports it

    def __init__(self, engine: TextEngine, embedder: Embedder) -> None:
        self.engine = engine
        self.embedder = embedder

    def write(self, context: SummaryContext) -> Draft:
        evidence, warnings = select_evidence(context.document, self.embedder,
                                             include_abstract=context.options.include_abstract,
                                             control=context.control)
        written = GroundedWriter(self.engine, self.embedder).write(context.document, evidence, context.options,
                                                                   control=context.control, on_text=context.on_text)
        return Draft(paragraphs=written.paragraphs, warnings=warnings, repairs=written.repairs,
                     generations=written.generations, grounding=written.record, evidence=evidence, used=written.used)
