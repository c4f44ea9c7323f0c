"""Choosing and building an engine from the settings and the command line.

``auto`` picks the best engine configured: a GGUF model given on the command line or in the settings
→ ``llama``; else an OpenAI-compatible endpoint in the settings → ``openai``; else ``extractive``,
which needs no model file and is what a fresh install uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mmdocsum_desktop.engines.extractive import Embedder, ExtractiveEngine
from mmdocsum_desktop.errors import EngineError, ModelFormatError
from mmdocsum_desktop.settings import EngineSettings, get_api_key

ENGINES = ("auto", "extractive", "llama", "openai")


@dataclass
class EngineRequest:
    """What the user asked for on top of the settings (None: take the setting)."""

    engine: str = "auto"
    model: str | None = None
    mmproj: str | None = None
    n_ctx: int | None = None
    n_threads: int | None = None
    n_gpu_layers: int | None = None
    base_url: str | None = None
    api_model: str | None = None
    key_name: str | None = None
    constrained: bool | None = None


def choose_engine_name(request: EngineRequest, settings: EngineSettings) -> str:
    if request.engine not in ENGINES:
        raise EngineError(f"unknown engine {request.engine!r} (expected one of {', '.join(ENGINES)})")
    if request.engine != "auto":
        return request.engine
    if request.model or request.mmproj:
        return "llama"
    if request.base_url:
        return "openai"
    if settings.engine != "auto":
        return settings.engine
    if settings.llama.model:
        return "llama"
    if settings.openai.base_url:
        return "openai"
    return "extractive"


def build_engine(request: EngineRequest, settings: EngineSettings, *, embedder: Embedder | None):
    """An engine ready to use. The extractive engine needs ``embedder``; LLM engines do not."""
    name = choose_engine_name(request, settings)
    if name == "extractive":
        if request.mmproj or request.model:
            raise EngineError("--model and --mmproj are for the llama engine, not the extractive one")
        if embedder is None:
            raise EngineError("the extractive engine needs the text embedder (MiniLM)")
        return ExtractiveEngine(embedder)
    if name == "llama":
        from mmdocsum_desktop.engines.llama import (
            LlamaConfig,
            LlamaEngine,
            resolve_mmproj_for,
            resolve_model_path,
        )

        model = request.model or settings.llama.model
        mmproj = request.mmproj or (settings.llama.mmproj if not request.model else None)
        if not model:
            if mmproj:
                raise ModelFormatError(
                    "--mmproj needs the vision language model it belongs to: give it with --model"
                )
            raise EngineError(
                "the llama engine needs a GGUF model: give --model PATH (or a registered model name such as "
                "smollm2-135m), or set llama.model in the settings"
            )
        model_path = resolve_model_path(model)
        if mmproj is None:
            found = resolve_mmproj_for(model)
            mmproj_path = found
        else:
            mmproj_path = Path(mmproj).expanduser()
        return LlamaEngine(
            LlamaConfig(
                model=model_path,
                mmproj=mmproj_path,
                n_ctx=request.n_ctx or settings.llama.n_ctx,
                n_threads=request.n_threads or settings.llama.n_threads,
                n_gpu_layers=request.n_gpu_layers if request.n_gpu_layers is not None else settings.llama.n_gpu_layers,
                n_batch=settings.llama.n_batch,
                constrained=settings.llama.constrained if request.constrained is None else request.constrained,
                image_max_side=settings.llama.image_max_side,
                seed=settings.seed,
            )
        )
    from mmdocsum_desktop.engines.openai import OpenAIConfig, OpenAIEngine

    if request.model or request.mmproj:
        raise EngineError("--model and --mmproj are for the llama engine; the openai engine uses the settings")
    endpoint = settings.openai
    base_url = request.base_url or endpoint.base_url
    if not base_url:
        raise EngineError(
            "the openai engine needs an endpoint: set openai.base_url in the settings or give --base-url "
            "(e.g. http://127.0.0.1:8080/v1)"
        )
    key_name = request.key_name or endpoint.key_name
    api_key = get_api_key(key_name) if key_name else None
    return OpenAIEngine(
        OpenAIConfig(
            base_url=base_url,
            model=request.api_model or endpoint.model,
            api_key=api_key,
            context_length=request.n_ctx or endpoint.context_length,
            timeout_s=endpoint.timeout_s,
            connect_timeout_s=endpoint.connect_timeout_s,
            retries=endpoint.retries,
            vision=endpoint.vision,
            json_mode=endpoint.json_mode,
            image_max_side=endpoint.image_max_side,
        )
    )
