from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

# What the default suite reads: openly licensed papers committed with the tests (tests/data/ATTRIBUTION.md)
# and the sample paper that ships inside the package (the one the README's first command summarises).
DATA = REPO_ROOT / "tests" / "data"
DATA_PAPERS = DATA / "papers"
SAMPLE_PDF = REPO_ROOT / "mmdocsum_desktop" / "resources" / "sample" / "wheat-04-00932.pdf"

# The large evaluation corpus is not part of the repository: tests that need it carry the ``corpus`` marker
# and read it from MMDOCSUM_CORPUS (default ../shared/corpus where that exists). Without it they are
# deselected, with one line saying how many and why (pytest_collection_modifyitems below).
CORPUS_ENV = "MMDOCSUM_CORPUS"
_DEFAULT_CORPUS = (REPO_ROOT / ".." / "shared" / "corpus").resolve()
CORPUS = Path(os.environ[CORPUS_ENV]).resolve() if os.environ.get(CORPUS_ENV) else _DEFAULT_CORPUS
PAPERS = CORPUS / "papers"


def corpus_available() -> bool:
    return CORPUS.is_dir()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test that uses the ``corpus`` fixture is a corpus test too; without the corpus all of them are
    deselected (not skipped: they cannot run here, and nothing about the code is learnt from them)."""
    for item in items:
        if "corpus" in getattr(item, "fixturenames", ()) and item.get_closest_marker("corpus") is None:
            item.add_marker(pytest.mark.corpus)
    if corpus_available():
        return
    kept = [item for item in items if item.get_closest_marker("corpus") is None]
    dropped = [item for item in items if item.get_closest_marker("corpus") is not None]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
        config._mmdocsum_corpus_note = (  # type: ignore[attr-defined]
            f"deselected {len(dropped)} tests marked 'corpus': no evaluation corpus at {CORPUS} "
            f"(set {CORPUS_ENV} to the shared corpus folder to run them)"
        )


def pytest_collection_finish(session: pytest.Session) -> None:
    note = getattr(session.config, "_mmdocsum_corpus_note", None)
    if note and hasattr(session.config, "workeroutput"):  # a pytest-xdist worker: its controller prints it
        session.config.workeroutput["mmdocsum_corpus_note"] = note
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if note and reporter is not None:
        reporter.write_line(note)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    """pytest-xdist's controller: the workers' note on deselected corpus tests (each collects them all)."""
    note = getattr(node, "workeroutput", {}).get("mmdocsum_corpus_note")
    if note:
        node.config._mmdocsum_corpus_note = note


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    note = getattr(config, "_mmdocsum_corpus_note", None)
    if note and not hasattr(config, "workeroutput") and config.pluginmanager.has_plugin("dsession"):
        terminalreporter.write_line(note)


def paper_path(name: str) -> Path:
    """A paper by file name: the committed test data first, then the package's sample, then the corpus's
    papers/ (only corpus tests name those)."""
    for folder in (DATA_PAPERS, SAMPLE_PDF.parent):
        if (folder / name).is_file():
            return folder / name
    return PAPERS / name


@cache
def read_paper(name: str):
    """Papers are read once per test session; tests must not mutate the returned Document."""
    from mmdocsum_desktop.document.reader import read_document

    return read_document(paper_path(name))


@contextmanager
def model_dirs_in(root: Path) -> Iterator[Path]:
    """Models' caches and data folders under ``root`` for as long as the block runs, never the user's."""
    saved = {k: os.environ.get(k) for k in ("MMDOCSUM_CACHE_DIR", "MMDOCSUM_DATA_DIR")}
    os.environ["MMDOCSUM_CACHE_DIR"] = str(root / "cache")
    os.environ["MMDOCSUM_DATA_DIR"] = str(root / "data")
    try:
        yield root
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@pytest.fixture(scope="session")
def corpus() -> Path:
    assert CORPUS.is_dir(), f"the evaluation corpus is expected at {CORPUS} (set {CORPUS_ENV})"
    return CORPUS


@pytest.fixture(scope="session")
def exported(tmp_path_factory):
    """``exported(name)`` → (Document, folder with document.json and figures/), once per paper."""
    from mmdocsum_desktop.document.reader import export_document

    done: dict[str, tuple] = {}

    def get(name: str):
        if name not in done:
            document = read_paper(name).model_copy(deep=True)
            folder = tmp_path_factory.mktemp(name.replace(".", "_"))
            export_document(document, folder, dpi=72)
            done[name] = (document, folder)
        return done[name]

    return get


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def llama_server(model: Path, *, api_key: str, log: Path, threads: int = 1, n_ctx: int = 2048) -> Iterator[str]:
    """llama-cpp-python's OpenAI-compatible server (``python -m llama_cpp.server``) on 127.0.0.1 with
    ``model`` (alias ``smollm2``) and ``api_key`` required; yields its ``/v1`` URL. Its output goes to
    ``log`` (it may print request headers: keep the log out of folders searched for leaked keys)."""
    port = free_port()
    with log.open("w") as handle:
        process = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", "smollm2",
             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx), "--n_threads", str(threads),
             "--api_key", api_key, "--verbose", "False"],
            stdout=handle, stderr=subprocess.STDOUT, env={**os.environ, "NO_PROXY": "127.0.0.1"},
        )
        url = f"http://127.0.0.1:{port}/v1"
        try:
            deadline = time.monotonic() + 90
            while True:
                if process.poll() is not None:
                    pytest.fail(f"llama_cpp.server exited: {log.read_text()[-2000:]}")
                try:
                    request = urllib.request.Request(f"{url}/models", headers={"Authorization": f"Bearer {api_key}"})
                    with urllib.request.urlopen(request, timeout=2) as response:
                        if response.status == 200:
                            break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    pytest.fail("llama_cpp.server did not start within 90 s")
                time.sleep(0.3)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
