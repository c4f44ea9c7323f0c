"""Sentence embeddings with all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime; no torch.

The same class runs any BERT-style encoder of the registry's ``text-embedder`` role: BGE-small-en is
pooled from its [CLS] token instead of the mean (``pooling="cls"``; :meth:`TextEmbedder.for_model` reads
the pooling and the length from the model's manifest).

Tokenizer: ``tokenizer.json`` of the same model through the ``tokenizers`` library, truncated to 256
tokens (the sentence-transformers setting of this model), padded per batch. Vectors: mean of
``last_hidden_state`` over the attention mask, L2-normalised, float32, 384 values.

Results are cached by (model id, sha256 of the text) in a :class:`ContentCache`; the model id carries the
first 12 hex digits of the ONNX file's sha256 and the truncation length, so another model file never
returns stale vectors.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from mmdocsum_desktop.errors import ModelError
from mmdocsum_desktop.jobs import JobControl, ensure_control
from mmdocsum_desktop.models.bert import load_tokenizer, model_files, padded_feeds
from mmdocsum_desktop.models.cache import ContentCache
from mmdocsum_desktop.models.devices import make_session, provider_device
from mmdocsum_desktop.models.hashing import sha256_file
from mmdocsum_desktop.models.registry import get_model

DEFAULT_MODEL = "minilm-int8"
DIM = 384
POOLINGS = ("mean", "cls")


class TextEmbedder:
    """``TextEmbedder().embed(["a sentence", ...]) -> float32 array (n, 384)``, rows L2-normalised.

    ``cache``: True → the default on-disk :class:`ContentCache`; False/None → no cache; or a ContentCache.
    ``session_runs`` counts the onnxruntime ``run`` calls this instance made (a cache hit makes none).
    """

    dim = DIM

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        tokenizer_path: str | os.PathLike[str] | None = None,
        *,
        intra_op_threads: int = 2,
        max_length: int = 256,
        cache: ContentCache | bool | None = True,
        prefer_gpu: bool = True,
        pooling: str = "mean",
        model_name: str = DEFAULT_MODEL,
    ) -> None:
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {', '.join(POOLINGS)}, not {pooling!r}")
        self.pooling = pooling
        self.model_name = model_name
        self.model_path, self.tokenizer_path = model_files(model_name, model_path, tokenizer_path)
        self.max_length = int(max_length)
        self.session_runs = 0

        self._tokenizer, self._pad_id = load_tokenizer(
            self.tokenizer_path,
            self.max_length,
            missing_message="text embeddings need the tokenizers package: pip install tokenizers",
        )

        self._session = make_session(
            self.model_path, intra_op_threads=intra_op_threads, prefer_gpu=prefer_gpu
        )
        names = {i.name for i in self._session.get_inputs()}
        if not {"input_ids", "attention_mask"} <= names:
            raise ModelError(f"{self.model_path.name} is not a BERT-style encoder (inputs: {sorted(names)})")
        self._uses_token_types = "token_type_ids" in names
        self.device = provider_device(self._session.get_providers()[0])
        # The first word stays "minilm" for the default model so vectors cached before BGE existed still hit.
        family = "minilm" if pooling == "mean" and model_name == DEFAULT_MODEL else f"{model_name}-{pooling}"
        self.model_id = f"{family}:{sha256_file(self.model_path)[:12]}:len{self.max_length}"

        self._owns_cache = cache is True
        if cache is True:
            self.cache: ContentCache | None = ContentCache()
        elif cache is False or cache is None:
            self.cache = None
        else:
            self.cache = cache

    @classmethod
    def for_model(cls, name: str = DEFAULT_MODEL, **kwargs) -> TextEmbedder:
        """The embedder of a registered ``text-embedder`` model, with the pooling and length its manifest
        gives (MiniLM: mean over 256 tokens; BGE-small: [CLS] over 512)."""
        entry = get_model(name)
        if entry.role != "text-embedder":
            raise ModelError(f"model {name!r} is a {entry.role}, not a text-embedder")
        kwargs.setdefault("pooling", str(entry.metadata.get("pooling", "mean")))
        kwargs.setdefault("max_length", int(entry.metadata.get("max_length", 256)))
        return cls(entry.path("model"), entry.path("tokenizer"), model_name=name, **kwargs)

    def embed(
        self, texts: Sequence[str], batch_size: int = 32, control: JobControl | None = None
    ) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed() takes a list of strings, not one string")
        texts = list(texts)
        for index, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(f"texts[{index}] is {type(text).__name__}, not str")
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        result = np.zeros((len(texts), DIM), dtype=np.float32)
        if not texts:
            return result
        control = ensure_control(control)

        keys = [ContentCache.key_for_text(t) for t in texts]
        cached = self.cache.get_many(self.model_id, keys) if self.cache is not None else {}
        todo: dict[str, str] = {}  # key -> text, first occurrence, cache misses only
        for key, text in zip(keys, texts, strict=True):
            if key not in cached and key not in todo:
                todo[key] = text

        computed: dict[str, np.ndarray] = {}
        if todo:
            todo_keys = list(todo)
            encodings = self._tokenizer.encode_batch([todo[k] for k in todo_keys])
            # Sort by length so each batch pads little; results do not depend on the batch (see tests).
            order = sorted(range(len(todo_keys)), key=lambda i: len(encodings[i].ids))
            total = len(order)
            control.report(0, total, "embedding")
            for start in range(0, total, batch_size):
                batch = order[start : start + batch_size]
                vectors = self._run([encodings[i] for i in batch])
                for row, i in enumerate(batch):
                    computed[todo_keys[i]] = vectors[row]
                control.report(min(start + batch_size, total), total, "embedding")
            if self.cache is not None:
                self.cache.put_many(self.model_id, ((k, v.tobytes()) for k, v in computed.items()))

        for row, key in enumerate(keys):
            if key in computed:
                result[row] = computed[key]
            else:
                result[row] = np.frombuffer(cached[key], dtype=np.float32)
        return result

    def _run(self, encodings) -> np.ndarray:
        feeds = padded_feeds(encodings, self._pad_id, token_types=self._uses_token_types)
        mask = feeds["attention_mask"]
        hidden = self._session.run(None, feeds)[0]
        self.session_runs += 1
        if self.pooling == "cls":
            pooled = hidden[:, 0, :]
        else:
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)

    def close(self) -> None:
        """Close the cache this instance opened itself (a cache passed in stays open)."""
        if self.cache is not None and self._owns_cache:
            self.cache.close()


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine similarity of two vectors (1-D)."""
    return float(np.dot(a, b) / max(float(np.linalg.norm(a) * np.linalg.norm(b)), 1e-12))
