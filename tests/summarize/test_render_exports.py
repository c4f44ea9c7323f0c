"""Exports people use (issue 17): captions once, normalised text, front matter Obsidian reads, a fitness
warning on summaries by unfit models, and a PDF that keeps every paragraph, each figure with its caption,
subset fonts and a small size."""

from __future__ import annotations

import datetime

import pymupdf
import pytest
from PIL import Image

from mmdocsum_desktop.schemas.summary import FigureChoice, SentenceCitation, Summary, SummaryParagraph
from mmdocsum_desktop.summarize.render import caption_text, to_markdown, write_summary
from tests.conftest import SAMPLE_PDF


def test_a_caption_that_starts_with_its_label_is_not_labelled_twice():
    assert caption_text("Table 2", "Table 2 Flow data by year") == "Table 2 Flow data by year"
    assert caption_text("Figure 5", "Fig. 5. Site map.") == "Fig. 5. Site map."
    assert caption_text("Figure 3", "Site map of the catchments.") == "Figure 3: Site map of the catchments."
    assert caption_text("Figure 3", "") == "Figure 3"
    assert caption_text("Figure 5", "Figure 5: A comparison of two methods.") == "Figure 5: A comparison of two methods."
    assert caption_text("Figure 1", "Figure 1 | Ion crystal.") == "Figure 1 | Ion crystal."


def _summary(tmp_path, *, engine=None, big=False) -> Summary:
    figures = tmp_path / "doc_files" / "figures"
    figures.mkdir(parents=True, exist_ok=True)
    paragraphs = []
    for i, role in enumerate(("background", "method", "results", "conclusion")):
        image = figures / f"fig{i}.png"
        if big:  # a page of a real paper at 300 dpi: the kind of crop that made a 3.9 MB export
            with pymupdf.open(SAMPLE_PDF) as paper:
                paper[i].get_pixmap(dpi=300).save(image)
        else:
            Image.new("RGB", (300, 200), "teal").save(image)
        text = f"The e\ufb00ect of \ufb02ow on paragraph {i}.  " + "Words in a sentence. " * (60 if big else 3)
        paragraphs.append(SummaryParagraph(
            role=role, text=text.strip(), source="model",
            figure=FigureChoice(index=i + 1, id=f"fig{i}", label=f"Table {i + 1}", kind="table",
                                caption=f"Table {i + 1} Numbers of part {i}.", image=f"doc_files/figures/fig{i}.png"),
            sentences=[SentenceCitation(text=text.strip(), pages=[i + 2], figures=[f"Table {i + 1}"])]))
    return Summary(source=str(tmp_path / "doc.pdf"), title="E\ufb00ects of \ufb02ow",
                   engine=engine or {"engine": "extractive"}, paragraphs=paragraphs)


def test_markdown_reads_clean_and_opens_in_obsidian(tmp_path):
    path = write_summary(_summary(tmp_path), tmp_path / "out" / "s.md", "md", base_dir=tmp_path)
    text = path.read_text()
    head = text.split("---")[1]
    assert 'title: "Effects of flow"' in head and 'source: "doc.pdf"' in head
    assert f'date: "{datetime.date.today().isoformat()}"' in head
    assert not any(ch in text for ch in "\ufb00\ufb01\ufb02")
    assert "The effect of flow on paragraph 0." in text
    assert "Table 1 Numbers of part 0." in text and "Table 1: Table 1" not in text
    assert "\\[p. 2; Table 1\\]" in text and "b1" not in text  # human citations, no block ids
    # images linked relatively, next to the note
    # named after the label the reader sees beside it (issue 29: "Figure 1" was fig3.png)
    assert "](<s_images/table-1.png>)" in text and (tmp_path / "out" / "s_images" / "table-1.png").is_file()
    assert str(tmp_path) not in text


def test_a_summary_by_an_unfit_model_says_so_in_the_export(tmp_path):
    engine = {"engine": "llama", "model": "SmolLM2 135M Instruct", "model_file": "/m/SmolLM2-135M-Instruct.Q4_1.gguf"}
    text = to_markdown(_summary(tmp_path, engine=engine), relative_to=tmp_path)
    assert "**Warning:** SmolLM2-135M-Instruct is too small to write summaries reliably" in text
    assert "Warning" not in to_markdown(_summary(tmp_path), relative_to=tmp_path)


@pytest.fixture(scope="module")
def big_pdf(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("big")
    return write_summary(_summary(tmp_path, big=True), tmp_path / "s.pdf", "pdf", base_dir=tmp_path)


def test_the_pdf_keeps_every_paragraph_and_each_figure_with_its_caption(big_pdf):
    with pymupdf.open(big_pdf) as pdf:
        pages = [page.get_text(flags=0) for page in pdf]
        images = [len(page.get_images()) for page in pdf]
        for i in range(4):  # page-sized images used to push the rest of the summary off the end
            assert any(f"paragraph {i}." in text for text in pages), i
            caption = f"Table {i + 1} Numbers of part {i}."
            on = [n for n, text in enumerate(pages) if caption in " ".join(text.split())]
            assert len(on) == 1 and images[on[0]] >= 1, (i, on)  # never a page with a caption alone
        fonts = {font[3] for n in range(len(pdf)) for font in pdf.get_page_fonts(n)}
        assert fonts and all("+" in name for name in fonts), fonts  # subset fonts carry a "ABCDEF+" tag


def test_the_pdf_stays_small_with_large_images(big_pdf):
    assert big_pdf.stat().st_size < 1_000_000, big_pdf.stat().st_size


def test_an_edited_paragraph_cites_the_papers_sentences_and_never_the_users_own(tmp_path):
    """Issue 29: the user's added sentence was cited "[pp. 10, 12]" (the whole paragraph's marker)."""
    summary = _summary(tmp_path)
    paragraph = summary.paragraphs[0]
    paper = "Flow fell by half after planting."
    other = "Rainfall explains the rest of the change."
    paragraph.sentences = [SentenceCitation(text=paper, pages=[10]), SentenceCitation(text=other, pages=[12])]
    paragraph.text = f"{paper} {other} My own sentence says what I think."
    text = to_markdown(summary)
    assert "Flow fell by half after planting. \\[p. 10\\]" in text
    assert "Rainfall explains the rest of the change. \\[p. 12\\]" in text
    assert "My own sentence says what I think.\n" in text  # no marker after the user's words
    assert "pp. 10, 12" not in text


def test_the_pdf_text_copies_out_as_letters_not_ligature_glyphs(tmp_path):
    """Issue 29: the exported PDF's text copied out as "ﬁ", "ﬂ" (MuPDF's layout draws ligatures)."""
    path = write_summary(_summary(tmp_path), tmp_path / "s.pdf", "pdf", base_dir=tmp_path)
    with pymupdf.open(path) as pdf:
        text = "".join(page.get_text() for page in pdf)
    assert "effect of flow on paragraph 0" in " ".join(text.split())
    assert not any("\ufb00" <= ch <= "\ufb06" for ch in text)
