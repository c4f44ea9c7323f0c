"""Where the shared real corpus lives: always beside the repository, never copied into it."""

from __future__ import annotations

import json
import platform
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
CORPUS = (REPO_ROOT / ".." / "shared" / "corpus").resolve()
PAPERS = CORPUS / "papers"
GROUNDTRUTH = CORPUS / "docling_groundtruth"
RESULTS = REPO_ROOT / "benchmarks" / "results"


def write_result(name: str, payload: dict) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    payload = {"python": sys.version.split()[0], "machine": platform.machine(), **payload}
    target = RESULTS / f"{name}.json"
    target.write_text(json.dumps(payload, indent=2) + "\n")
    return target
