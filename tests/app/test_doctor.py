"""`run_doctor` on this machine: real llama.cpp, onnxruntime, registry and keyring; no GPU is pretended."""

from __future__ import annotations

import json
import platform

import keyring
import llama_cpp
import onnxruntime
import pytest

from mmdocsum_desktop import __version__
from mmdocsum_desktop.app.doctor import DoctorReport, gpu_hardware_hint, run_doctor
from mmdocsum_desktop.models import devices


@pytest.fixture(scope="module")
def report() -> DoctorReport:
    devices.llama_cpp_info.cache_clear()
    return run_doctor()


def values(report: DoctorReport, section_start: str) -> dict[str, str]:
    return {f.label: f.value for f in report.findings if f.section.startswith(section_start)}


def test_app_section_reports_this_python_and_version(report):
    app = values(report, "app")
    assert app["mmdocsum"] == __version__
    assert app["Python"].startswith(platform.python_version())


def test_llama_section_reports_the_installed_build(report):
    llama = values(report, "llama.cpp")
    assert llama["llama-cpp-python"] == llama_cpp.__version__
    offload = bool(llama_cpp.llama_supports_gpu_offload())
    assert llama["GPU offload"].startswith("yes" if offload else "no")
    assert "CPU" in llama["built for"]
    finding = next(f for f in report.findings if f.label == "GPU offload")
    if not offload:
        # a CPU-only build is a "no" to fix only where there is a GPU it leaves unused
        hint = gpu_hardware_hint(devices.llama_cpp_info(), devices.gpu_memory())
        assert finding.ok is (False if hint else None)
        if hint:
            assert "GGML_CUDA" in finding.advice and hint in finding.value


def test_onnx_section_lists_the_real_providers(report):
    onnx = values(report, "onnxruntime")
    assert onnx["providers"] == ", ".join(onnxruntime.get_available_providers())
    if devices.CUDA not in onnxruntime.get_available_providers():
        assert onnx["runs on"].startswith("cpu")


def test_every_registered_model_has_a_device(report):
    from mmdocsum_desktop.models.registry import is_present, list_models

    models = values(report, "models")
    for entry in list_models():
        assert entry.name in models
        if is_present(entry) and entry.role in devices.ONNX_ROLES:
            assert devices.device_for_role(entry.role) in models[entry.name]
    smollm = models["smollm2-135m"]
    if not llama_cpp.llama_supports_gpu_offload():
        assert "cpu (0 GPU layers" in smollm and "CPU only" in smollm


def test_memory_and_keyring_are_read(report):
    memory = values(report, "memory")
    assert "available of" in memory["RAM"]
    backend = keyring.get_keyring()
    assert type(backend).__name__ in values(report, "keyring")["backend"]


def test_every_no_says_what_to_do_and_text_and_json_agree(report):
    for finding in report.problems:
        assert finding.advice, finding
    text = report.to_text()
    data = json.loads(json.dumps(report.to_dict()))
    for finding in report.findings:
        assert finding.value in text
    assert len(data["problems"]) == len(report.problems)
    assert sum(len(rows) for rows in data["sections"].values()) == len(report.findings)


def test_forcing_the_cpu_shows(monkeypatch):
    monkeypatch.setenv("MMDOCSUM_DEVICE", "cpu")
    forced = run_doctor()
    assert "cpu" in values(forced, "app")["MMDOCSUM_DEVICE"]
    assert values(forced, "onnxruntime")["runs on"].startswith("cpu")


def test_the_build_is_portable_and_the_model_trial_generates(report):
    llama = values(report, "llama.cpp")
    # the README's install builds without AVX-512 and AMX: the test machine's build must say so
    assert llama["portable build"].startswith("yes"), llama.get("system info")
    trial = values(report, "language model trial")
    assert "smollm2" in trial["model"].lower() or "SmolLM2" in trial["model"]
    assert trial["trial"].startswith("works:") and "tokens/s" in trial["trial"]


def test_a_native_build_is_named_with_the_reinstall_command():
    from mmdocsum_desktop.app.doctor import native_build_features

    native = "CPU : SSE3 = 1 | AVX2 = 1 | AVX512 = 1 | AVX512_VNNI = 1 | AMX_INT8 = 1 | OPENMP = 1 |"
    assert native_build_features(native) == ["AVX512", "AVX512_VNNI", "AMX_INT8"]
    assert native_build_features("CPU : SSE3 = 1 | AVX2 = 1 | AVX512 = 0 | FMA = 1 |") == []


def test_a_configured_model_that_cannot_run_is_a_no_with_what_to_do(tmp_path, monkeypatch):
    from mmdocsum_desktop.schemas.settings import EngineSettings, LlamaSettings, Settings, save_settings

    monkeypatch.setenv("MMDOCSUM_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("MMDOCSUM_DATA_DIR", str(tmp_path / "data"))
    broken = tmp_path / "truncated.gguf"
    broken.write_bytes(b"GGUF" + b"\x03\x00\x00\x00" + b"\x00" * 40)
    save_settings(Settings(engines=EngineSettings(engine="llama", llama=LlamaSettings(model=str(broken)))))
    checked = run_doctor()
    finding = next(f for f in checked.findings if f.section == "language model trial" and f.label == "trial")
    assert finding.ok is False and finding.value.startswith("failed:") and finding.advice
    assert any(p.startswith("language model trial: trial:") for p in checked.to_dict()["problems"])
