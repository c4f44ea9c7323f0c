"""Words as printed: spaces from glyph positions, ligatures set apart or drawn from private-use code
points, words glued together, on texts and glyph boxes written here and on a real paper."""

from __future__ import annotations

import pymupdf
import pytest

from mmdocsum_desktop.document.normalize import (
    normalize_blocks,
    private_glyph_readings,
    repair_word_breaks,
)
from mmdocsum_desktop.document.pdf_layout import text_from_glyphs
from mmdocsum_desktop.document.reader import read_document
from mmdocsum_desktop.schemas.document import Block
from tests.conftest import PAPERS


def _glyphs(*placed: tuple[str, float, float]) -> list[dict]:
    """rawdict-like glyphs: (character, left, right) on one baseline."""
    return [{"c": c, "bbox": (x0, 0.0, x1, 10.0)} for c, x0, x1 in placed]


def test_a_gap_between_glyphs_is_a_space_and_a_space_taking_no_room_beside_a_ligature_is_not():
    size = 10.0
    tight = _glyphs(("w", 0, 6), ("i", 6, 8.5), ("l", 8.5, 11), ("l", 11, 13.5), ("b", 15, 20), ("e", 20, 24.5))
    assert text_from_glyphs(tight, size) == "will be"  # 1.5 pt = 0.15 em apart, no space character
    kerned = _glyphs(("w", 0, 6), ("i", 5.9, 8.5), ("l", 8.6, 11))
    assert text_from_glyphs(kerned, size) == "wil"
    ligature = _glyphs(("\ufb01", 0, 5.5), (" ", 5.5, 5.6), ("r", 5.5, 9), ("s", 9, 13), ("t", 13, 16))
    assert text_from_glyphs(ligature, size) == "\ufb01rst"
    real_space = _glyphs(("o", 0, 5), ("f", 5, 8), (" ", 8, 10.5), ("f", 10.5, 13.5), ("i", 13.5, 16))
    assert text_from_glyphs(real_space, size) == "of fi"
    assert text_from_glyphs(_glyphs(("a", 0, 5), ("b", 30, 35)), size, horizontal=False) == "ab"


def test_private_use_ligatures_are_read_from_the_words_they_make():
    texts = ["More speci\ue103cally, it con\ue103rmed the de\ue103nition.", "diffuse re\ue104ectance and \ue104ow"]
    assert private_glyph_readings(texts) == {"\ue103": "fi", "\ue104": "fl"}
    blocks = [Block(id=f"b{i}", type="paragraph", text=text) for i, text in enumerate(texts)]
    assert normalize_blocks(blocks) == {"\ue103": "fi", "\ue104": "fl"}
    assert blocks[0].text == "More specifically, it confirmed the definition."
    assert not blocks[0].unmapped_glyphs
    # a glyph whose reading makes no word stays unmapped, and its block says so
    unknown = [Block(id="b1", type="paragraph", text="the value \ue200 was 3 and \ue200x")]
    normalize_blocks(unknown)
    assert unknown[0].unmapped_glyphs


def test_a_ligature_set_apart_is_joined_and_two_words_stay_two():
    texts = [
        "The fi rst season of infl uenza showed a benefi t of N95 fi ltering respirators.",
        "The staff members counted fish of five kinds; the cutoff value was set.",
    ]
    first, second = repair_word_breaks(texts)
    assert first == "The first season of influenza showed a benefit of N95 filtering respirators."
    assert second == texts[1]


def test_glued_words_are_split_only_where_the_paper_writes_them_apart():
    texts = [
        "The FDCsover the record and the smallbowel wall.",
        "Most FDCs over ten years; the small bowel was seen. The nanoparticles were small.",
    ]
    assert repair_word_breaks(texts)[0] == "The FDCs over the record and the small bowel wall."
    assert repair_word_breaks(["A longwordthatnobodywrote here."]) == ["A longwordthatnobodywrote here."]


def test_tightly_set_words_of_a_pdf_keep_their_spaces(tmp_path):
    # each word placed on its own, 0.15 em after the last: no space character in the text layer
    pdf = pymupdf.open()
    page = pdf.new_page()
    font = pymupdf.Font("tiro")
    sentence = "Raw data will be recorded in the case record form for every participant of the trial."
    for row in range(8):
        x = 72.0
        for word in sentence.split():
            page.insert_text((x, 100 + 14 * row), word, fontsize=10, fontname="tiro")
            x += font.text_length(word, fontsize=10) + 1.5
    path = tmp_path / "tight.pdf"
    pdf.save(path)
    assert sentence in read_document(path).body_text()


@pytest.mark.corpus  # the font quirk of one corpus paper (no committed paper prints such a font in its prose)
def test_a_symbol_font_that_draws_other_glyphs_at_ascii_codes_is_marked_unreadable():
    # mineru_demo1.pdf prints "flowing <20%" with a "<" drawn at the code of "!" (a glyph 1 em wide)
    document = read_document(PAPERS / "mineru_demo1.pdf")
    block = next(b for b in document.blocks if "stream flowing" in b.text)
    assert "flowing !20%" not in block.text
    assert "flowing \ufffd20%" in block.text and block.unmapped_glyphs
    # text fonts are never taken for such fonts: the abstract's words are all readable
    assert not any(b.unmapped_glyphs for b in document.blocks if b.is_abstract)
