"""The one place where settings become text engines: the summary's language model (if any) and the judge's.

``auto`` picks the best engine configured: a GGUF model asked for in this run or in the settings →
``llama``; else an OpenAI-compatible endpoint → ``openai``; else ``extractive``, which needs no model
file and is what a fresh install uses. ``extractive`` is no text engine: it resolves to ``None`` here,
and the summary strategy (``summarize.strategies.choose_strategy``) writes the summary without one. Every caller (``mmdocsum summarize``/``bench``/``place``, the
desktop app through ``app.Session``, the benchmark glue) goes through :func:`build_engine` with the
saved :class:`~mmdocsum_desktop.schemas.settings.EngineSettings` and an
:class:`~mmdocsum_desktop.schemas.settings.EngineChoice` on top, so the same settings give the same engine.

The models a run borrows (RapidOCR for figure text) belong to the caller's session
(``app.models.Models``) and are passed in: nothing here keeps a model.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from mmdocsum_desktop.engines.base import TextEngine
from mmdocsum_desktop.engines.llama import LlamaConfig, resolve_mmproj_for, resolve_model_path
from mmdocsum_desktop.engines.llama_process import LlamaProcessEngine
from mmdocsum_desktop.engines.openai import OpenAIConfig, OpenAIEngine, public_url
from mmdocsum_desktop.errors import EngineError, MmdocsumError, ModelFormatError
from mmdocsum_desktop.schemas.engine import EngineInfo
from mmdocsum_desktop.schemas.settings import (
    ENGINES,
    JUDGE_ENGINES,
    EngineChoice,
    EngineSettings,
    get_api_key,
)

JUDGE_NEEDS_MODEL = (
    "Judging a summary needs a language model, and summaries are written by the extractive engine. Choose "
    "the judge (Settings ▸ Judge: a GGUF model or an OpenAI-compatible endpoint, or --judge llama "
    "--judge-model / --judge openai --judge-base-url), then judge again."
)


class JudgeNotConfiguredError(EngineError):
    """No language model is configured to act as the judge (only the extractive engine)."""


def choose_engine_name(choice: EngineChoice | None, settings: EngineSettings) -> str:
    """The engine ``choice`` resolves to with these settings ("auto" resolved)."""
    choice = choice or EngineChoice()
    if choice.engine not in ENGINES:
        raise EngineError(f"unknown engine {choice.engine!r} (expected one of {', '.join(ENGINES)})")
    if choice.engine != "auto":
        return choice.engine
    if choice.model or choice.mmproj:
        return "llama"
    if choice.base_url:
        return "openai"
    if settings.engine != "auto":
        return settings.engine
    if settings.llama.model:
        return "llama"
    if settings.openai.base_url:
        return "openai"
    return "extractive"


def build_engine(choice: EngineChoice | None, settings: EngineSettings, *, api_key: str | None = None,
                 embedder: object = None) -> TextEngine | None:
    """The text engine ready to use, or None for ``extractive`` (no language model).
    ``api_key``: for an endpoint, a key typed but not stored yet (else the keyring's, by key name).
    ``embedder`` is ignored (text engines need none); it is accepted while older callers still pass it."""
    choice = choice or EngineChoice()
    name = choose_engine_name(choice, settings)
    if name == "extractive":
        if choice.mmproj or choice.model:
            raise EngineError("--model and --mmproj are for the llama engine, not the extractive one")
        return None
    if name == "llama":
        return _llama_engine(choice, settings)
    return _openai_engine(choice, settings, api_key)


def _llama_engine(choice: EngineChoice, settings: EngineSettings) -> TextEngine:
    local = settings.llama
    model = choice.model or local.model
    # a projector in the settings belongs to the settings' model, not to one given for this run
    mmproj = choice.mmproj or (local.mmproj if not choice.model else None)
    if not model:
        if mmproj:
            raise ModelFormatError("--mmproj needs the vision language model it belongs to: give it with --model")
        raise EngineError(
            "the llama engine needs a GGUF model: give --model PATH (or a registered model name such as "
            "smollm2-135m), or set llama.model in the settings"
        )
    # llama.cpp runs in a child process: a crash there is a message here, never the end of the app
    return LlamaProcessEngine(
        LlamaConfig(
            model=resolve_model_path(model),
            mmproj=resolve_mmproj_for(model) if mmproj is None else Path(mmproj).expanduser(),
            n_ctx=choice.n_ctx or local.n_ctx,
            n_threads=choice.n_threads or local.n_threads,
            n_gpu_layers=choice.n_gpu_layers if choice.n_gpu_layers is not None else local.n_gpu_layers,
            n_batch=local.n_batch,
            constrained=local.constrained and choice.grammar,
            image_max_side=local.image_max_side,
            seed=settings.seed,
        ),
        idle_timeout_s=local.idle_timeout_s,  # an unused model's memory goes back to the system
    )


def _openai_engine(choice: EngineChoice, settings: EngineSettings, api_key: str | None) -> TextEngine:
    if choice.model or choice.mmproj:
        raise EngineError("--model and --mmproj are for the llama engine; the openai engine uses the settings")
    endpoint = settings.openai
    base_url = choice.base_url or endpoint.base_url
    if not base_url:
        raise EngineError(
            "the openai engine needs an endpoint: set openai.base_url in the settings or give --base-url "
            "(e.g. http://127.0.0.1:8080/v1)"
        )
    key_name = choice.key_name or endpoint.key_name
    return OpenAIEngine(
        OpenAIConfig(
            base_url=base_url,
            model=choice.api_model or endpoint.model,
            api_key=api_key or (get_api_key(key_name) if key_name else None),
            context_length=choice.n_ctx or endpoint.context_length,
            timeout_s=endpoint.timeout_s,
            connect_timeout_s=endpoint.connect_timeout_s,
            retries=endpoint.retries,
            vision=endpoint.vision,
            json_mode=endpoint.json_mode,
            image_max_side=endpoint.image_max_side,
            allow_insecure_key=choice.allow_insecure_key or endpoint.allow_insecure_key,
        )
    )


# ------------------------------------------------------------------------------------------- judge


def judge_engine_name(settings: EngineSettings, choice: EngineChoice | None = None) -> str:
    """The language-model engine that judges: the one asked for, else ``settings.judge``, else the
    configured LLM engine (the engine chosen in Settings first). JudgeNotConfiguredError when there is
    none: the extractive engine cannot judge."""
    if choice is not None and choice.engine not in ("auto", *JUDGE_ENGINES):
        raise JudgeNotConfiguredError(
            "the judge must be a language model: --judge llama (with --judge-model) or openai"
        )
    usable = {
        "llama": bool(settings.llama.model or (choice and choice.model)),
        "openai": bool(settings.openai.base_url or (choice and choice.base_url)),
    }
    asked = choice.engine if choice is not None and choice.engine != "auto" else settings.judge
    if asked in JUDGE_ENGINES:
        if not usable[asked]:
            raise JudgeNotConfiguredError(
                "the llama judge needs a GGUF model: give --judge-model PATH (or set llama.model in the settings)"
                if asked == "llama" else
                "the openai judge needs an endpoint: give --judge-base-url URL (and --judge-api-model)"
            )
        return asked
    # "auto" judges with the engine that writes the user's summaries, and only when that is a language
    # model: a GGUF left in the settings after switching summaries to extractive is never picked up
    summary_engine = choose_engine_name(None, settings)
    if summary_engine in usable and usable[summary_engine]:
        return summary_engine
    raise JudgeNotConfiguredError(JUDGE_NEEDS_MODEL)


def judge_description(settings: EngineSettings, choice: EngineChoice | None = None) -> str:
    """What the judge is, for a title: "llama (model.gguf)" or "openai (http://…)"."""
    name = judge_engine_name(settings, choice)
    choice = choice or EngineChoice()
    if name == "llama":
        return f"llama ({Path(str(choice.model or settings.llama.model)).name})"
    url = choice.base_url or settings.openai.base_url
    return f"openai ({choice.api_model or settings.openai.model or public_url(url or '')})"


def build_judge_engine(settings: EngineSettings, choice: EngineChoice | None = None) -> TextEngine:
    """A language-model engine for judging; JudgeNotConfiguredError when none is set up."""
    name = judge_engine_name(settings, choice)
    base = choice.model_copy(update={"engine": name}) if choice is not None else EngineChoice(engine=name)
    engine = build_engine(base, settings)
    assert engine is not None, "a judge is a language model"
    return engine


# ------------------------------------------------------------------------------------------- runs


class SharedModels(Protocol):
    """The models a run borrows from its session's container (``app.models.Models``)."""

    def ocr(self) -> Any: ...


@dataclass
class ConfiguredEngine:
    """A text engine with what was resolved around it: its name, whether figure text is read (``ocr``)
    and the generation values a summary takes from the settings and the choice. ``engine`` is None for
    ``extractive``: that summary needs no language model."""

    name: str
    engine: TextEngine | None
    ocr: Any  # an OcrEngine, or None
    figure_mode: str
    max_tokens: int
    temperature: float
    seed: int
    warnings: list[str]
    llm_mode: str = "grounded"  # language models: grounded writer or the full-document prompt

    @property
    def in_process(self) -> bool:
        """True for engines that compute on this machine (one document at a time)."""
        return self.name != "openai"

    def describe(self) -> EngineInfo:
        """The text engine's description; for the extractive summary only its name (the summary's own
        ``engine`` record comes from its strategy: ``app.summary.describe_engine``)."""
        if self.engine is None:
            return EngineInfo(engine=self.name)
        return EngineInfo.model_validate(self.engine.describe())

    def option_values(self) -> dict[str, Any]:
        """The keyword arguments of ``summarize.pipeline.SummaryOptions`` that come from the settings."""
        return {"figure_mode": self.figure_mode, "max_tokens": self.max_tokens, "temperature": self.temperature,
                "seed": self.seed, "ocr": self.ocr is not None, "llm_mode": self.llm_mode}

    def close(self) -> None:
        if self.engine is not None:
            self.engine.close()


def wants_ocr(name: str, engine: TextEngine | None, settings: EngineSettings, choice: EngineChoice | None) -> bool:
    """Figure text is read when asked for; by default for LLM engines that cannot see the images."""
    asked = choice.ocr if choice is not None and choice.ocr is not None else settings.ocr
    if asked is not None:
        return asked
    return name != "extractive" and not getattr(engine, "supports_images", False)


def configure_engine(settings: EngineSettings, choice: EngineChoice | None = None, *,
                     models: SharedModels, engine: TextEngine | None = None) -> ConfiguredEngine:
    """The engine of ``choice`` over ``settings`` (``engine``: one already built for them), with OCR
    decided and the summary values resolved. A missing OCR model is a warning, not an error."""
    choice = choice or EngineChoice()
    name = choose_engine_name(choice, settings)
    if engine is None:
        engine = build_engine(choice, settings)
    warnings: list[str] = []
    ocr = None
    if wants_ocr(name, engine, settings, choice):
        try:
            ocr = models.ocr()
        except MmdocsumError as error:
            warnings.append(f"figures are described without their text: {error}")
    return ConfiguredEngine(
        name=name, engine=engine, ocr=ocr,
        figure_mode=choice.figure_mode or settings.figure_mode,
        max_tokens=choice.max_tokens or settings.max_tokens,
        temperature=choice.temperature if choice.temperature is not None else settings.temperature,
        seed=settings.seed, warnings=warnings, llm_mode=choice.llm_mode or settings.llm_mode,
    )
