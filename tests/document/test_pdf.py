"""PDF ingestion on real papers: the openly licensed ones committed in tests/data and the package's sample,
and (marked ``corpus``) layouts only the evaluation corpus has."""

from __future__ import annotations

import io
import json
import re

import pymupdf
import pytest
from PIL import Image

from mmdocsum_desktop.document.pdf import png_bytes
from mmdocsum_desktop.document.reader import export_document, read_document
from mmdocsum_desktop.schemas.document import Document
from tests.conftest import CORPUS, DATA_PAPERS, PAPERS, REPO_ROOT, SAMPLE_PDF, paper_path, read_paper

# Captions printed in each paper, counted on the rendered pages (shared with the benchmark).
PRINTED = {
    name: (entry["figures"], entry["tables"])
    for name, entry in json.loads((REPO_ROOT / "benchmarks" / "printed_captions.json").read_text()).items()
    if not name.startswith("_")
}



def _committed(name: str) -> bool:
    return paper_path(name).parent != PAPERS


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=() if _committed(name) else pytest.mark.corpus) for name in sorted(PRINTED)]
)
def test_every_printed_caption_is_found_once_with_a_region(name):
    document = read_paper(name)
    figures, tables = PRINTED[name]
    assert [f.label for f in document.figures if f.label and not f.continues] == figures
    assert [t.label for t in document.tables if not t.continues] == tables
    assert all(v.bbox is not None for v in document.visuals if v.label)


# The committed papers with their publisher's JATS: the figures and tables the JATS lists are the captions
# printed in the PDF. (PMC4521097 is not here: its Tables 3 and 4 are found by caption but get no region.)
@pytest.mark.parametrize("pdf", [SAMPLE_PDF, DATA_PAPERS / "PMC2803133.pdf", DATA_PAPERS / "PMC4736972.pdf"],
                         ids=lambda path: path.stem)
def test_every_caption_the_jats_lists_is_found_once_with_a_region(pdf):
    jats = read_document(pdf.with_suffix(".xml"))
    assert jats.kind == "jats" and jats.figures
    document = read_paper(pdf.name)
    assert [f.label for f in document.figures if f.label and not f.continues] == [f.label for f in jats.figures]
    assert [t.label for t in document.tables if not t.continues] == [t.label for t in jats.tables]
    assert all(v.bbox is not None for v in document.visuals if v.label)


def test_caption_text_is_the_whole_caption_and_is_kept_as_a_caption_block():
    document = read_paper(SAMPLE_PDF.name)
    figure2 = next(f for f in document.figures if f.label == "Figure 2")
    # five printed lines, from the label to the last panel's description
    assert figure2.caption.startswith("Figure 2. (A) PCA t[1]/t[2] score plot of SPME-GC/MS of CT samples")
    assert figure2.caption.endswith("negative values: metabolites detected at Days 0 (CT0) and 1 (CT1).")
    block = document.block(figure2.caption_block)
    assert block.type == "caption" and block.text == figure2.caption
    assert figure2.page == 5


def test_pipe_style_captions_and_side_by_side_captions():
    nature = read_paper("pymupdf_test_3780.pdf")
    assert next(f for f in nature.figures if f.label == "Figure 1").caption.startswith("Figure 1 | Crystal")
    # Behav Ecol Sociobiol prints Figs. 2 and 3 side by side on p. 7, each with its caption below it
    seals = read_paper("PMC4521097.pdf")
    left, right = (f for f in seals.figures if f.page == 7)
    assert (left.label, right.label) == ("Figure 2", "Figure 3")
    assert left.bbox[2] <= right.bbox[0], "figures set side by side must not overlap"
    assert left.caption == (
        "Fig. 2 The frequency of checks across the two trial types, familiar (n= 48) and stranger (n=48) "
        "with standard error bars"
    )
    assert right.caption.startswith("Fig. 3 The frequency of aggressive behaviours across the two trial types")


@pytest.mark.corpus  # the Aircraft Maintenance handbook's two captions under two figures on one line
def test_side_by_side_captions_of_a_handbook():
    amt = read_paper("docling_amt_handbook_sample.pdf")
    left, right = amt.figures
    assert left.bbox[2] <= right.bbox[0], "figures set side by side must not overlap"
    assert left.caption == "Figure 7-26. Self-locking nuts."


def test_subfigures_under_one_caption_are_one_figure():
    # Figure 4 of the sample sets four plots, lettered A to D, in two rows; one region covers all of them.
    document = read_paper(SAMPLE_PDF.name)
    figure4 = next(f for f in document.figures if f.label == "Figure 4")
    page = pymupdf.open(SAMPLE_PDF)[figure4.page - 1]
    letters = [pymupdf.Rect(w[:4]) for w in page.get_text("words") if w[4] in ("A", "B", "C", "D")]
    assert len(letters) == 4
    region = pymupdf.Rect(figure4.bbox) + (-1, -1, 1, 1)  # bboxes are rounded to 0.01 pt
    assert all(region.contains(letter) for letter in letters)
    assert len([f for f in document.figures if f.page == figure4.page and f.label is None]) == 0


@pytest.mark.corpus  # three plots titled by noise level, stacked under one caption (an arXiv paper)
def test_stacked_plots_under_one_caption_are_one_figure():
    document = read_paper("mineru_demo2.pdf")
    figure3 = next(f for f in document.figures if f.label == "Figure 3")
    # Figure 3 stacks three plots, titled by noise level; one region covers all of them.
    page = pymupdf.open(PAPERS / "mineru_demo2.pdf")[figure3.page - 1]
    titles = page.search_for("Noise:")
    assert len(titles) >= 2
    region = pymupdf.Rect(figure3.bbox) + (-1, -1, 1, 1)  # bboxes are rounded to 0.01 pt
    assert all(region.contains(title) for title in titles)
    assert len([f for f in document.figures if f.page == figure3.page and f.label is None]) == 0


def test_prose_that_starts_like_a_caption_is_not_a_caption():
    document = read_paper("PMC2803133.pdf")
    assert [f.label for f in document.figures] == ["Figure 1", "Figure 2", "Figure 3"]
    assert document.figures[0].caption == "Fig. 1. Chromatogram of the essential oils extracted from OS leaves"
    prose = [b for b in document.blocks if b.text.startswith("Fig. 1 shows GC of the EO extracted from OS leaves")]
    assert prose and prose[0].type == "paragraph"


@pytest.mark.corpus  # an IBM Redbook whose "Table 3-1 summarizes" opens a paragraph
def test_prose_that_starts_like_a_table_caption_in_a_redbook_is_not_a_caption():
    document = read_paper("docling_redp5110_sampled.pdf")
    labels = [t.label for t in document.tables]
    assert labels == ["Table 2-1", "Table 2-2", "Table 3-1", "Table 3-2"]
    prose = [b for b in document.blocks if b.text.startswith("Table 3-1 summarizes")]
    assert prose and prose[0].type != "caption"


@pytest.mark.corpus  # the only sideways table: a landscape table on a portrait page of a J. Hydrology paper
def test_rotated_table_is_found_on_its_landscape_page():
    document = read_paper("mineru_demo1.pdf")
    table1 = next(t for t in document.tables if t.label == "Table 1")
    assert table1.page == 5 and table1.bbox is not None
    width, height = table1.bbox[2] - table1.bbox[0], table1.bbox[3] - table1.bbox[1]
    assert height > width, "the sideways table is taller than wide on the portrait page"
    # its label and its title are two sideways lines: the caption holds both, the region neither
    assert table1.caption == "Table 1 Site characteristics for all catchments"
    title_line_right_edge = 60
    assert table1.bbox[0] > title_line_right_edge


def test_two_column_reading_order_and_abstract():
    document = read_paper("PMC4736972.pdf")  # Hindawi, two columns below a full-width abstract
    assert document.title.startswith("A Role for Notch Signalling in Breast Cancer")
    assert document.abstract.startswith("Over the past decade, there has been growing interest in the Notch")
    texts = [b.text for b in document.blocks]
    intro = next(i for i, t in enumerate(texts) if t == "1. The Notch Signalling Pathway")
    abstract_blocks = [i for i, b in enumerate(document.blocks) if b.is_abstract]
    assert abstract_blocks and max(abstract_blocks) < intro
    # The left column of page 1 is read before the right column.
    left_column = next(i for i, t in enumerate(texts) if t.startswith("The Notch signalling pathway is evolutionarily"))
    right_column = next(i for i, t in enumerate(texts) if t.startswith("Notch proteins are also subject to phosphorylation"))
    assert intro < left_column < right_column
    assert document.block(f"b{left_column + 1}").section == "1. The Notch Signalling Pathway"


@pytest.mark.corpus  # an arXiv paper with its title in capitals and its abstract in the left column
def test_two_column_reading_order_and_abstract_of_an_arxiv_paper():
    document = read_paper("mineru_demo3.pdf")
    assert document.title.startswith("TABLEFORMER")
    assert document.abstract.startswith("Understanding tables is an important")
    texts = [b.text for b in document.blocks]
    intro = next(i for i, t in enumerate(texts) if t == "1 Introduction")
    abstract_blocks = [i for i, b in enumerate(document.blocks) if b.is_abstract]
    assert abstract_blocks and max(abstract_blocks) < intro
    # The left column of page 1 is read before the right column.
    recently = next(i for i, t in enumerate(texts) if t.startswith("Recently, semi-structured"))
    right_column = next(i for i, t in enumerate(texts) if t.startswith("tables or rows into word"))
    assert intro < recently < right_column
    assert document.block(f"b{recently + 1}").section == "1 Introduction"


def test_headings_are_recognised_and_give_sections():
    document = read_paper(SAMPLE_PDF.name)
    headings = [b.text for b in document.blocks if b.type == "heading"]
    for expected in ["1. Introduction", "2. Results and Discussion", "3. Experimental Section", "References"]:
        assert expected in headings
    texts = [b.text for b in document.blocks]
    method, after = texts.index("3. Experimental Section"), texts.index("Author Contributions")
    subsections = [b.text for b in document.blocks[method:after] if b.type == "heading"][1:]
    assert subsections == [
        "3.1. Fungal Cultures", "3.2. Preparation of Wheat Grains", "3.3. Gas Chromatography and Mass Spectrometry",
        "3.4. Multivariate Statistical Analysis (MVA) of SPME-GC/MS Data",
    ]
    method_paragraphs = [b for b in document.blocks[method:after] if b.type == "paragraph"]
    assert len(method_paragraphs) >= 4
    assert all(p.section in subsections for p in method_paragraphs)


def _in_margins(document: Document) -> list[str]:
    return [
        b.text.strip()
        for b in document.blocks
        if b.bbox[1] < 0.08 * document.page_sizes[b.page - 1][1] or b.bbox[3] > 0.92 * document.page_sizes[b.page - 1][1]
    ]


def test_running_headers_and_page_numbers_are_removed():
    # Behav Ecol Sociobiol prints "Behav Ecol Sociobiol (2015) 69:1383–1394" and the page number (1383-1394)
    # at the foot of every page
    document = read_paper("PMC4521097.pdf")
    in_margins = _in_margins(document)
    assert not [t for t in in_margins if re.fullmatch(r"\d{1,4}", t)], "page numbers leaked into the text"
    assert not [t for t in in_margins if "sociobiol (2015)" in t.lower()], "running footer leaked"
    assert not [b for b in document.blocks if b.text.startswith("Behav Ecol Sociobiol (2015) 69:")]
    pdf = pymupdf.open(DATA_PAPERS / "PMC4521097.pdf")
    assert document.page_count == pdf.page_count == 12
    assert len(document.page_sizes) == 12
    # MDPI prints "Metabolites 2014, 4" and the page number (933-945) at the head of pages 2-14 (page 1 has
    # the citation line "Metabolites 2014, 4, 932-945; doi:...", which is the front matter's)
    sample = read_paper(SAMPLE_PDF.name)
    assert not [t for t in _in_margins(sample) if re.fullmatch(r"\d{1,4}", t)], "page numbers leaked into the text"
    headers = [b for b in sample.blocks if b.page > 1 and b.text.strip().startswith("Metabolites 2014, 4")]
    assert not headers, "running header leaked"


@pytest.mark.corpus  # a 26-page technical report: "Technical Report" heads every page
def test_running_headers_and_page_numbers_of_a_long_report_are_removed():
    document = read_paper("pymupdf_test_4751.pdf")
    in_margins = _in_margins(document)
    assert not [t for t in in_margins if re.fullmatch(r"\d{1,3}", t)], "page numbers leaked into the text"
    assert not [t for t in in_margins if t.lower().startswith("technical report")], "running header leaked"
    pdf = pymupdf.open(PAPERS / "pymupdf_test_4751.pdf")
    assert document.page_count == pdf.page_count == 26
    assert len(document.page_sizes) == 26


def test_hyphenated_line_breaks_are_joined():
    document = read_paper("PMC2803133.pdf")  # "hypercholester-/olemia" at line ends on pp. 2 and 6
    text = " ".join(b.text for b in document.blocks)
    assert "hypercholester- olemia" not in text and "hypercholester-olemia" not in text
    assert "hypercholesterolemia" in text


@pytest.mark.parametrize("name", [SAMPLE_PDF.name, "PMC2803133.pdf"])
def test_mentions_link_blocks_that_cite_each_figure_and_table(name):
    document = read_paper(name)
    for visual in [v for v in document.visuals if v.label]:
        assert visual.mentions, f"{visual.label} is cited in the paper but no mention was linked"
        for block_id in visual.mentions:
            block = document.block(block_id)
            assert block.type != "caption"
            number = visual.label.split()[-1]
            assert re.search(rf"(Fig\w*\.?|Table\w*)\s*(\d+[a-z]?(,|\s|and|–|-)*)*{number}", block.text)


def test_export_writes_document_json_and_a_png_per_visual(tmp_path):
    document = read_paper("PMC2803133.pdf").model_copy(deep=True)  # 8 pages, 3 figures, 4 tables
    written = export_document(document, tmp_path, dpi=100)
    assert written == tmp_path / "document.json"
    data = json.loads(written.read_text())
    reloaded = Document.model_validate(data)
    assert reloaded.kind == "pdf" and reloaded.page_count == 8
    assert len(reloaded.visuals) == 7
    for key in ("source", "kind", "title", "abstract", "language", "page_count", "page_sizes", "blocks", "figures", "tables"):
        assert key in data
    for visual in reloaded.visuals:
        png = tmp_path / visual.image
        assert png.is_file()
        with Image.open(png) as image:
            expected_width = (visual.bbox[2] - visual.bbox[0] + 4) * 100 / 72
            assert abs(image.width - expected_width) <= 3
    assert not list(tmp_path.rglob("*.tmp")), "temporary files must not survive an export"


@pytest.mark.corpus  # Elsevier's running header set inside a wide page margin
def test_running_header_inside_a_wide_page_margin_is_removed():
    document = read_paper("mineru_demo1.pdf")
    assert not [b for b in document.blocks if "Lane et al. / Journal of Hydrology" in b.text]
    headings = [b.text for b in document.blocks if b.type == "heading"]
    assert ["1. Introduction", "2. Methods"] == headings[2:4]
    assert "5. Discussion" in headings and "6. Summary and conclusions" in headings


@pytest.mark.corpus  # one Wolters Kluwer layout of the corpus's dev half
def test_an_abstract_on_a_shaded_panel_is_text_and_the_title_beside_a_badge_is_kept():
    # Wolters Kluwer prints the abstract on a tinted box and an "OPEN" badge beside the title (dev half)
    document = read_document(CORPUS / "pmc" / "PMC7969308.pdf")
    assert document.abstract and "adjuvant chemotherapy for breast cancer" in document.abstract
    first_page = " ".join(b.text for b in document.blocks if b.page == 1)
    assert "Effects of heavy-load resistance training" in first_page
    assert not any(v.page == 1 for v in document.visuals)


@pytest.mark.corpus  # one paper of the corpus's dev half whose PDF sets headings inside paragraphs
def test_a_heading_set_in_one_block_with_its_paragraph_is_split_off():
    # "...of EOs." / "Conclusions" / "The results ..." and "References" / "1. De Martino L" in single blocks (dev half)
    document = read_document(CORPUS / "pmc" / "PMC4391421.pdf")
    headings = [b.text for b in document.blocks if b.type == "heading"]
    assert "Conclusions" in headings and "References" in headings
    entries = [b for b in document.blocks if b.text.startswith("1. De Martino L")]
    assert entries and entries[0].section_kind == "references"


def test_crops_are_png_with_the_rendered_pixels():
    with pymupdf.open(DATA_PAPERS / "PMC2803133.pdf") as pdf:
        for colorspace in (pymupdf.csRGB, pymupdf.csGRAY):
            pixmap = pdf[3].get_pixmap(clip=pymupdf.Rect(50, 50, 301, 200), dpi=100, alpha=False, colorspace=colorspace)
            with Image.open(io.BytesIO(png_bytes(pixmap))) as image:
                image.load()
                assert image.size == (pixmap.width, pixmap.height)
                assert image.tobytes() == bytes(pixmap.samples)
