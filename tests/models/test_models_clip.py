"""CLIP: a tiny open_clip model with random weights exported to ONNX and checked against torch; the
onnxruntime side alone on a hand-built ONNX pair (no torch)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from PIL import Image

from mmdocsum_desktop.errors import MissingDependencyError, ModelError, ModelExportError, ModelNotFoundError
from mmdocsum_desktop.models.clip import ClipOnnx, ClipPreprocess, clean_text, load_clip

TINY_CONFIG = {
    "embed_dim": 32,
    "vision_cfg": {"image_size": 32, "layers": 2, "width": 64, "patch_size": 16, "head_width": 32},
    "text_cfg": {"context_length": 16, "vocab_size": 49408, "width": 64, "heads": 2, "layers": 2},
}
TINY_PREPROCESS = {"mean": [0.5, 0.4, 0.3], "std": [0.2, 0.25, 0.3]}


def test_images(seed: int = 0) -> list[Image.Image]:
    rng = np.random.default_rng(seed)
    rgb = Image.fromarray(rng.integers(0, 256, (50, 40, 3), dtype=np.uint8))
    tall = Image.fromarray(rng.integers(0, 256, (90, 21, 4), dtype=np.uint8), "RGBA")
    gray = Image.fromarray(rng.integers(0, 256, (64, 64), dtype=np.uint8), "L")
    palette = rgb.resize((33, 17)).convert("P")
    tiny = Image.fromarray(rng.integers(0, 256, (7, 12, 3), dtype=np.uint8))
    return [rgb, tall, gray, palette, tiny]


test_images.__test__ = False  # a helper, not a test

TEXTS = [
    "a diagram of a neural network",
    "Figure 3: Accuracy vs. epoch (CIFAR-10), 95.3%!",
    "  caf\u00e9   &amp; na\u00efve   r\u00e9sum\u00e9  ",
    "",
    "a very long caption " * 10,
]


# ----------------------------------------------------------------------------- runtime without torch


def _write_pair(folder, size=(8, 8), dim=6, vocab_words=("a", "cat", "dog", "photo", "of")):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from tokenizers import Tokenizer, models, pre_tokenizers

    rng = np.random.default_rng(1)
    h, w = size
    w_img = rng.normal(size=(3 * h * w, dim)).astype(np.float32)
    image_graph = helper.make_graph(
        [
            helper.make_node("Flatten", ["pixel_values"], ["flat"], axis=1),
            helper.make_node("MatMul", ["flat", "w"], ["embedding"]),
        ],
        "image",
        [helper.make_tensor_value_info("pixel_values", TensorProto.FLOAT, ["batch", 3, h, w])],
        [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", dim])],
        [numpy_helper.from_array(w_img, "w")],
    )
    vocab = {"<pad>": 0, "<start_of_text>": 1, "<end_of_text>": 2, "<unk>": 3}
    vocab.update({word: 4 + i for i, word in enumerate(vocab_words)})
    table = rng.normal(size=(len(vocab), dim)).astype(np.float32)
    text_graph = helper.make_graph(
        [
            helper.make_node("Gather", ["table", "input_ids"], ["vectors"], axis=0),
            helper.make_node("ReduceMean", ["vectors"], ["embedding"], axes=[1], keepdims=0),
        ],
        "text",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", 5])],
        [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", dim])],
        [numpy_helper.from_array(table, "table")],
    )
    folder.mkdir(parents=True, exist_ok=True)
    for name, graph in (("image", image_graph), ("text", text_graph)):
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 8
        onnx.save(model, str(folder / f"{name}.onnx"))
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(folder / "tokenizer.json"))
    (folder / "preprocess.json").write_text(
        json.dumps({"size": [h, w], "mean": [0.5, 0.5, 0.5], "std": [0.25, 0.25, 0.25], "context_length": 5})
    )
    return w_img, table, vocab


def test_ready_onnx_pair_runs_without_torch(tmp_path):
    w_img, table, vocab = _write_pair(tmp_path / "pair")
    clip = ClipOnnx(tmp_path / "pair", prefer_gpu=False)
    images = [Image.new("RGB", (20, 10), (255, 0, 128)), np.zeros((9, 9, 3), dtype=np.uint8)]
    got = clip.encode_images(images)
    pixels = clip.preprocess_images(images)
    # solid colours stay solid through resize and crop: (c/255 - 0.5) / 0.25 per channel
    np.testing.assert_allclose(
        pixels[0, :, 0, 0], [(1 - 0.5) / 0.25, -2.0, (128 / 255 - 0.5) / 0.25], atol=1e-6
    )
    expected = pixels.reshape(2, -1) @ w_img
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(got, expected, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-6)

    ids = clip.tokenize(["A photo of a CAT", "dog dog dog dog dog dog dog"])
    assert ids.tolist() == [
        [1, vocab["a"], vocab["photo"], vocab["of"], 2],  # truncated to 5, last one end_of_text
        [1, vocab["dog"], vocab["dog"], vocab["dog"], 2],
    ]
    texts = clip.encode_texts(["a cat", "a dog"])
    raw = table[[[1, vocab["a"], vocab["cat"], 2, 0], [1, vocab["a"], vocab["dog"], 2, 0]]].mean(axis=1)
    np.testing.assert_allclose(texts, raw / np.linalg.norm(raw, axis=1, keepdims=True), atol=1e-5)
    assert clip.encode_texts([]).shape == (0, 6)


def test_pair_registered_by_folder_and_loaded_by_name(tmp_path):
    from mmdocsum_desktop.models.registry import add_model

    _write_pair(tmp_path / "pair")
    add_model(tmp_path / "pair", "clip", "toy-clip")
    clip = load_clip("toy-clip", prefer_gpu=False)
    assert clip.encode_images([Image.new("RGB", (8, 8))]).shape == (1, 6)


def test_incomplete_pair_is_a_clear_error(tmp_path):
    (tmp_path / "half").mkdir()
    (tmp_path / "half" / "image.onnx").write_bytes(b"x")
    with pytest.raises(ModelNotFoundError, match="text.onnx"):
        ClipOnnx(tmp_path / "half")


def test_export_needs_torch_or_says_so(tmp_path, monkeypatch):
    weights = tmp_path / "w.pt"
    weights.write_bytes(b"not really weights")
    import builtins

    real_import = builtins.__import__

    def no_torch(name, *args, **kwargs):
        if name in ("torch", "open_clip") or name.startswith(("torch.", "open_clip.")):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_torch)
    with pytest.raises(MissingDependencyError, match="open-clip-torch"):
        ClipOnnx.from_checkpoint(weights, model_config=TINY_CONFIG, export_root=tmp_path / "exports")


def test_preprocess_config_validation():
    with pytest.raises(ModelError):
        ClipPreprocess.from_dict({"resize_mode": "stretch"})
    cfg = ClipPreprocess.from_dict({"size": 224})
    assert cfg.size == (224, 224) and cfg.interpolation == "bicubic"
    assert clean_text("  Caf\u00e9 &amp;\n Friends ") == "caf\u00e9 & friends"


# ------------------------------------------------------------------------------ export (torch needed)


@pytest.fixture(scope="module")
def tiny_open_clip(tmp_path_factory):
    import open_clip
    import torch
    folder = tmp_path_factory.mktemp("tiny_clip_cfg")
    (folder / "open_clip_config.json").write_text(
        json.dumps({"model_cfg": TINY_CONFIG, "preprocess_cfg": TINY_PREPROCESS})
    )
    torch.manual_seed(0)
    model = open_clip.create_model(f"local-dir:{folder}", load_weights=False).eval()
    tokenizer = open_clip.get_tokenizer(f"local-dir:{folder}")
    return torch, open_clip, model, tokenizer


@pytest.fixture(scope="module")
def exported(tiny_open_clip, tmp_path_factory):
    from mmdocsum_desktop.models.clip import export_open_clip

    torch, open_clip, model, tokenizer = tiny_open_clip
    folder = tmp_path_factory.mktemp("export") / "tiny"
    export_open_clip(model, tokenizer, open_clip.get_model_preprocess_cfg(model), folder)
    return ClipOnnx(folder, prefer_gpu=False)


@pytest.mark.parametrize("resize_mode", ["shortest", "longest", "squash"])
@pytest.mark.parametrize("interpolation", ["bicubic", "bilinear"])
@pytest.mark.parametrize("size", [32, (24, 40)])
def test_numpy_preprocessing_equals_open_clip(tiny_open_clip, resize_mode, interpolation, size):
    _torch, open_clip, _model, _tokenizer = tiny_open_clip
    from open_clip.transform import PreprocessCfg, image_transform_v2

    cfg = {
        "size": size,
        "mean": TINY_PREPROCESS["mean"],
        "std": TINY_PREPROCESS["std"],
        "interpolation": interpolation,
        "resize_mode": resize_mode,
        "fill_color": 7,
    }
    theirs = image_transform_v2(PreprocessCfg(**cfg), is_train=False)
    ours = ClipPreprocess.from_dict(cfg)
    for image in test_images():
        expected = theirs(image).numpy()
        got = ours(image)
        assert got.shape == expected.shape
        assert np.abs(got - expected).max() <= 1e-6, (image.mode, image.size)


def test_tokenizer_equals_open_clip(tiny_open_clip, exported):
    _torch, _open_clip, _model, tokenizer = tiny_open_clip
    assert np.array_equal(exported.tokenize(TEXTS), tokenizer(TEXTS).numpy())


def test_towers_match_torch(tiny_open_clip, exported):
    torch, open_clip, model, tokenizer = tiny_open_clip
    from open_clip.transform import PreprocessCfg, image_transform_v2

    transform = image_transform_v2(PreprocessCfg(**open_clip.get_model_preprocess_cfg(model)), is_train=False)
    images = test_images(seed=3)
    with torch.no_grad():
        torch_images = model.encode_image(torch.stack([transform(i) for i in images]), normalize=True).numpy()
        torch_texts = model.encode_text(tokenizer(TEXTS), normalize=True).numpy()
    onnx_images = exported.encode_images(images, batch_size=2)
    onnx_texts = exported.encode_texts(TEXTS)
    assert onnx_images.shape == (len(images), 32) and onnx_texts.shape == (len(TEXTS), 32)
    assert np.abs(onnx_images - torch_images).max() <= 1e-4
    assert np.abs(onnx_texts - torch_texts).max() <= 1e-4


def test_checkpoint_exported_once_and_cached(tiny_open_clip, tmp_path):
    torch, _open_clip, model, tokenizer = tiny_open_clip
    weights = tmp_path / "tiny.pt"
    torch.save(model.state_dict(), weights)
    config = {"model_cfg": TINY_CONFIG, "preprocess_cfg": TINY_PREPROCESS}
    first = ClipOnnx.from_checkpoint(weights, model_config=config, prefer_gpu=False)
    assert first.folder.parent.parent.name == "data"  # <data dir>/clip/<key>
    stamp = os.stat(first.folder / "image.onnx").st_mtime_ns
    second = ClipOnnx.from_checkpoint(weights, model_config=config, prefer_gpu=False)
    assert second.folder == first.folder
    assert os.stat(second.folder / "image.onnx").st_mtime_ns == stamp
    meta = json.loads((first.folder / "preprocess.json").read_text())
    assert meta["mean"] == TINY_PREPROCESS["mean"] and meta["context_length"] == 16
    with torch.no_grad():
        expected = model.encode_text(tokenizer(["a cat"]), normalize=True).numpy()
    assert np.abs(second.encode_texts(["a cat"]) - expected).max() <= 1e-4


def test_bad_checkpoints_give_clear_errors(tiny_open_clip, tmp_path):
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(os.urandom(2048))
    with pytest.raises(ModelExportError, match="cannot load the CLIP checkpoint"):
        ClipOnnx.from_checkpoint(garbage, model_config=TINY_CONFIG, export_root=tmp_path / "x")
    with pytest.raises(ModelExportError, match="no-such-arch"):
        ClipOnnx.from_checkpoint(garbage, architecture="no-such-arch", export_root=tmp_path / "x")
    with pytest.raises(ModelNotFoundError):
        ClipOnnx.from_checkpoint(tmp_path / "absent.pt", model_config=TINY_CONFIG)
    with pytest.raises(ModelError, match="exactly one"):
        ClipOnnx.from_checkpoint(garbage)
    assert not list((tmp_path / "x").glob("*")) if (tmp_path / "x").exists() else True
