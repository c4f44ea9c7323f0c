"""The reader's search on the page text as the reader normalises it (ligatures, case, spaces, line-end
hyphens), on a real paper whose "ﬂ" ligatures hid its own abstract from PyMuPDF's search."""

from __future__ import annotations

import pymupdf
import pytest

from mmdocsum_desktop.document.normalize import search_key
from mmdocsum_desktop.document.pdf_layout import find_on_page
from tests.conftest import PAPERS


@pytest.mark.corpus  # no committed paper sets its prose with "ﬂ" ligatures
def test_a_phrase_set_with_ligatures_is_found_where_it_is_printed():
    with pymupdf.open(PAPERS / "mineru_demo1.pdf") as pdf:
        page = pdf[0]
        assert page.search_for("zero flow days") == [], "PyMuPDF alone misses it: the page prints 'ﬂ'"
        hits = find_on_page(page, "Zero Flow Days")
        assert hits, "the abstract says 'zero flow days'"
        for hit in hits:
            shown = page.get_textbox(pymupdf.Rect(hit) + (-1, -1, 1, 1))
            assert "zero" in shown.lower() and "days" in shown.lower()
        assert find_on_page(page, "zero flow nights") == []
        assert find_on_page(page, "   ") == []


def test_search_keys_fold_ligatures_case_hyphens_and_spaces_alike():
    assert search_key("Zero \ufb02ow\u00a0days") == search_key("zero flowdays") == "zeroflowdays"
    assert search_key("COVID\u201119 \u2018cases\u2019") == search_key("covid-19 'cases'")
