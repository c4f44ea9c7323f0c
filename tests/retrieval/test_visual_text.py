"""The words inside figure and table regions of a real PDF, read from its text layer."""

from __future__ import annotations

import pytest

from mmdocsum_desktop.retrieval.visual_text import read_region_text
from tests.conftest import read_paper


@pytest.fixture(scope="module")
def paper():
    return read_paper("PMC2803133.pdf")  # four tables of values, their JATS in tests/data/papers


def test_table_rows_keep_their_cells_apart(paper):
    by_label = {v.label: v for v in paper.visuals if v.label}
    regions = read_region_text(paper)
    composition = regions.get(by_label["Table 1"].id)  # retention time, % area, formula, molar mass per compound
    assert composition is not None
    assert any(line.startswith("1 | α-thujene | 5.48 | 0.19 | C10 H16 | 136.23") for line in composition.lines), (
        composition.lines[:5])
    enzymes = regions.get(by_label["Table 3"].id)  # normal, HC and HC + EO rats
    assert any(line.startswith("ALT (U/L) | 25 ± 1a | 118 ± 17b | 119 ± 36b") for line in enzymes.lines), (
        enzymes.lines[:5])


@pytest.mark.corpus  # the only sideways table: a landscape table on a portrait page of a J. Hydrology paper
def test_table_rows_keep_their_cells_apart_even_when_the_table_is_sideways():
    paper = read_paper("mineru_demo1.pdf")
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
