"""Authors and year of folder PDFs from the files alone, with the real reader on the committed papers:
the first page's author line (affiliation marks stripped), the XMP creators, the "Published" date, the
journal's header date; a folder PDF added to a library gets them, and a citation key from them."""

from __future__ import annotations

import pytest

from mmdocsum_desktop.app import library as use
from mmdocsum_desktop.document.reader import read_document
from mmdocsum_desktop.library.bibliography import pdf_bibliography
from mmdocsum_desktop.library.notes import citation_key
from mmdocsum_desktop.schemas.library import AddPathsRequest
from tests.conftest import DATA_PAPERS
from tests.library.conftest import copy_papers


@pytest.mark.parametrize(("name", "first", "count", "year"), [
    ("PMC2803133.pdf", "Thamolwan Suanarunsawat", 5, 2010),  # "…, January 2010" above the title
    ("PMC4521097.pdf", "Kelly J. Robinson", 6, 2015),  # "Kelly J. Robinson1 & …", "Published online: 20 June 2015"
    ("PMC4736972.pdf", "Ahmet Acar", 4, 2016),  # XMP "Acar, Ahmet", dc:date 2016/01/10
    ("pymupdf_test_3780.pdf", "S.-T. Wang", 3, 2015),  # "S.-T. Wang1,2, C. Shen1,3 & L.-M. Duan1,2", "Published 25 February 2015"
])
def test_authors_and_year_from_the_file(name, first, count, year):
    path = DATA_PAPERS / name
    found = pdf_bibliography(path, read_document(path))
    assert found.authors[0] == first and len(found.authors) == count and found.year == year
    assert len(found.family_names) == count and found.family_names[0] == first.split()[-1]
    assert not any(ch.isdigit() or ch in "*&," for author in found.authors for ch in author)


def test_a_folder_pdf_gets_authors_year_and_a_citation_key(session, tmp_path):
    folder = copy_papers(tmp_path / "papers", "PMC4736972.pdf")
    with use.Library(tmp_path / "lib") as library:
        use.add_paths(session, library, AddPathsRequest(paths=[folder]))
        paper = library.papers()[0]
        assert paper.status == "indexed" and paper.doi == "10.1155/2016/2498764"
        assert paper.authors == ["Ahmet Acar", "Bruno M. Simões", "Robert B. Clarke", "Keith Brennan"]
        assert paper.family_names[0] == "Acar" and paper.year == 2016
        assert citation_key(paper) == paper.citekey == "acar2016role"
        assert use.cite(paper, page=2) == "Acar et al., 2016, p. 2, doi:10.1155/2016/2498764"
