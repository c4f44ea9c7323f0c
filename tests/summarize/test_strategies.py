"""Summary strategies: which one the settings give, and what each says of itself."""

from __future__ import annotations

import pytest

from mmdocsum_desktop.errors import EngineError
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.schemas.summary import SummaryOptions
from mmdocsum_desktop.summarize.pipeline import summarize_document
from mmdocsum_desktop.summarize.strategies.base import RewriteSettings
from mmdocsum_desktop.summarize.strategies.choice import choose_strategy
from mmdocsum_desktop.summarize.strategies.extractive import ExtractiveStrategy
from mmdocsum_desktop.summarize.strategies.full_document import FullDocumentStrategy
from mmdocsum_desktop.summarize.strategies.grounded import GroundedStrategy
from tests.summarize.test_llm_pipeline import ScriptedEngine

PAPER = "wheat-04-00932.pdf"  # the package's sample paper


def test_the_strategy_follows_the_engine_and_the_llm_mode(embedder):
    engine = ScriptedEngine("[]")
    assert isinstance(choose_strategy(None, embedder=embedder), ExtractiveStrategy)
    assert isinstance(choose_strategy(engine, embedder=embedder, llm_mode="grounded"), GroundedStrategy)
    assert isinstance(choose_strategy(engine, embedder=embedder, llm_mode="full"), FullDocumentStrategy)
    # grounded paragraphs are checked with the embedder: without one, the model answers over the document
    assert isinstance(choose_strategy(engine, embedder=None, llm_mode="grounded"), FullDocumentStrategy)
    with pytest.raises(EngineError, match="embedder"):
        choose_strategy(None, embedder=None)


def test_what_each_strategy_says_of_itself(embedder):
    extractive = ExtractiveStrategy(embedder)
    info = extractive.describe()
    assert (info.engine, info.mmr_lambda, info.words_per_paragraph) == ("extractive", 0.85, [60, 120])
    assert not extractive.reads_figure_text() and not extractive.cites_itself and extractive.warnings == []
    engine = ScriptedEngine("[]")
    engine.warnings.append("loaded with a smaller context")
    grounded = GroundedStrategy(engine, embedder)
    assert grounded.describe().engine == "scripted" and grounded.cites_itself
    # a model that cannot see the figures reads their text by default
    assert grounded.reads_figure_text() and grounded.warnings == ["loaded with a smaller context"]


def test_an_extractive_paragraph_written_again_is_the_one_the_summary_had(exported, embedder):
    document, folder = exported(PAPER)
    strategy = ExtractiveStrategy(embedder)
    summary = summarize_document(document, folder, strategy=strategy, embedder=embedder,
                                 options=SummaryOptions(include_abstract=False))
    assert summary.engine == strategy.describe()
    again = strategy.rewrite_paragraph(document, summary, 1, RewriteSettings(max_tokens=64, temperature=0.0, seed=1),
                                       control=JobControl())
    assert again.source == "extracted" and again.text == summary.paragraphs[1].text
    assert again.sources and " ".join(s.text for s in again.sources) == again.text
