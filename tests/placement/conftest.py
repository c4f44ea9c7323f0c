"""Shared fixtures of the placement tests: the real models (MiniLM ONNX, RapidOCR) with in-memory caches,
a real paper exported once, and a tiny CLIP pair in ONNX built here with random weights."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import model_dirs_in, read_paper


@pytest.fixture(scope="session", autouse=True)
def isolated_model_dirs(tmp_path_factory):
    """Models' caches and data dirs in a temporary folder, never the user's."""
    with model_dirs_in(tmp_path_factory.mktemp("placement-dirs")) as root:
        yield root


@pytest.fixture(scope="session")
def embedder():
    from mmdocsum_desktop.models.cache import ContentCache
    from mmdocsum_desktop.models.embed import TextEmbedder

    return TextEmbedder(cache=ContentCache(":memory:"))


@pytest.fixture(scope="session")
def ocr():
    from mmdocsum_desktop.models.cache import ContentCache
    from mmdocsum_desktop.models.ocr import OcrEngine

    return OcrEngine(cache=ContentCache(":memory:"))


@pytest.fixture(scope="session")
def paper_3780(tmp_path_factory):
    """pymupdf_test_3780.pdf (3 labelled figures, "Figure 1 | ..." captions), exported with its crops."""
    from mmdocsum_desktop.document.reader import export_document

    document = read_paper("pymupdf_test_3780.pdf").model_copy(deep=True)
    out = tmp_path_factory.mktemp("paper-3780")
    export_document(document, out)
    return document, out


def png_header_only(width: int, height: int) -> bytes:
    """A PNG that declares its size but carries almost no pixel data: a decompression-bomb stand-in."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00")) + chunk(b"IEND", b"")


def build_tiny_clip(folder: Path, *, with_tokenizer: bool = True, text_dim: int = 8, seed: int = 0) -> Path:
    """A CLIP-shaped ONNX pair with random weights: image N×3×32×32 → pooled → 8-d; token ids → mean of
    embeddings → ``text_dim``-d. Real onnxruntime graphs, as the app would get from an export."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    vocab = ["<start_of_text>", "<end_of_text>", "[UNK]", *"figure plot graph curve ion crystal laser gate table".split()]

    proj = numpy_helper.from_array(rng.normal(size=(3, 8)).astype(np.float32), "proj")
    image_graph = helper.make_graph(
        [
            helper.make_node("GlobalAveragePool", ["pixel_values"], ["pooled"]),
            helper.make_node("Flatten", ["pooled"], ["flat"], axis=1),
            helper.make_node("MatMul", ["flat", "proj"], ["embedding"]),
        ],
        "image",
        [helper.make_tensor_value_info("pixel_values", TensorProto.FLOAT, ["batch", 3, 32, 32])],
        [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", 8])],
        [proj],
    )
    table = numpy_helper.from_array(rng.normal(size=(len(vocab), text_dim)).astype(np.float32), "table")
    text_graph = helper.make_graph(
        [
            helper.make_node("Gather", ["table", "input_ids"], ["tokens"], axis=0),
            helper.make_node("ReduceMean", ["tokens"], ["embedding"], axes=[1], keepdims=0),
        ],
        "text",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", 16])],
        [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", text_dim])],
        [table],
    )
    for name, graph in (("image.onnx", image_graph), ("text.onnx", text_graph)):
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 8
        onnx.save(model, folder / name)
    (folder / "preprocess.json").write_text(json.dumps({"size": 32, "context_length": 16}))
    if with_tokenizer:
        from tokenizers import Tokenizer, models, pre_tokenizers

        tokenizer = Tokenizer(models.WordLevel({w: i for i, w in enumerate(vocab)}, unk_token="[UNK]"))
        tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
        tokenizer.save(str(folder / "tokenizer.json"))
    return folder
