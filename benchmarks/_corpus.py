"""Where the evaluation corpus lives (never copied into the repository) and where results are written.

The corpus is ``$MMDOCSUM_CORPUS``, else ``../shared/corpus`` beside the clone (the tests read the same
variable: tests/conftest.py). Results go to ``benchmarks/results/``, which git ignores: a result the
docs cite is copied by hand to ``docs/results/`` with the text that cites it.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("MMDOCSUM_CORPUS") or REPO_ROOT / ".." / "shared" / "corpus").resolve()
PAPERS = CORPUS / "papers"
GROUNDTRUTH = CORPUS / "docling_groundtruth"
RESULTS = REPO_ROOT / "benchmarks" / "results"
# The package's own sample paper: present in every clone and install.
SAMPLE_PDF = REPO_ROOT / "mmdocsum_desktop" / "resources" / "sample" / "wheat-04-00932.pdf"


def write_result(name: str, payload: dict) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    payload = {"python": sys.version.split()[0], "machine": platform.machine(), **payload}
    target = RESULTS / f"{name}.json"
    target.write_text(json.dumps(payload, indent=2) + "\n")
    return target
