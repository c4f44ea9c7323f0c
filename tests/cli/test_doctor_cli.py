"""`mmdocsum doctor` as a user runs it: text for a bug report, or JSON."""

from __future__ import annotations

import json

import llama_cpp

from tests.cli.test_extract_cli import run_cli


def test_doctor_text():
    result = run_cli("doctor")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    out = result.stdout
    for section in ("[app]", "[llama.cpp", "[onnxruntime", "[memory]", "[models]", "[keyring"):
        assert section in out
    assert llama_cpp.__version__ in out
    assert "smollm2-135m" in out


def test_doctor_json():
    result = run_cli("doctor", "--format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    llama = {row["label"]: row for rows in data["sections"].values() for row in rows}
    assert llama["llama-cpp-python"]["value"] == llama_cpp.__version__
    offload = llama["GPU offload"]
    assert offload["value"].startswith("yes" if llama_cpp.llama_supports_gpu_offload() else "no")
    assert all(row["advice"] for rows in data["sections"].values() for row in rows if row["ok"] is False)


def test_doctor_bad_format_is_one_line():
    result = run_cli("doctor", "--format", "yaml")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "invalid choice" in result.stderr
