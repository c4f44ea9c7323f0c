"""onnxruntime's telemetry stays off (issue 38, item 7; mmdocsum_desktop/offline.py).

onnxruntime 1.32 on Linux writes ``~/.cache/Microsoft/DeveloperTools/.onnxruntime/`` at its first
session and, in a process that lives over about ten seconds, looks up Microsoft's collector. The tests
run real sessions in child processes with a private HOME and XDG_CACHE_HOME, without the variables that
switch the telemetry off by themselves (ORT_DISABLE_TELEMETRY, and the CI markers the runtime honours),
so that the package is what keeps it off:

* a control (plain ``import onnxruntime``) shows the folder appears, so the check can see it;
* the app's way (``import mmdocsum_desktop`` → ``models.devices.make_session``, and reading a PDF, whose
  layout model runs in onnxruntime) creates no such folder;
* under strace, a 14-second life of the app's session opens no internet socket (native code: Python's
  audit hooks cannot see it); the Python-level guard (tests/security/netguard) records nothing either.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, SAMPLE_PDF
from tests.security.conftest import NETGUARD

MODEL = """
import sys
import onnx
from onnx import TensorProto, helper
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
graph = helper.make_graph([helper.make_node("Add", ["x", "x"], ["y"])], "add", [x], [y])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), sys.argv[1])
"""
CONTROL = """
import sys
import numpy as np
import onnxruntime
session = onnxruntime.InferenceSession(sys.argv[1], providers=["CPUExecutionProvider"])
print(session.run(None, {"x": np.ones(2, np.float32)})[0].tolist())
"""
APP = """
import sys, time
import numpy as np
import mmdocsum_desktop
from mmdocsum_desktop.document.reader import read_document
from mmdocsum_desktop.models.devices import make_session
session = make_session(sys.argv[1], prefer_gpu=False)
print(session.run(None, {"x": np.ones(2, np.float32)})[0].tolist())
if sys.argv[2] != "-":
    print(len(read_document(sys.argv[2]).blocks) > 0)
time.sleep(float(sys.argv[3]))
"""
# what switches onnxruntime's telemetry off without the app: kept out of the children
_SWITCHES = ("ORT_DISABLE_TELEMETRY", "GITHUB_ACTIONS", "TF_BUILD", "GITLAB_CI", "CI")


def _env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _SWITCHES and not k.startswith(("XDG_", "NETGUARD_"))}
    home = root / "home"
    (home / "cache").mkdir(parents=True, exist_ok=True)
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / "cache"), PYTHONPATH=str(REPO_ROOT),
               NETGUARD_LOG=str(root / "netguard.jsonl"), NETGUARD_MODE="record")
    return env


def _model(root: Path) -> Path:
    path = root / "add.onnx"
    subprocess.run([sys.executable, "-c", MODEL, str(path)], check=True, timeout=120)
    return path


def _microsoft(root: Path) -> list[str]:
    home = root / "home"
    return sorted(str(p.relative_to(home)) for p in home.rglob("*") if "Microsoft" in p.parts)


def test_the_control_shows_the_telemetry_folder_appears(tmp_path):
    """Without this, an empty folder below would prove nothing."""
    model = _model(tmp_path)
    result = subprocess.run([sys.executable, "-c", CONTROL, str(model)], env=_env(tmp_path), capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert any(p.endswith("deviceid") for p in _microsoft(tmp_path)), _microsoft(tmp_path)


def test_the_apps_sessions_write_no_telemetry_folder(tmp_path):
    model = _model(tmp_path)
    result = subprocess.run([sys.executable, "-c", APP, str(model), str(SAMPLE_PDF), "0"], env=_env(tmp_path),
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["[2.0,", "2.0]", "True"]
    assert _microsoft(tmp_path) == []
    assert not (tmp_path / "home" / ".cache").exists()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
def test_a_long_lived_session_opens_no_internet_socket(tmp_path):
    model = _model(tmp_path)
    trace = tmp_path / "strace.txt"
    # NETGUARD's sitecustomize records what Python code would send; strace sees the native runtime
    env = _env(tmp_path)
    env["PYTHONPATH"] = f"{NETGUARD}{os.pathsep}{REPO_ROOT}"
    result = subprocess.run(["strace", "-f", "-qq", "-e", "trace=socket,connect,sendto", "-o", str(trace),
                             sys.executable, "-c", APP, str(model), "-", "14"],
                            env=env, capture_output=True, text=True, timeout=300)
    if result.returncode != 0 and "ptrace" in result.stderr:
        pytest.skip(f"strace cannot trace here: {result.stderr.strip()[:200]}")
    assert result.returncode == 0, result.stderr[-2000:]
    calls = trace.read_text().splitlines()
    internet = [line for line in calls if "AF_INET" in line]
    assert internet == [], internet[:5]
    log = tmp_path / "netguard.jsonl"
    recorded = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    assert [r for r in recorded if "unix" not in json.dumps(r).lower()] == []
    assert _microsoft(tmp_path) == []
