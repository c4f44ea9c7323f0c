"""The type checker, as configured in pyproject.toml's [tool.mypy]: the whole package under ``strict``, the
application layer, the schemas, the command line and the benchmarks with no relaxation, the other modules
with the relaxations listed there. One command, the one a developer runs: ``mypy``. A use case or schema
field whose type is lost (an untyped parameter, an ``Any`` returned as a str) fails here."""

from __future__ import annotations

import subprocess
import sys
import tomllib

import pytest

from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.slow

# the packages every front end and benchmark goes through: strict, never relaxed
STRICT_PACKAGES = ("mmdocsum_desktop.app", "mmdocsum_desktop.schemas", "mmdocsum_desktop.cli", "mmdocsum_desktop.bench")


def mypy_config() -> dict:
    return tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]


def test_the_package_type_checks_with_the_projects_mypy_config(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy-cache")],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=900,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "Success" in result.stdout


def test_strict_is_on_and_no_relaxation_touches_the_strict_packages():
    config = mypy_config()
    assert config["strict"] is True and config["files"] == ["mmdocsum_desktop"]
    for override in config.get("overrides", []):
        modules = override["module"] if isinstance(override["module"], list) else [override["module"]]
        for module in modules:
            assert not module.startswith(STRICT_PACKAGES), f"{module} is in a strict package"
