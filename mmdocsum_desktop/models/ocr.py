"""Text inside images (figure crops, scanned pages) with RapidOCR (PP-OCRv4 on onnxruntime).

Images are decoded here with Pillow, after a size guard that reads only the header, so a decompression
bomb or a damaged file gives a clear :class:`~mmdocsum_desktop.errors.MmdocsumError` and never reaches
the decoder or RapidOCR. Results are cached by the sha256 of the image bytes (file bytes for a path or
encoded buffer; pixel bytes and shape for an array) in a :class:`ContentCache`.
"""

from __future__ import annotations

import io
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mmdocsum_desktop.errors import CorruptImageError, ImageTooLargeError, MissingDependencyError, ModelError
from mmdocsum_desktop.jobs import JobControl, ensure_control
from mmdocsum_desktop.models.cache import ContentCache
from mmdocsum_desktop.models.hashing import sha256_bytes

DEFAULT_MAX_PIXELS = 60_000_000  # a 600 dpi A4 page is ~35 Mpx; 40000 x 40000 (1.6 Gpx) is refused
CACHE_FORMAT = 1

ImageInput = str | os.PathLike[str] | bytes | np.ndarray


@dataclass(frozen=True)
class OcrLine:
    text: str
    box: tuple[tuple[float, float], ...]  # four (x, y) corners in image pixels, clockwise from top-left
    confidence: float

    @property
    def bbox(self) -> tuple[float, float, float, float]:
        """Axis-aligned (x0, y0, x1, y1) around ``box``."""
        xs = [p[0] for p in self.box]
        ys = [p[1] for p in self.box]
        return (min(xs), min(ys), max(xs), max(ys))


@dataclass(frozen=True)
class OcrResult:
    lines: tuple[OcrLine, ...]
    width: int
    height: int
    cached: bool = False

    @property
    def text(self) -> str:
        """All lines in reading order (RapidOCR sorts top-to-bottom, left-to-right), one per line."""
        return "\n".join(line.text for line in self.lines)

    def __iter__(self):
        return iter((line.text, line.box, line.confidence) for line in self.lines)

    def __len__(self) -> int:
        return len(self.lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": CACHE_FORMAT,
            "width": self.width,
            "height": self.height,
            "lines": [
                {"text": line.text, "box": [list(p) for p in line.box], "confidence": line.confidence}
                for line in self.lines
            ],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], *, cached: bool = False) -> OcrResult:
        lines = tuple(
            OcrLine(
                text=row["text"],
                box=tuple((float(x), float(y)) for x, y in row["box"]),
                confidence=float(row["confidence"]),
            )
            for row in data["lines"]
        )
        return cls(lines=lines, width=int(data["width"]), height=int(data["height"]), cached=cached)


class OcrEngine:
    """``OcrEngine().read(image) -> OcrResult``; image: PNG/JPEG path, encoded bytes, or a uint8 array
    (H×W gray, H×W×3 RGB, H×W×4 RGBA).

    ``min_confidence`` drops lines RapidOCR is unsure of. ``runs`` counts real RapidOCR calls.
    """

    def __init__(
        self,
        *,
        intra_op_threads: int = 2,
        min_confidence: float = 0.5,
        max_pixels: int = DEFAULT_MAX_PIXELS,
        cache: ContentCache | bool | None = True,
        use_gpu: bool = False,
    ) -> None:
        try:
            from rapidocr_onnxruntime import RapidOCR
        except ImportError as error:
            raise MissingDependencyError(
                "OCR needs RapidOCR: pip install rapidocr-onnxruntime==1.4.4"
            ) from error
        try:
            self._engine = RapidOCR(
                intra_op_num_threads=intra_op_threads,
                inter_op_num_threads=1,
                text_score=min_confidence,
                det_use_cuda=use_gpu,
                cls_use_cuda=use_gpu,
                rec_use_cuda=use_gpu,
            )
        except Exception as error:  # noqa: BLE001 — model files missing or damaged
            raise ModelError(f"RapidOCR cannot start: {error}") from error
        self.min_confidence = min_confidence
        self.max_pixels = max_pixels
        self.runs = 0
        self._run_lock = threading.Lock()  # one RapidOCR instance is not safe to call from two threads
        from importlib.metadata import PackageNotFoundError, version

        try:
            engine_version = version("rapidocr-onnxruntime")
        except PackageNotFoundError:
            engine_version = "unknown"
        self.engine_id = f"rapidocr-{engine_version}:score{min_confidence:g}:v{CACHE_FORMAT}"
        self._owns_cache = cache is True
        if cache is True:
            self.cache: ContentCache | None = ContentCache()
        elif cache is False or cache is None:
            self.cache = None
        else:
            self.cache = cache

    def read(self, image: ImageInput, *, control: JobControl | None = None) -> OcrResult:
        control = ensure_control(control)
        control.check()
        pixels, key = self._load(image)
        if self.cache is not None:
            hit = self.cache.get(self.engine_id, key)
            if hit is not None:
                try:
                    return OcrResult.from_json(json.loads(hit), cached=True)
                except (ValueError, KeyError, TypeError):
                    pass  # an entry written by something else: recompute and overwrite
        height, width = pixels.shape[:2]
        bgr = np.ascontiguousarray(pixels[:, :, ::-1])  # RapidOCR takes arrays as OpenCV's BGR
        with self._run_lock:
            try:
                raw, _elapsed = self._engine(bgr)
            except Exception as error:  # noqa: BLE001 — a bug or odd input inside RapidOCR
                raise ModelError(
                    f"OCR failed on a {width}x{height} image: {type(error).__name__}: {error}"
                ) from error
            self.runs += 1
        lines = []
        for box, text, score in raw or []:
            if not str(text).strip():
                continue
            corners = tuple((float(x), float(y)) for x, y in np.asarray(box, dtype=float).reshape(-1, 2))
            lines.append(OcrLine(text=str(text), box=corners, confidence=float(score)))
        result = OcrResult(lines=tuple(lines), width=width, height=height)
        if self.cache is not None:
            self.cache.put(self.engine_id, key, json.dumps(result.to_json()).encode("utf-8"))
        control.report(1, 1, "ocr")
        return result

    def read_text(self, image: ImageInput, *, control: JobControl | None = None) -> str:
        return self.read(image, control=control).text

    def close(self) -> None:
        if self.cache is not None and self._owns_cache:
            self.cache.close()

    # ------------------------------------------------------------------------------------ loading

    def _load(self, image: ImageInput) -> tuple[np.ndarray, str]:
        """(H×W×3 uint8 RGB array, cache key) — raising MmdocsumError subclasses for bad input."""
        if isinstance(image, np.ndarray):
            return self._from_array(image)
        if isinstance(image, (bytes, bytearray, memoryview)):
            data = bytes(image)
            label = "image buffer"
        elif isinstance(image, (str, os.PathLike)):
            path = Path(image)
            try:
                data = path.read_bytes()
            except FileNotFoundError as error:
                from mmdocsum_desktop.errors import InputNotFoundError

                raise InputNotFoundError(f"no such image: {path}") from error
            except OSError as error:
                raise CorruptImageError(f"cannot read {path}: {error}") from error
            label = str(path)
        else:
            raise TypeError(f"OCR takes a path, bytes or a numpy array, not {type(image).__name__}")
        return decode_image(data, max_pixels=self.max_pixels, label=label), sha256_bytes(data)

    def _from_array(self, array: np.ndarray) -> tuple[np.ndarray, str]:
        if array.ndim not in (2, 3) or (array.ndim == 3 and array.shape[2] not in (1, 3, 4)):
            raise CorruptImageError(f"an image array must be H×W, H×W×3 or H×W×4, got shape {array.shape}")
        if array.dtype != np.uint8:
            raise CorruptImageError(f"an image array must be uint8, got {array.dtype}")
        height, width = array.shape[:2]
        _check_size(width, height, self.max_pixels, "image array")
        if height == 0 or width == 0:
            raise CorruptImageError("the image array is empty")
        key = sha256_bytes(f"{array.shape}|".encode() + np.ascontiguousarray(array).tobytes())
        if array.ndim == 2:
            rgb = np.repeat(array[:, :, None], 3, axis=2)
        elif array.shape[2] == 1:
            rgb = np.repeat(array, 3, axis=2)
        elif array.shape[2] == 4:
            rgb = _flatten_alpha(array)
        else:
            rgb = array
        return rgb, key


def _check_size(width: int, height: int, max_pixels: int, label: str) -> None:
    if width * height > max_pixels:
        raise ImageTooLargeError(
            f"{label} is too large: {width}x{height} pixels ({width * height / 1e6:.0f} Mpx), over the limit "
            f"of {max_pixels / 1e6:.0f} Mpx; scale it down first"
        )


def _flatten_alpha(rgba: np.ndarray) -> np.ndarray:
    alpha = rgba[:, :, 3:4].astype(np.float32) / 255.0
    rgb = rgba[:, :, :3].astype(np.float32) * alpha + 255.0 * (1.0 - alpha)  # onto white paper
    return np.clip(rgb + 0.5, 0, 255).astype(np.uint8)


def decode_image(data: bytes, *, max_pixels: int = DEFAULT_MAX_PIXELS, label: str = "image") -> np.ndarray:
    """Encoded image bytes → H×W×3 uint8 RGB, refusing huge or damaged images before/while decoding."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as img:  # reads the header only
            width, height = img.size
            _check_size(width, height, max_pixels, label)
            img.load()
            if img.mode in ("RGBA", "LA", "PA") or (img.mode == "P" and "transparency" in img.info):
                pixels = _flatten_alpha(np.asarray(img.convert("RGBA")))
            else:
                pixels = np.asarray(img.convert("RGB"))
    except ImageTooLargeError:
        raise
    except Image.DecompressionBombError as error:
        raise ImageTooLargeError(f"{label} is too large to decode safely: {error}") from error
    except UnidentifiedImageError as error:
        raise CorruptImageError(f"{label} is not an image Pillow can read") from error
    except (OSError, SyntaxError, ValueError, EOFError) as error:
        raise CorruptImageError(f"{label} is damaged: {error}") from error
    if width == 0 or height == 0:
        raise CorruptImageError(f"{label} has no pixels")
    return np.ascontiguousarray(pixels)


_shared_engine: OcrEngine | None = None
_shared_lock = threading.Lock()


def shared_engine() -> OcrEngine:
    """One OcrEngine per process (RapidOCR takes about a second to start)."""
    global _shared_engine
    with _shared_lock:
        if _shared_engine is None:
            _shared_engine = OcrEngine()
        return _shared_engine


def ocr_page_image(
    png_bytes: bytes, *, engine: OcrEngine | None = None, control: JobControl | None = None
) -> OcrResult:
    """OCR of one rendered PDF page (e.g. ``page.get_pixmap(dpi=200).tobytes("png")``) for scanned PDFs.

    Box coordinates are in the pixels of that image: divide by ``dpi / 72`` for PDF points.
    """
    return (engine or shared_engine()).read(png_bytes, control=control)
