"""Reads a GGUF file's header (metadata and tensor table) without loading the weights, so a missing,
truncated, damaged or wrong-architecture file gets a clear message before llama.cpp sees it.

The format's constants (value types, the bytes per block of each tensor type, the magic, the default
alignment) come from llama.cpp's own ``gguf`` package, so new tensor types are sized as llama.cpp sizes
them. The walk over the header is ours: ``gguf.GGUFReader`` parses every entry of the vocabulary
arrays (2 to 3 s for SmolLM2-135M, about 9 s for a 1.5B Qwen, measured on the 2-core test machine)
where skipping them by their length takes 0.05 to 0.4 s, and this check runs before every model load.
Tests that need a whole vocabulary read it with ``GGUFReader``.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from gguf import GGML_QUANT_SIZES, GGUF_DEFAULT_ALIGNMENT, GGUF_MAGIC, GGMLQuantizationType, GGUFValueType

from mmdocsum_desktop.errors import ModelFormatError

# How each scalar value type is stored (little-endian, as llama.cpp writes GGUF). Plain ints as keys: a
# vocabulary is walked item by item, and comparing enum members is several times slower.
_SCALARS: dict[int, str] = {int(value_type): layout for value_type, layout in {
    GGUFValueType.UINT8: "<B", GGUFValueType.INT8: "<b", GGUFValueType.UINT16: "<H", GGUFValueType.INT16: "<h",
    GGUFValueType.UINT32: "<I", GGUFValueType.INT32: "<i", GGUFValueType.FLOAT32: "<f", GGUFValueType.BOOL: "<?",
    GGUFValueType.UINT64: "<Q", GGUFValueType.INT64: "<q", GGUFValueType.FLOAT64: "<d",
}.items()}
_STRING, _ARRAY = int(GGUFValueType.STRING), int(GGUFValueType.ARRAY)
_MAGIC = struct.pack("<I", GGUF_MAGIC)  # b"GGUF"

# Architectures that are not chat models: what to tell the user instead.
_NOT_CHAT = {
    "clip": "is a vision projector (mmproj) file, not a language model: pass it with --mmproj "
    "and give the vision language model it belongs to with --model",
    "bert": "is a text-embedding model (BERT), not a chat model",
    "nomic-bert": "is a text-embedding model, not a chat model",
    "nomic-bert-moe": "is a text-embedding model, not a chat model",
    "jina-bert-v2": "is a text-embedding model, not a chat model",
    "t5encoder": "is an encoder-only model, not a chat model",
}
VISION_TEXT_ARCHES = {"qwen2vl", "qwen25vl", "qwen3vl", "qwen3vlmoe"}  # text halves that need an mmproj


@dataclass
class GgufInfo:
    path: Path
    version: int
    architecture: str | None
    metadata: dict[str, Any] = field(default_factory=dict)  # scalars and short arrays only
    tensor_count: int = 0
    file_size: int = 0
    data_end: int = 0  # where the last tensor's data ends, by the tensor table

    @property
    def name(self) -> str:
        return str(self.metadata.get("general.name") or self.path.stem)

    @property
    def is_projector(self) -> bool:
        return self.architecture == "clip"

    @property
    def has_chat_template(self) -> bool:
        return bool(self.metadata.get("tokenizer.chat_template"))

    def get(self, key: str, default: Any = None) -> Any:
        return self.metadata.get(key, default)

    @property
    def embedding_length(self) -> int | None:
        if self.architecture is None:
            return None
        value = self.metadata.get(f"{self.architecture}.embedding_length")
        return int(value) if value is not None else None

    @property
    def context_length(self) -> int | None:
        if self.architecture is None:
            return None
        value = self.metadata.get(f"{self.architecture}.context_length")
        return int(value) if value is not None else None

    @property
    def projection_dim(self) -> int | None:
        """For an mmproj: the width of the vectors it hands to the language model."""
        value = self.metadata.get("clip.vision.projection_dim")
        return int(value) if value is not None else None

    @property
    def has_vision_encoder(self) -> bool:
        return bool(self.metadata.get("clip.has_vision_encoder"))


class _Reader:
    def __init__(self, handle: BinaryIO, size: int, path: Path) -> None:
        self.handle = handle
        self.size = size
        self.path = path

    def read(self, count: int) -> bytes:
        data = self.handle.read(count)
        if len(data) != count:
            raise ModelFormatError(f"{self.path.name} is truncated: its header ends early (is the download complete?)")
        return data

    def unpack(self, fmt: str) -> Any:
        return struct.unpack(fmt, self.read(struct.calcsize(fmt)))[0]

    def string(self, keep: bool = True) -> str | None:
        length = self.unpack("<Q")
        if length > self.size:
            raise ModelFormatError(f"{self.path.name} is truncated or damaged: a string of {length} bytes in a {self.size}-byte file")
        if not keep:
            self.handle.seek(length, os.SEEK_CUR)
            return None
        return self.read(length).decode("utf-8", errors="replace")

    def value(self, value_type: int, keep: bool = True) -> Any:
        if value_type in _SCALARS:
            return self.unpack(_SCALARS[value_type])
        if value_type == _STRING:
            return self.string(keep)
        if value_type == _ARRAY:
            item_type = self.unpack("<I")
            count = self.unpack("<Q")
            if count > self.size:
                raise ModelFormatError(f"{self.path.name} is truncated or damaged: an array of {count} items in a {self.size}-byte file")
            small = count <= 64  # per-layer values are kept; a vocabulary is skipped
            if item_type in _SCALARS and not small:
                self.handle.seek(count * struct.calcsize(_SCALARS[item_type]), os.SEEK_CUR)
                return None
            items = [self.value(item_type, keep and small) for _ in range(count)]
            return items if small else None
        raise ModelFormatError(f"{self.path.name} is damaged: unknown value type {value_type} in the header")


def read_gguf_info(path: str | os.PathLike[str], *, what: str = "model") -> GgufInfo:
    """The header of a GGUF file; ModelFormatError with a plain message for anything unusable.

    Arrays of more than 64 items (a vocabulary) are skipped."""
    source = Path(path).expanduser()
    if not source.exists():
        raise ModelFormatError(f"{what} file not found: {source}")
    if not source.is_file():
        raise ModelFormatError(f"{what} path is not a file: {source}")
    size = source.stat().st_size
    if size == 0:
        raise ModelFormatError(f"{source.name} is empty (0 bytes): the download or copy did not finish")
    try:
        handle = source.open("rb")
    except OSError as error:
        raise ModelFormatError(f"cannot open {source}: {error}") from error
    with handle:
        reader = _Reader(handle, size, source)
        magic = handle.read(4)
        if magic != _MAGIC:
            raise ModelFormatError(_not_gguf_message(source, magic))
        version = reader.unpack("<I")
        if version not in (2, 3):
            raise ModelFormatError(f"{source.name}: GGUF version {version} is not supported (2 or 3 expected)")
        tensor_count = reader.unpack("<Q")
        kv_count = reader.unpack("<Q")
        if tensor_count > 10_000_000 or kv_count > 10_000_000:
            raise ModelFormatError(f"{source.name} is damaged: implausible header counts")
        metadata: dict[str, Any] = {}
        for _ in range(kv_count):
            key = reader.string() or ""
            value_type = reader.unpack("<I")
            value = reader.value(value_type, keep=True)
            if value is not None:
                metadata[key] = value
        tensors: list[tuple[int, int, int]] = []  # (offset, elements, type)
        for _ in range(tensor_count):
            reader.string(keep=False)
            n_dims = reader.unpack("<I")
            if n_dims > 8:
                raise ModelFormatError(f"{source.name} is damaged: a tensor with {n_dims} dimensions")
            elements = 1
            for _ in range(n_dims):
                elements *= reader.unpack("<Q")
            tensor_type = reader.unpack("<I")
            offset = reader.unpack("<Q")
            tensors.append((offset, elements, tensor_type))
        alignment = int(metadata.get("general.alignment", GGUF_DEFAULT_ALIGNMENT) or GGUF_DEFAULT_ALIGNMENT)
        header_end = handle.tell()
        data_start = (header_end + alignment - 1) // alignment * alignment
    data_end = data_start
    for offset, elements, tensor_type in tensors:
        try:
            block, block_bytes = GGML_QUANT_SIZES[GGMLQuantizationType(tensor_type)]
        except (ValueError, KeyError):
            continue  # a type this gguf package does not know: llama.cpp will judge
        data_end = max(data_end, data_start + offset + (elements + block - 1) // block * block_bytes)
    info = GgufInfo(
        path=source,
        version=version,
        architecture=metadata.get("general.architecture"),
        metadata=metadata,
        tensor_count=tensor_count,
        file_size=size,
        data_end=data_end,
    )
    if tensor_count and data_end > size:
        raise ModelFormatError(
            f"{source.name} is truncated: its tensors need {data_end / 1e6:.1f} MB but the file has "
            f"{size / 1e6:.1f} MB (the download or copy did not finish)"
        )
    return info


def _not_gguf_message(path: Path, magic: bytes) -> str:
    if magic.startswith(b"PK"):
        kind = "a zip archive (a PyTorch or Keras checkpoint?)"
    elif magic[:1] == b"{" or magic[:1] == b"[":
        kind = "a JSON file"
    elif magic.startswith(b"\x08") or path.suffix == ".onnx":
        kind = "probably an ONNX model"
    elif magic.startswith(b"<"):
        kind = "an HTML page (a failed download?)"
    elif path.suffix == ".safetensors":
        kind = "a safetensors checkpoint (convert it with llama.cpp's convert_hf_to_gguf.py)"
    elif magic and all(32 <= byte < 127 or byte in (9, 10, 13) for byte in magic):
        kind = "a text file, not a model"
    else:  # said in words: a Python byte string (b'\x00...') means nothing to a user
        kind = "not a GGUF model file (a GGUF file begins with the letters GGUF)"
    return f"{path.name} is {kind}; llama.cpp needs a .gguf model file"


def check_chat_model(info: GgufInfo) -> None:
    """Refuse files that are GGUF but not a language model we can chat with."""
    arch = info.architecture
    if arch is None:
        raise ModelFormatError(f"{info.path.name} has no general.architecture: it is not a model GGUF")
    if arch in _NOT_CHAT:
        raise ModelFormatError(f"{info.path.name} {_NOT_CHAT[arch]}")


def check_projector(projector: GgufInfo, model: GgufInfo) -> None:
    """The mmproj file must be a vision projector whose output width is the model's embedding width."""
    if not projector.is_projector:
        raise ModelFormatError(
            f"{projector.path.name} is not a vision projector (its architecture is "
            f"{projector.architecture!r}); --mmproj takes the mmproj GGUF that belongs to the vision model"
        )
    if not projector.has_vision_encoder:
        raise ModelFormatError(f"{projector.path.name} has no vision encoder (an audio-only projector?)")
    width, expected = projector.projection_dim, model.embedding_length
    if width is not None and expected is not None and width != expected:
        raise ModelFormatError(
            f"{projector.path.name} does not belong to {model.path.name}: the projector produces "
            f"{width}-wide vectors and the model ({model.architecture}) takes {expected}; is "
            f"{model.path.name} the vision language model this mmproj was made for?"
        )
