"""download() through huggingface_hub against a real HTTP server on 127.0.0.1 started by the tests."""

from __future__ import annotations

import hashlib
import random

import pytest

from mmdocsum_desktop.errors import JobCancelled, ModelChecksumError, ModelDownloadError, ModelError
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.models.registry import download, get_model, verify

BIG = 24 * 1024 * 1024  # more than two of huggingface_hub's 10 MiB download chunks


def test_download_small_file_with_expected_sha256(hf_env, isolated_dirs):
    content = b"tiny model weights\n" * 100
    expected = hf_env.add("acme/tiny", "weights.bin", content)
    path = download("acme/tiny", "weights.bin", sha256=expected, endpoint=hf_env.url)
    assert path.read_bytes() == content
    assert path == isolated_dirs[0] / "downloads" / "acme--tiny" / "weights.bin"
    methods = [(r["method"], r["path"]) for r in hf_env.requests if r["path"].endswith("/weights.bin")]
    assert ("HEAD", "/acme/tiny/resolve/main/weights.bin") in methods
    assert ("GET", "/acme/tiny/resolve/main/weights.bin") in methods
    # already there and intact: no second GET
    gets = len(hf_env.gets("weights.bin"))
    assert download("acme/tiny", "weights.bin", sha256=expected, endpoint=hf_env.url) == path
    assert len(hf_env.gets("weights.bin")) == gets


def test_endpoint_from_hf_endpoint_env_and_register(hf_env, monkeypatch, tmp_path):
    content = b"GGUF" + b"\x01" * 1000
    hf_env.add("acme/llm", "small.gguf", content)
    monkeypatch.setenv("HF_ENDPOINT", hf_env.url)
    path = download("acme/llm", "small.gguf", dest_dir=tmp_path / "dl", role="gguf-llm", name="small-llm")
    assert path == tmp_path / "dl" / "small.gguf"
    entry = get_model("small-llm")
    assert entry.source == "download acme/llm/small.gguf"
    assert entry.file().sha256 == hashlib.sha256(content).hexdigest()
    assert verify("small-llm")[0].ok


def test_wrong_sha256_is_refused_and_nothing_is_kept(hf_env, isolated_dirs):
    hf_env.add("acme/tiny", "bad.bin", b"some bytes")
    with pytest.raises(ModelChecksumError, match="differs"):
        download("acme/tiny", "bad.bin", sha256="0" * 64, endpoint=hf_env.url)
    folder = isolated_dirs[0] / "downloads" / "acme--tiny"
    assert not (folder / "bad.bin").exists()
    assert not list((folder / ".partial").glob("*"))
    with pytest.raises(ModelError, match="64 hexadecimal"):
        download("acme/tiny", "bad.bin", sha256="abc", endpoint=hf_env.url)


def test_missing_file_and_unreachable_server(hf_env):
    with pytest.raises(ModelDownloadError, match="cannot reach"):
        download("acme/tiny", "absent.bin", endpoint=hf_env.url)
    with pytest.raises(ModelDownloadError):
        download("acme/tiny", "x.bin", endpoint="http://127.0.0.1:9")  # nothing listens on port 9


def test_cancel_then_resume_with_range_request(hf_env, isolated_dirs):
    content = random.Random(7).randbytes(BIG)
    expected = hf_env.add("acme/big", "model.onnx", content)
    progress: list[tuple[int, int]] = []

    def cancel_after_first_chunk(done: int, total: int, what: str) -> None:
        progress.append((done, total))
        if done >= 10 * 1024 * 1024:
            control.cancel()

    control = JobControl(on_progress=cancel_after_first_chunk)
    with pytest.raises(JobCancelled):
        download("acme/big", "model.onnx", sha256=expected, endpoint=hf_env.url, control=control)
    assert progress[-1][1] == BIG
    partials = list((isolated_dirs[0] / "downloads" / "acme--big" / ".partial").glob("*.part"))
    assert len(partials) == 1
    kept = partials[0].stat().st_size
    assert 0 < kept < BIG
    assert not (isolated_dirs[0] / "downloads" / "acme--big" / "model.onnx").exists()

    resumed: list[tuple[int, int]] = []
    path = download(
        "acme/big",
        "model.onnx",
        sha256=expected,
        endpoint=hf_env.url,
        control=JobControl(on_progress=lambda d, t, w: resumed.append((d, t))),
    )
    assert hashlib.sha256(path.read_bytes()).hexdigest() == expected
    last_get = hf_env.gets("model.onnx")[-1]
    assert last_get["range"] == f"bytes={kept}-"
    assert resumed[0][0] >= kept  # progress starts where the partial file ended
    assert not partials[0].exists()
