"""`mmdocsum extract` end to end, in a subprocess as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import DATA_PAPERS


def run_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mmdocsum_desktop", *args], capture_output=True, text=True, timeout=timeout
    )


def test_extract_writes_outputs_and_prints_a_summary_table(tmp_path):
    result = run_cli("extract", str(DATA_PAPERS / "pymupdf_test_3780.pdf"), "-o", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    lines = dict(line.split(None, 1) for line in result.stdout.strip().splitlines() if line.strip())
    assert lines["pages"] == "5"
    assert "Figure 1, Figure 2, Figure 3" in lines["figures"]
    assert float(lines["seconds"]) > 0
    data = json.loads((tmp_path / "out" / "document.json").read_text())
    assert len(list((tmp_path / "out" / "figures").glob("*.png"))) == len(data["figures"]) + len(data["tables"])


def test_version_and_help():
    version = run_cli("--version")
    assert version.returncode == 0 and version.stdout.startswith("mmdocsum ")
    no_command = run_cli()
    assert no_command.returncode == 2 and "extract" in no_command.stdout
