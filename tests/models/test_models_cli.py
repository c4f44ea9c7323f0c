"""`mmdocsum models ...` end to end through the real argument parser and entry point."""

from __future__ import annotations

import hashlib
import json

from mmdocsum_desktop.cli import main

GGUF = b"GGUF" + b"\x02" * 200


def test_list_shows_known_models_with_device(capsys):
    assert main(["models", "list"]) == 0
    out = capsys.readouterr().out
    table, _, hints = out.strip().partition("\n\n")
    header, *rows = table.splitlines()
    assert header.split()[:5] == ["NAME", "ROLE", "SIZE", "PRESENT", "DEVICE"]
    by_name = {row.split()[0]: row for row in rows}
    assert {"minilm-int8", "rapidocr", "smollm2-135m", "qwen2.5-coder-1.5b"} <= set(by_name)
    assert "onnxruntime" in by_name["minilm-int8"] or "- (" in by_name["minilm-int8"]
    assert "llama" in by_name["smollm2-135m"]
    # every known model that is not installed comes with the one command that installs it
    from mmdocsum_desktop.models.registry import get_model, presence

    missing = [name for name in by_name if presence(get_model(name)) != "yes" and get_model(name).install]
    for name in missing:
        assert f"  {name}: {get_model(name).install}" in hints, (name, hints)
    assert ("not installed; each is one command" in hints) == bool(missing)

    assert main(["models", "list", "--json", "--role", "ocr"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["name"] == "rapidocr" and row["size"] == 16189007 and row["present"] in ("yes", "no")


def test_add_verify_remove(tmp_path, capsys):
    model = tmp_path / "mine.gguf"
    model.write_bytes(GGUF)
    assert main(["models", "add", str(model), "--role", "gguf-llm", "--name", "mine"]) == 0
    assert "added mine (gguf-llm" in capsys.readouterr().out
    assert main(["models", "verify", "mine"]) == 0
    assert "mine: ok" in capsys.readouterr().out

    model.write_bytes(GGUF[:-1] + b"\x03")
    assert main(["models", "verify", "mine"]) == 1
    out = capsys.readouterr().out
    assert "mine: sha256 mismatch" in out and "expected" in out

    model.unlink()
    assert main(["models", "verify", "mine"]) == 1
    assert "mine: missing" in capsys.readouterr().out

    assert main(["models", "remove", "mine"]) == 0
    assert main(["models", "verify", "mine"]) == 2
    assert "no model named 'mine'" in capsys.readouterr().err


def test_user_errors_are_one_line(tmp_path, capsys):
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    assert main(["models", "add", str(text), "--role", "gguf-llm"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("mmdocsum: error:") and "not a GGUF" in err and "\n" not in err
    assert main(["models", "add", str(tmp_path / "absent.gguf"), "--role", "gguf-llm"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_download_through_the_cli(hf_env, tmp_path, capsys):
    content = b"onnx-ish bytes" * 1000
    digest = hf_env.add("acme/cli", "model.onnx", content)
    args = ["models", "download", "acme/cli", "model.onnx", "--endpoint", hf_env.url, "--sha256", digest]
    assert main([*args, "--dest", str(tmp_path / "dl"), "--role", "ocr", "--name", "cli-ocr"]) == 0
    path = capsys.readouterr().out.strip().splitlines()[-1]
    assert hashlib.sha256(open(path, "rb").read()).hexdigest() == digest
    assert main(["models", "list", "--json", "--role", "ocr"]) == 0
    names = [row["name"] for row in json.loads(capsys.readouterr().out)]
    assert "cli-ocr" in names
    assert (
        main(["models", "download", "acme/cli", "model.onnx", "--endpoint", hf_env.url, "--sha256", "1" * 64])
        == 2
    )
    assert "differs from the expected" in capsys.readouterr().err


def test_devices(capsys):
    assert main(["models", "devices"]) == 0
    described = json.loads(capsys.readouterr().out)
    assert "llama_cpp" in described and "onnx_device" in described
