"""Extracting a document through the application layer (what `mmdocsum extract` and the image pool of
`mmdocsum place` run): the session's reading, then document.json and the figure crops in one folder."""

from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path

import pytest

from mmdocsum_desktop.app.extract import ReadLimits, export, extract
from mmdocsum_desktop.app.placement import figure_candidates
from mmdocsum_desktop.bench.splits import DEMO_ROOT
from mmdocsum_desktop.errors import DocumentTooLargeError, EmptyDocumentError
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.schemas.document import Document
from tests.conftest import DATA_PAPERS

PDF = DATA_PAPERS / "PMC2803133.pdf"  # 8 pages, 3 captioned figures and 4 tables


def test_extract_writes_the_document_and_its_figure_crops(extractive_session, tmp_path: Path):
    stages: list[str] = []

    @contextmanager
    def stage(name: str):
        stages.append(name)
        yield JobControl()

    result = extract(extractive_session, PDF, tmp_path / "out", dpi=72, stage=stage)
    assert stages == ["reading", "rendering"]
    assert result.folder == tmp_path / "out" and result.written.is_file()
    saved = Document.load(result.written)
    assert [v.label for v in saved.visuals] == [v.label for v in result.document.visuals]
    assert len(result.document.figures) >= 2
    # every figure's crop is in the folder, and placement's candidates find them there
    pool = figure_candidates(result.document, result.folder)
    assert len(pool) == len(result.document.visuals)
    assert all(Path(c.image).is_file() and Path(c.image).is_relative_to(result.folder) for c in pool)


def test_a_document_with_nothing_to_extract_is_refused_unless_allowed(extractive_session, tmp_path: Path):
    empty = tmp_path / "empty.md"
    empty.write_text("   \n\n", encoding="utf-8")
    with pytest.raises(EmptyDocumentError, match="no text and no figures"):
        extract(extractive_session, empty, tmp_path / "refused")
    assert not (tmp_path / "refused" / "document.json").exists()
    allowed = extract(extractive_session, empty, tmp_path / "allowed", allow_empty=True)
    assert not allowed.document.visuals and allowed.written.is_file()


def test_limits_are_the_readers(extractive_session, tmp_path: Path):
    with pytest.raises(DocumentTooLargeError):
        extract(extractive_session, PDF, tmp_path / "out", limits=ReadLimits(max_pages=1))


def test_export_of_a_document_already_read(extractive_session, tmp_path: Path):
    article = DEMO_ROOT / "docs" / "marsh.md"
    document = extractive_session.read(article)
    written = export(document, tmp_path / "marsh")
    data = json.loads(written.read_text(encoding="utf-8"))
    assert data["source"] == document.source and len(data["figures"]) == len(document.figures) > 0
    assert all((tmp_path / "marsh" / f["image"]).is_file() for f in data["figures"])
