"""Where models run: onnxruntime execution providers and llama.cpp GPU offload.

Nothing here fails when a runtime is missing: it reports "not installed" instead.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from mmdocsum_desktop.errors import MissingDependencyError, ModelError

CUDA = "CUDAExecutionProvider"
CPU = "CPUExecutionProvider"


def onnxruntime_providers() -> list[str]:
    """Execution providers of the installed onnxruntime ([] when it is not installed)."""
    try:
        import onnxruntime
    except ImportError:
        return []
    return list(onnxruntime.get_available_providers())


def choose_providers(prefer_gpu: bool = True) -> list[str]:
    """CUDA first when this onnxruntime has it (onnxruntime-gpu) and it is wanted, CPU always last.

    ``MMDOCSUM_DEVICE=cpu`` forces the CPU whatever ``prefer_gpu`` says.
    """
    available = onnxruntime_providers()
    if os.environ.get("MMDOCSUM_DEVICE", "").lower() == "cpu":
        prefer_gpu = False
    chosen = [CUDA] if prefer_gpu and CUDA in available else []
    return chosen + [CPU]


def provider_device(provider: str) -> str:
    return "cuda" if provider == CUDA else "cpu"


def onnx_device(prefer_gpu: bool = True) -> str:
    """'cuda' or 'cpu': where a new onnxruntime session would run ('-' without onnxruntime)."""
    if not onnxruntime_providers():
        return "-"
    return provider_device(choose_providers(prefer_gpu)[0])


def make_session(model_path: str | os.PathLike[str], *, intra_op_threads: int = 2, prefer_gpu: bool = True):
    """An onnxruntime InferenceSession with a fixed thread count; CUDA when available and wanted.

    A CUDA provider that fails to initialise (missing CUDA libraries) makes onnxruntime fall back to the
    CPU by itself; ``session.get_providers()[0]`` tells what was actually used.
    """
    try:
        import onnxruntime as ort
    except ImportError as error:
        raise MissingDependencyError(
            "running ONNX models needs onnxruntime: pip install onnxruntime"
        ) from error
    if intra_op_threads < 1:
        raise ValueError("intra_op_threads must be at least 1")
    options = ort.SessionOptions()
    options.intra_op_num_threads = intra_op_threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3  # errors only
    try:
        return ort.InferenceSession(str(model_path), options, providers=choose_providers(prefer_gpu))
    except Exception as error:  # noqa: BLE001 — onnxruntime raises its own exception types
        raise ModelError(f"onnxruntime cannot load {Path(model_path).name}: {error}") from error


@dataclass(frozen=True)
class LlamaCppInfo:
    installed: bool
    version: str | None = None
    gpu_offload: bool | None = None  # None when unknown (not installed, or it failed to load)
    error: str | None = None

    @property
    def device(self) -> str:
        if not self.installed:
            return "- (llama-cpp-python not installed)"
        if self.error:
            return "- (llama-cpp-python does not load)"
        return "gpu offload (llama.cpp)" if self.gpu_offload else "cpu (llama.cpp)"


@lru_cache(maxsize=1)
def llama_cpp_info() -> LlamaCppInfo:
    """Whether llama-cpp-python is installed and whether its build can offload layers to a GPU."""
    if importlib.util.find_spec("llama_cpp") is None:
        return LlamaCppInfo(installed=False)
    try:
        import llama_cpp
    except Exception as error:  # noqa: BLE001 — a broken native library raises OSError, RuntimeError, ...
        return LlamaCppInfo(installed=True, error=f"{type(error).__name__}: {error}")
    version = getattr(llama_cpp, "__version__", None)
    probe = getattr(llama_cpp, "llama_supports_gpu_offload", None)
    try:
        offload = bool(probe()) if callable(probe) else None
    except Exception as error:  # noqa: BLE001
        return LlamaCppInfo(installed=True, version=version, error=f"{type(error).__name__}: {error}")
    return LlamaCppInfo(installed=True, version=version, gpu_offload=offload)


def torch_info() -> dict[str, Any]:
    """Whether torch (needed only to export CLIP checkpoints) is installed, without importing it."""
    return {
        "torch": importlib.util.find_spec("torch") is not None,
        "open_clip": importlib.util.find_spec("open_clip") is not None,
    }


def device_for_role(role: str) -> str:
    """The device a model of this role would run on here, in words for ``models list``."""
    if role in ("text-embedder", "ocr", "clip"):
        device = onnx_device()
        return "- (onnxruntime not installed)" if device == "-" else f"{device} (onnxruntime)"
    if role in ("gguf-llm", "gguf-vision", "mmproj"):
        return llama_cpp_info().device
    return "-"


def describe() -> dict[str, Any]:
    """Everything above in one dict, for ``mmdocsum models list --devices`` and bug reports."""
    info = llama_cpp_info()
    return {
        "onnxruntime_providers": onnxruntime_providers(),
        "onnx_device": onnx_device(),
        "llama_cpp": {
            "installed": info.installed,
            "version": info.version,
            "gpu_offload": info.gpu_offload,
            "error": info.error,
        },
        **torch_info(),
    }
