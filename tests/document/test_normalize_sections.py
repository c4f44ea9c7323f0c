"""Text normalisation and back-matter / references / furniture marking, on text and on real papers."""

from __future__ import annotations

import re

from mmdocsum_desktop.document.model import Block, Document
from mmdocsum_desktop.document.normalize import (
    has_unmapped_glyphs,
    join_split_words,
    normalize_blocks,
    normalize_line,
    normalize_text,
)
from mmdocsum_desktop.document.reader import read_document
from mmdocsum_desktop.document.sections import is_reference_like, mark_section_kinds
from tests.conftest import CORPUS

PMC = CORPUS / "pmc"


def test_ligatures_and_soft_hyphens_but_not_superscripts():
    assert normalize_text("e\ufb03cient con\ufb02icts in m² of µm") == "efficient conflicts in m² of µm"
    assert normalize_text("extracel\u00ad lular matrix") == "extracellular matrix"
    assert normalize_line("behav\u00ad") == "behav\u00ad"  # kept at a line end for the join
    assert normalize_line("be\u00adhav") == "behav"


def test_split_words_are_joined_by_the_papers_own_vocabulary():
    known = {"extracellular", "long-term", "long", "term", "subjects", "compared"}
    assert join_split_words("the extracel- lular matrix", known) == "the extracellular matrix"
    assert join_split_words("a long- term study", known) == "a long-term study"
    assert join_split_words("subjects- compared", known) == "subjects- compared"
    assert join_split_words("hy- drogen", known) == "hydrogen"  # two fragments of no word of the paper
    assert join_split_words("pre- and post-", known) == "pre- and post-"


def test_unmapped_glyphs_mark_their_block():
    blocks = [Block(id="b1", type="paragraph", text="Ca2\ufffd influx"), Block(id="b2", type="paragraph", text="plain")]
    normalize_blocks(blocks)
    assert [b.unmapped_glyphs for b in blocks] == [True, False]
    assert has_unmapped_glyphs("\ue001") and not has_unmapped_glyphs("°C")


def _document(texts: list[tuple[str, str]]) -> Document:
    return Document(
        source="x.pdf",
        kind="pdf",
        blocks=[Block(id=f"b{i}", type=kind, text=text, page=1 + i // 8) for i, (kind, text) in enumerate(texts)],
    )


BODY = "The treated cells grew faster than the control cells in every one of the five experiments we ran. " * 3


def test_back_matter_and_an_unheaded_numbered_reference_list():
    document = _document(
        [("heading", "1. Introduction"), *[("paragraph", BODY)] * 8, ("heading", "Conflict of Interests"),
         ("paragraph", "The authors declare that there is no conflict of interests."),
         ("paragraph", "1. Smith J, Brown K. Growth of cells. J Cell Biol. 2010;12(3):45–67. doi:10.1/abc"),
         ("paragraph", "2. Jones A, et al. More growth. Nature. 2012;480:100–104."),
         ("paragraph", "3. Lee C, Kim D. Cells again. Cell. 2015;161(2):300–310.")]
    )
    mark_section_kinds(document)
    kinds = [b.section_kind for b in document.blocks]
    assert kinds[:9] == ["body"] * 9
    assert kinds[9:11] == ["back", "back"]
    assert kinds[11:] == ["references"] * 3
    assert all(is_reference_like(b.text) for b in document.blocks[11:])
    assert not is_reference_like(BODY)


def test_author_year_references_without_heading_after_the_body():
    refs = [
        "Bever, J.D., Dickie, I.A. (2012). Microbial population and community dynamics. Ecol. Lett. 15, 1–10.",
        "Glick, B.R. (2014). Bacteria with ACC deaminase can promote plant growth. Microbiol. Res. 169, 30–39.",
        "Wang, C., Knill, E. (2000). Reduction of ethylene levels. Can. J. Bot. 78, 1170–1176. doi:10.1139/b00",
    ]
    document = _document([*[("paragraph", BODY)] * 10, *[("paragraph", r) for r in refs]])
    mark_section_kinds(document)
    assert [b.section_kind for b in document.blocks[-3:]] == ["references"] * 3
    assert all(b.is_body for b in document.blocks[:10])


def test_journal_furniture_and_front_matter():
    document = _document(
        [("paragraph", "Copyright © 2016 A. Author et al. This is an open access article distributed under the CC BY."),
         ("paragraph", "Received 10 November 2015; Accepted 23 December 2015"),
         ("paragraph", "Molecules 2016, 21, 185; doi:10.3390/molecules21020185"),
         ("paragraph", "Keywords: cells; growth; media"),
         ("paragraph", "Roberto Postacchini,1 Stefano Carbone,2 and Marco Mastantuono3"),
         ("paragraph", BODY)]
    )
    mark_section_kinds(document)
    assert [b.section_kind for b in document.blocks] == ["furniture", "furniture", "furniture", "front", "front", "body"]


def test_a_real_two_column_paper_keeps_its_body_and_marks_its_back_matter():
    document = read_document(PMC / "PMC4739229.pdf")
    kinds = {b.section_kind for b in document.blocks}
    assert {"body", "references"} <= kinds
    body = " ".join(b.text for b in document.blocks if b.is_body and b.type != "caption")
    references = [b for b in document.blocks if b.section_kind == "references" and b.type != "heading"]
    assert references and all(b.page >= 4 for b in references)
    assert "Conflict of Interests" not in body and "et al.," not in body
    assert document.abstract and "visfatin" in document.abstract.lower()
    # ligatures are letters, soft hyphens are gone, and nothing else is left broken outside marked blocks
    for block in document.blocks:
        assert not re.search("[\ufb00-\ufb06\u00ad]", block.text)
        if not block.unmapped_glyphs:
            assert "\ufffd" not in block.text
