"""Local GGUF models through llama-cpp-python: text models, and vision models with an mmproj file.

The file is checked before llama.cpp sees it (:mod:`gguf_check`), so a missing, truncated, non-GGUF or
wrong-architecture file, or an mmproj that does not belong to the model, gives one clear message.
Vision models use llama-cpp-python's MTMD chat handler (the model's own chat template, any projector
llama.cpp's libmtmd supports: Qwen2-VL, Qwen2.5-VL, LLaVA, Gemma 3, ...), falling back to the older
per-family handlers on builds that lack it.

Token counts and timings come from llama.cpp's own performance counters (``llama_perf_context``), so
they are what the runtime did, not an estimate.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from mmdocsum_desktop.engines.base import (
    Generation,
    GenerationOptions,
    GenerationStream,
    Message,
    TokenProgress,
    run_stream,
)
from mmdocsum_desktop.engines.gguf_check import (
    VISION_TEXT_ARCHES,
    GgufInfo,
    check_chat_model,
    check_projector,
    read_gguf_info,
)
from mmdocsum_desktop.engines.messages import openai_chat_messages
from mmdocsum_desktop.errors import (
    EngineError,
    MissingDependencyError,
    ModelFormatError,
    ModelNotFoundError,
    SummaryCancelled,
)
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.models.devices import GgufShape, GpuLayerChoice, llama_cpp_info, plan_gpu_layers
from mmdocsum_desktop.models.registry import get_model
from mmdocsum_desktop.schemas.engine import EngineInfo

INSTALL_HINT = "the llama engine needs llama-cpp-python: pip install 'mmdocsum-desktop[llm]'"


@dataclass(frozen=True)
class LlamaConfig:
    model: Path
    mmproj: Path | None = None
    n_ctx: int = 8192
    n_threads: int | None = None
    n_gpu_layers: int | Literal["auto"] | None = None  # None or "auto": as many as fit in free GPU memory
    n_batch: int = 512
    constrained: bool = True
    image_max_side: int = 448
    seed: int = 0


def gpu_offload_supported() -> bool | None:
    """Whether this llama-cpp-python build can put layers on a GPU (None: not installed or broken)."""
    return llama_cpp_info().gpu_offload


def resolve_model_path(model: str | os.PathLike[str]) -> Path:
    """A GGUF path, or the name of a model in the registry (``smollm2-135m``, a user-added model)."""
    candidate = Path(model).expanduser()
    if candidate.suffix.lower() == ".gguf" or candidate.exists() or os.sep in str(model):
        return candidate
    entry = get_model(str(model))
    if entry.role not in ("gguf-llm", "gguf-vision"):
        raise ModelFormatError(f"model {entry.name!r} is a {entry.role} model, not a GGUF language model")
    return entry.path("model")


def resolve_mmproj_for(model: str | os.PathLike[str]) -> Path | None:
    """The mmproj registered with a named vision model, if any."""
    if Path(model).expanduser().exists() or str(model).lower().endswith(".gguf"):
        return None
    try:
        entry = get_model(str(model))
        return entry.path("mmproj")
    except ModelNotFoundError:
        return None


class LlamaEngine:
    """``LlamaEngine(LlamaConfig(model=Path(...)))``; loads the model once, generates many times."""

    name = "llama"

    def __init__(self, config: LlamaConfig) -> None:
        self.config = config
        self.warnings: list[str] = []
        if config.mmproj is not None and not Path(config.mmproj).exists():
            raise ModelFormatError(f"mmproj file not found: {config.mmproj}")
        self.info: GgufInfo = read_gguf_info(config.model, what="model")
        check_chat_model(self.info)
        self.projector: GgufInfo | None = None
        if config.mmproj is not None:
            self.projector = read_gguf_info(config.mmproj, what="mmproj")
            check_projector(self.projector, self.info)
        elif self.info.architecture in VISION_TEXT_ARCHES:
            self.warnings.append(
                f"{self.info.path.name} is the text half of a vision model ({self.info.architecture}); "
                "without its --mmproj file figures are described in words only"
            )
        self.supports_images = self.projector is not None
        self.model_name = self.info.name
        trained = self.info.context_length
        self.context_length = min(config.n_ctx, trained) if trained else config.n_ctx
        if trained and config.n_ctx > trained:
            self.warnings.append(f"n_ctx {config.n_ctx} is above what the model was trained for ({trained}); using {trained}")

        try:
            import llama_cpp  # lazy: a native library that loads its backends; only this engine needs it
        except ImportError as error:
            raise MissingDependencyError(INSTALL_HINT) from error
        except Exception as error:  # noqa: BLE001 — a broken native library raises OSError, RuntimeError, ...
            raise EngineError(f"llama-cpp-python is installed but does not load: {error}") from error
        self._llama_cpp = llama_cpp

        choice = self._gpu_layer_choice(config)
        if choice.fallback:  # a GPU was wanted and cannot be used: said once, in the summary's notes
            self.warnings.append(choice.reason)
        self.gpu_offload = bool(gpu_offload_supported())
        self.n_threads = config.n_threads or max(1, os.cpu_count() or 1)

        chat_handler = self._make_chat_handler() if self.projector is not None else None
        try:
            self.llm = self._load_llama(chat_handler, choice.n_gpu_layers)
        except (ValueError, RuntimeError, OSError) as error:
            if choice.n_gpu_layers == 0:
                raise self._load_error(error) from error
            # the GPU could not hold what was planned (too little memory, a driver error): the CPU can
            choice = GpuLayerChoice(0, f"llama.cpp could not put {Path(config.model).name} on the GPU "
                                    f"({error}); running on the CPU", fallback=True)
            self.warnings.append(choice.reason)
            try:
                self.llm = self._load_llama(chat_handler, 0)
            except (ValueError, RuntimeError, OSError) as cpu_error:
                raise self._load_error(cpu_error) from cpu_error
        self.n_gpu_layers = choice.n_gpu_layers
        self.gpu_layers_reason = choice.reason
        self.device = choice.device
        self._chat_handler = chat_handler
        self._lock = threading.Lock()
        # llama.cpp asks this between the steps of every decode, so a cancel or a time limit also
        # stops the reading of a long prompt (otherwise tens of seconds on a CPU) rather than
        # waiting for its first generated token
        self._abort_when: Callable[[], bool] | None = None
        self._abort_callback = llama_cpp.ggml_abort_callback(lambda _data: bool(self._abort_when and self._abort_when()))
        llama_cpp.llama_set_abort_callback(self.llm.ctx, self._abort_callback, None)
        if chat_handler is not None:
            self._start_vision()

    # ------------------------------------------------------------------------------------------ setup

    def _gpu_layer_choice(self, config: LlamaConfig) -> GpuLayerChoice:
        """How many layers go to the GPU, from the header already read and this machine's free memory."""
        def number(key: str) -> int:
            value = self.info.get(f"{self.info.architecture}.{key}")
            if isinstance(value, list):  # per-layer values (some models vary heads by layer)
                value = max(value, default=0)
            return int(value or 0)

        shape = GgufShape(number("block_count"), number("embedding_length"), number("attention.head_count"),
                          number("attention.head_count_kv")) if number("block_count") else None
        return plan_gpu_layers(config.model, requested=config.n_gpu_layers, n_ctx=self.context_length,
                               extra_bytes=self.projector.file_size if self.projector else 0, shape=shape)

    def _load_llama(self, chat_handler: Any, n_gpu_layers: int) -> Any:  # a llama_cpp.Llama
        return self._llama_cpp.Llama(
            model_path=str(self.config.model),
            n_ctx=self.context_length,
            n_threads=self.n_threads,
            n_threads_batch=self.n_threads,
            n_gpu_layers=n_gpu_layers,
            n_batch=min(self.config.n_batch, self.context_length),
            seed=self.config.seed,
            chat_handler=chat_handler,
            verbose=False,
        )

    def _load_error(self, error: Exception) -> ModelFormatError:
        return ModelFormatError(
            f"llama.cpp could not load {Path(self.config.model).name} (architecture "
            f"{self.info.architecture!r}): this llama-cpp-python build may not support that "
            f"architecture, or the file is damaged ({error})"
        )

    def _make_chat_handler(self) -> Any:  # a llama_cpp chat handler
        from llama_cpp import llama_chat_format as formats  # lazy: llama_cpp is loaded by __init__ only

        assert self.config.mmproj is not None
        path = str(self.config.mmproj)
        handler_class = getattr(formats, "MTMDChatHandler", None)
        if handler_class is None or not self.info.has_chat_template:
            family = {
                "qwen2vl": "Qwen25VLChatHandler",
                "qwen25vl": "Qwen25VLChatHandler",
            }.get(self.info.architecture or "", "Llava15ChatHandler")
            handler_class = getattr(formats, family, None) or formats.Llava15ChatHandler
        try:
            return handler_class(clip_model_path=path, verbose=False)
        except (ValueError, RuntimeError, OSError) as error:
            raise ModelFormatError(f"the vision handler cannot use {Path(path).name}: {error}") from error

    def _start_vision(self) -> None:
        """Load the projector now (it is otherwise loaded on the first image), so errors come early."""
        _quiet_mtmd()
        init = getattr(self._chat_handler, "_init_mtmd_context", None)
        if not callable(init):
            return
        try:
            init(self.llm)
        except (ValueError, RuntimeError, OSError) as error:
            raise ModelFormatError(
                f"llama.cpp could not load the projector {Path(str(self.config.mmproj)).name} for "
                f"{self.info.path.name}: {error}"
            ) from error

    def describe(self) -> EngineInfo:
        return EngineInfo(
            engine=self.name,
            model=self.model_name,
            model_file=str(self.config.model),
            mmproj=str(self.config.mmproj) if self.config.mmproj else None,
            architecture=self.info.architecture,
            n_ctx=self.context_length,
            n_threads=self.n_threads,
            n_gpu_layers=self.n_gpu_layers,
            gpu_layers_requested="auto" if self.config.n_gpu_layers is None else self.config.n_gpu_layers,
            gpu_layers_reason=self.gpu_layers_reason,
            gpu_offload_supported=self.gpu_offload,
            device=self.device,
            vision=self.supports_images,
            constrained=self.config.constrained,
            llama_cpp_python=getattr(self._llama_cpp, "__version__", None),
        )

    # ------------------------------------------------------------------------------------- generation

    def count_tokens(self, text: str) -> int:
        if not text:
            return 0
        return len(self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def chat_messages(self, messages: list[Message]) -> list[dict[str, Any]]:
        """Messages in llama-cpp-python's (OpenAI) form; images as data URLs for the vision handler."""
        return openai_chat_messages(messages, with_images=self.supports_images, image_max_side=self.config.image_max_side)

    def stream(
        self, messages: list[Message], options: GenerationOptions, *, control: JobControl | None = None
    ) -> GenerationStream:
        llama_cpp = self._llama_cpp
        state: dict[str, Any] = {"finish": "stop"}
        kwargs: dict[str, Any] = {
            "messages": self.chat_messages(messages),
            "max_tokens": options.max_tokens,
            "temperature": options.temperature,
            "top_p": options.top_p,
            "repeat_penalty": options.repeat_penalty,
            "stream": True,
            "stop": list(options.stop) or None,
        }
        if options.seed is not None:
            kwargs["seed"] = options.seed
        if options.json_schema is not None and self.config.constrained:
            kwargs["response_format"] = {"type": "json_object", "schema": options.json_schema}

        deadline = None if options.time_limit_s is None else time.monotonic() + options.time_limit_s
        progress = TokenProgress(control, options.max_tokens)

        def cancelled() -> bool:
            return control is not None and control.cancelled

        def out_of_time() -> bool:
            return deadline is not None and time.monotonic() >= deadline

        def pieces() -> Iterator[str]:
            with self._lock:
                if not options.reuse_prompt_prefix:
                    self.llm.reset()  # counts and timings of separate calls stay comparable
                llama_cpp.llama_perf_context_reset(self.llm.ctx)
                self._abort_when = lambda: cancelled() or out_of_time()
                self.llm.eval = _counting_eval(self.llm.eval, self.llm.n_batch, progress)
                try:
                    chunks = self.llm.create_chat_completion(**kwargs)
                    for chunk in chunks:
                        choice = chunk["choices"][0]
                        if choice.get("finish_reason"):
                            state["finish"] = choice["finish_reason"]
                        delta = choice.get("delta", {}).get("content")
                        if delta:
                            yield delta
                except SummaryCancelled:
                    raise
                except (ValueError, RuntimeError) as error:
                    if cancelled():
                        raise SummaryCancelled("cancelled while the model read the prompt") from error
                    if out_of_time():
                        state["finish"] = "timeout"
                        return
                    raise EngineError(_generation_error(error, self.context_length)) from error
                finally:
                    self._abort_when = None
                    del self.llm.eval  # the class's own eval again
                    perf = llama_cpp.llama_perf_context(self.llm.ctx)
                    state["perf"] = (perf.n_p_eval, perf.n_eval, perf.t_p_eval_ms, perf.t_eval_ms)
                    if state["finish"] == "length":
                        progress.tokens(progress.max_tokens)
                    elif not cancelled():
                        # the last sampled token (end of text, or the last word) is never evaluated
                        progress.tokens(progress.generated + 1)

        def finish(text: str, prompt_s: float, gen_s: float, cancelled: bool) -> Generation:
            n_p, n_e, t_p, t_e = state.get("perf", (0, 0, 0.0, 0.0))
            return Generation(
                text=text,
                prompt_tokens=int(n_p),
                completion_tokens=int(n_e) + (1 if n_e or text else 0),  # the last token is sampled, not evaluated
                finish_reason="cancelled" if cancelled else str(state["finish"]),
                prompt_seconds=prompt_s,
                generation_seconds=gen_s,
                model=self.model_name,
                engine=self.name,
                counted="engine",
            )

        return GenerationStream(pieces(), finish, control, time_limit_s=options.time_limit_s)

    def generate(
        self,
        messages: list[Message],
        options: GenerationOptions,
        *,
        control: JobControl | None = None,
        on_text: Callable[[str], None] | None = None,
    ) -> Generation:
        return run_stream(self.stream(messages, options, control=control), on_text)

    def close(self) -> None:
        llm = getattr(self, "llm", None)
        if llm is not None:
            with contextlib.suppress(Exception):
                llm.close()
            self.llm = None


def _counting_eval(evaluate: Callable[[Any], None], n_batch: int, progress: TokenProgress) -> Callable[[Any], None]:
    """``Llama.eval`` that reports progress: the first call of a completion is the prompt, read here in
    the same batches of ``n_batch`` that ``Llama.eval`` itself uses (so the result is identical), and
    each later call is one sampled token fed back."""
    prompt_done = False

    def counted(tokens: Any) -> None:
        nonlocal prompt_done
        if prompt_done:
            evaluate(tokens)
            progress.tokens(progress.generated + len(tokens))
            return
        total = len(tokens)
        progress.prompt(0, total)
        for start in range(0, total, max(1, n_batch)):
            evaluate(tokens[start:start + n_batch])
            progress.prompt(min(total, start + n_batch), total)
        prompt_done = True

    return counted


def _generation_error(error: Exception, n_ctx: int) -> str:
    text = str(error)
    if "exceed" in text.lower() and "context" in text.lower():
        return f"the prompt does not fit the model's context of {n_ctx} tokens ({text})"
    return f"llama.cpp failed while generating: {text}"


def _quiet_mtmd() -> None:
    """Route libmtmd's log (it prints every image chunk) through llama-cpp-python's quiet logger."""
    try:
        from llama_cpp import _logger, mtmd_cpp  # lazy: loads libmtmd, needed by vision models only

        for setter in ("mtmd_log_set", "mtmd_helper_log_set"):
            function = getattr(mtmd_cpp, setter, None)
            if callable(function):
                function(_logger.llama_log_callback, ctypes.c_void_p(0))
    except Exception:  # noqa: BLE001 — logging is cosmetic; never fail the engine over it
        pass
