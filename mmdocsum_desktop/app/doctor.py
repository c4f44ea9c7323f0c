"""`mmdocsum doctor` and the Settings panel of the same name: what the app will run on, and what to do
about each "no". The report is plain data (:class:`DoctorReport`); its text form is what a user pastes
into a bug report, its dict form is ``--format json``. No Qt here: the GUI shows the same report.
"""

from __future__ import annotations

import os
import platform
import re
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from mmdocsum_desktop import __version__
from mmdocsum_desktop.app.qt_libraries import XCB_PLUGIN_LIBRARIES, check_xcb_libraries
from mmdocsum_desktop.engines.llama import resolve_model_path
from mmdocsum_desktop.engines.llama_process import REINSTALL_HINT, ModelTrial
from mmdocsum_desktop.engines.llama_process import try_model as trial_in_child
from mmdocsum_desktop.models import devices
from mmdocsum_desktop.models.devices import human_bytes
from mmdocsum_desktop.models.registry import get_model, is_present, list_models
from mmdocsum_desktop.schemas.settings import load_settings

README_GPU = "see 'Using a GPU' in the README"

# What to do when a GPU exists and a runtime cannot use it; one line each.
REBUILD_LLAMA = (
    "reinstall llama-cpp-python for your GPU: NVIDIA: CMAKE_ARGS=\"-DGGML_CUDA=on\" pip install --force-reinstall "
    "--no-cache-dir llama-cpp-python; Apple: -DGGML_METAL=on; other GPUs: -DGGML_VULKAN=on (" + README_GPU + ")"
)
INSTALL_ORT_GPU = (
    "NVIDIA GPU: pip uninstall -y onnxruntime && pip install onnxruntime-gpu (needs the CUDA 12 and cuDNN 9 "
    "libraries; " + README_GPU + ")"
)


@dataclass(frozen=True)
class Finding:
    section: str
    label: str
    value: str
    ok: bool | None = None  # None: for information; False: a "no" that comes with what to do
    advice: str | None = None


@dataclass
class DoctorReport:
    findings: list[Finding] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, section: str, label: str, value: Any, ok: bool | None = None, advice: str | None = None) -> None:
        self.findings.append(Finding(section, label, str(value), ok, advice if ok is False else None))

    @property
    def problems(self) -> list[Finding]:
        return [f for f in self.findings if f.ok is False]

    def sections(self) -> dict[str, list[Finding]]:
        grouped: dict[str, list[Finding]] = {}
        for finding in self.findings:
            grouped.setdefault(finding.section, []).append(finding)
        return grouped

    def to_dict(self) -> dict[str, Any]:
        return {
            "sections": {name: [asdict(f) for f in rows] for name, rows in self.sections().items()},
            "problems": [f"{f.section}: {f.label}: {f.advice}" for f in self.problems],
            "seconds": round(self.seconds, 3),
        }

    def to_text(self) -> str:
        width = max((len(f.label) for f in self.findings), default=10) + 2
        lines = ["mmdocsum doctor: what this machine will run the app's models on (paste it into a bug report)"]
        for name, rows in self.sections().items():
            lines += ["", f"[{name}]"]
            for finding in rows:
                mark = {True: "ok ", False: "NO ", None: "   "}[finding.ok]
                lines.append(f"  {mark}{finding.label.ljust(width)}{finding.value}")
                if finding.advice:
                    lines.append(f"     {'':<{width}}what to do: {finding.advice}")
        problems = self.problems
        lines += ["", f"{len(problems)} thing(s) to fix" if problems else "nothing to fix",
                  f"(checked in {self.seconds:.1f} s)"]
        return "\n".join(lines) + "\n"


def _package_version(name: str) -> str | None:
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def _app(report: DoctorReport) -> None:
    report.add("app", "mmdocsum", __version__)
    report.add("app", "Python", f"{platform.python_version()} ({sys.executable})")
    report.add("app", "system", f"{platform.platform()} · {platform.machine()} · {os.cpu_count()} CPU threads")
    if devices.cpu_forced():
        report.add("app", "MMDOCSUM_DEVICE", "cpu: every model is kept on the CPU", ok=None)


def _nvidia_present(info: devices.LlamaCppInfo, gpus: list[devices.MemoryReading]) -> bool:
    return (any(r.source in ("nvidia-smi", "pynvml") for r in gpus) or "CUDA" in info.backends
            or Path("/dev/nvidia0").exists())


def gpu_hardware_hint(info: devices.LlamaCppInfo, gpus: list[devices.MemoryReading]) -> str | None:
    """A GPU that a CPU-only build leaves unused, as far as can be told without a GPU runtime; None when
    there is no sign of one (then a CPU-only build is not a problem to fix)."""
    if gpus or info.gpu_devices:
        return ", ".join(r.name for r in gpus) or ", ".join(d.description for d in info.gpu_devices)
    if _nvidia_present(info, gpus):
        return "an NVIDIA GPU (/dev/nvidia0)"
    if sys.platform == "darwin" and platform.machine() == "arm64":
        return "Apple Silicon (Metal)"
    if sorted(Path("/dev/dri").glob("renderD*")):
        return "a GPU render node (/dev/dri): Vulkan may reach it"
    return None


def _llama(report: DoctorReport, info: devices.LlamaCppInfo, gpus: list[devices.MemoryReading]) -> None:
    section = "llama.cpp (language models)"
    if not info.installed:
        report.add(section, "llama-cpp-python", "not installed", ok=False,
                   advice="pip install llama-cpp-python (" + README_GPU + " for a GPU build)")
        return
    if info.error:
        report.add(section, "llama-cpp-python", f"installed but does not load: {info.error}", ok=False,
                   advice="reinstall it: pip install --force-reinstall --no-cache-dir llama-cpp-python; a CUDA "
                   "build also needs the NVIDIA driver")
        return
    report.add(section, "llama-cpp-python", info.version or "?", ok=True)
    report.add(section, "built for", ", ".join(info.backends) or "? (this build does not list its backends)")
    if info.gpu_offload:
        report.add(section, "GPU offload", "yes", ok=True)
    elif info.gpu_backends:
        report.add(section, "GPU offload", f"no: built for {', '.join(info.gpu_backends)} but no such GPU is usable",
                   ok=False, advice="install or update the GPU driver (NVIDIA: a driver new enough for the CUDA "
                   "version the wheel was built with; `nvidia-smi` must work)")
    elif gpu_hardware_hint(info, gpus):
        report.add(section, "GPU offload", f"no: this build runs on the CPU only, and this machine has "
                   f"{gpu_hardware_hint(info, gpus)}", ok=False, advice=REBUILD_LLAMA)
    else:
        report.add(section, "GPU offload", "no: this build runs on the CPU only (and no GPU is found here)")
    for device in info.devices:
        memory = f" · {human_bytes(device.free_bytes)} free of {human_bytes(device.total_bytes)}" if device.total_bytes else ""
        report.add(section, f"device {device.name}", f"{device.kind}: {device.description}{memory}")
    if info.system_info:
        report.add(section, "system info", info.system_info)
        risky = native_build_features(info.system_info)
        if risky:
            report.add(section, "portable build", f"no: built with {', '.join(risky)} (the build machine's own "
                       "CPU): it can crash on other CPUs, and the AMX kernels crash on some that have them",
                       ok=False, advice=f"reinstall a portable build: {REINSTALL_HINT}")
        else:
            report.add(section, "portable build", "yes (no AVX-512 or AMX kernels compiled in)", ok=True)


# Instruction sets a portable build leaves out: they exist on some CPUs only, and llama.cpp's AMX
# kernels have crashed at the first decode on CPUs that do have AMX (issue 22).
_NATIVE_ONLY = ("AVX512", "AVX512_VBMI", "AVX512_VNNI", "AVX512_BF16", "AMX_INT8", "AMX_BF16", "AMX_TILE")


def native_build_features(system_info: str) -> list[str]:
    """The CPU features of ``llama_print_system_info()`` that only a native build turns on."""
    found = {name for name, flag in re.findall(r"([A-Z0-9_]+) = (1)", system_info)}
    return [name for name in _NATIVE_ONLY if name in found]


def _model_trial(report: DoctorReport, info: devices.LlamaCppInfo, try_model: bool) -> None:
    """Load the configured GGUF (else the packaged SmolLM2) in a child process and generate a few tokens."""
    section = "language model trial"
    if not info.installed or info.error:
        return
    path, why = _model_to_try()
    if path is None:
        report.add(section, "model", "none configured and none installed: nothing to try")
        return
    if not try_model:
        report.add(section, "model", f"{path.name} ({why}): not tried (--no-model-trial)")
        return
    trial = check_local_model(path)
    report.add(section, "model", f"{path.name} ({why})")
    report.add(section, "trial", trial.summary(), ok=trial.ok, advice=trial.advice)
    if trial.ok:
        report.add(section, "first token", f"{trial.first_token_seconds:.2f} s after the prompt was sent")


def _model_to_try() -> tuple[Path | None, str]:
    try:
        configured = load_settings().engines.llama.model
    except Exception:  # noqa: BLE001 — a broken settings file is reported where settings are edited
        configured = None
    if configured:
        try:
            return resolve_model_path(configured), "the model in the settings"
        except Exception as error:  # noqa: BLE001
            return None, str(error)
    try:
        entry = get_model("smollm2-135m")
        if is_present(entry):
            return entry.path("model"), "no model configured: the packaged SmolLM2, to test the build"
    except Exception:  # noqa: BLE001
        pass
    return None, "none"


def _onnx(report: DoctorReport, gpus: list[devices.MemoryReading], nvidia: bool) -> None:
    section = "onnxruntime (embedder, reranker, OCR, CLIP)"
    providers = devices.onnxruntime_providers()
    if not providers:
        report.add(section, "onnxruntime", "not installed", ok=False, advice="pip install onnxruntime")
        return
    package = "onnxruntime-gpu" if _package_version("onnxruntime-gpu") else "onnxruntime"
    report.add(section, "package", f"{package} {_package_version(package) or '?'}", ok=True)
    report.add(section, "providers", ", ".join(providers))
    chosen = devices.choose_providers()
    if devices.CUDA not in providers:
        report.add(section, "runs on", "cpu: this onnxruntime has no CUDA provider", ok=False if nvidia else None,
                   advice=INSTALL_ORT_GPU)
        return
    if devices.cpu_forced():
        report.add(section, "runs on", "cpu (MMDOCSUM_DEVICE=cpu)")
        return
    used = _probe_onnx_provider(chosen)
    if used is None:
        report.add(section, "runs on", f"{devices.provider_device(chosen[0])} (not tried: no ONNX model installed to try it with)")
    elif used == devices.CUDA:
        report.add(section, "runs on", "cuda (a session started on CUDAExecutionProvider)", ok=True)
    else:
        report.add(section, "runs on", "cpu: the CUDA provider is offered but did not start", ok=False,
                   advice="install the CUDA 12 and cuDNN 9 runtime libraries that onnxruntime-gpu needs (or "
                   "pip install onnxruntime again for the CPU); `nvidia-smi` must work")


def _probe_onnx_provider(providers: list[str]) -> str | None:
    """Start one small real session on the chosen providers and say which one it ended up on."""
    for entry in list_models():
        if entry.role not in devices.ONNX_ROLES or not is_present(entry):
            continue
        onnx_files = [f for f in entry.files if f.path.endswith(".onnx")]
        if not onnx_files:
            continue
        smallest = min(onnx_files, key=lambda f: f.size or 0)
        try:
            path = entry.path(smallest.kind)
            return str(devices.make_session(path, intra_op_threads=1).get_providers()[0])
        except Exception:  # noqa: BLE001 — the probe only informs; the model's own load reports errors
            continue
    return None


def _memory(report: DoctorReport, gpus: list[devices.MemoryReading], nvidia: bool) -> None:
    section = "memory"
    ram = devices.ram_memory()
    if ram is None:
        report.add(section, "RAM", "cannot be read here")
    else:
        report.add(section, "RAM", f"{human_bytes(ram.free_bytes)} available of {human_bytes(ram.total_bytes)} ({ram.source})")
    if gpus:
        for reading in gpus:
            report.add(section, f"GPU {reading.name}",
                       f"{human_bytes(reading.free_bytes)} free of {human_bytes(reading.total_bytes)} ({reading.source})")
    elif nvidia:
        report.add(section, "GPU memory", "cannot be read", ok=False,
                   advice="`nvidia-smi` must run (it comes with the NVIDIA driver), or pip install nvidia-ml-py")
    else:
        report.add(section, "GPU memory", "no GPU found (llama.cpp, nvidia-smi and NVML see none)")


def _models(report: DoctorReport, info: devices.LlamaCppInfo) -> None:
    section = "models"
    requested, n_ctx = _llama_settings()
    try:
        entries = list_models()
    except Exception as error:  # noqa: BLE001 — a damaged model index is reported, not fatal here
        report.add(section, "registry", f"cannot be read: {error}", ok=False,
                   advice="run `mmdocsum models list` for the details")
        return
    for entry in entries:
        present = is_present(entry)
        device = devices.device_for_role(entry.role)
        if not present:
            report.add(section, entry.name, f"{entry.role} · not installed", ok=None)
            continue
        if entry.role in ("gguf-llm", "gguf-vision") and info.installed and not info.error:
            try:
                choice = devices.plan_gpu_layers(entry.path("model"), requested=requested, n_ctx=n_ctx)
                layers = "all layers" if choice.n_gpu_layers == -1 else f"{choice.n_gpu_layers} GPU layers"
                device = f"{choice.device} ({layers}: {choice.reason})"
            except Exception as error:  # noqa: BLE001
                device = f"{device} (GPU layers not planned: {error})"
        report.add(section, entry.name, f"{entry.role} · {device}")


def _llama_settings() -> tuple[devices.GpuLayers, int]:
    """The GPU layers and context length the app would use (the saved settings, else the defaults)."""
    try:
        llama = load_settings().engines.llama
        return llama.n_gpu_layers, llama.n_ctx
    except Exception:  # noqa: BLE001 — a broken settings file is reported where settings are edited
        return None, 8192


def _keyring(report: DoctorReport) -> None:
    section = "keyring (API keys of OpenAI-compatible endpoints)"
    try:  # keyring's backends import system libraries (D-Bus, Keychain): only when the doctor looks
        import keyring  # backends load system libraries: only when the doctor looks
        from keyring.backends import fail  # with keyring, above
    except Exception as error:  # noqa: BLE001 — keyring's backends import system libraries
        report.add(section, "backend", f"keyring does not load: {error}", ok=False, advice="pip install keyring")
        return
    try:
        backend = keyring.get_keyring()
    except Exception as error:  # noqa: BLE001
        report.add(section, "backend", f"none usable: {error}", ok=False,
                   advice="install a Secret Service (GNOME Keyring, KWallet) or pip install keyrings.alt")
        return
    name = f"{type(backend).__module__}.{type(backend).__name__}"
    if isinstance(backend, fail.Keyring) or "null" in name.lower():
        report.add(section, "backend", f"{name}: keys cannot be stored", ok=False,
                   advice="only needed for endpoints with an API key: install a Secret Service (GNOME Keyring, "
                   "KWallet) or pip install keyrings.alt")
    else:
        report.add(section, "backend", name, ok=True)


def _qt_libraries(report: DoctorReport) -> None:
    section = "desktop window (Qt on X11)"
    check = check_xcb_libraries()
    if check is None:
        report.add(section, "system libraries", f"not needed on {platform.system()}")
    elif check.missing:
        report.add(section, "system libraries", f"missing: {', '.join(check.missing)}", ok=False,
                   advice=f"{check.advice} (Qt would only say that xcb-cursor0 is needed and not open the window)")
    else:
        report.add(section, "system libraries", f"all {len(XCB_PLUGIN_LIBRARIES)} that Qt's xcb plugin needs",
                   ok=True)


def check_local_model(path: Path, *, n_threads: int | None = None) -> ModelTrial:
    """A real load and a few tokens of the GGUF at ``path`` in a child process (doctor, and Settings ▸
    Models before "Use this model" switches): a crash is reported here, never felt by the app."""
    return trial_in_child(path, n_threads=n_threads)


def run_doctor(*, on_step: Callable[[str], None] | None = None, try_model: bool = True) -> DoctorReport:
    """Look at this machine and say what the app's models will run on. Reads, never changes anything;
    ``on_step`` hears the name of each part as it starts (for a progress line)."""
    started = time.perf_counter()
    report = DoctorReport()
    steps: list[tuple[str, Callable[[], None]]] = []
    state: dict[str, Any] = {}

    def probe() -> None:
        state["info"] = devices.llama_cpp_info()
        state["gpus"] = devices.gpu_memory()
        state["nvidia"] = _nvidia_present(state["info"], state["gpus"])

    steps = [
        ("app", lambda: _app(report)),
        ("devices", probe),
        ("llama.cpp", lambda: _llama(report, state["info"], state["gpus"])),
        ("onnxruntime", lambda: _onnx(report, state["gpus"], state["nvidia"])),
        ("memory", lambda: _memory(report, state["gpus"], state["nvidia"])),
        ("models", lambda: _models(report, state["info"])),
        ("language model", lambda: _model_trial(report, state["info"], try_model)),
        ("keyring", lambda: _keyring(report)),
        ("desktop window", lambda: _qt_libraries(report)),
    ]
    for name, step in steps:
        if on_step is not None:
            on_step(name)
        step()
    said = devices.fallback_messages()
    for message in said:
        report.add("fallbacks so far", "said", message)
    report.seconds = time.perf_counter() - started
    return report
