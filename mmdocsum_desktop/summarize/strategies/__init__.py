"""Summary strategies: how the four paragraphs of a summary are written, behind one protocol
(:class:`SummaryStrategy`).

- ``extractive`` (:class:`ExtractiveStrategy`): the document's own sentences, no language model; what the
  setting ``engine: extractive`` (and a fresh install's ``auto``) gives;
- ``grounded`` (:class:`GroundedStrategy`): a language model writes each paragraph from the extracted
  evidence, every sentence checked and cited (``llm_mode: grounded``, the default for a model);
- ``full`` (:class:`FullDocumentStrategy`): a language model answers the summary prompt over the whole
  document, in parts when it is longer than the context (``llm_mode: full``).

:func:`choose_strategy` is the one place that decides which, from the text engine the settings gave
(None: no language model) and the options.
"""

from __future__ import annotations

from mmdocsum_desktop.engines.base import TextEngine
from mmdocsum_desktop.errors import EngineError
from mmdocsum_desktop.summarize.sentences import Embedder
from mmdocsum_desktop.summarize.strategies.base import (
    Draft,
    RewriteSettings,
    Rewritten,
    SummaryContext,
    SummaryStrategy,
)
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


__all__ = [
    "Draft",
    "ExtractiveStrategy",
    "FullDocumentStrategy",
    "GroundedStrategy",
    "RewriteSettings",
    "Rewritten",
    "SummaryContext",
    "SummaryStrategy",
    "choose_strategy",
]
