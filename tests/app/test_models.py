"""A session's model container: each model built once, on first need, and handed to the layers below
(real MiniLM, cross-encoder and RapidOCR from the installed packages)."""

from __future__ import annotations

import numpy as np

from mmdocsum_desktop.app.models import Models
from mmdocsum_desktop.placement.rescore import RememberedPairs


def test_a_placement_engine_loads_the_cross_encoder_and_ocr_only_when_a_call_needs_them():
    models = Models()
    engine = models.placement_engine(embedder=False, ocr=True)
    assert engine.cross_encoder is None and engine.ocr is None  # nothing loaded yet
    assert engine.cross_encoder_loader is not None and engine.ocr_loader is not None
    assert {"OCR", "cross-encoder"} <= set(engine.models_in_use())
    assert models._cross_encoders == {} and models._ocr is None  # the container loaded nothing either
    off = models.placement_engine(embedder=False, ocr=False, rerank=False)
    assert off.ocr_loader is None and off.cross_encoder_loader is None
    assert "OCR" not in off.models_in_use() and "cross-encoder" not in off.models_in_use()


def test_placement_engines_of_one_session_share_one_cross_encoder_and_its_memory_of_pairs():
    models = Models()
    first = models.placement_engine(embedder=False, ocr=False)
    second = models.placement_engine(embedder=False, ocr=False)
    scorer, why = first.cross_encoder_loader()
    assert why is None and isinstance(scorer, RememberedPairs)
    assert second.cross_encoder_loader()[0] is scorer  # the second engine reuses the loaded model
    pairs = [("Figure 1. Cells divide.", "The cells divide quickly."), ("Table 2. Doses.", "We gave two doses.")]
    runs = scorer.model.session_runs
    logits = scorer.score_pairs(pairs)
    assert scorer.model.session_runs == runs + 2 and len(scorer) == 2
    np.testing.assert_array_equal(second.cross_encoder_loader()[0].score_pairs(pairs), logits)
    assert scorer.model.session_runs == runs + 2  # remembered: not scored again
    assert Models().pair_scorer()[0] is not scorer  # another session keeps its own


def test_the_retriever_and_the_embedder_are_built_once_per_container():
    models = Models()
    retriever = models.retriever()
    assert models.retriever() is retriever
    assert retriever.embedder is models.embedder()
    assert retriever.uses_reranker
    plain = models.retriever(rerank=False)
    assert plain is not retriever and not plain.uses_reranker and plain.embedder is models.embedder()


def test_a_missing_clip_model_is_a_warning_and_is_asked_for_once():
    models = Models()
    model, why = models.clip("no-such-clip-model")
    assert model is None and "no-such-clip-model" in why
    assert models.clip("no-such-clip-model") == (None, why)
    engine = models.placement_engine(embedder=False, ocr=False, clip="no-such-clip-model")
    assert engine.clip is None and any("no-such-clip-model" in w for w in engine.warnings)
