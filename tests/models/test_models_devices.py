from __future__ import annotations

import importlib.util

import pytest

from mmdocsum_desktop.models import devices


@pytest.fixture(autouse=True)
def fresh_llama_probe():
    devices.llama_cpp_info.cache_clear()
    yield
    devices.llama_cpp_info.cache_clear()


def test_providers_cpu_always_last(monkeypatch):
    pytest.importorskip("onnxruntime")
    chosen = devices.choose_providers(prefer_gpu=True)
    assert chosen[-1] == devices.CPU
    assert set(chosen) <= set(devices.onnxruntime_providers())
    if devices.CUDA in devices.onnxruntime_providers():
        assert chosen[0] == devices.CUDA
    assert devices.choose_providers(prefer_gpu=False) == [devices.CPU]
    monkeypatch.setenv("MMDOCSUM_DEVICE", "cpu")
    assert devices.choose_providers(prefer_gpu=True) == [devices.CPU]
    assert devices.onnx_device() == "cpu"


def test_session_reports_its_provider():
    pytest.importorskip("onnxruntime")
    from mmdocsum_desktop.models.registry import get_model, is_present

    entry = get_model("rapidocr")
    if not is_present(entry):
        pytest.skip("rapidocr-onnxruntime is not installed")
    session = devices.make_session(entry.path("cls"), intra_op_threads=1, prefer_gpu=False)
    assert session.get_providers()[0] == devices.CPU


def test_broken_model_file_gives_a_model_error(tmp_path):
    pytest.importorskip("onnxruntime")
    from mmdocsum_desktop.errors import ModelError

    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a protobuf")
    with pytest.raises(ModelError, match="cannot load bad.onnx"):
        devices.make_session(bad)


def test_llama_cpp_absent_or_present():
    info = devices.llama_cpp_info()
    if importlib.util.find_spec("llama_cpp") is None:
        assert not info.installed and info.gpu_offload is None
        assert "not installed" in info.device
        assert devices.device_for_role("gguf-llm") == info.device
    else:
        assert info.installed
        assert info.error or isinstance(info.gpu_offload, bool)


def test_llama_cpp_that_fails_to_load(tmp_path, monkeypatch):
    if importlib.util.find_spec("llama_cpp") is not None:
        pytest.skip("a real llama_cpp is installed")
    fake = tmp_path / "site" / "llama_cpp"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise OSError('libllama.so: cannot open shared object file')\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    info = devices.llama_cpp_info()
    assert info.installed and "libllama.so" in info.error
    assert "does not load" in info.device


def test_describe_has_every_runtime():
    described = devices.describe()
    assert {"onnxruntime_providers", "onnx_device", "llama_cpp", "torch", "open_clip"} <= set(described)
    assert devices.device_for_role("text-embedder").endswith("(onnxruntime)")
