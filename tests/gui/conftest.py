"""GUI tests: real widgets on Qt's offscreen platform, the real core (extractive engine, real PDFs).

A test fails on any unexpected Qt warning or error (pytest-qt's ``qt_log_level_fail``, added to every
test here) and on any unexpected Python log record at WARNING or above (the ``logfail`` fixture) —
qutebrowser's idea: an unexpected warning is a bug, not noise.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pymupdf  # noqa: E402
import pytest  # noqa: E402

from mmdocsum_desktop.app import catalog  # noqa: E402
from mmdocsum_desktop.gui.main_window import MainWindow  # noqa: E402
from mmdocsum_desktop.schemas.settings import EngineSettings, LlamaSettings, Settings, save_settings  # noqa: E402
from tests.conftest import DATA, DATA_PAPERS, SAMPLE_PDF  # noqa: E402

# Messages the offscreen platform prints about itself; nothing of ours.
QT_LOG_IGNORE = [
    r"This plugin does not support propagateSizeHints\(\)",
    r"This plugin does not support raise\(\)",
    r"This plugin does not support grabbing the keyboard",
    r"QFont::setPointSizeF: Point size <= 0",
]
LOG_IGNORE = [r"^window preferences at .* were unreadable"]


def pytest_collection_modifyitems(config, items):
    here = os.path.dirname(__file__)
    for item in items:
        if str(item.fspath).startswith(here):
            item.add_marker(pytest.mark.qt_log_level_fail("WARNING"))
            item.add_marker(pytest.mark.qt_log_ignore(*QT_LOG_IGNORE))


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture(autouse=True)
def logfail():
    """Fail the test if anything logs a warning or an error that the test did not expect."""
    handler = _Collect()
    root = logging.getLogger()
    root.addHandler(handler)
    expected: list[str] = []
    try:
        yield expected
    finally:
        root.removeHandler(handler)
    unexpected = [
        r for r in handler.records
        if not any(re.search(p, r.getMessage()) for p in LOG_IGNORE + expected)
    ]
    if unexpected:
        lines = "\n".join(f"{r.levelname} {r.name}: {r.getMessage()}" for r in unexpected)
        pytest.fail(f"unexpected log records:\n{lines}", pytrace=False)


@pytest.fixture(scope="session")
def model_cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path, monkeypatch, model_cache_dir):
    """Settings, window preferences, workspaces and user models of each test live in its tmp_path."""
    monkeypatch.setenv("MMDOCSUM_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("MMDOCSUM_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("MMDOCSUM_WORKSPACES_DIR", str(tmp_path / "workspaces"))
    monkeypatch.setenv("MMDOCSUM_CACHE_DIR", str(model_cache_dir))
    return tmp_path


def smollm2_settings() -> None:
    """The settings a user had when SmolLM2-135M wrote nonsense: the llama engine with that model."""
    entry = catalog.get_model("smollm2-135m")
    save_settings(Settings(engines=EngineSettings(engine="llama", llama=LlamaSettings(model=str(entry.path()),
                                                                                         n_ctx=2048, n_threads=1))))


@pytest.fixture(scope="session")
def two_figure_pdf(tmp_path_factory) -> Path:
    """Page 6 of PMC2803133 (J. Clin. Biochem. Nutr.): Fig. 2 and Fig. 3 with their captions, the end of the
    Results and the start of the Discussion; one page, quick to open."""
    return save_pages(DATA_PAPERS / "PMC2803133.pdf", [5], tmp_path_factory.mktemp("two-figures") / "two-figures.pdf")


@pytest.fixture(scope="session")
def one_table_pdf(tmp_path_factory) -> Path:
    """Page 4 of the package's sample: Table 1 and no figures."""
    return save_pages(SAMPLE_PDF, [3], tmp_path_factory.mktemp("one-table") / "one-table.pdf")


@pytest.fixture(scope="session")
def short_article(tmp_path_factory) -> Path:
    """A short Markdown article without figures (about 7 kB: a short prompt for SmolLM2): the committed
    PMC4521097.md up to its Materials and methods, that is its title, authors, abstract and introduction."""
    text = (DATA / "articles" / "PMC4521097.md").read_text(encoding="utf-8")
    head = text[:text.index("\n## Materials and methods")]
    assert "## Introduction" in head and "![" not in head
    path = tmp_path_factory.mktemp("short-article") / "seals.md"
    path.write_text(head + "\n", encoding="utf-8")
    return path


def save_pages(source: Path, pages: list[int], target: Path) -> Path:
    """``pages`` (0-based) of a committed PDF saved as ``target``: a real paper's pages in the shape a test
    needs (one table and no figures, say)."""
    with pymupdf.open(source) as pdf:
        pdf.select(pages)
        pdf.save(target)
    return target


def wait_job(qtbot, job, timeout: int = 30_000):
    """Wait until a Job has ended and the GUI has handled all of its signals."""
    assert job is not None
    qtbot.waitUntil(lambda: job.delivered, timeout=timeout)
    return job


@pytest.fixture
def make_window(qtbot):
    """A MainWindow that is closed (cleanly, discarding its work) at the end of the test."""

    windows = []

    def make():
        window = MainWindow()
        window.ask_save_changes = lambda: "discard"  # no modal questions at teardown
        qtbot.addWidget(window)
        window.show()
        windows.append(window)
        return window

    yield make
    for window in windows:
        try:
            window.dirty = False
            window.close()
        except RuntimeError:  # already destroyed by the test
            pass
