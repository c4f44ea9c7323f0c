"""Fixtures of the command-line tests: each test module gets its own cache and data folders, used both
by subprocesses (``env``) and by ``main()`` run in this process (``cli``)."""

from __future__ import annotations

import os

import pytest

from mmdocsum_desktop.cli import main
from tests.engines.conftest import smollm  # noqa: F401 — the SmolLM2 GGUF for the judge's command-line tests


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """The environment of a ``python -m mmdocsum_desktop`` subprocess: this module's own folders."""
    root = tmp_path_factory.mktemp("cli-dirs")
    return {**os.environ, "MMDOCSUM_CACHE_DIR": str(root / "cache"), "MMDOCSUM_DATA_DIR": str(root / "data")}


@pytest.fixture()
def cli(env, monkeypatch, capsys):
    """Run ``mmdocsum ARGS`` in this process: (exit code, stdout, stderr)."""
    monkeypatch.setenv("MMDOCSUM_CACHE_DIR", env["MMDOCSUM_CACHE_DIR"])
    monkeypatch.setenv("MMDOCSUM_DATA_DIR", env["MMDOCSUM_DATA_DIR"])

    def run(*args: str) -> tuple[int, str, str]:
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run
