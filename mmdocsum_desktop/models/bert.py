"""What every BERT-style ONNX model here shares: its files (given or from the registry), its
``tokenizer.json`` loaded without padding and truncated, and a batch of encodings turned into the
padded ``input_ids``/``attention_mask`` feeds.

The text embedder (:mod:`.embed`) and the cross-encoder (:mod:`.rerank`) differ only in what they make
of the model's output, so they find, load and feed their models through these functions.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from mmdocsum_desktop.errors import MissingDependencyError, ModelError
from mmdocsum_desktop.models.registry import get_model


def model_files(
    name: str,
    model_path: str | os.PathLike[str] | None,
    tokenizer_path: str | os.PathLike[str] | None,
) -> tuple[Path, Path]:
    """The ONNX file and ``tokenizer.json`` to load: those given, the registered model ``name``'s for
    any left out."""
    if model_path is None or tokenizer_path is None:
        entry = get_model(name)
        model_path = model_path or entry.path("model")
        tokenizer_path = tokenizer_path or entry.path("tokenizer")
    return Path(model_path), Path(tokenizer_path)


def load_tokenizer(
    path: Path,
    max_length: int,
    *,
    missing_message: str,
    what: str = "the tokenizer",
    strategy: str = "longest_first",
) -> tuple[Any, int]:
    """``(tokenizer, pad_id)`` for ``path``: no padding (batches are padded by :func:`padded_feeds`),
    truncated to ``max_length`` tokens with the tokenizers ``strategy``.

    ``missing_message`` is the MissingDependencyError's text when the tokenizers package is absent;
    ``what`` names the tokenizer in the ModelError raised when the file does not load."""
    try:
        from tokenizers import Tokenizer  # optional: the app runs without it until a model is used
    except ImportError as error:
        raise MissingDependencyError(missing_message) from error
    try:
        tokenizer = Tokenizer.from_file(str(path))
    except Exception as error:  # noqa: BLE001 — tokenizers raises plain Exception subclasses
        raise ModelError(f"cannot load {what} {path}: {error}") from error
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_length, strategy=strategy)
    return tokenizer, tokenizer.token_to_id("[PAD]") or 0


def padded_feeds(encodings, pad_id: int, *, token_types: bool) -> dict[str, np.ndarray]:
    """The onnxruntime feeds for a batch of encodings, each row padded with ``pad_id`` to the longest;
    ``token_type_ids`` only when the model takes them (``token_types``)."""
    width = max(len(e.ids) for e in encodings)
    count = len(encodings)
    ids = np.full((count, width), pad_id, dtype=np.int64)
    mask = np.zeros((count, width), dtype=np.int64)
    types = np.zeros((count, width), dtype=np.int64)
    for row, encoding in enumerate(encodings):
        length = len(encoding.ids)
        ids[row, :length] = encoding.ids
        mask[row, :length] = 1
        types[row, :length] = encoding.type_ids
    feeds = {"input_ids": ids, "attention_mask": mask}
    if token_types:
        feeds["token_type_ids"] = types
    return feeds
