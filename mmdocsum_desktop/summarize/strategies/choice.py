"""Which summary strategy writes a summary: the one place that decides, from the text engine the settings
gave (None: no language model) and the options."""

from __future__ import annotations

from mmdocsum_desktop.engines.base import TextEngine
from mmdocsum_desktop.errors import EngineError
from mmdocsum_desktop.summarize.sentences import Embedder
from mmdocsum_desktop.summarize.strategies.base import SummaryStrategy
from mmdocsum_desktop.summarize.strategies.extractive import ExtractiveStrategy
from mmdocsum_desktop.summarize.strategies.full_document import FullDocumentStrategy
from mmdocsum_desktop.summarize.strategies.grounded import GroundedStrategy


def choose_strategy(engine: TextEngine | None, *, embedder: Embedder | None, llm_mode: str = "grounded") -> SummaryStrategy:
    """The strategy for ``engine`` (None: the extractive summary, which needs ``embedder``). A language
    model writes grounded paragraphs when ``llm_mode`` is "grounded" and an embedder is there to check
    them; otherwise it answers over the full document."""
    if engine is None:
        if embedder is None:
            raise EngineError("the extractive engine needs the text embedder (MiniLM)")
        return ExtractiveStrategy(embedder)
    if llm_mode == "grounded" and embedder is not None:
        return GroundedStrategy(engine, embedder)
    return FullDocumentStrategy(engine, embedder)
