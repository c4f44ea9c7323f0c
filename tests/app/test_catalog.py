"""The models catalogue of the front ends (app/catalog.py) over the real registry, in a temporary data dir
(tests/app/conftest.py): what `mmdocsum models list` and the Settings dialog show."""

from __future__ import annotations

import hashlib
import struct
from pathlib import Path

import pytest

from mmdocsum_desktop.app import catalog
from mmdocsum_desktop.errors import ModelError, ModelFormatError, ModelNotFoundError


def test_rows_list_every_known_model_with_its_presence_and_device():
    rows = catalog.model_rows()
    entries = catalog.list_models()
    assert [r.name for r in rows] == [e.name for e in entries]
    assert rows, "the shipped manifests name at least one model"
    for row, entry in zip(rows, entries, strict=True):
        assert row.role == entry.role and row.role in catalog.ROLES
        assert row.present == catalog.presence(entry) and row.present in ("yes", "no", "parts")
        assert row.device == catalog.device_for_role(entry.role)
        assert row.to_dict()["install"] == (entry.install or None)
    gguf = catalog.model_rows("gguf-llm")
    assert gguf and all(r.role == "gguf-llm" for r in gguf)
    assert {r.name for r in gguf} < {r.name for r in rows}


def test_a_registered_file_is_listed_verified_changed_and_removed(tmp_path: Path):
    model = tmp_path / "tiny-reranker.onnx"
    model.write_bytes(b"not really onnx, but the registry only hashes it" * 10)
    entry = catalog.add_model(model, "reranker", "tiny-reranker")
    assert entry.size == model.stat().st_size
    row = next(r for r in catalog.model_rows("reranker") if r.name == "tiny-reranker")
    assert row.present == "yes" and row.size == entry.size
    assert [r.status for r in catalog.verify("tiny-reranker")] == [catalog.OK]

    model.write_bytes(b"changed" * 70)  # another file now, of another size
    assert catalog.presence(catalog.get_model("tiny-reranker")) == "no"
    assert [r.status for r in catalog.verify("tiny-reranker")] == [catalog.MISMATCH]

    with pytest.raises(ModelError):
        catalog.add_model(model, "reranker", "tiny-reranker")  # the name is taken
    catalog.remove_model("tiny-reranker")
    with pytest.raises(ModelNotFoundError):
        catalog.get_model("tiny-reranker")


def test_check_gguf_reads_the_header_and_refuses_what_llama_cpp_could_not_load(tmp_path: Path):
    empty_model = tmp_path / "empty.gguf"  # a valid GGUF v3 header: no metadata, no tensors
    empty_model.write_bytes(b"GGUF" + struct.pack("<I", 3) + struct.pack("<QQ", 0, 0))
    catalog.check_gguf(empty_model)

    truncated = tmp_path / "truncated.gguf"
    truncated.write_bytes(b"GGUF" + struct.pack("<I", 3))
    with pytest.raises(ModelFormatError, match="truncated"):
        catalog.check_gguf(truncated)
    not_gguf = tmp_path / "model.bin"
    not_gguf.write_bytes(b"PK\x03\x04 a zip file")
    with pytest.raises(ModelFormatError):
        catalog.check_gguf(not_gguf)
    with pytest.raises(ModelFormatError, match="not found"):
        catalog.check_gguf(tmp_path / "missing.gguf")


def test_file_sha256_is_the_sha256_of_the_bytes(tmp_path: Path):
    model = tmp_path / "weights.bin"
    model.write_bytes(bytes(range(256)) * 4099)  # more than one read chunk
    assert catalog.file_sha256(model) == hashlib.sha256(model.read_bytes()).hexdigest()
    with pytest.raises(OSError):
        catalog.file_sha256(tmp_path / "missing.bin")


def test_fitness_of_a_small_model_warns_and_names_the_use():
    verdict = catalog.fitness_for_model("SmolLM2-135M-Instruct.Q4_1.gguf", "judge")
    assert verdict.use == "judge" and verdict.verdict == "unfit" and verdict.warns
    assert "judge" in verdict.sentence()
    big = catalog.fitness_for_model("Qwen2.5-14B-Instruct-Q4_K_M.gguf", "summary_writer")
    assert big.verdict == "fit" and not big.warns
    assert set(catalog.USES) == set(catalog.USE_TITLES)


def test_folders_follow_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MMDOCSUM_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("MMDOCSUM_CACHE_DIR", str(tmp_path / "cache"))
    assert catalog.data_dir() == tmp_path / "data"
    assert catalog.cache_dir() == tmp_path / "cache"
    assert catalog.bench_runs_dir() == tmp_path / "data" / "bench-runs"


def test_devices_are_described_without_loading_a_model():
    described = catalog.describe_devices()
    assert {"onnxruntime_providers", "llama_cpp", "ram"} <= set(described)
    info = catalog.llama_cpp_info()
    assert described["llama_cpp"]["installed"] == info.installed
