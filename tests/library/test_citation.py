""""Copy with citation": author-year with the DOI ("Smith et al., 2020, doi:10.1234/x"), family names
whole ("De Bock"), the title where no author is known, "n.d." without a year; the same text from
``app.library`` (the window) and ``mmdocsum library cite`` (the command line, on a real library)."""

from __future__ import annotations

import json

import pytest

from mmdocsum_desktop.app import library as use
from mmdocsum_desktop.cli import main
from mmdocsum_desktop.library.sources import Candidate, register
from mmdocsum_desktop.library.store import Metadata
from mmdocsum_desktop.schemas.library import Paper, SourceReport
from tests.library.conftest import copy_papers


def paper(**fields) -> Paper:
    return Paper(id=1, source_path="/papers/x.pdf", **fields)


@pytest.mark.parametrize(("fields", "expected"), [
    ({"authors": ["Jo Smith", "Al Jones", "Bo Li"], "year": 2020, "doi": "10.1234/x"}, "Smith et al., 2020, doi:10.1234/x"),
    ({"authors": ["Jo Smith", "Al Jones"], "year": 2020, "doi": "https://doi.org/10.1234/X"},
     "Smith and Jones, 2020, doi:10.1234/X"),
    ({"authors": ["Jasper De Bock"], "family_names": ["De Bock"], "year": 2019}, "De Bock, 2019"),
    ({"authors": ["Jasper De Bock"], "year": 2019}, "Bock, 2019"),  # no family name given: the last word
    ({"title": "Malaria in the highlands of Kenya and Uganda, a survey", "doi": "doi:10.5/y"},
     "Malaria in the highlands of Kenya and Uganda…, n.d., doi:10.5/y"),
])
def test_author_year_with_doi(fields, expected):
    assert use.cite(paper(**fields)) == expected


def test_page_figure_and_quote():
    cited = paper(authors=["Jo Smith", "Al Jones", "Bo Li"], year=2020, doi="10.1234/x")
    assert use.cite(cited, page=3, visual="Figure 2") == "Smith et al., 2020, p. 3, Figure 2, doi:10.1234/x"
    assert use.quote("Mortality  fell\nby half.", cited, page=3) == "“Mortality fell by half.” (Smith et al., 2020, p. 3, doi:10.1234/x)"


def test_library_cite_on_the_command_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MMDOCSUM_DATA_DIR", str(tmp_path / "data"))
    folder = copy_papers(tmp_path / "papers", "PMC2803133.pdf", "PMC4736972.pdf")
    with use.Library(tmp_path / "lib") as library:
        register(library.store, [
            Candidate(folder / "PMC2803133.pdf", Metadata(title="Antioxidant activity of essential oils", year=2010,
                                                          authors=("Thamolwan Suanarunsawat", "Watcharaporn Devakul"),
                                                          doi="10.3164/jcbn.09-52")),
            Candidate(folder / "PMC4736972.pdf", Metadata(title="The role of Notch", year=2016, doi="10.1155/2016/2498764",
                                                          authors=("Ahmet Acar", "Bruno M. Simões", "Keith Brennan")))],
            root=str(folder), kind="folder", report=SourceReport(source=str(folder), kind="folder"))
    assert main(["library", "cite", "1", "2", "--page", "4", "--library", str(tmp_path / "lib")]) == 0
    assert capsys.readouterr().out == ("Suanarunsawat and Devakul, 2010, p. 4, doi:10.3164/jcbn.09-52\n"
                                       "Acar et al., 2016, p. 4, doi:10.1155/2016/2498764\n")
    assert main(["library", "cite", str(folder / "PMC4736972.pdf"), "--quote", "Notch matters.", "--format", "json",
                 "--library", str(tmp_path / "lib")]) == 0
    assert json.loads(capsys.readouterr().out) == [{
        "paper_id": 2, "citekey": "acar2016role",
        "citation": "“Notch matters.” (Acar et al., 2016, doi:10.1155/2016/2498764)"}]
