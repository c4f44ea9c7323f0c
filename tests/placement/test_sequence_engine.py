"""The "sequence" strategy end to end with the real models (MiniLM, the cross-encoder ONNX) on a committed
paper and a committed JATS article; bad input: another language, hundreds of images, unnumbered figures,
cross-encoder files missing or corrupt."""

from __future__ import annotations

import numpy as np
import pytest

from mmdocsum_desktop.bench.pairs_gold import read_gold
from mmdocsum_desktop.errors import ModelError
from mmdocsum_desktop.placement.candidates import candidates_from_document
from mmdocsum_desktop.placement.engine import PlacementEngine
from mmdocsum_desktop.placement.rescore import MAX_PAIRS, rescore_heads
from mmdocsum_desktop.placement.text import strip_mentions
from mmdocsum_desktop.schemas.placement import ImageCandidate
from tests.conftest import DATA

ARTICLE = DATA / "articles" / "elife-56337.nxml"  # committed (CC0)


@pytest.fixture(scope="module")
def cross():
    from mmdocsum_desktop.models.rerank import CrossEncoder
    from mmdocsum_desktop.placement.rescore import PAIR_MAX_LENGTH

    return CrossEncoder(max_length=PAIR_MAX_LENGTH)


@pytest.fixture(scope="module")
def article():
    """The JATS article's paragraphs (citations removed), figures with captions, and the FTII gold."""
    gold = read_gold(ARTICLE)
    figures = [v for v in gold.figures if v.caption.strip()]
    pool = [ImageCandidate(label=v.label, figure=v.label, caption=v.caption, order=k) for k, v in enumerate(figures)]
    first = gold.first_citations(("figure",))
    label_of = {v.id: v.label for v in gold.visuals}
    truth = [label_of.get(g) if g else None for g in first]
    return [p.flow_text for p in gold.paragraphs], pool, truth


def test_sequence_places_figures_in_order_with_reasons(embedder, cross, article):
    paragraphs, pool, truth = article
    engine = PlacementEngine(embedder, None, None, cross_encoder=cross, top_k=4)
    placements = engine.place(paragraphs, pool)
    assert len(placements) == len(paragraphs)
    placed = [(p.paragraph, p.candidate) for p in placements if p.candidate is not None]
    assert placed, "nothing placed on a real article"
    ranks = [engine_rank for _, engine_rank in placed]
    assert ranks == sorted(ranks) or any("against" in (p.why.decision if p.why else "") for p in placements)
    hits = sum(p.figure == t for p, t in zip(placements, truth) if t)
    near = sum(
        any(q.figure == t and abs(q.paragraph - i) <= 1 for q in placements) for i, t in enumerate(truth) if t
    )
    assert near >= 0.5 * sum(bool(t) for t in truth), (hits, near)
    shown = [p for p in placements if p.candidate is not None]
    assert all(p.why is not None and p.why.decision.startswith("placed") for p in shown)
    assert any(p.why.cross_encoder is not None for p in shown)
    assert all(p.why.matched_sentences for p in shown)
    assert all(s in p.paragraph_text for p in shown for s in p.why.matched_sentences)
    assert engine.timings.keys() >= {"embed_s", "rescore_s", "assign_s"}


def test_cross_encoder_reads_only_each_figures_best_paragraphs(embedder, cross, article):
    paragraphs, pool, _ = article
    engine = PlacementEngine(embedder, None, None, cross_encoder=cross, top_k=3)
    before = cross.session_runs
    problem = engine.prepare(paragraphs, pool)
    engine.rescore(problem)
    assert problem.ce is not None
    rescored = np.isfinite(problem.ce)
    assert rescored.sum(axis=0).max() <= 3
    assert cross.session_runs - before == rescored.sum()  # one run per pair (batch size 1)
    assert rescored.sum() < problem.ce.size / 4
    assert problem.sequence_model is engine.sequence_models["ce"]


def test_the_sequence_model_does_not_rescore(embedder, cross, article):
    """The cross-encoder did not pay for issue 39's sequence model (tools/fit_placement_h15.py): top_k 0."""
    paragraphs, pool, _ = article
    engine = PlacementEngine(embedder, None, None, cross_encoder=cross)
    before = cross.session_runs
    engine.place(paragraphs[:10], pool, strategy="sequence")
    assert cross.session_runs == before


def test_the_alignment_rescores_each_visuals_best_paragraphs_once(embedder, cross, article):
    """The default alignment reads the cross-encoder on each visual's TOP_K best paragraphs, no more."""
    from mmdocsum_desktop.placement.align import TOP_K

    paragraphs, pool, _ = article
    engine = PlacementEngine(embedder, None, None, cross_encoder=cross)
    problem = engine.prepare(paragraphs[:10], [c.model_copy() for c in pool])
    before = cross.session_runs
    engine.assign(problem, "align")
    assert problem.ce is not None
    rescored = np.isfinite(problem.ce)
    assert rescored.sum(axis=0).max() == TOP_K
    assert cross.session_runs - before == rescored.sum()


def test_mentions_still_decide(embedder, cross, article):
    paragraphs, pool, _ = article
    target = pool[-1]
    texts = list(paragraphs[:12])
    texts[5] = texts[5] + f" See {target.label}."
    placements = PlacementEngine(embedder, None, None, cross_encoder=cross, top_k=4).place(texts, pool)
    assert placements[5].figure == target.figure
    assert placements[5].why.mention == target.label


def test_corrupt_or_missing_cross_encoder_files_leave_embeddings_to_place(tmp_path, embedder, article):
    from mmdocsum_desktop.models.registry import get_model
    from mmdocsum_desktop.models.rerank import CrossEncoder, load_cross_encoder

    broken = tmp_path / "model.onnx"
    broken.write_bytes(b"not an onnx file")
    tokenizer = get_model("ms-marco-minilm-l12-reranker").path("tokenizer")
    with pytest.raises(ModelError):
        CrossEncoder(broken, tokenizer)
    model, why = load_cross_encoder(model_path=tmp_path / "absent.onnx", tokenizer_path=tokenizer)
    assert model is None and why
    paragraphs, pool, _ = article
    engine = PlacementEngine(embedder, None, None, cross_encoder=model)
    placements = engine.place(paragraphs, pool)
    assert any(p.candidate is not None for p in placements)
    assert all(p.why.cross_encoder is None for p in placements if p.why)


class _FailingAtRun:
    """A cross-encoder that loaded but fails on its first batch (a model file damaged after loading)."""

    def score_pairs(self, pairs, control=None):
        raise RuntimeError("[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION")


def test_a_cross_encoder_failing_at_run_time_is_dropped_with_a_warning(embedder, article):
    paragraphs, pool, _ = article
    engine = PlacementEngine(embedder, None, None, cross_encoder=_FailingAtRun(), top_k=4)
    placements = engine.place(paragraphs[:20], pool)
    assert len(placements) == 20
    assert any("rescoring failed" in w for w in engine.warnings)
    assert engine.cross_encoder is None


def test_paragraphs_in_another_language_skip_the_english_cross_encoder(embedder, cross, article):
    _, pool, _ = article
    french = [
        "Nous avons mesuré la croissance des cellules dans le milieu de culture pendant trois jours.",
        "Les résultats montrent une forte augmentation de la fluorescence dans les neurones traités.",
        "Enfin, nous discutons les limites de cette étude et les perspectives pour la suite des travaux.",
    ]
    engine = PlacementEngine(embedder, None, None, cross_encoder=cross, top_k=4)
    placements = engine.place(french, pool)
    assert len(placements) == 3
    assert any("do not look English" in w for w in engine.warnings)


def test_hundreds_of_images_rescore_within_a_budget(embedder, cross, article):
    paragraphs, pool, _ = article
    many = [ImageCandidate(image=f"slide{k:03d}.png", caption=pool[k % len(pool)].caption if k % 3 == 0 else
                           f"Slide {k}: agenda, thanks and contact details", order=k) for k in range(300)]
    engine = PlacementEngine(embedder, None, None, cross_encoder=cross, top_k=4)
    before = cross.session_runs
    placements = engine.place(paragraphs[:15], many)
    assert len(placements) == 15
    assert cross.session_runs - before <= MAX_PAIRS
    assert any("most likely pairs only" in w for w in engine.warnings)
    used = [p.candidate for p in placements if p.candidate is not None]
    assert len(used) == len(set(used))


def test_unnumbered_figures_follow_document_order(embedder, cross, article):
    paragraphs, pool, _ = article
    unnumbered = [c.model_copy(update={"label": None, "figure": None}) for c in pool]
    problem = PlacementEngine(embedder, None, None, cross_encoder=cross, top_k=4).prepare(paragraphs[:30], unnumbered)
    assert problem.ranks == list(range(len(unnumbered)))
    placements = PlacementEngine(embedder, None, None, cross_encoder=cross, top_k=4).place(paragraphs[:30], unnumbered)
    assert len(placements) == len(paragraphs[:30])


def test_rescore_heads_reports_a_failure_and_keeps_nothing():
    base = np.array([[1.0, 0.0], [0.5, 2.0]])
    ce, notes = rescore_heads(_FailingAtRun(), ["a b c", "d e f"], ["caption one", "caption two"], base, 1)
    assert np.isnan(ce).all() and "rescoring failed" in notes[0]


def test_the_paper_pool_places_with_reasons(embedder, cross, paper_3780):
    document, folder = paper_3780
    pool = candidates_from_document(document, folder)
    paragraphs = [strip_mentions(b.text) for b in document.blocks if b.type == "paragraph" and len(b.text.split()) > 20]
    placements = PlacementEngine(embedder, None, None, cross_encoder=cross, top_k=4).place(paragraphs, pool)
    assert any(p.candidate is not None for p in placements)
    assert all(p.why.tooltip() for p in placements if p.why)


def test_an_unnumbered_image_in_a_numbered_pool_scores_below_its_numbered_twin(embedder, article):
    paragraphs, pool, _ = article
    twin = pool[0].model_copy(update={"label": None, "figure": None, "order": len(pool)})
    engine = PlacementEngine(embedder, None, None, top_k=0)
    problem = engine.prepare(paragraphs[:30], [*pool, twin])
    engine.rescore(problem)
    weight = problem.sequence_model.weights.get("unlabeled", 0.0)
    assert weight < 0, "the shipped sequence model lost its unlabeled feature"
    z = problem.sequence_logits()
    valid = [i for i, p in enumerate(paragraphs[:30]) if p.strip()]
    # same caption, same text signals: only the missing label (and the rank position) differ
    assert np.all(z[valid, -1] < z[valid, 0])
    assert np.all(problem.sequence_features()["unlabeled"][valid, -1] == 1.0)
    assert np.all(problem.sequence_features()["unlabeled"][:, :-1] == 0.0)
