"""House rules checked by tools: the core never imports Qt (import-linter), and the code is lint-clean."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent))
    assert found, f"{name} is installed by the test extra"
    return found


def test_import_contracts_hold():
    result = subprocess.run([_tool("lint-imports")], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    declared = (REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8").count("[[tool.importlinter.contracts]]")
    assert f"Contracts: {declared} kept, 0 broken" in result.stdout


def test_ruff_is_clean():
    result = subprocess.run(
        [_tool("ruff"), "check", "mmdocsum_desktop", "tests", "benchmarks", "tools"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_gui_entry_point_answers_version():
    result = subprocess.run(
        [sys.executable, "-m", "mmdocsum_desktop.gui.app", "--version"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0 and result.stdout.startswith("mmdocsum-desktop ")
