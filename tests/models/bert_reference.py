"""An fp32 all-MiniLM-L6-v2 forward pass in numpy, read straight from the packaged safetensors file.

The reference the int8 ONNX model is tested against when torch is not installed: a plain BERT encoder
(6 layers, 12 heads, 384 wide, exact GELU, LayerNorm eps 1e-12) followed by sentence-transformers'
mean pooling and L2 normalisation.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
from scipy.special import erf

_DTYPES = {"F32": np.float32, "I64": np.int64}


def load_safetensors(path: Path) -> dict[str, np.ndarray]:
    data = path.read_bytes()
    (header_len,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + header_len])
    base = 8 + header_len
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        array = np.frombuffer(data[base + start : base + end], dtype=_DTYPES[info["dtype"]])
        tensors[name] = array.reshape(info["shape"])
    return tensors


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def _linear(x: np.ndarray, w: dict[str, np.ndarray], name: str) -> np.ndarray:
    return x @ w[f"{name}.weight_t"] + w[f"{name}.bias"]


class NumpyMiniLM:
    heads = 12

    def __init__(self, safetensors_path: Path) -> None:
        self.w = dict(load_safetensors(safetensors_path))
        for key in [
            k for k in self.w if k.startswith("encoder.") and k.endswith(".weight") and self.w[k].ndim == 2
        ]:
            self.w[key[: -len("weight")] + "weight_t"] = np.ascontiguousarray(self.w.pop(key).T)
        self.layers = 1 + max(int(k.split(".")[2]) for k in self.w if k.startswith("encoder.layer."))

    def embed_ids(self, ids: list[int], type_ids: list[int]) -> np.ndarray:
        w = self.w
        n = len(ids)
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:n]
            + w["embeddings.token_type_embeddings.weight"][type_ids]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        width = x.shape[1]
        head = width // self.heads
        for i in range(self.layers):
            p = f"encoder.layer.{i}"
            q = _linear(x, w, f"{p}.attention.self.query").reshape(n, self.heads, head).transpose(1, 0, 2)
            k = _linear(x, w, f"{p}.attention.self.key").reshape(n, self.heads, head).transpose(1, 0, 2)
            v = _linear(x, w, f"{p}.attention.self.value").reshape(n, self.heads, head).transpose(1, 0, 2)
            scores = q @ k.transpose(0, 2, 1) / np.sqrt(head)
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(1, 0, 2).reshape(n, width)
            attended = _linear(context, w, f"{p}.attention.output.dense")
            x = _layer_norm(
                attended + x,
                w[f"{p}.attention.output.LayerNorm.weight"],
                w[f"{p}.attention.output.LayerNorm.bias"],
            )
            hidden = _linear(x, w, f"{p}.intermediate.dense")
            hidden = 0.5 * hidden * (1.0 + erf(hidden / np.sqrt(2.0)))
            out = _linear(hidden, w, f"{p}.output.dense")
            x = _layer_norm(out + x, w[f"{p}.output.LayerNorm.weight"], w[f"{p}.output.LayerNorm.bias"])
        pooled = x.mean(0)
        return (pooled / np.linalg.norm(pooled)).astype(np.float32)
