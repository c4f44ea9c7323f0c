"""The words inside figure and table regions of a real PDF, read from its text layer."""

from __future__ import annotations

import pytest

from mmdocsum_desktop.retrieval.visual_text import read_region_text
from tests.conftest import read_paper


@pytest.fixture(scope="module")
def paper():
    return read_paper("mineru_demo1.pdf")


def test_table_rows_keep_their_cells_apart_even_when_the_table_is_sideways(paper):
    regions = read_region_text(paper)
    by_label = {v.label: regions.get(v.id) for v in paper.visuals if v.label}
    efficiency = by_label["Table 3"]  # coefficient of efficiency per catchment and decile
    assert efficiency is not None
    assert any(line.startswith("Traralgon Ck | 0.82 | 0.85") for line in efficiency.lines), efficiency.lines[:3]
    sites = by_label["Table 1"]  # set sideways on its page: read upright
    assert any(line.startswith("Traralgon Ck (Vic) | 8700") for line in sites.lines), sites.lines[:5]


def test_documents_without_a_readable_pdf_give_no_region_text(paper):
    moved = paper.model_copy(update={"source": "/nonexistent/moved.pdf"})
    assert read_region_text(moved) == {}
    assert read_region_text(paper.model_copy(update={"kind": "html"})) == {}
