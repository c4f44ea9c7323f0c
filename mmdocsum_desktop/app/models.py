"""The models of one Session: loaded on first use, kept while the session lives, passed explicitly.

Every model that takes a while to load is built here and nowhere else: the MiniLM text embedder, RapidOCR
(and the content cache of what it read), the cross-encoder (for evidence and for placement, with the
memory of the pairs it scored), CLIP models by name, and the evidence retrievers over them. The layers
below take them as arguments. Two sessions never share a model by accident; a test or a benchmark that
wants to reuse one hands the same :class:`Models` to both sessions.
"""

from __future__ import annotations

import threading
from typing import Any

from mmdocsum_desktop.errors import MmdocsumError

# Each model module loads its runtime (onnxruntime, RapidOCR, open-clip) when a model is first built, so
# importing them here costs no model load.
from mmdocsum_desktop.models.cache import ContentCache
from mmdocsum_desktop.models.clip import ClipOnnx, load_clip
from mmdocsum_desktop.models.embed import TextEmbedder
from mmdocsum_desktop.models.ocr import OcrEngine, cached_text
from mmdocsum_desktop.models.rerank import load_cross_encoder
from mmdocsum_desktop.placement.engine import PlacementEngine
from mmdocsum_desktop.placement.rescore import PAIR_MAX_LENGTH, RememberedPairs
from mmdocsum_desktop.retrieval.search import Retriever

Loaded = tuple[Any, "str | None"]  # (model, None), or (None, why it is not there)


class Models:
    """The container of one session's models; thread-safe (the desktop app's jobs share it)."""

    def __init__(self) -> None:
        # one re-entrant lock: building a retriever asks for the embedder under it
        self._lock = threading.RLock()
        self._embedder: TextEmbedder | None = None
        self._ocr: OcrEngine | None = None
        self._ocr_cache: ContentCache | None = None
        self._cross_encoders: dict[int | None, Loaded] = {}
        self._pair_scorer: RememberedPairs | None = None
        self._clips: dict[str, Loaded] = {}
        self._retrievers: dict[bool, Retriever] = {}

    # ------------------------------------------------------------------------------------ text

    def embedder(self) -> TextEmbedder:
        """The MiniLM text embedder (loading it costs about a second)."""
        with self._lock:
            if self._embedder is None:
                self._embedder = TextEmbedder()
            return self._embedder

    def cross_encoder(self, max_length: int | None = None) -> Loaded:
        """The ms-marco cross-encoder (truncating pairs at ``max_length`` tokens; None: its own limit),
        or (None, why) when its files are missing or damaged: callers rank without it and say so."""
        with self._lock:
            if max_length not in self._cross_encoders:
                try:
                    loaded = load_cross_encoder() if max_length is None else load_cross_encoder(max_length=max_length)
                except Exception as error:  # noqa: BLE001 — e.g. the registry cannot find the package
                    loaded = (None, f"no cross-encoder rescoring: {type(error).__name__}: {error}")
                self._cross_encoders[max_length] = loaded
            return self._cross_encoders[max_length]

    def retriever(self, *, rerank: bool = True) -> Retriever:
        """The evidence retriever (MiniLM, and the cross-encoder unless ``rerank`` is False), which keeps
        each document's index for the session's later questions."""
        with self._lock:
            if rerank not in self._retrievers:
                notes: list[str] = []
                reranker = None
                if rerank:
                    reranker, problem = self.cross_encoder()
                    if problem:
                        notes.append(problem)
                self._retrievers[rerank] = Retriever(self.embedder(), reranker, notes=notes)
            return self._retrievers[rerank]

    # ------------------------------------------------------------------------------------ images

    def ocr(self) -> OcrEngine:
        """RapidOCR; an MmdocsumError when it is not installed or cannot load."""
        with self._lock:
            if self._ocr is None:
                self._ocr = OcrEngine()
            return self._ocr

    def ocr_text(self, image: str) -> str | None:
        """The text OCR read in this image file before (the content cache), without loading RapidOCR."""
        with self._lock:
            if self._ocr_cache is None:
                self._ocr_cache = ContentCache()
            cache = self._ocr_cache
        return cached_text(image, cache=cache)

    def clip(self, name: str) -> Loaded:
        """The registered CLIP model ``name``, or (None, why) when it cannot load."""
        with self._lock:
            if name not in self._clips:
                try:
                    model: ClipOnnx | None = load_clip(name)
                    self._clips[name] = (model, None)
                except (MmdocsumError, OSError) as error:
                    self._clips[name] = (None, f"CLIP model {name!r} unavailable ({error}); placing without CLIP")
            return self._clips[name]

    # ------------------------------------------------------------------------------------ placement

    def pair_scorer(self) -> Loaded:
        """The cross-encoder at placement's pair length, through this session's memory of the pairs it
        scored (placing again after one edit rescores only that paragraph's pairs)."""
        model, why = self.cross_encoder(PAIR_MAX_LENGTH)
        if model is None:
            return None, why
        with self._lock:
            if self._pair_scorer is None or self._pair_scorer.model is not model:
                self._pair_scorer = RememberedPairs(model)
            return self._pair_scorer, None

    def placement_engine(self, *, ocr: bool = True, clip: str | None = None, threshold: float | None = None,
                         rerank: bool = True, embedder: bool = True) -> PlacementEngine:
        """A figure placement engine over this container's models. The cross-encoder and OCR load when
        the engine first needs them (a placement whose crops' text is cached never loads OCR); a model
        that cannot load is left out with a warning in ``engine.warnings``."""
        notes: list[str] = []
        text_model = None
        if embedder:
            try:
                text_model = self.embedder()
            except (MmdocsumError, OSError) as error:
                notes.append(f"text embedder unavailable ({error}); matching words instead")
        clip_model = None
        if clip:
            clip_model, why = self.clip(clip)
            if why:
                notes.append(why)
        engine = PlacementEngine(text_model, None, clip_model, threshold)
        if rerank:
            engine.cross_encoder_loader = self.pair_scorer
        if ocr:
            engine.ocr_loader = self._ocr_or_why
            engine.ocr_lookup = self.ocr_text
        engine.model_warnings.extend(notes)
        engine.warnings = list(notes)
        return engine

    def _ocr_or_why(self) -> Loaded:
        try:
            return self.ocr(), None
        except (MmdocsumError, OSError) as error:
            return None, f"OCR unavailable ({error}); placing without the text inside images"
