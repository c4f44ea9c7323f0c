"""CLIP image and text embeddings on onnxruntime, from an open_clip checkpoint or a ready ONNX pair.

Two halves:

* **Export** (needs torch + open-clip-torch, only once per checkpoint): :func:`export_open_clip` writes
  ``image.onnx``, ``text.onnx``, ``preprocess.json`` and ``tokenizer.json`` into a folder;
  :meth:`ClipOnnx.from_checkpoint` does it into ``<data dir>/clip/<weights sha256>-<config hash>/`` and
  reuses that folder afterwards.
* **Runtime** (:class:`ClipOnnx`, no torch): the same preprocessing as open_clip's eval transform
  (resize with Pillow's bicubic/bilinear, center crop or pad, RGB, scale to [0, 1], normalise with the
  model's mean/std) in numpy/Pillow, the same tokenizer (open_clip's BPE vocabulary saved as a
  ``tokenizers`` file, with open_clip's text cleaning), both towers through onnxruntime, L2-normalised.

A ready pair from elsewhere needs ``image.onnx`` (input N×3×H×W float32), ``text.onnx`` (input N×L int64
token ids), ``preprocess.json`` (``size``, ``mean``, ``std``; optional ``interpolation``, ``resize_mode``,
``fill_color``, ``context_length``) and, for text, ``tokenizer.json``.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import shutil
import tempfile
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageOps

from mmdocsum_desktop.errors import (
    CorruptImageError,
    MissingDependencyError,
    ModelError,
    ModelExportError,
    ModelNotFoundError,
)
from mmdocsum_desktop.jobs import JobControl, ensure_control
from mmdocsum_desktop.models.devices import make_session, provider_device
from mmdocsum_desktop.models.hashing import sha256_file
from mmdocsum_desktop.models.ocr import decode_image
from mmdocsum_desktop.models.registry import get_model
from mmdocsum_desktop.paths import data_dir

EXPORT_FORMAT = 1
OPENAI_MEAN = (0.48145466, 0.4578275, 0.40821073)
OPENAI_STD = (0.26862954, 0.26130258, 0.27577711)
_REQUIRED = ("image.onnx", "text.onnx", "preprocess.json")


# ---------------------------------------------------------------------------------------- preprocessing


@dataclass(frozen=True)
class ClipPreprocess:
    """open_clip's eval-time image transform, in numpy and Pillow."""

    size: tuple[int, int] = (224, 224)  # (height, width)
    mean: tuple[float, float, float] = OPENAI_MEAN
    std: tuple[float, float, float] = OPENAI_STD
    interpolation: str = "bicubic"
    resize_mode: str = "shortest"
    fill_color: int = 0
    context_length: int = 77

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ClipPreprocess:
        size = data.get("size", 224)
        size = (int(size), int(size)) if isinstance(size, int | float) else (int(size[0]), int(size[1]))
        mean = data.get("mean") or OPENAI_MEAN
        std = data.get("std") or OPENAI_STD
        mean = (float(mean),) * 3 if isinstance(mean, int | float) else tuple(float(m) for m in mean)
        std = (float(std),) * 3 if isinstance(std, int | float) else tuple(float(s) for s in std)
        interpolation = data.get("interpolation") or "bicubic"
        resize_mode = data.get("resize_mode") or "shortest"
        if interpolation not in ("bicubic", "bilinear", "random"):
            raise ModelError(f"unknown interpolation {interpolation!r}")
        if resize_mode not in ("shortest", "longest", "squash"):
            raise ModelError(f"unknown resize_mode {resize_mode!r}")
        return cls(
            size=size,
            mean=mean,  # type: ignore[arg-type]
            std=std,  # type: ignore[arg-type]
            interpolation="bilinear" if interpolation == "bilinear" else "bicubic",
            resize_mode=resize_mode,
            fill_color=int(data.get("fill_color", 0) or 0),
            context_length=int(data.get("context_length", 77)),
        )

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["size"] = list(self.size)
        data["mean"] = list(self.mean)
        data["std"] = list(self.std)
        return data

    def __call__(self, image) -> np.ndarray:
        """A PIL image → float32 array 3×H×W, exactly as open_clip's ``image_transform(is_train=False)``."""
        resample = Image.Resampling.BILINEAR if self.interpolation == "bilinear" else Image.Resampling.BICUBIC
        target_h, target_w = self.size
        width, height = image.size
        if self.resize_mode == "squash":
            image = image.resize((target_w, target_h), resample)
        elif self.resize_mode == "longest" or target_h != target_w:
            longest = 1.0 if self.resize_mode == "longest" else 0.0
            ratio_h, ratio_w = height / target_h, width / target_w
            ratio = max(ratio_h, ratio_w) * longest + min(ratio_h, ratio_w) * (1.0 - longest)
            new_h, new_w = round(height / ratio), round(width / ratio)
            if self.resize_mode == "shortest":
                resample = (
                    Image.Resampling.BICUBIC
                )  # open_clip builds ResizeKeepRatio(size) without interpolation
            image = image.resize((new_w, new_h), resample)
        else:  # torchvision Resize(int): shortest edge to size, the other truncated
            short, long = (width, height) if width <= height else (height, width)
            new_short, new_long = target_h, int(target_h * long / short)
            new_w, new_h = (new_short, new_long) if width <= height else (new_long, new_short)
            image = image.resize((new_w, new_h), resample)
        if self.resize_mode != "squash":
            fill = self.fill_color if self.resize_mode == "longest" else 0
            image = _center_crop_or_pad(image, target_h, target_w, fill)
        if image.mode != "RGB":
            image = image.convert("RGB")
        pixels: np.ndarray = np.asarray(image, dtype=np.float32) / 255.0
        pixels = (pixels - np.asarray(self.mean, dtype=np.float32)) / np.asarray(self.std, dtype=np.float32)
        return np.ascontiguousarray(pixels.transpose(2, 0, 1), dtype=np.float32)


def _center_crop_or_pad(image: Image.Image, crop_h: int, crop_w: int, fill: int) -> Image.Image:
    width, height = image.size
    if crop_w > width or crop_h > height:
        left = (crop_w - width) // 2 if crop_w > width else 0
        top = (crop_h - height) // 2 if crop_h > height else 0
        right = (crop_w - width + 1) // 2 if crop_w > width else 0
        bottom = (crop_h - height + 1) // 2 if crop_h > height else 0
        bands = len(image.getbands())
        colour = (fill,) * bands if bands > 1 and image.mode != "P" else fill  # as torchvision's _parse_fill
        image = ImageOps.expand(image, border=(left, top, right, bottom), fill=colour)
        width, height = image.size
        if crop_w == width and crop_h == height:
            return image
    top = int(round((height - crop_h) / 2.0))
    left = int(round((width - crop_w) / 2.0))
    return image.crop((left, top, left + crop_w, top + crop_h))


# ------------------------------------------------------------------------------------------- tokenizer


def clean_text(text: str) -> str:
    """open_clip's default text cleaning: ftfy (when installed), HTML unescape, whitespace, lower case."""
    try:
        import ftfy  # optional, as in open_clip: cleaning works without it

        text = ftfy.fix_text(text)
    except ImportError:
        pass
    text = html.unescape(html.unescape(text)).strip()
    return " ".join(text.split()).strip().lower()


class ClipTokenizer:
    """Token ids for the text tower: [start] + BPE(clean(text)) + [end], truncated and zero-padded."""

    def __init__(self, tokenizer_json: str | os.PathLike[str], context_length: int) -> None:
        try:
            from tokenizers import Tokenizer  # optional: only CLIP text needs it
        except ImportError as error:
            raise MissingDependencyError(
                "CLIP text needs the tokenizers package: pip install tokenizers"
            ) from error
        self._tokenizer = Tokenizer.from_file(str(tokenizer_json))
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        self.context_length = context_length
        sot = self._tokenizer.token_to_id("<start_of_text>")
        eot = self._tokenizer.token_to_id("<end_of_text>")
        if sot is None or eot is None:
            raise ModelError(f"{tokenizer_json} has no <start_of_text>/<end_of_text> tokens")
        self.sot: int = sot
        self.eot: int = eot

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        cleaned = [clean_text(t) for t in texts]
        encodings = self._tokenizer.encode_batch(cleaned, add_special_tokens=False)
        out = np.zeros((len(texts), self.context_length), dtype=np.int64)
        for row, encoding in enumerate(encodings):
            tokens = [self.sot, *encoding.ids, self.eot]
            if len(tokens) > self.context_length:
                tokens = tokens[: self.context_length]
                tokens[-1] = self.eot
            out[row, : len(tokens)] = tokens
        return out


def tokenizer_json_from_open_clip(simple_tokenizer) -> str:
    """open_clip's SimpleTokenizer (BPE with '</w>' word ends over byte-level symbols) as a
    ``tokenizers`` JSON string. Cleaning stays in :func:`clean_text`, so no normalizer is set."""
    # only an export writes a tokenizer; tokenizers is optional until then
    from tokenizers import Regex, Tokenizer, decoders, pre_tokenizers
    from tokenizers.models import BPE  # (optional, as above)

    vocab = dict(simple_tokenizer.encoder)
    merges = [pair for pair, _ in sorted(simple_tokenizer.bpe_ranks.items(), key=lambda item: item[1])]
    tokenizer = Tokenizer(
        BPE(
            vocab=vocab,
            merges=merges,
            continuing_subword_prefix="",
            end_of_word_suffix="</w>",
            fuse_unk=False,
        )
    )
    pattern = r"""<start_of_text>|<end_of_text>|'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+"""
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(pattern), behavior="removed", invert=True),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tokenizer.decoder = decoders.ByteLevel()
    return tokenizer.to_str()


# --------------------------------------------------------------------------------------------- runtime


class ClipOnnx:
    """CLIP towers on onnxruntime. ``encode_images`` / ``encode_texts`` return float32 (n, d), rows
    L2-normalised, so ``images @ texts.T`` is cosine similarity."""

    def __init__(
        self, folder: str | os.PathLike[str], *, intra_op_threads: int = 2, prefer_gpu: bool = True
    ) -> None:
        self.folder = Path(folder)
        missing = [name for name in _REQUIRED if not (self.folder / name).is_file()]
        if missing:
            raise ModelNotFoundError(f"the CLIP folder {self.folder} lacks {', '.join(missing)}")
        try:
            config = json.loads((self.folder / "preprocess.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise ModelError(f"cannot read {self.folder / 'preprocess.json'}: {error}") from error
        self.config = config
        self.preprocess = ClipPreprocess.from_dict(config)
        self._image = make_session(
            self.folder / "image.onnx", intra_op_threads=intra_op_threads, prefer_gpu=prefer_gpu
        )
        self._text = make_session(
            self.folder / "text.onnx", intra_op_threads=intra_op_threads, prefer_gpu=prefer_gpu
        )
        self._image_input = self._image.get_inputs()[0].name
        self._text_input = self._text.get_inputs()[0].name
        self.device = provider_device(self._image.get_providers()[0])
        tokenizer_file = self.folder / config.get("tokenizer", "tokenizer.json")
        self.tokenizer = (
            ClipTokenizer(tokenizer_file, self.preprocess.context_length)
            if tokenizer_file.is_file()
            else None
        )
        self.embed_dim = (
            int(self._image.get_outputs()[0].shape[-1])
            if isinstance(self._image.get_outputs()[0].shape[-1], int)
            else None
        )

    @classmethod
    def from_checkpoint(
        cls,
        weights: str | os.PathLike[str],
        *,
        architecture: str | None = None,
        model_config: dict[str, Any] | None = None,
        export_root: str | os.PathLike[str] | None = None,
        intra_op_threads: int = 2,
        prefer_gpu: bool = True,
        control: JobControl | None = None,
    ) -> ClipOnnx:
        """Export an open_clip checkpoint once (cached by the weights' sha256), then load the ONNX pair.

        ``architecture``: an open_clip model name (e.g. "ViT-B-32"); or ``model_config``: an open_clip
        model config dict (``{"embed_dim", "vision_cfg", "text_cfg"}``, or ``{"model_cfg": ...,
        "preprocess_cfg": ...}`` as in open_clip_config.json).
        """
        folder = export_checkpoint(
            weights,
            architecture=architecture,
            model_config=model_config,
            export_root=export_root,
            control=control,
        )
        return cls(folder, intra_op_threads=intra_op_threads, prefer_gpu=prefer_gpu)

    def preprocess_images(self, images: Sequence[Any]) -> np.ndarray:
        return (
            np.stack([self.preprocess(_as_pil(image)) for image in images])
            if images
            else np.zeros((0, 3, *self.preprocess.size), dtype=np.float32)
        )

    def encode_pixels(self, pixels: np.ndarray) -> np.ndarray:
        """Already preprocessed N×3×H×W float32 → normalised embeddings."""
        out = self._image.run(None, {self._image_input: np.ascontiguousarray(pixels, dtype=np.float32)})[0]
        return _normalise(out)

    def encode_images(
        self, images: Sequence[Any], batch_size: int = 16, control: JobControl | None = None
    ) -> np.ndarray:
        """Images (PIL images, paths, encoded bytes or uint8 RGB arrays) → (n, d) float32."""
        control = ensure_control(control)
        chunks = []
        for start in range(0, len(images), batch_size):
            control.report(start, len(images), "clip images")
            chunks.append(self.encode_pixels(self.preprocess_images(images[start : start + batch_size])))
        control.report(len(images), len(images), "clip images")
        return np.concatenate(chunks) if chunks else np.zeros((0, self.embed_dim or 0), dtype=np.float32)

    def tokenize(self, texts: Sequence[str]) -> np.ndarray:
        if self.tokenizer is None:
            raise ModelNotFoundError(f"the CLIP folder {self.folder} has no tokenizer.json: pass token ids")
        return self.tokenizer(list(texts))

    def encode_token_ids(self, ids: np.ndarray) -> np.ndarray:
        out = self._text.run(None, {self._text_input: np.ascontiguousarray(ids, dtype=np.int64)})[0]
        return _normalise(out)

    def encode_texts(
        self, texts: Sequence[str], batch_size: int = 64, control: JobControl | None = None
    ) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("encode_texts() takes a list of strings, not one string")
        control = ensure_control(control)
        chunks = []
        for start in range(0, len(texts), batch_size):
            control.report(start, len(texts), "clip texts")
            chunks.append(self.encode_token_ids(self.tokenize(texts[start : start + batch_size])))
        control.report(len(texts), len(texts), "clip texts")
        return np.concatenate(chunks) if chunks else np.zeros((0, self.embed_dim or 0), dtype=np.float32)


def _normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    return vectors / np.clip(np.linalg.norm(vectors, axis=-1, keepdims=True), 1e-12, None)


def _as_pil(image: Any) -> Image.Image:
    if isinstance(image, Image.Image):
        return image
    if isinstance(image, np.ndarray):
        if image.dtype != np.uint8 or image.ndim not in (2, 3):
            raise CorruptImageError(
                f"image arrays must be uint8 H×W or H×W×C, got {image.dtype} {image.shape}"
            )
        return Image.fromarray(image)
    if isinstance(image, bytes | bytearray):
        return Image.fromarray(decode_image(bytes(image)))
    if isinstance(image, str | os.PathLike):
        path = Path(image)
        try:
            data = path.read_bytes()
        except OSError as error:
            raise CorruptImageError(f"cannot read {path}: {error}") from error
        return Image.fromarray(decode_image(data, label=str(path)))
    raise TypeError(f"unsupported image type {type(image).__name__}")


# ---------------------------------------------------------------------------------------------- export


def _require_torch():
    try:
        # torch and open_clip take seconds to import and are needed only to export a checkpoint
        import open_clip
        import torch  # (as above)
    except ImportError as error:
        raise MissingDependencyError(
            "exporting a CLIP checkpoint needs torch, torchvision and open-clip-torch "
            f"({error}); a ready ONNX pair runs without them"
        ) from error
    return torch, open_clip


def export_checkpoint(
    weights: str | os.PathLike[str],
    *,
    architecture: str | None = None,
    model_config: dict[str, Any] | None = None,
    export_root: str | os.PathLike[str] | None = None,
    control: JobControl | None = None,
) -> Path:
    """The folder of the ONNX export of this checkpoint, exporting it first if it is not cached."""
    if (architecture is None) == (model_config is None):
        raise ModelError("give exactly one of architecture (an open_clip model name) and model_config")
    control = ensure_control(control)
    weights = Path(weights)
    if not weights.is_file():
        raise ModelNotFoundError(f"no such CLIP weights file: {weights}")
    weights_hash = sha256_file(weights, control=control, label="hashing CLIP weights")
    config_key = json.dumps(
        {"architecture": architecture, "config": model_config}, sort_keys=True, default=str
    )
    key = f"{weights_hash[:16]}-{hashlib.sha256(config_key.encode()).hexdigest()[:8]}"
    root = Path(export_root) if export_root is not None else data_dir() / "clip"
    folder = root / key
    if all((folder / name).is_file() for name in (*_REQUIRED, "tokenizer.json")):
        return folder

    torch, open_clip = _require_torch()
    control.report(0, 3, "loading CLIP checkpoint")
    try:
        model, preprocess_cfg, tokenizer = _build_open_clip(open_clip, weights, architecture, model_config)
    except (ModelError, MissingDependencyError):
        raise
    except Exception as error:  # noqa: BLE001 — open_clip/torch raise many kinds for a bad checkpoint
        source = architecture or "the given config"
        raise ModelExportError(
            f"cannot load the CLIP checkpoint {weights} as {source}: "
            f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
        ) from error
    export_open_clip(
        model,
        tokenizer,
        preprocess_cfg,
        folder,
        extra={"architecture": architecture, "weights_sha256": weights_hash},
        control=control,
    )
    return folder


def _build_open_clip(open_clip, weights: Path, architecture: str | None, model_config: dict | None):
    if architecture is not None:
        model = open_clip.create_model(architecture, pretrained=str(weights), device="cpu")
        tokenizer = open_clip.get_tokenizer(architecture)
    else:
        assert model_config is not None
        wrapped = model_config if "model_cfg" in model_config else {"model_cfg": model_config}
        with tempfile.TemporaryDirectory(prefix="mmdocsum-clip-") as tmp:
            Path(tmp, "open_clip_config.json").write_text(json.dumps(wrapped), encoding="utf-8")
            model = open_clip.create_model(f"local-dir:{tmp}", load_weights=False, device="cpu")
            tokenizer = open_clip.get_tokenizer(f"local-dir:{tmp}")
        open_clip.load_checkpoint(model, str(weights))
    model.eval()
    preprocess_cfg = dict(open_clip.get_model_preprocess_cfg(model))
    return model, preprocess_cfg, tokenizer


def export_open_clip(
    model,
    tokenizer,
    preprocess_cfg: dict[str, Any],
    folder: str | os.PathLike[str],
    *,
    extra: dict[str, Any] | None = None,
    opset: int = 17,
    control: JobControl | None = None,
) -> Path:
    """Write an open_clip model's towers to ``folder`` as image.onnx / text.onnx with preprocess.json and
    tokenizer.json. The folder appears complete or not at all (written beside it, then renamed)."""
    torch, _open_clip = _require_torch()
    control = ensure_control(control)
    folder = Path(folder)
    if type(tokenizer).__name__ != "SimpleTokenizer":
        raise ModelExportError(
            f"this CLIP model uses a {type(tokenizer).__name__}; only open_clip's own BPE tokenizer can be "
            "exported: export the towers yourself and add that tokenizer's tokenizer.json"
        )
    context_length = int(getattr(tokenizer, "context_length", None) or model.context_length)

    module: Any = torch.nn.Module  # torch is imported here, so the towers' base class is known only now

    class ImageTower(module):
        def __init__(self, clip) -> None:
            super().__init__()
            self.clip = clip

        def forward(self, pixel_values):
            return self.clip.encode_image(pixel_values)

    class TextTower(module):
        def __init__(self, clip) -> None:
            super().__init__()
            self.clip = clip

        def forward(self, input_ids):
            return self.clip.encode_text(input_ids)

    preprocess = ClipPreprocess.from_dict({**preprocess_cfg, "context_length": context_length})
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        model = model.eval().float().cpu()
        dummy_pixels = torch.zeros((2, 3, *preprocess.size), dtype=torch.float32)
        dummy_ids = tokenizer(["a", "b"], context_length=context_length)
        # not under torch.no_grad(): in eval mode without grad, nn.MultiheadAttention takes a fused fast
        # path (aten::_native_multi_head_attention) that the ONNX exporter cannot translate
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            control.report(1, 3, "exporting CLIP image tower")
            torch.onnx.export(
                ImageTower(model),
                (dummy_pixels,),
                str(staging / "image.onnx"),
                input_names=["pixel_values"],
                output_names=["embedding"],
                dynamic_axes={"pixel_values": {0: "batch"}, "embedding": {0: "batch"}},
                opset_version=opset,
                dynamo=False,
            )
            control.report(2, 3, "exporting CLIP text tower")
            torch.onnx.export(
                TextTower(model),
                (dummy_ids,),
                str(staging / "text.onnx"),
                input_names=["input_ids"],
                output_names=["embedding"],
                dynamic_axes={"input_ids": {0: "batch"}, "embedding": {0: "batch"}},
                opset_version=opset,
                dynamo=False,
            )
        (staging / "tokenizer.json").write_text(tokenizer_json_from_open_clip(tokenizer), encoding="utf-8")
        meta = {
            **preprocess.to_dict(),
            "format": EXPORT_FORMAT,
            "tokenizer": "tokenizer.json",
            **(extra or {}),
        }
        (staging / "preprocess.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
        if folder.exists():
            shutil.rmtree(folder)
        os.replace(staging, folder)
    except ModelError:
        raise
    except Exception as error:  # noqa: BLE001 — torch.onnx raises many kinds
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else ""
        raise ModelExportError(
            f"exporting CLIP to ONNX failed: {type(error).__name__}: {first_line}"
        ) from error
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    control.report(3, 3, "CLIP exported")
    return folder


def load_clip(
    name: str, *, intra_op_threads: int = 2, prefer_gpu: bool = True, control: JobControl | None = None
) -> ClipOnnx:
    """A registered CLIP model by name: an ONNX pair folder, or a checkpoint (exported on first use)."""
    entry = get_model(name)
    if entry.role != "clip":
        raise ModelError(f"{name!r} is a {entry.role} model, not a CLIP model")
    kinds = {f.kind: f for f in entry.files}
    if "image-onnx" in kinds:
        image_path = kinds["image-onnx"].resolve()
        if image_path is None:
            raise ModelNotFoundError(f"the files of {name!r} are missing")
        return ClipOnnx(image_path.parent, intra_op_threads=intra_op_threads, prefer_gpu=prefer_gpu)
    weights = entry.path("model")
    return ClipOnnx.from_checkpoint(
        weights,
        architecture=entry.metadata.get("architecture"),
        model_config=entry.metadata.get("model_config"),
        intra_op_threads=intra_op_threads,
        prefer_gpu=prefer_gpu,
        control=control,
    )
