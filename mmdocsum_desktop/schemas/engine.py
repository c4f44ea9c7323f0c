"""What a text engine says of itself (:class:`EngineInfo`, its ``describe()``) and of each call it made
(:class:`GenerationRecord`), as summaries and answers keep them.

Each engine fills the fields that concern it (a llama.cpp engine its threads and GPU layers, an
OpenAI-compatible endpoint its URL); the JSON holds those it filled, as the dicts written before did.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict

from mmdocsum_desktop.schemas.record import Record


class RetrievalInfo(Record):
    """How "ask the paper" found its passages."""

    reranker: bool = False  # the cross-encoder rescored the passages
    passages: int = 0  # passages in the document's index


class EngineInfo(Record):
    """An engine's description: its name and model, then what the engine knows of its setup."""

    # Engines outside this package (a judge, a future runtime) may describe more; kept as given.
    model_config = ConfigDict(extra="allow")

    engine: str = ""  # "llama", "openai", "extractive"
    model: str = ""  # the model as a person reads it
    # llama.cpp
    model_file: str | None = None
    mmproj: str | None = None
    architecture: str | None = None
    n_ctx: int | None = None
    n_threads: int | None = None
    n_gpu_layers: int | None = None
    gpu_layers_requested: int | Literal["auto"] | None = None
    gpu_layers_reason: str | None = None
    gpu_offload_supported: bool | None = None
    device: str | None = None
    constrained: bool | None = None  # answers constrained by a JSON grammar
    llama_cpp_python: str | None = None  # its version
    process: str | None = None  # "child": generation runs in a separate process
    restarts: int | None = None  # of that process
    # OpenAI-compatible endpoints
    base_url: str | None = None
    api_key: str | None = None  # where the key came from ("from keyring"), never the key
    context_length: int | None = None
    timeout_s: float | None = None
    retries: int | None = None
    # both
    vision: bool | None = None
    # the extractive summary
    mmr_lambda: float | None = None
    words_per_paragraph: list[int] | None = None
    # "ask the paper"
    retrieval: RetrievalInfo | None = None

    @property
    def label(self) -> str:
        """"extractive", "llama (model name)": the engine as a person reads it."""
        # early summaries named the engine under "name"
        name = self.engine or str((self.model_extra or {}).get("name") or "")
        if not self.model or self.model.startswith(name):
            return self.model or name
        return f"{name} ({self.model})" if name else self.model


class GenerationRecord(Record):
    """One model call's token counts and timings (``engines.base.Generation.record``). A summary names
    the call's ``stage``; the grounded writer merges a paragraph's ``calls`` into one record."""

    stage: str | None = None  # "summary", "notes 1/3", "paragraph 2 (method)"
    calls: int | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str = "stop"  # "stop", "length", "timeout" or "cancelled"
    finish_reasons: list[str | None] | None = None  # of each merged call
    prompt_seconds: float = 0.0
    generation_seconds: float = 0.0
    prompt_tokens_per_s: float | None = None
    generation_tokens_per_s: float | None = None
    counted: str = "engine"  # "engine": counts from the runtime or server; "estimate": our estimate


__all__ = ["EngineInfo", "GenerationRecord", "RetrievalInfo"]
