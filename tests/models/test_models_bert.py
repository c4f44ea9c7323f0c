"""The BERT-style helpers the embedder and the cross-encoder share, on the real MiniLM tokenizer."""

from __future__ import annotations

import numpy as np
import pytest

from mmdocsum_desktop.errors import ModelError
from mmdocsum_desktop.models.bert import load_tokenizer, model_files, padded_feeds
from mmdocsum_desktop.models.registry import get_model


@pytest.fixture(scope="module")
def minilm_tokenizer():
    _model, tokenizer_path = model_files("minilm-int8", None, None)
    return load_tokenizer(tokenizer_path, 16, missing_message="needs tokenizers")


def test_model_files_take_the_given_paths_and_the_registry_for_the_rest(tmp_path):
    entry = get_model("minilm-int8")
    assert model_files("minilm-int8", None, None) == (entry.path("model"), entry.path("tokenizer"))
    given = tmp_path / "model.onnx"
    assert model_files("minilm-int8", given, None) == (given, entry.path("tokenizer"))


def test_tokenizer_truncates_and_pads_rows_to_the_longest(minilm_tokenizer):
    tokenizer, pad_id = minilm_tokenizer
    short, long = tokenizer.encode_batch(["a cat", "word " * 40])
    assert len(long.ids) == 16  # truncated to max_length
    feeds = padded_feeds([short, long], pad_id, token_types=False)
    assert set(feeds) == {"input_ids", "attention_mask"}
    assert feeds["input_ids"].shape == (2, 16) and feeds["input_ids"].dtype == np.int64
    assert feeds["attention_mask"][0].sum() == len(short.ids)
    assert (feeds["input_ids"][0, len(short.ids):] == pad_id).all()
    assert feeds["attention_mask"][1].all()


def test_pairs_keep_their_token_types(minilm_tokenizer):
    tokenizer, pad_id = minilm_tokenizer
    encoding = tokenizer.encode("the query", "the passage")
    feeds = padded_feeds([encoding], pad_id, token_types=True)
    types = feeds["token_type_ids"][0]
    assert list(types) == list(encoding.type_ids)
    assert types[0] == 0 and types[-1] == 1  # the passage is segment 1


def test_a_damaged_tokenizer_file_is_a_model_error_naming_it(tmp_path):
    broken = tmp_path / "tokenizer.json"
    broken.write_text("{ not json", encoding="utf-8")
    with pytest.raises(ModelError, match="cannot load the test tokenizer .*tokenizer.json"):
        load_tokenizer(broken, 16, missing_message="needs tokenizers", what="the test tokenizer")
