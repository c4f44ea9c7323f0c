"""Shared fixtures of the summary tests: one embedder, papers exported once (document + figure crops), and
excerpts of committed papers (a few of their pages saved as a PDF of their own) for the shapes a whole paper
does not have: a few pages with two figures, and pages without any figure."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from mmdocsum_desktop.document.reader import export_document, read_document
from mmdocsum_desktop.models.embed import TextEmbedder
from mmdocsum_desktop.schemas.document import Document
from tests.conftest import DATA_PAPERS, SAMPLE_PDF, model_dirs_in
from tests.engines.conftest import smollm, smollm_engine, tiny_vlm_files  # noqa: F401 — shared model fixtures


def excerpt(source: Path, pages: list[int], folder: Path) -> tuple[Document, Path]:
    """``pages`` (0-based) of ``source`` saved as ``folder/excerpt.pdf``, read and exported like a paper."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "excerpt.pdf"
    with pymupdf.open(source) as pdf:
        pdf.select(pages)
        pdf.save(path)
    document = read_document(path)
    export_document(document, folder / "export", dpi=72)
    return document, folder / "export"


@pytest.fixture(scope="session")
def two_figure_pages(tmp_path_factory) -> tuple[Document, Path]:
    """Pages 6 to 8 of the package's sample (Metabolites 2014, 4, 932): Figures 3 and 4 with about 800 words
    of Results and Discussion around them, and no headings, tables or references: a short document with two
    figures whose whole text fits one prompt of a small model (4096 tokens) but not a 1536-token one."""
    document, folder = excerpt(SAMPLE_PDF, [5, 6, 7], tmp_path_factory.mktemp("two_figure_pages"))
    assert [f.label for f in document.visuals] == ["Figure 3", "Figure 4"]
    return document, folder


@pytest.fixture(scope="session")
def pages_without_figures(tmp_path_factory) -> tuple[Document, Path]:
    """Pages 3 to 6 of PMC4736972 (Stem Cells Int., a review): prose and references, its one figure is on
    page 2."""
    document, folder = excerpt(DATA_PAPERS / "PMC4736972.pdf", [2, 3, 4, 5], tmp_path_factory.mktemp("no_figures"))
    assert document.visuals == []
    return document, folder


@pytest.fixture(scope="session", autouse=True)
def isolated_model_dirs(tmp_path_factory):
    """Embedding and OCR caches go to a temporary folder, never the user's own."""
    with model_dirs_in(tmp_path_factory.mktemp("mmdocsum-dirs")) as root:
        yield root


@pytest.fixture(scope="session")
def embedder(isolated_model_dirs):

    model = TextEmbedder()
    yield model
    model.close()
