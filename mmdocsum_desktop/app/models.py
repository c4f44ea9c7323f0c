"""The models of one Session: loaded on first use, kept while the session lives, passed explicitly.

Every model that takes a while to load (the MiniLM text embedder, RapidOCR, the placement engine with its
cross-encoder and CLIP) is built here and nowhere else; the layers below take them as arguments. Two
sessions never share a model by accident; a test or a benchmark that wants to reuse one hands the same
:class:`Models` to both sessions.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from mmdocsum_desktop.errors import EngineError, MmdocsumError

if TYPE_CHECKING:  # types only: the models load their libraries (onnxruntime, scipy) when first used
    from mmdocsum_desktop.models.embed import TextEmbedder
    from mmdocsum_desktop.placement import PlacementEngine


class Models:
    """The container of one session's models; thread-safe (jobs of the desktop app share it)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._embedder: TextEmbedder | None = None
        self._ocr: Any = None

    def embedder(self) -> TextEmbedder:
        """The MiniLM text embedder (loading it costs about a second)."""
        # onnxruntime and the tokenizer load with the first model, not with the app
        from mmdocsum_desktop.models.embed import TextEmbedder

        with self._lock:
            if self._embedder is None:
                self._embedder = TextEmbedder()
            return self._embedder

    def ocr(self) -> Any:
        """RapidOCR; an EngineError when it is not installed, an MmdocsumError when it cannot load."""
        try:  # RapidOCR and onnxruntime load with the first scanned page, not with the app
            from mmdocsum_desktop.models.ocr import OcrEngine
        except ImportError as error:
            raise EngineError(f"OCR is not installed ({error})") from error
        with self._lock:
            if self._ocr is None:
                self._ocr = OcrEngine()
            return self._ocr

    def placement_engine(self, *, ocr: bool = True, clip: str | None = None,
                         threshold: float | None = None) -> PlacementEngine:
        """A figure placement engine over this container's embedder and OCR; a model that cannot load is
        left out with a warning in ``engine.warnings``."""
        # placement loads scipy and its fitted weights only when a user places figures
        from mmdocsum_desktop.placement import PlacementEngine

        engine = PlacementEngine.with_default_models(embedder=False, ocr=ocr, clip=clip, threshold=threshold)
        try:
            engine.embedder = self.embedder()
        except (MmdocsumError, OSError) as error:
            engine.model_warnings.append(f"text embedder unavailable ({error}); matching words instead")
            engine.warnings.append(engine.model_warnings[-1])
        return engine
