"""A folder PDF's title is never its journal's name. PDFs built here with PyMuPDF as journals set their
first pages: the journal's banner in the largest type (which the reader takes for the title), an
article-type label, the title, the author line, a date, the abstract; some with the journal's name as the
metadata title. The library's title is the paper's: from the metadata title when that is real, else from
the first page; the journal is recognised by its shape, by a line citing it ("… | Vol. 3 | 2019") or by
the Info subject. A title that merely looks like a name stays."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from mmdocsum_desktop.app import library as use
from mmdocsum_desktop.document.reader import read_document
from mmdocsum_desktop.library.bibliography import pdf_bibliography, pdf_title
from mmdocsum_desktop.schemas.library import AddPathsRequest

ABSTRACT = ("Malaria remains a leading cause of illness among school children in the highlands. We measured how "
            "often children carried parasites and which households used bed nets, in two districts over a year. ") * 3


def journal_pdf(path: Path, *, banner: str | None, title: list[str], authors: str, dated: str = "",
                metadata_title: str = "", subject: str = "", footer: str = "") -> Path:
    pdf = pymupdf.open()
    page = pdf.new_page(width=595, height=842)
    y = 60
    if banner:
        page.insert_text((50, y), banner, fontsize=22, fontname="hebo")
        y += 40
    page.insert_text((50, y), "Research article", fontsize=10)
    y += 30
    for line in title:
        page.insert_text((50, y), line, fontsize=16, fontname="hebo")
        y += 20
    page.insert_text((50, y + 10), authors, fontsize=11)
    if dated:
        page.insert_text((50, y + 30), dated, fontsize=9)
    page.insert_textbox(pymupdf.Rect(50, y + 60, 545, y + 400), "Abstract\n" + ABSTRACT, fontsize=10)
    if footer:
        page.insert_text((50, 810), footer, fontsize=8)
    second = pdf.new_page(width=595, height=842)
    second.insert_textbox(pymupdf.Rect(50, 60, 545, 700), "Introduction\n" + ABSTRACT * 2, fontsize=10)
    if footer:
        second.insert_text((50, 810), footer, fontsize=8)
    pdf.set_metadata({"title": metadata_title, "subject": subject, "author": ""})
    pdf.save(path)
    pdf.close()
    return path


CASES = {
    # the banner by its shape ("BMC …"), the metadata title the journal's too: the first page's title
    "bmc": dict(banner="BMC Public Health", title=["Malaria parasites and bed nets among school",
                                                   "children in the Kenyan highlands"],
                authors="John Smith1, Mary Jones2 and Ahmed Ali1*", dated="Published: 12 March 2010",
                metadata_title="BMC Public Health", subject="BMC Public Health 2010, 10:123. doi:10.1186/1471-2458-10-123"),
    # a well-known journal; its metadata title is the paper's, and it stands on the page
    "plos": dict(banner="PLoS ONE", title=["Bed net use and malaria in school children"], authors="Jane Doe1, Peter Brown2",
                 dated="Published March 5, 2012", metadata_title="Bed net use and malaria in school children"),
    "eid": dict(banner="Emerging Infectious Diseases", title=["Dengue virus in travellers returning",
                                                              "from Southeast Asia"],
                authors="Li Wei, Anna Karlsson and Tom Berg",
                footer="Emerging Infectious Diseases • www.cdc.gov/eid • Vol. 16, No. 1, January 2010"),
    # a journal no list knows, in no journal's shape: its footer cites it with volume, year and address
    "footer": dict(banner="Highland Veterinary Notes", title=["Tick burden of cattle grazed on", "communal pastures"],
                   authors="Grace Otieno, Samuel Kiprop", footer="Highland Veterinary Notes | Vol. 3 | 2019 | www.hvn.org"),
    # the same, known only from the Info subject
    "subject": dict(banner="Tropical Fisheries Notes", title=["Catch sizes of tilapia in Lake Victoria", "after the ban"],
                    authors="Rose Achieng, Paul Okello", subject="Tropical Fisheries Notes 12(3): 45-52"),
}
EXPECTED = {
    "bmc": "Malaria parasites and bed nets among school children in the Kenyan highlands",
    "plos": "Bed net use and malaria in school children",
    "eid": "Dengue virus in travellers returning from Southeast Asia",
    "footer": "Tick burden of cattle grazed on communal pastures",
    "subject": "Catch sizes of tilapia in Lake Victoria after the ban",
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_journals_name_is_never_the_title(tmp_path, case):
    path = journal_pdf(tmp_path / f"{case}.pdf", **CASES[case])
    document = read_document(path)
    assert document.title == CASES[case]["banner"]  # what the reader takes: the largest type at the top
    assert pdf_title(path, document) == EXPECTED[case]


def test_a_title_that_looks_like_a_name_stays(tmp_path):
    path = journal_pdf(tmp_path / "plain.pdf", banner=None, title=["Malaria Vaccines for African Children"],
                       authors="John Smith, Mary Jones", metadata_title="BMC Public Health")
    document = read_document(path)
    assert document.title == "Malaria Vaccines for African Children"
    assert pdf_title(path, document) == "Malaria Vaccines for African Children"


def test_a_running_title_with_a_year_is_no_journal(tmp_path):
    title = "Bed Net Use and Malaria"
    path = journal_pdf(tmp_path / "running.pdf", banner=None, title=[title], authors="John Smith, Mary Jones",
                       footer=f"{title} | 2012 | page 1")
    document = read_document(path)
    assert document.title == title
    assert pdf_title(path, document) == title


def test_a_journal_banner_with_nothing_else_gives_no_title(tmp_path):
    path = journal_pdf(tmp_path / "bare.pdf", banner="PLoS ONE", title=["Short"], authors="John Smith, Mary Jones")
    document = read_document(path)
    assert document.title == "PLoS ONE"
    assert pdf_title(path, document) == ""


def test_a_folder_pdf_under_a_journals_banner_gets_its_own_title_authors_year_and_key(session, tmp_path):
    folder = tmp_path / "papers"
    folder.mkdir()
    path = journal_pdf(folder / "bmc.pdf", **CASES["bmc"])
    found = pdf_bibliography(path, read_document(path))
    assert (found.title, found.authors, found.year) == (EXPECTED["bmc"], ("John Smith", "Mary Jones", "Ahmed Ali"), 2010)
    with use.Library(tmp_path / "lib") as library:
        use.add_paths(session, library, AddPathsRequest(paths=[folder]))
        paper = library.papers()[0]
        assert paper.status == "indexed" and paper.title == EXPECTED["bmc"]
        assert (paper.year, paper.citekey) == (2010, "smith2010malaria")
        assert use.cite(paper) == "Smith et al., 2010"
