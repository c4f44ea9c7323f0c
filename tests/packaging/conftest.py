from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
LINUX = REPO_ROOT / "packaging" / "linux"
APP_ID = "io.github.mmdocsum.Desktop"
ICONS = REPO_ROOT / "mmdocsum_desktop" / "resources" / "icons"


@pytest.fixture(scope="session")
def pyproject() -> dict:
    return tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def script_names(pyproject) -> set[str]:
    project = pyproject["project"]
    return set(project["scripts"]) | set(project["gui-scripts"])
