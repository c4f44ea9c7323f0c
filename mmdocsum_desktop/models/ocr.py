"""Text inside images (figure crops, scanned pages) with RapidOCR (PP-OCRv4 on onnxruntime).

Images are decoded here with Pillow, after a size guard that reads only the header, so a decompression
bomb or a damaged file gives a clear :class:`~mmdocsum_desktop.errors.MmdocsumError` and never reaches
the decoder or RapidOCR. Results are cached by the sha256 of the image bytes (file bytes for a path or
encoded buffer; pixel bytes and shape for an array) in a :class:`ContentCache`.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import io
import json
import os
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mmdocsum_desktop.document.recognised import RecognisedLine, RecognisedPage
from mmdocsum_desktop.errors import (
    CorruptImageError,
    ImageTooLargeError,
    InputNotFoundError,
    MissingDependencyError,
    ModelError,
)
from mmdocsum_desktop.jobs import JobControl, ensure_control
from mmdocsum_desktop.models.cache import ContentCache
from mmdocsum_desktop.models.hashing import sha256_bytes

DEFAULT_MAX_PIXELS = 60_000_000  # a 600 dpi A4 page is ~35 Mpx; 40000 x 40000 (1.6 Gpx) is refused
CACHE_FORMAT = 2  # 2: each line says whether RapidOCR's angle classifier turned it upside down

ImageInput = str | os.PathLike[str] | bytes | np.ndarray


@dataclass(frozen=True)
class OcrLine:
    text: str
    box: tuple[tuple[float, float], ...]  # four (x, y) corners in image pixels, clockwise from top-left
    confidence: float
    # RapidOCR's angle classifier read this line's crop upside down (turned it 180° before recognising)
    flipped: bool = False

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
                {"text": line.text, "box": [list(p) for p in line.box], "confidence": line.confidence,
                 "flipped": line.flipped}
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
                flipped=bool(row.get("flipped", False)),
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
        model_paths: dict[str, str | os.PathLike[str]] | None = None,
    ) -> None:
        """``model_paths``: {"det"|"cls"|"rec": ONNX file} in place of the files RapidOCR ships with."""
        try:  # RapidOCR loads its ONNX sessions on import: only when a page or figure is read
            from rapidocr_onnxruntime import RapidOCR  # starts ONNX sessions on import: first read only
        except ImportError as error:
            raise MissingDependencyError(
                "OCR needs RapidOCR: pip install rapidocr-onnxruntime==1.4.4"
            ) from error
        paths = {f"{stage}_model_path": str(path) for stage, path in (model_paths or {}).items()}
        try:
            with _sessions_without_spinning():
                self._engine = RapidOCR(
                    intra_op_num_threads=intra_op_threads,
                    inter_op_num_threads=1,
                    text_score=min_confidence,
                    det_use_cuda=use_gpu,
                    cls_use_cuda=use_gpu,
                    rec_use_cuda=use_gpu,
                    **paths,
                )
        except Exception as error:  # noqa: BLE001 — model files missing or damaged
            raise ModelError(
                f"the OCR models cannot be loaded ({_short(error)}); reinstall them with "
                "pip install --force-reinstall rapidocr-onnxruntime==1.4.4 (mmdocsum doctor checks them)"
            ) from error
        # The angle classifier's verdict per line is not in RapidOCR's result; a recording wrapper keeps it
        # (an upside-down page is told by most of its lines being turned).
        self._classifier = _Recorder(self._engine.text_cls)
        self._recogniser = _Recorder(self._engine.text_rec)
        self._engine.text_cls = self._classifier
        self._engine.text_rec = self._recogniser
        self.min_confidence = min_confidence
        self.max_pixels = max_pixels
        self.runs = 0
        self._run_lock = threading.Lock()  # one RapidOCR instance is not safe to call from two threads
        self.engine_id = engine_id(min_confidence)
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
            self._classifier.last = self._recogniser.last = None
            try:
                raw, _elapsed = self._engine(bgr)
            except Exception as error:  # noqa: BLE001 — a bug or odd input inside RapidOCR
                raise ModelError(
                    f"OCR failed on a {width}x{height} image: {type(error).__name__}: {error}"
                ) from error
            self.runs += 1
            flips = self._flips()
        lines = []
        for position, (box, text, score) in enumerate(raw or []):
            if not str(text).strip():
                continue
            corners = tuple((float(x), float(y)) for x, y in np.asarray(box, dtype=float).reshape(-1, 2))
            flipped = flips[position] if flips is not None and position < len(flips) else False
            lines.append(OcrLine(text=str(text), box=corners, confidence=float(score), flipped=flipped))
        result = OcrResult(lines=tuple(lines), width=width, height=height)
        if self.cache is not None:
            self.cache.put(self.engine_id, key, json.dumps(result.to_json()).encode("utf-8"))
        control.report(1, 1, "ocr")
        return result

    def _flips(self) -> list[bool] | None:
        """Per line of RapidOCR's result: turned upside down by the angle classifier. RapidOCR keeps the
        lines whose recognition score reaches ``text_score``, in order; the same filter over the recorded
        classifier and recogniser outputs lines the verdicts up with the result (None when they cannot be)."""
        classified, recognised = self._classifier.last, self._recogniser.last
        if classified is None or recognised is None:
            return None
        verdicts, records = classified[1], recognised[0]
        if len(verdicts) != len(records):
            return None
        threshold = getattr(self._classifier.stage, "cls_thresh", 0.9)  # RapidOCR turns a crop only above it
        return [
            "180" in str(verdict[0]) and float(verdict[1]) > threshold
            for verdict, record in zip(verdicts, records)
            if float(record[1]) >= self._engine.text_score
        ]

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


_SPIN_LOCK = threading.Lock()


@contextlib.contextmanager
def _sessions_without_spinning() -> Iterator[None]:
    """RapidOCR's ONNX sessions built with onnxruntime's thread spinning off: between operators its pool
    threads sleep instead of busy-waiting. The same text (a paper's six crops read both ways), a third less
    CPU on the shared 2-core machine and no slower (issue 39: 5.5 → 3.7 CPU-s, 9.9 → 6.4 s). RapidOCR has
    no option for it: its session options are made by one static method, wrapped while the engine is built."""
    # RapidOCR's own module, imported by RapidOCR just before (no start-up cost of its own)
    from rapidocr_onnxruntime.utils import infer_engine

    session_class = infer_engine.OrtInferSession
    original = session_class.__dict__.get("_init_sess_opts")
    if not isinstance(original, staticmethod):  # another RapidOCR than the pinned one: built as it builds them
        yield
        return

    def options(config: dict[str, Any]) -> Any:
        made = original.__func__(config)
        made.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return made

    with _SPIN_LOCK:
        session_class._init_sess_opts = staticmethod(options)
        try:
            yield
        finally:
            session_class._init_sess_opts = original


class _Recorder:
    """Calls a RapidOCR stage and keeps its last output."""

    def __init__(self, stage: Any) -> None:
        self.stage = stage
        self.last: Any = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.last = self.stage(*args, **kwargs)
        return self.last


def _short(error: Exception) -> str:
    return (str(error).splitlines() or [type(error).__name__])[0][:160]


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
    from PIL import Image, UnidentifiedImageError  # Pillow's plugins load on first use, not at start-up

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


@functools.lru_cache(maxsize=8)  # reading package metadata costs milliseconds; asked once per image
def engine_id(min_confidence: float = 0.5) -> str:
    """The cache namespace of an OcrEngine's results: RapidOCR's version, the score filter, the format."""
    from importlib.metadata import PackageNotFoundError, version  # metadata is read only to key the cache

    try:
        engine_version = version("rapidocr-onnxruntime")
    except PackageNotFoundError:
        engine_version = "unknown"
    return f"rapidocr-{engine_version}:score{min_confidence:g}:v{CACHE_FORMAT}"


def cached_text(image: str | os.PathLike[str], *, cache: ContentCache) -> str | None:
    """The text the default OcrEngine read in this image file before, from the content cache (keyed by
    the file's bytes), without loading RapidOCR; None when it was never read (or the file cannot be read:
    the engine itself will say why). Placement asks this first, so a document whose figure crops were
    read once never waits for the OCR models to load again."""
    try:
        data = Path(image).read_bytes()
    except OSError:
        return None
    hit = cache.get(engine_id(), sha256_bytes(data))
    if hit is None:
        return None
    try:
        return OcrResult.from_json(json.loads(hit), cached=True).text
    except (ValueError, KeyError, TypeError):
        return None  # an entry written by something else: the engine recomputes it


def ocr_page_image(png_bytes: bytes, *, engine: OcrEngine, control: JobControl | None = None) -> OcrResult:
    """OCR of one rendered PDF page (e.g. ``page.get_pixmap(dpi=200).tobytes("png")``) for scanned PDFs.

    Box coordinates are in the pixels of that image: divide by ``dpi / 72`` for PDF points.
    """
    return engine.read(png_bytes, control=control)


# ------------------------------------------------------------------------------------------ scanned pages

# A page whose lines stand on end (most boxes much taller than wide) was scanned sideways; one whose lines
# the angle classifier mostly turned over was scanned upside down. Both are read again, turned upright.
_SIDEWAYS_SHARE = 0.5
_FLIPPED_SHARE = 0.5


def page_quarter_turns(result: OcrResult) -> int:
    """How many quarter turns counter-clockwise (numpy's ``rot90`` k) make this page image upright.

    RapidOCR turns a crop that is 1.5 times taller than wide by 90° counter-clockwise before recognising
    it, then the angle classifier turns it over when it reads upside down; so sideways lines that were
    not turned over read top to bottom (the page was turned clockwise: one turn back), and those turned
    over read bottom to top (three turns)."""
    lines = [line for line in result.lines if len(line.text.strip()) >= 2]
    if len(lines) < 3:
        return 0
    sideways = [line for line in lines if _height(line) > 1.5 * _width(line)]
    if len(sideways) >= _SIDEWAYS_SHARE * len(lines):
        turned_over = sum(line.flipped for line in sideways)
        return 3 if turned_over >= _FLIPPED_SHARE * len(sideways) else 1
    if sum(line.flipped for line in lines) >= _FLIPPED_SHARE * len(lines):
        return 2
    return 0


def _width(line: OcrLine) -> float:
    x0, _, x1, _ = line.bbox
    return x1 - x0


def _height(line: OcrLine) -> float:
    _, y0, _, y1 = line.bbox
    return y1 - y0


def read_page(image: ImageInput, *, engine: OcrEngine, control: JobControl | None = None) -> tuple[OcrResult, int]:
    """OCR of a scanned page image, turned upright first when it was scanned sideways or upside down:
    (result in the upright image's pixels, quarter turns counter-clockwise applied)."""
    first = engine.read(image, control=control)
    turns = page_quarter_turns(first)
    if turns == 0:
        return first, 0
    pixels, _key = engine._load(image)
    upright = np.ascontiguousarray(np.rot90(pixels, turns))
    return engine.read(upright, control=control), turns


def page_reader(engine: OcrEngine | None = None, *,
                engine_factory: Callable[[], OcrEngine] | None = None) -> Callable[[bytes], RecognisedPage]:
    """The OCR hook for ``read_document(..., ocr=...)``: page PNG in, :class:`RecognisedPage` out.

    Either ``engine``, or ``engine_factory`` (the session's models), asked on the first scanned page, so a
    document without scanned pages never loads RapidOCR, and a missing or damaged model is a ModelError
    on each scanned page (the reader turns it into a warning and reads the rest)."""
    if (engine is None) == (engine_factory is None):
        raise TypeError("page_reader takes an OCR engine or a factory of one")

    def recognise(png: bytes) -> RecognisedPage:
        result, turns = read_page(png, engine=engine if engine is not None else engine_factory())  # type: ignore[misc]
        return RecognisedPage(
            lines=tuple(RecognisedLine(restore_spaces(line.text), line.bbox, line.confidence) for line in result.lines),
            quarter_turns=turns,
            width=result.width,
            height=result.height,
        )

    return recognise


# ------------------------------------------------------------------------------------------ word spaces

# PP-OCR's recogniser often drops the spaces of English set tight ("Evaluationofliverandcardiacfunction").
# A long run of letters that is no word is split by wordninja (English Wikipedia word frequencies) only
# when every piece is a plausible word: long pieces among the 60,000 commonest words, pieces of three
# letters or fewer among the 2,500 commonest (so "the sep harm a co logical" stays one run), and a run
# that starts with a capital only when its first piece is common (names stay whole).
_RUN = re.compile(r"[A-Za-z]{9,}")
_KNOWN = 60_000
_SHORT_KNOWN = 2_500


@functools.lru_cache(maxsize=1)
def _word_ranks() -> dict[str, int]:
    import wordninja  # its word list is read once, when OCR first ran words of a line together

    words = Path(wordninja.__file__).parent / "wordninja" / "wordninja_words.txt.gz"
    return {word: rank for rank, word in enumerate(gzip.decompress(words.read_bytes()).decode().split())}


def _plausible(piece: str, ranks: dict[str, int]) -> bool:
    rank = ranks.get(piece.lower(), _KNOWN)
    if len(piece) <= 3:
        return (len(piece) >= 2 or piece.lower() in {"a", "i"}) and rank < _SHORT_KNOWN
    return rank < _KNOWN


def restore_spaces(text: str) -> str:
    """``text`` with the spaces OCR dropped between English words put back where the split is sure."""
    if not _RUN.search(text):
        return text
    import wordninja  # loads a 1 MB word list: only for lines OCR ran together

    ranks = _word_ranks()

    def split(match: re.Match[str]) -> str:
        run = match.group(0)
        if ranks.get(run.lower(), _KNOWN) < _KNOWN:
            return run
        pieces = wordninja.split(run)
        if len(pieces) < 2 or "".join(pieces) != run or not all(_plausible(p, ranks) for p in pieces):
            return run
        if len(pieces) == 2 and max(ranks.get(p.lower(), _KNOWN) for p in pieces) >= 20_000:
            return run  # "intra peritoneal": one rare word read as two
        if run[0].isupper() and ranks.get(pieces[0].lower(), _KNOWN) >= 20_000:
            return run
        return " ".join(pieces)

    return _RUN.sub(split, text)
