"""The figures and tables the PDF reader lists are the paper's own, whole and upright (issue 37, points 1-3).

Pages cut from CC BY papers of the corpus (tests/data/pages/, see tests/data/ATTRIBUTION.md) hold the
publisher's furniture and the layouts that went wrong; small PDFs drawn here hold label variants and a
page turned by /Rotate.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest
from PIL import Image

from mmdocsum_desktop.document.pdf import crop_rotation
from mmdocsum_desktop.document.reader import export_document, read_document
from mmdocsum_desktop.schemas.document import Document, Figure
from tests.conftest import DATA

PAGES = DATA / "pages"
BODY = (
    "The cells grew for three days in the warm room before the counts were taken by two observers, "
    "who did not know which dish had received the treatment and which had not. "
)


def _crop_text(path: Path, visual: Figure) -> str:
    assert visual.bbox is not None and visual.page is not None
    with pymupdf.open(path) as pdf:
        page = pdf[visual.page - 1]
        return " ".join(page.get_text("text", clip=pymupdf.Rect(visual.bbox) * page.derotation_matrix).split())


def _labels(document: Document) -> list[str | None]:
    return [visual.label for visual in document.visuals]


def _drawn_paper(path: Path, captions: list[str], *, rotate: int = 0) -> Path:
    """Two pages of body text, each with a dark panel and its caption(s) under it; the first page turned
    by ``rotate`` degrees (/Rotate) when asked."""
    pdf = pymupdf.open()
    for number, page_captions in enumerate([captions, ["Figure 2. Another dark panel drawn for the test."]]):
        page = pdf.new_page(width=595, height=842)
        for row in range(8):
            page.insert_textbox(pymupdf.Rect(60, 80 + 62 * row, 535, 140 + 62 * row), BODY * 2, fontsize=10, fontname="tiro")
        page.draw_rect(pymupdf.Rect(150, 600, 445, 720), color=(0, 0, 0), fill=(0.1, 0.1, 0.1))
        for line, caption in enumerate(page_captions):
            page.insert_text((60, 735 + 13 * line), caption, fontsize=8.5, fontname="hebo")
        if number == 0 and rotate:
            page.set_rotation(rotate)
    pdf.save(path)
    pdf.close()
    return path


def test_a_publishers_advert_and_a_title_block_badge_are_no_figures():
    """BMC: the title block with its "Check for updates" badge (page 1) and the "Ready to submit your
    research?" advert drawn as outlines after the references (last page) were listed as figures."""
    document = read_document(PAGES / "PMC7989018_p1_p8_p9.pdf")
    assert document.visuals == []
    assert document.title == "Stereotactic radiotherapy for oligoprogressive ER-positive breast cancer (AVATAR)"


def test_a_page_frame_is_no_figure_and_does_not_swallow_the_table():
    """SciELO's tinted sidebar runs from the page's top edge to its bottom: it was a figure on page 1 and
    the crop of Tabela 1 on page 2 (the whole page)."""
    path = PAGES / "scielo-rsp-56-9_p1_p4.pdf"
    document = read_document(path)
    assert _labels(document) == ["Table 1"]
    table = document.tables[0]
    assert table.bbox is not None and document.page_sizes is not None
    height = document.page_sizes[1][1]
    assert table.bbox[3] - table.bbox[1] < 0.5 * height
    assert "Dentifrício" in _crop_text(path, table)


def test_a_caption_inside_a_frame_pairs_with_its_frame_and_a_bold_cross_reference_is_prose():
    """Frontiers: each figure is framed with its caption; a paragraph opening "**Figure 1** illustrates"
    was a second Figure 1 that took the first frame and pushed Figure 1 onto Figure 2's."""
    document = read_document(PAGES / "PMC7058583_p3.pdf")
    assert _labels(document) == ["Figure 1", "Figure 2"]
    first, second = document.figures
    assert first.bbox is not None and second.bbox is not None
    assert first.bbox[3] <= second.bbox[1]  # one above the other, each its own frame
    assert first.bbox[2] > 500 and second.bbox[2] > 500  # frames as wide as the page's type area
    assert any(b.text.startswith("Figure 1 illustrates") and b.type == "paragraph" for b in document.blocks)


def test_a_table_across_both_columns_keeps_its_header_rows():
    """Trials: the caption is set in the left column, the header row ("Study period") in the right one:
    no crop was made at all."""
    path = PAGES / "PMC7836185_p7.pdf"
    document = read_document(path)
    assert _labels(document) == ["Table 2"]
    text = _crop_text(path, document.tables[0])
    for row in ("Study period", "Timepoint (months)", "Outcome variable"):
        assert row in text


def test_a_caption_printed_on_a_tinted_bar_is_not_the_table():
    """Medicine (Wolters Kluwer): "Table 1" sits on a tinted bar; the bar was taken for the table."""
    path = PAGES / "PMC7870244_p4_p5.pdf"
    document = read_document(path)
    assert sorted(_labels(document)) == ["Table 1", "Table 2"]
    by_label = {table.label: _crop_text(path, table) for table in document.tables}
    assert "SOLID NODULES" in by_label["Table 1"] and "4 - High risk" in by_label["Table 1"]
    assert "PART-SOLID NODULES" in by_label["Table 2"] and "4 - High risk" in by_label["Table 2"]


def test_a_sideways_table_is_cropped_whole_and_shown_upright(tmp_path):
    """Frontiers: a landscape table printed sideways on a portrait page; its crop was shown sideways."""
    path = PAGES / "PMC5981179_p6.pdf"
    document = read_document(path)
    export_document(document, tmp_path, dpi=40)
    (table,) = document.tables
    assert table.image is not None and table.bbox is not None
    with Image.open(tmp_path / table.image) as crop:
        width, height = crop.size
    assert table.bbox[3] - table.bbox[1] > table.bbox[2] - table.bbox[0]  # tall on the page...
    assert width > height  # ...wide once turned upright
    text = _crop_text(path, table)
    assert "Plant name" in text and "References" in text and "(Continued)" in text
    with pymupdf.open(path) as pdf:
        assert crop_rotation(pdf[0], table.bbox) == 90


def test_a_page_turned_by_rotate_is_cropped_where_it_is_shown(tmp_path):
    """A landscape page kept as portrait with /Rotate 90: regions were in the page's unturned coordinates
    and its figure had no crop (the clip fell outside the page as shown)."""
    path = _drawn_paper(tmp_path / "turned.pdf", ["Figure 1. A dark panel drawn for the test."], rotate=90)
    document = read_document(path)
    export_document(document, tmp_path / "out", dpi=30)
    first = document.figures[0]
    assert first.label == "Figure 1" and first.page == 1 and first.bbox is not None and first.image is not None
    assert document.page_sizes is not None and document.page_sizes[0] == (842.0, 595.0)
    x0, y0, x1, y1 = first.bbox
    assert 0 <= x0 < x1 <= 842 and 0 <= y0 < y1 <= 595
    with Image.open(tmp_path / "out" / first.image) as crop:
        grey = crop.convert("L")
        dark = sum(1 for value in grey.tobytes() if value < 80) / (grey.width * grey.height)
    assert dark > 0.8  # the dark panel itself, not the white page beside it


def test_a_label_closed_by_a_bracket_starts_a_caption(tmp_path):
    document = read_document(_drawn_paper(tmp_path / "bracket.pdf", ["Figure 1) A dark panel drawn for the test."]))
    assert _labels(document) == ["Figure 1", "Figure 2"]
    assert document.figures[0].bbox == pytest.approx((150, 600, 445, 720), abs=1)


def test_a_caption_printed_in_two_languages_is_one_figure(tmp_path):
    path = _drawn_paper(
        tmp_path / "bilingual.pdf",
        ["Figura 1. Um painel escuro desenhado para o teste.", "Figure 1. A dark panel drawn for the test."],
    )
    document = read_document(path)
    assert _labels(document) == ["Figure 1", "Figure 2"]
    caption = document.figures[0].caption
    assert caption.startswith("Figura 1.") and "Figure 1. A dark panel" in caption


@pytest.mark.corpus
def test_a_table_continued_under_its_repeated_caption_is_one_table(corpus):
    """BMC prints "Table 2 Chemical composition ..." again on each page the table runs over."""
    document = read_document(corpus / "pmc" / "PMC5497343.pdf")
    parts = [t for t in document.tables if t.label == "Table 2"]
    assert [t.page for t in parts] == [4, 5, 6]
    assert parts[0].continues is None and parts[1].continues == parts[2].continues == parts[0].id


@pytest.mark.corpus
def test_a_table_caption_does_not_take_the_figure_below_its_rows(corpus):
    """Journal of Diabetes Research: panel (a) of Figure 6 under Table 2's rows was taken for Table 2."""
    path = corpus / "pmc" / "PMC4691483.pdf"
    document = read_document(path)
    table = next(t for t in document.tables if t.label == "Table 2")
    figure = next(f for f in document.figures if f.label == "Figure 6")
    assert table.bbox is not None and figure.bbox is not None
    assert table.bbox[3] <= figure.bbox[1]
    assert "Total retinal thickness" in _crop_text(path, table)


@pytest.mark.corpus
def test_a_table_caption_with_rows_under_it_takes_no_picture_above_it(corpus):
    """Gastroenterology Research and Practice: Table 1's caption under Figure 3's panels took panel (a)."""
    path = corpus / "pmc" / "PMC4706923.pdf"
    document = read_document(path)
    table = next(t for t in document.tables if t.label == "Table 1")
    figure = next(f for f in document.figures if f.label == "Figure 3")
    assert table.bbox is not None and figure.bbox is not None and table.page == figure.page == 4
    assert "Number of true-positive cases" in _crop_text(path, table) and "Specificity" in _crop_text(path, table)
    assert figure.bbox[1] < 100 and figure.bbox[3] > 400  # all three panels, (a) and (b) above (c)


def test_first_page_panels_and_small_uncaptioned_drawings_are_no_figures():
    """Issue 46, item 3: an "Article info" box (a bulleted list under its heading, Advanced Pharmaceutical
    Bulletin), F1000's "Open Peer Review" panel beside the abstract, and chemical structures drawn between
    the paragraphs of an experimental section on pages without captions (Molecules) were listed as
    figures of the paper."""
    info = read_document(PAGES / "PMC5426739_p1.pdf")
    assert [v for v in info.visuals if v.label is None] == []
    review = read_document(PAGES / "article-3-190_p1.pdf")
    assert [v for v in review.visuals if v.label is None] == []
    structures = read_document(PAGES / "molecules21020187_p8_p9.pdf")
    assert [(v.page, v.label) for v in structures.visuals if v.label is None] == []
