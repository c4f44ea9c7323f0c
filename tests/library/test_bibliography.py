"""Authors and year of folder PDFs from the files alone, with the real reader on the committed papers:
the first page's author line (affiliation marks stripped), the XMP creators, the "Published" date, the
journal's header date; a folder PDF added to a library gets them, and a citation key from them."""

from __future__ import annotations

import pymupdf
import pytest

from mmdocsum_desktop.app import library as use
from mmdocsum_desktop.bench.splits import SPLITS_ROOT
from mmdocsum_desktop.document.reader import read_document
from mmdocsum_desktop.library.bibliography import pdf_bibliography, reading_citation
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


def first_page_pdf(path, lines, *, created="", xmp_creator=None):
    """A two-page PDF whose first page prints ``lines`` (text, type size) from the top, one block each."""
    pdf = pymupdf.open()
    page = pdf.new_page(width=595, height=842)
    y = 50
    for text, size in lines:
        page.insert_text((50, y), text, fontsize=size, fontname="hebo" if size >= 14 else "helv")
        y += size + 10 if size >= 14 else size * 2.2  # a title's lines: one title, two blocks
    page.insert_textbox(pymupdf.Rect(50, y + 20, 545, y + 300), "Abstract\n" + "We counted ticks on cattle. " * 20,
                        fontsize=10)
    pdf.new_page(width=595, height=842).insert_textbox(pymupdf.Rect(50, 60, 545, 700),
                                                       "Introduction\n" + "Ticks carry disease. " * 60, fontsize=10)
    pdf.set_metadata({"title": "", "author": "", "creationDate": created})
    if xmp_creator:
        pdf.set_xml_metadata(
            '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
            '<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator><rdf:Seq>'
            f"<rdf:li>{xmp_creator}</rdf:li></rdf:Seq></dc:creator></rdf:Description></rdf:RDF></x:xmpmeta>")
    pdf.save(path)
    pdf.close()
    return path


TITLE_LINE = ("Tick burden of cattle grazed on communal pastures", 16)


@pytest.mark.parametrize(("lines", "created", "xmp", "authors", "year"), [
    # the journal's citation line above the title; degrees and affiliation letters after the names
    ([("Otieno et al. BMC Veterinary Research (2020) 16:245", 8), TITLE_LINE,
      ("Grace Otieno, PhDa,b, Samuel Kiprop, MDb,∗ and Jane Wanjiru, MSc", 11)], "", None,
     ["Grace Otieno", "Samuel Kiprop", "Jane Wanjiru"], 2020),
    # an author line broken over three blocks; the year only in "© The Author(s). 2019"
    ([TITLE_LINE, ("Grace Otieno1, Samuel Kiprop2, Jane", 11), ("Wanjiru1, Peter Mwangi3,", 11), ("Mary Akinyi2", 11),
      ("© The Author(s). 2019 Open Access This article is distributed under the terms of the licence.", 8)], "", None,
     ["Grace Otieno", "Samuel Kiprop", "Jane Wanjiru", "Peter Mwangi", "Mary Akinyi"], 2019),
    # the XMP names the corresponding author only: the first page's line names all, and comes first; no
    # date printed: the year the file was made
    ([TITLE_LINE, ("Grace Otieno and Samuel Kiprop*", 11)], "D:20170304120000Z", "Samuel Kiprop", None, 2017),
    # a line of the title in capitals is no author line
    ([("Tick burden of cattle grazed on communal", 16), ("Kenyan Pastures", 16), ("Grace Otieno, Samuel Kiprop", 11)],
     "", None, ["Grace Otieno", "Samuel Kiprop"], None),
])
def test_first_page_authors_and_years_as_journals_print_them(tmp_path, lines, created, xmp, authors, year):
    path = first_page_pdf(tmp_path / "paper.pdf", lines, created=created, xmp_creator=xmp)
    found = pdf_bibliography(path, read_document(path))
    assert list(found.authors) == (authors or ["Grace Otieno", "Samuel Kiprop"])
    assert found.year == year


def test_the_open_papers_citation_comes_from_its_first_page_without_opening_the_file():
    """What "Copy with citation" names (issue 46, item 5): the first page's authors (family names), the
    year it prints and its DOI, from the Document alone; the PDF's author field only when the page names
    nobody."""
    document = read_document(SPLITS_ROOT / "pmc-test" / "papers" / "PMC5745208.pdf")
    assert reading_citation(document, "") == (["Din", "Arshad", "Hussain", "Mukhtar"], 2017, "10.1186/s11671-017-2399-8")
    nameless = document.model_copy(update={"blocks": [b for b in document.blocks if "Muhammad Imran Din" not in b.text]})
    assert reading_citation(nameless, "Jo Smith; Ann Lee")[0] == ["Smith", "Lee"]
