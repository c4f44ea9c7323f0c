"""A Session: the settings of one user, and the engines and models built from them, loaded once.

The command line makes one Session per command; the desktop app uses :func:`default_session` for its
whole life and hands it the settings again after the Settings dialog saved them
(:meth:`Session.use_settings`). Engines are kept while the settings that made them stay the same, so a
GGUF model is loaded once however many paragraphs are regenerated or summaries judged. The models every
engine shares (text embedder, OCR) live in the session's :class:`~mmdocsum_desktop.app.models.Models`.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mmdocsum_desktop.app.models import Models
from mmdocsum_desktop.document.reader import read_document
from mmdocsum_desktop.engines import factory
from mmdocsum_desktop.engines.base import TextEngine
from mmdocsum_desktop.engines.factory import ConfiguredEngine as ConfiguredEngine  # re-exported: bench.glue
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.models.ocr import page_reader
from mmdocsum_desktop.schemas.engine import EngineInfo
from mmdocsum_desktop.schemas.settings import EngineChoice, PlacementSettings, Settings, load_settings

if TYPE_CHECKING:  # types only: the reader (PyMuPDF) and placement (scipy) load when first used
    from mmdocsum_desktop.document.limits import ReadLimits
    from mmdocsum_desktop.placement.engine import PlacementEngine
    from mmdocsum_desktop.schemas.document import Document
    from mmdocsum_desktop.summarize.sentences import Embedder


@dataclass
class _Loaded:
    configured: ConfiguredEngine
    # llama.cpp runs one call at a time: a judge and a summary of the same session take turns
    lock: threading.Lock = field(default_factory=threading.Lock)


class Session:
    def __init__(self, settings: Settings | None = None, *, models: Models | None = None) -> None:
        self.settings = settings if settings is not None else load_settings()
        self.models = models if models is not None else Models()
        self._lock = threading.Lock()
        self._loaded: dict[tuple[str, str], _Loaded] = {}

    def use_settings(self, settings: Settings) -> None:
        """New settings; engines built from the old ones are closed when the next run needs its engine."""
        self.settings = settings

    # --------------------------------------------------------------------------------- what is used

    def engine_name(self, choice: EngineChoice | None = None) -> str:
        """The summary engine these settings (and ``choice``) give, "auto" resolved."""
        return factory.choose_engine_name(choice, self.settings.engines)

    def judge_name(self, choice: EngineChoice | None = None) -> str:
        """The judge's engine; JudgeNotConfiguredError when no language model is set up."""
        return factory.judge_engine_name(self.settings.engines, choice)

    def judge_description(self, choice: EngineChoice | None = None) -> str:
        return factory.judge_description(self.settings.engines, choice)

    def read(self, path: str | os.PathLike[str], *, password: str | None = None, ocr: bool = True,
             limits: ReadLimits | None = None, control: JobControl | None = None) -> Document:
        """A document read the one way every command and the desktop app read it: scanned pages are
        recognised with OCR (progress "OCR page N" on ``control``; results cached by the page image's
        hash, so a file is recognised once). ``ocr=False`` (the commands' --no-ocr) refuses a scanned
        PDF with a message saying how to get it read."""
        hook = page_reader(engine_factory=self.models.ocr) if ocr else None
        if limits is None:  # the reader's default limits
            return read_document(Path(path), password=password, control=control, ocr=hook)
        return read_document(Path(path), password=password, control=control, ocr=hook, limits=limits)

    def embedder(self) -> Embedder:
        embedder: Embedder = self.models.embedder()
        return embedder

    def placement_engine(self, placement: PlacementSettings | None = None, *,
                         threshold: float | None = None) -> PlacementEngine:
        placement = placement or self.settings.placement
        engine: PlacementEngine = self.models.placement_engine(ocr=placement.ocr, clip=placement.clip,
                                                               threshold=threshold)
        return engine

    # --------------------------------------------------------------------------------- engines

    @contextmanager
    def engine(self, choice: EngineChoice | None = None) -> Iterator[ConfiguredEngine]:
        """The summary's text engine (``None`` inside for the extractive summary, which needs no language
        model), loaded on first use and kept; held for this caller while in the block. How it writes a
        summary is its strategy (``app.summary.summary_strategy``)."""
        choice = choice or EngineChoice()
        with self._use("summary", choice, lambda: factory.configure_engine(
                self.settings.engines, choice, models=self.models)) as configured:
            yield configured

    @contextmanager
    def judge_engine(self, choice: EngineChoice | None = None) -> Iterator[TextEngine]:
        """The judge's language-model engine, loaded on first use and kept."""
        choice = choice or EngineChoice()
        name = self.judge_name(choice)

        def build() -> ConfiguredEngine:
            engine = factory.build_judge_engine(self.settings.engines, choice)
            judge_choice = choice.model_copy(update={"engine": name, "ocr": False})
            return factory.configure_engine(self.settings.engines, judge_choice, models=self.models, engine=engine)

        with self._use("judge", choice, build) as configured:
            assert configured.engine is not None, "a judge is a language model (build_judge_engine says which)"
            yield configured.engine

    @contextmanager
    def _use(self, role: str, choice: EngineChoice,
             build: Callable[[], ConfiguredEngine]) -> Iterator[ConfiguredEngine]:
        key = (role, self.settings.engines.model_dump_json() + choice.model_dump_json())
        with self._lock:
            loaded = self._loaded.get(key)
            if loaded is None:
                self._drop(role)  # one engine per role: a model for old settings is not kept in memory
                loaded = self._loaded[key] = _Loaded(build())
        guard = loaded.lock if loaded.configured.in_process else nullcontext()
        with guard:
            yield loaded.configured

    def _drop(self, role: str) -> None:
        for key in [k for k in self._loaded if k[0] == role]:
            stale = self._loaded.pop(key)
            with stale.lock:  # a run still using it finishes first
                stale.configured.close()

    def close(self) -> None:
        """Close every engine this session loaded (the shared embedder and OCR stay)."""
        with self._lock:
            for role in {key[0] for key in self._loaded}:
                self._drop(role)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def describe_endpoint(settings: Settings, *, api_key: str | None = None) -> EngineInfo:
    """Connect to the OpenAI-compatible endpoint of ``settings`` once, without retries and with short
    timeouts, and describe it (model, base_url); an EndpointError says what went wrong."""
    quick = settings.engines.model_copy(deep=True)
    quick.openai = quick.openai.model_copy(update={"retries": 0, "connect_timeout_s": 5.0, "timeout_s": 10.0})
    engine = factory.build_engine(EngineChoice(engine="openai"), quick, api_key=api_key)
    assert engine is not None, "an endpoint is a text engine"
    try:
        return EngineInfo.model_validate(engine.describe())
    finally:
        engine.close()


_default: Session | None = None
_default_lock = threading.Lock()


def default_session() -> Session:
    """The process's session (the desktop app's), with the saved settings when first asked for."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Session()
        return _default
