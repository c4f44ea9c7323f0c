"""The type checker: mypy on the whole package, and --strict on the application layer and the schemas every front end shares,
run as CI runs the tests. A use case or a schema field whose type is lost (an untyped parameter, an
``Any`` returned as a str) fails here."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.slow

STRICT = ["mmdocsum_desktop/app", "mmdocsum_desktop/schemas"]


def test_the_application_layer_and_the_schemas_type_check_strictly(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--ignore-missing-imports",
         "--cache-dir", str(tmp_path / "mypy-cache"), *STRICT],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "Success" in result.stdout


def test_the_whole_package_type_checks(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--follow-imports=silent", "--ignore-missing-imports",
         "--cache-dir", str(tmp_path / "mypy-cache"), "mmdocsum_desktop"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=900,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "Success" in result.stdout
