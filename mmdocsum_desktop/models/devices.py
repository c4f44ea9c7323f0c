"""Where models run: onnxruntime execution providers, llama.cpp GPU offload, and how much memory is free.

Nothing here fails when a runtime is missing: it reports "not installed" instead. The decisions
(:func:`pick_providers`, :func:`choose_gpu_layers`, :func:`resolve_gpu_layers`) are pure functions of
provider lists and memory figures, so they are tested with any figures, GPU or not; the probes around
them (:func:`llama_cpp_info`, :func:`gpu_memory`, :func:`ram_memory`) read this machine.
"""

from __future__ import annotations

import ctypes
import importlib.util
import logging
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from mmdocsum_desktop.errors import MissingDependencyError, MmdocsumWarning, ModelError
from mmdocsum_desktop.messages import notify
from mmdocsum_desktop.offline import import_onnxruntime

CUDA = "CUDAExecutionProvider"
CPU = "CPUExecutionProvider"
# The GPU providers the app asks onnxruntime for, best first. Only CUDA: CoreML and DirectML exist, but
# the app's ONNX models (MiniLM, the cross-encoder, RapidOCR, CLIP) have not been checked on them.
GPU_PROVIDERS = (CUDA,)

GIB = 1024**3
MIB = 1024**2


class DeviceFallbackWarning(MmdocsumWarning):
    """A model was meant for the GPU and runs on the CPU instead (said once per message)."""


_said: list[str] = []


def say_once(message: str) -> None:
    """Tell the user about a fallback once per process, not once per model or per paper."""
    if message in _said:
        return
    _said.append(message)
    notify(message, category=DeviceFallbackWarning, stacklevel=2)


def fallback_messages() -> list[str]:
    """Every fallback said so far in this process (``mmdocsum doctor`` lists them)."""
    return list(_said)


def cpu_forced() -> bool:
    """``MMDOCSUM_DEVICE=cpu`` keeps every model, ONNX and llama.cpp alike, on the CPU."""
    return os.environ.get("MMDOCSUM_DEVICE", "").strip().lower() == "cpu"


# ------------------------------------------------------------------------------------------ onnxruntime


def onnxruntime_providers() -> list[str]:
    """Execution providers of the installed onnxruntime ([] when it is not installed)."""
    try:
        onnxruntime = import_onnxruntime()  # telemetry off; a native runtime, loaded only when a model is about to run
    except ImportError:
        return []
    return list(onnxruntime.get_available_providers())


def pick_providers(available: Sequence[str], *, prefer_gpu: bool = True, force_cpu: bool = False) -> list[str]:
    """The providers to ask for, given what this onnxruntime offers: a GPU provider first when there is
    one and it is wanted, the CPU always last (onnxruntime falls back to it if the GPU one fails)."""
    gpu = [] if force_cpu or not prefer_gpu else [p for p in GPU_PROVIDERS if p in available]
    return gpu[:1] + [CPU]


def choose_providers(prefer_gpu: bool = True) -> list[str]:
    """:func:`pick_providers` for the installed onnxruntime; ``MMDOCSUM_DEVICE=cpu`` forces the CPU."""
    return pick_providers(onnxruntime_providers(), prefer_gpu=prefer_gpu, force_cpu=cpu_forced())


def provider_device(provider: str) -> str:
    return "cuda" if provider == CUDA else "cpu"


def onnx_device(prefer_gpu: bool = True) -> str:
    """'cuda' or 'cpu': where a new onnxruntime session would run ('-' without onnxruntime)."""
    if not onnxruntime_providers():
        return "-"
    return provider_device(choose_providers(prefer_gpu)[0])


def onnx_fallback_message(requested: Sequence[str], used: Sequence[str]) -> str | None:
    """Plain words when a GPU provider was asked for and the session runs on the CPU anyway (the
    onnxruntime-gpu package is installed but the CUDA 12 / cuDNN 9 libraries or the driver are not)."""
    wanted = [p for p in requested if p != CPU]
    if not wanted or (used and used[0] in wanted):
        return None
    return (
        f"onnxruntime-gpu offers {wanted[0]} but it did not start (the CUDA 12 and cuDNN 9 runtime "
        "libraries or the NVIDIA driver are missing or too old); the ONNX models (embedder, reranker, "
        "OCR, CLIP) run on the CPU. `mmdocsum doctor` shows what is missing."
    )


def make_session(model_path: str | os.PathLike[str], *, intra_op_threads: int = 2, prefer_gpu: bool = True):
    """An onnxruntime InferenceSession with a fixed thread count; CUDA when available and wanted.

    A CUDA provider that fails to initialise (missing CUDA libraries) makes onnxruntime fall back to the
    CPU by itself; that is said once (:func:`say_once`) and ``session.get_providers()[0]`` tells what
    was actually used.
    """
    try:
        ort = import_onnxruntime()  # telemetry off; a native runtime, loaded only when a model is about to run
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
    # Between operators onnxruntime's pool threads spin by default, burning a core each while they wait:
    # on a desktop that shares its CPU (the window, OCR in the background, other programs) that is CPU
    # taken for nothing. Off, 300 new sentences through MiniLM took 1.49 CPU-s (2.6 s wall) instead of 2.15
    # (4.3 s), medians of 3 on the 2-core machine at load 4 (issue 39); the vectors are identical.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    providers = choose_providers(prefer_gpu)
    try:
        session = ort.InferenceSession(str(model_path), options, providers=providers)
    except Exception as error:  # noqa: BLE001 — onnxruntime raises its own exception types
        raise ModelError(f"onnxruntime cannot load {Path(model_path).name}: {error}") from error
    message = onnx_fallback_message(providers, session.get_providers())
    if message:
        say_once(message)
    return session


# ------------------------------------------------------------------------------------------- llama.cpp


@dataclass(frozen=True)
class ComputeDevice:
    """One device llama.cpp's ggml sees (``ggml_backend_dev_*``), with its memory when it reports it."""

    name: str
    description: str
    kind: str  # "cpu", "gpu", "igpu" (shares system memory), "accel" or "other"
    free_bytes: int | None = None
    total_bytes: int | None = None


_DEVICE_KINDS = {0: "cpu", 1: "gpu", 2: "igpu", 3: "accel"}
# ggml backends that hold no GPU: the CPU itself, BLAS and AMX accelerate the CPU, RPC is remote
_CPU_SIDE_BACKENDS = {"cpu", "blas", "amx", "rpc"}


@dataclass(frozen=True)
class LlamaCppInfo:
    installed: bool
    version: str | None = None
    gpu_offload: bool | None = None  # None when unknown (not installed, or it failed to load)
    error: str | None = None
    backends: tuple[str, ...] = ()  # ggml backends compiled in: "CPU", "CUDA", "Metal", "Vulkan", ...
    devices: tuple[ComputeDevice, ...] = ()
    system_info: str | None = None

    @property
    def gpu_backends(self) -> tuple[str, ...]:
        """The GPU backends this build was compiled with, whether or not a GPU is there to use."""
        return tuple(b for b in self.backends if b.lower() not in _CPU_SIDE_BACKENDS)

    @property
    def gpu_devices(self) -> tuple[ComputeDevice, ...]:
        return tuple(d for d in self.devices if d.kind in ("gpu", "igpu"))

    @property
    def device(self) -> str:
        if not self.installed:
            return "- (llama-cpp-python not installed)"
        if self.error:
            return "- (llama-cpp-python does not load)"
        if not self.gpu_offload:
            return "cpu (llama.cpp)"
        names = ", ".join(d.description or d.name for d in self.gpu_devices)
        return f"gpu (llama.cpp{': ' + names if names else ''})"


def _ggml_library(llama_cpp_module: Any) -> ctypes.CDLL | None:
    """The ggml library llama-cpp-python already loaded (opening it again returns the same handle)."""
    folder = Path(llama_cpp_module.__file__).parent / "lib"
    for pattern in ("libggml.so", "libggml.dylib", "ggml.dll", "libggml.so.*", "libggml.*.dylib"):
        for candidate in sorted(folder.glob(pattern)):
            try:
                library = ctypes.CDLL(str(candidate))
            except OSError:
                continue
            if hasattr(library, "ggml_backend_dev_count"):
                return library
    return None


def _ggml_backends_and_devices(llama_cpp_module: Any) -> tuple[tuple[str, ...], tuple[ComputeDevice, ...]]:
    """Backends and devices from ggml's registry; empty when this build does not expose it."""
    library = _ggml_library(llama_cpp_module)
    if library is None:
        return (), ()
    pointer, size = ctypes.c_void_p, ctypes.c_size_t
    library.ggml_backend_reg_count.restype = size
    library.ggml_backend_reg_get.argtypes = [size]
    library.ggml_backend_reg_get.restype = pointer
    library.ggml_backend_reg_name.argtypes = [pointer]
    library.ggml_backend_reg_name.restype = ctypes.c_char_p
    library.ggml_backend_dev_count.restype = size
    library.ggml_backend_dev_get.argtypes = [size]
    library.ggml_backend_dev_get.restype = pointer
    for name in ("ggml_backend_dev_name", "ggml_backend_dev_description"):
        getattr(library, name).argtypes = [pointer]
        getattr(library, name).restype = ctypes.c_char_p
    library.ggml_backend_dev_type.argtypes = [pointer]
    library.ggml_backend_dev_type.restype = ctypes.c_int
    library.ggml_backend_dev_memory.argtypes = [pointer, ctypes.POINTER(size), ctypes.POINTER(size)]
    library.ggml_backend_dev_memory.restype = None

    def text(raw: bytes | None) -> str:
        return (raw or b"").decode("utf-8", "replace")

    backends = tuple(text(library.ggml_backend_reg_name(library.ggml_backend_reg_get(i)))
                     for i in range(library.ggml_backend_reg_count()))
    devices = []
    for index in range(library.ggml_backend_dev_count()):
        handle = library.ggml_backend_dev_get(index)
        free, total = size(0), size(0)
        library.ggml_backend_dev_memory(handle, ctypes.byref(free), ctypes.byref(total))
        devices.append(ComputeDevice(
            name=text(library.ggml_backend_dev_name(handle)),
            description=text(library.ggml_backend_dev_description(handle)),
            kind=_DEVICE_KINDS.get(library.ggml_backend_dev_type(handle), "other"),
            free_bytes=free.value or None,
            total_bytes=total.value or None,
        ))
    return backends, tuple(devices)


@lru_cache(maxsize=1)
def llama_cpp_info() -> LlamaCppInfo:
    """Whether llama-cpp-python is installed, what its build was compiled for, and whether it can
    offload layers to a GPU here (a CUDA build on a machine without a working driver cannot)."""
    if importlib.util.find_spec("llama_cpp") is None:
        return LlamaCppInfo(installed=False)
    try:
        import llama_cpp  # optional native library; a broken build must not stop the app from starting
    except Exception as error:  # noqa: BLE001 — a broken native library raises OSError, RuntimeError, ...
        return LlamaCppInfo(installed=True, error=f"{type(error).__name__}: {error}")
    version = getattr(llama_cpp, "__version__", None)
    probe = getattr(llama_cpp, "llama_supports_gpu_offload", None)
    try:
        offload = bool(probe()) if callable(probe) else None
    except Exception as error:  # noqa: BLE001
        return LlamaCppInfo(installed=True, version=version, error=f"{type(error).__name__}: {error}")
    try:
        backends, devices = _ggml_backends_and_devices(llama_cpp)
    except (OSError, AttributeError, ValueError):
        backends, devices = (), ()  # an older build without ggml's device registry: offload says enough
    try:
        system_info = llama_cpp.llama_print_system_info().decode("utf-8", "replace").strip()
    except Exception:  # noqa: BLE001 — informative only
        system_info = None
    return LlamaCppInfo(installed=True, version=version, gpu_offload=offload, backends=backends,
                        devices=devices, system_info=system_info)


@dataclass(frozen=True)
class GgufShape:
    """What the GPU layer choice needs to know of a GGUF model: its layers and attention widths."""

    n_layer: int
    n_embd: int = 0
    n_head: int = 0
    n_head_kv: int = 0


def gguf_shape(path: str | os.PathLike[str]) -> GgufShape | None:
    """A GGUF model's shape from its header, read by llama.cpp itself without its weights (``vocab_only``;
    such a model has no hyperparameters loaded, so the header's keys are read). None when llama.cpp is
    missing or cannot read the file."""
    info = llama_cpp_info()
    if not info.installed or info.error:
        return None
    import llama_cpp  # optional native library, known to load (llama_cpp_info above)

    # llama.cpp logs every header key through llama-cpp-python's logger: errors only, as Llama(verbose=False)
    quiet = logging.getLogger("llama-cpp-python")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        params = llama_cpp.llama_model_default_params()
        params.vocab_only = True
        model = llama_cpp.llama_model_load_from_file(str(path).encode("utf-8"), params)
    finally:
        quiet.setLevel(level)
    if not model:
        return None
    try:
        def key(name: str) -> str | None:
            buffer = ctypes.create_string_buffer(256)
            if llama_cpp.llama_model_meta_val_str(model, name.encode("utf-8"), buffer, len(buffer)) < 0:
                return None
            return buffer.value.decode("utf-8", "replace")

        def number(name: str) -> int:
            value = key(f"{arch}.{name}")
            return int(value) if value and value.isdigit() else 0  # arrays (per-layer heads) read as 0

        arch = key("general.architecture")
        if not arch or not number("block_count"):
            return None
        return GgufShape(n_layer=number("block_count"), n_embd=number("embedding_length"),
                         n_head=number("attention.head_count"), n_head_kv=number("attention.head_count_kv"))
    finally:
        llama_cpp.llama_model_free(model)


# ----------------------------------------------------------------------------------------------- memory


@dataclass(frozen=True)
class MemoryReading:
    name: str
    free_bytes: int
    total_bytes: int | None
    source: str  # how it was read: "llama.cpp", "nvidia-smi", "pynvml", "psutil", "/proc/meminfo"


def parse_nvidia_smi(output: str) -> list[MemoryReading]:
    """Rows of ``nvidia-smi --query-gpu=name,memory.free,memory.total --format=csv,noheader,nounits``
    (MiB) as readings; rows that do not parse (``[N/A]``) are left out."""
    readings = []
    for line in output.splitlines():
        parts = [p.strip() for p in line.rsplit(",", 2)]
        if len(parts) != 3:
            continue
        name, free, total = parts
        if not (free.isdigit() and total.isdigit()):
            continue
        readings.append(MemoryReading(name, int(free) * MIB, int(total) * MIB, "nvidia-smi"))
    return readings


def _nvidia_smi() -> list[MemoryReading]:
    executable = shutil.which("nvidia-smi")
    if executable is None:
        return []
    try:
        done = subprocess.run(
            [executable, "--query-gpu=name,memory.free,memory.total", "--format=csv,noheader,nounits"],
            capture_output=True, text=True, timeout=10, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return []
    return parse_nvidia_smi(done.stdout) if done.returncode == 0 else []


def _pynvml() -> list[MemoryReading]:
    if importlib.util.find_spec("pynvml") is None:
        return []
    try:
        import pynvml  # optional; it loads the NVIDIA driver library

        pynvml.nvmlInit()
        try:
            readings = []
            for index in range(pynvml.nvmlDeviceGetCount()):
                handle = pynvml.nvmlDeviceGetHandleByIndex(index)
                name = pynvml.nvmlDeviceGetName(handle)
                memory = pynvml.nvmlDeviceGetMemoryInfo(handle)
                readings.append(MemoryReading(name.decode() if isinstance(name, bytes) else str(name),
                                              int(memory.free), int(memory.total), "pynvml"))
            return readings
        finally:
            pynvml.nvmlShutdown()
    except Exception:  # noqa: BLE001 — NVML missing or no driver: nothing to read
        return []


def gpu_memory() -> list[MemoryReading]:
    """Free and total memory of each GPU: as llama.cpp's own devices report it (CUDA, Metal, Vulkan),
    else nvidia-smi, else pynvml; [] when none can be read."""
    info = llama_cpp_info()
    devices = info.gpu_devices
    if devices:  # read again: free memory changes as models load (the info above is cached)
        import llama_cpp  # optional native library, already loaded by llama_cpp_info() above

        try:
            devices = tuple(d for d in _ggml_backends_and_devices(llama_cpp)[1] if d.kind in ("gpu", "igpu"))
        except (OSError, AttributeError, ValueError):
            pass
    from_llama = [MemoryReading(d.description or d.name, d.free_bytes, d.total_bytes, "llama.cpp")
                  for d in devices if d.free_bytes]
    return from_llama or _nvidia_smi() or _pynvml()


def parse_meminfo(text: str) -> tuple[int, int] | None:
    """(available, total) bytes from ``/proc/meminfo``."""
    values = {}
    for line in text.splitlines():
        match = re.match(r"(\w+):\s+(\d+)\s*kB", line)
        if match:
            values[match.group(1)] = int(match.group(2)) * 1024
    if "MemTotal" not in values:
        return None
    return values.get("MemAvailable", values.get("MemFree", 0)), values["MemTotal"]


def ram_memory() -> MemoryReading | None:
    """Available and total system memory (psutil when installed, else /proc/meminfo)."""
    try:
        import psutil  # optional: /proc/meminfo serves without it

        memory = psutil.virtual_memory()
        return MemoryReading("RAM", int(memory.available), int(memory.total), "psutil")
    except ImportError:
        pass
    try:
        parsed = parse_meminfo(Path("/proc/meminfo").read_text(encoding="ascii"))
    except OSError:
        return None
    return None if parsed is None else MemoryReading("RAM", parsed[0], parsed[1], "/proc/meminfo")


def human_bytes(count: int | None) -> str:
    if count is None:
        return "?"
    return f"{count / GIB:.1f} GiB" if count >= GIB else f"{count / MIB:.0f} MiB"


# ------------------------------------------------------------------------------------ GPU layer choice

# What stays free on the GPU besides the layers: llama.cpp's compute buffers, the CUDA/Metal context and
# other programs' growth. The larger of a fixed floor and a share of what is free.
VRAM_RESERVE_BYTES = 512 * MIB
VRAM_RESERVE_SHARE = 0.10

GpuLayers = int | Literal["auto"] | None


@dataclass(frozen=True)
class GpuLayerChoice:
    """What to pass to llama.cpp as ``n_gpu_layers`` and why, in words for the user and the summary."""

    n_gpu_layers: int  # 0: CPU only; -1: every layer
    reason: str
    fallback: bool = False  # a GPU was wanted and the CPU is used: tell the user once

    @property
    def device(self) -> str:
        return "cpu" if self.n_gpu_layers == 0 else "gpu"


def kv_cache_bytes(*, n_layer: int, n_ctx: int, n_embd: int, n_head: int, n_head_kv: int | None = None,
                   bytes_per_value: int = 2) -> int:
    """llama.cpp's key/value cache for ``n_ctx`` tokens (f16 by default): keys and values of every
    layer, narrower than the embedding when the model groups its attention heads (GQA)."""
    if n_layer <= 0 or n_ctx <= 0 or n_embd <= 0 or n_head <= 0:
        return 0
    kv_width = n_embd * (n_head_kv or n_head) // n_head
    return 2 * n_layer * n_ctx * kv_width * bytes_per_value


def choose_gpu_layers(layers: int | None, model_bytes: int, free_vram: int | None, offload_supported: bool | None,
                      *, context_bytes: int = 0, reserve_bytes: int | None = None, gpu_build: bool = False,
                      force_cpu: bool = False) -> GpuLayerChoice:
    """"auto" GPU layers: as many of the model's ``layers`` as fit in ``free_vram`` after a reserve.

    llama.cpp counts ``layers + 1`` offloadable layers (the repeating blocks and the output layer);
    weights and the key/value cache (``context_bytes``) are spread evenly over them. ``free_vram`` None
    means it cannot be read: then all layers go to the GPU, as llama.cpp itself would, and a failed load
    falls back to the CPU. ``gpu_build``: the build has a GPU backend even though offload is not
    possible (a CUDA build without a working driver), which deserves a word to the user.
    """
    if force_cpu:
        return GpuLayerChoice(0, "MMDOCSUM_DEVICE=cpu keeps the model on the CPU")
    if not offload_supported:
        if gpu_build:
            return GpuLayerChoice(
                0, "this llama.cpp was built for a GPU but finds none it can use (no driver, or a driver "
                "too old for it); running on the CPU", fallback=True)
        return GpuLayerChoice(
            0, "this llama.cpp build runs on the CPU only (built without CUDA, Metal or Vulkan; see "
            "'Using a GPU' in the README)")
    if free_vram is None:
        return GpuLayerChoice(-1, "free GPU memory cannot be read here; offloading every layer")
    reserve = reserve_bytes if reserve_bytes is not None else max(VRAM_RESERVE_BYTES, int(free_vram * VRAM_RESERVE_SHARE))
    usable = free_vram - reserve
    needed = model_bytes + context_bytes
    if not layers or layers < 1:  # layer count unknown: all or nothing
        if needed <= usable:
            return GpuLayerChoice(-1, f"the whole model ({human_bytes(needed)}) fits in {human_bytes(free_vram)} free GPU memory")
        return GpuLayerChoice(0, f"too little free GPU memory ({human_bytes(free_vram)}) for the model "
                              f"({human_bytes(needed)}); running on the CPU", fallback=True)
    offloadable = layers + 1
    per_layer = max(1, -(-needed // offloadable))
    fit = max(0, usable) // per_layer
    if fit >= offloadable:
        return GpuLayerChoice(-1, f"all {offloadable} layers ({human_bytes(needed)}) fit in "
                              f"{human_bytes(free_vram)} free GPU memory")
    if fit < 1:
        return GpuLayerChoice(0, f"too little free GPU memory ({human_bytes(free_vram)}, keeping "
                              f"{human_bytes(reserve)} spare) for even one layer of {human_bytes(per_layer)}; "
                              "running on the CPU", fallback=True)
    return GpuLayerChoice(int(fit), f"{fit} of {offloadable} layers fit in {human_bytes(free_vram)} free GPU "
                          f"memory (keeping {human_bytes(reserve)} spare); the rest run on the CPU")


def resolve_gpu_layers(requested: GpuLayers, *, layers: int | None, model_bytes: int, free_vram: int | None,
                       offload_supported: bool | None, context_bytes: int = 0, gpu_build: bool = False,
                       force_cpu: bool = False) -> GpuLayerChoice:
    """The user's setting (None or "auto": :func:`choose_gpu_layers`; a number: that number when the
    build can offload) turned into what llama.cpp gets."""
    if requested is None or requested == "auto":
        return choose_gpu_layers(layers, model_bytes, free_vram, offload_supported, context_bytes=context_bytes,
                                 gpu_build=gpu_build, force_cpu=force_cpu)
    if not isinstance(requested, int) or requested < -1:
        raise ValueError(f"GPU layers must be 'auto', -1 (all), 0 (CPU) or a positive number, not {requested!r}")
    if requested == 0:
        return GpuLayerChoice(0, "GPU layers set to 0: CPU only")
    if force_cpu:
        return GpuLayerChoice(0, "MMDOCSUM_DEVICE=cpu keeps the model on the CPU")
    if not offload_supported:
        why = ("it was built for a GPU but finds none it can use (no driver, or one too old for it)" if gpu_build
               else "it was compiled without CUDA, Metal or Vulkan")
        return GpuLayerChoice(0, f"this llama-cpp-python build cannot offload to a GPU ({why}); running on the CPU",
                              fallback=True)
    return GpuLayerChoice(requested, "every layer offloaded, as set" if requested == -1 else f"{requested} layers offloaded, as set")


def plan_gpu_layers(model_path: str | os.PathLike[str], *, requested: GpuLayers = None, n_ctx: int = 8192,
                    extra_bytes: int = 0, shape: GgufShape | None = None) -> GpuLayerChoice:
    """:func:`resolve_gpu_layers` with this machine's figures: the llama.cpp build, the free memory of
    its GPUs (llama.cpp splits layers over all of them), the model file's size plus ``extra_bytes``
    (a vision projector) and its key/value cache for ``n_ctx`` tokens. ``shape`` saves reading the file
    again when the caller has already read its header."""
    info = llama_cpp_info()
    path = Path(model_path)
    model_bytes = (path.stat().st_size if path.is_file() else 0) + extra_bytes
    wants_gpu = requested is None or requested == "auto" or requested != 0
    readings = gpu_memory() if info.gpu_offload and wants_gpu and not cpu_forced() else []
    if shape is None and info.gpu_offload and wants_gpu:
        shape = gguf_shape(path)
    context = 0 if shape is None else kv_cache_bytes(n_layer=shape.n_layer, n_ctx=n_ctx, n_embd=shape.n_embd,
                                                     n_head=shape.n_head, n_head_kv=shape.n_head_kv)
    return resolve_gpu_layers(
        requested, layers=None if shape is None else shape.n_layer, model_bytes=model_bytes,
        free_vram=sum(r.free_bytes for r in readings) if readings else None,
        offload_supported=info.gpu_offload, context_bytes=context, gpu_build=bool(info.gpu_backends),
        force_cpu=cpu_forced(),
    )


# ------------------------------------------------------------------------------------------- summaries


def torch_info() -> dict[str, Any]:
    """Whether torch (needed only to export CLIP checkpoints) is installed, without importing it."""
    return {
        "torch": importlib.util.find_spec("torch") is not None,
        "open_clip": importlib.util.find_spec("open_clip") is not None,
    }


ONNX_ROLES = ("text-embedder", "reranker", "ocr", "clip")
# RapidOCR is started with its CUDA switches off (models/ocr.py), so OCR stays on the CPU either way
ONNX_CPU_ONLY_ROLES = ("ocr",)
LLAMA_ROLES = ("gguf-llm", "gguf-vision", "mmproj")


def device_for_role(role: str) -> str:
    """The device a model of this role would run on here, in words for ``models list``."""
    if role in ONNX_ROLES:
        device = onnx_device()
        if device == "-":
            return "- (onnxruntime not installed)"
        return f"{'cpu' if role in ONNX_CPU_ONLY_ROLES else device} (onnxruntime)"
    if role in LLAMA_ROLES:
        if cpu_forced() and llama_cpp_info().gpu_offload:
            return "cpu (llama.cpp; MMDOCSUM_DEVICE=cpu)"
        return llama_cpp_info().device
    return "-"


def describe() -> dict[str, Any]:
    """Everything above in one dict, for ``mmdocsum models devices`` and bug reports."""
    info = llama_cpp_info()
    ram = ram_memory()
    return {
        "onnxruntime_providers": onnxruntime_providers(),
        "onnx_device": onnx_device(),
        "llama_cpp": {
            "installed": info.installed,
            "version": info.version,
            "gpu_offload": info.gpu_offload,
            "error": info.error,
            "backends": list(info.backends),
            "devices": [asdict(d) for d in info.devices],
        },
        "gpu_memory": [asdict(m) for m in gpu_memory()],
        "ram": None if ram is None else asdict(ram),
        "device_forced_cpu": cpu_forced(),
        **torch_info(),
    }

