"""Text normalisation and back-matter / references / furniture marking, on text and on real papers."""

from __future__ import annotations

import re

from mmdocsum_desktop.document.normalize import (
    has_unmapped_glyphs,
    join_split_words,
    normalize_blocks,
    normalize_line,
    normalize_text,
)
from mmdocsum_desktop.document.pdf_layout import join_lines
from mmdocsum_desktop.document.reader import read_document
from mmdocsum_desktop.document.sections import (
    furniture_kind,
    heading_roles,
    is_abstract_heading,
    is_reference_like,
    mark_section_kinds,
    run_in_heading,
    strip_run_in_heading,
    summary_part,
)
from mmdocsum_desktop.schemas.document import Block, Document
from tests.conftest import DATA_PAPERS


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


def test_a_compound_broken_at_its_own_hyphen_keeps_it_and_a_hyphenated_word_is_joined():
    # what line joining hands over: the line-end hyphen marked, to be decided with the whole paper
    broken = join_lines(["does not require paired-", "catchments to remove", "the extracel-", "lular matrix"],
                        mark_breaks=True)
    assert broken == "does not require paired\u00adcatchments to remove the extracel\u00adlular matrix"
    assert join_lines(["paired-", "catchments"]) == "pairedcatchments"  # unmarked: the old join
    blocks = [
        Block(id="b1", type="paragraph", text="The paired-catchment method and the extracellular space."),
        Block(id="b2", type="paragraph", text=broken),
        # written nowhere in the paper: the word list decides, two words that make no word keep the hyphen,
        # a word broken at a syllable is joined
        Block(id="b3", type="paragraph", text="a long\u00adterm trend, con\u00adfirmed by a hyper\u00adactive gene"),
    ]
    normalize_blocks(blocks)
    assert blocks[1].text == "does not require paired-catchments to remove the extracellular matrix"
    assert blocks[2].text == "a long-term trend, confirmed by a hyperactive gene"
    assert not any("\u00ad" in block.text for block in blocks)


def test_a_name_broken_after_its_hyphen_before_a_number_stays_one_name():
    assert join_lines(["human HEK-", "293 cells and IL-", "6 levels"]) == "human HEK-293 cells and IL-6 levels"
    assert join_lines(["aged 20-", "30 years"]) == "aged 20- 30 years"  # a range is not a name


def test_mathematical_styled_letters_are_read_as_their_letters():
    # Hindawi and others set units and statistics in math italic: "20 𝜇L", "(𝜅 > 0.85)", "p38𝛼"
    assert normalize_text("20 \U0001d707L, (\U0001d705 > 0.85), p38\U0001d6fc, \U0001d400") == "20 μL, (κ > 0.85), p38α, A"
    assert normalize_text("5 µm²") == "5 µm²"  # the micro sign and superscripts are left as printed


def test_a_real_paper_keeps_the_hyphen_of_a_compound_split_at_a_line_end():
    document = read_document(DATA_PAPERS / "PMC4521097.pdf")
    text = " ".join(block.text for block in document.blocks)
    assert "the reported short half-life of oxytocin in plasma" in text  # "half-/life" on p. 3
    assert "halflife" not in text and "\u00ad" not in text


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
    document = read_document(DATA_PAPERS / "PMC4736972.pdf")  # Hindawi review, references on pp. 4-6
    kinds = {b.section_kind for b in document.blocks}
    assert {"body", "references"} <= kinds
    body = " ".join(b.text for b in document.blocks if b.is_body and b.type != "caption")
    references = [b for b in document.blocks if b.section_kind == "references" and b.type != "heading"]
    assert references and all(b.page >= 4 for b in references)
    assert "Conflict of Interests" not in body and "et al.," not in body
    assert document.abstract and "notch signalling pathway" in document.abstract.lower()
    # ligatures are letters, soft hyphens are gone, and nothing else is left broken outside marked blocks
    for block in document.blocks:
        assert not re.search("[\ufb00-\ufb06\u00ad]", block.text)
        if not block.unmapped_glyphs:
            assert "\ufffd" not in block.text


def test_author_lines_with_degrees_running_heads_and_editor_lines_are_not_body():
    first_page = [
        "Emelie Strandberg, PhDa,∗, Karianne Vassbakk-Svindland, PhDa, Anna Henriksson, PhDa, Olav Vikmoen, PhDc",
        "∗ , Michihiro Kudou, MD, PhD, Hitoshi Fujiwara, MD, PhD, Hirotaka Konishi, MD, PhD",
        "Kwak et al. BMC Complementary and Alternative Medicine 2014, 14:419 http://www.biomedcentral.com/1472-6882/14/419",
        "Bernard R. Glick, University of Waterloo, Canada",
        "* Authors to whom correspondence should be addressed; E-Mails: a.b@c.it (A.B.); d.e@f.it (D.E.); Tel.: +39 0832 123 456",
    ]
    kinds = [furniture_kind(Block(id="b", type="paragraph", text=t, page=1), first_page=True) for t in first_page]
    assert kinds == ["front", "front", "furniture", "front", "front"]
    prose = "Smith et al. showed in 2012 that the University of Michigan cohort grew, a result we test here."
    assert furniture_kind(Block(id="b", type="paragraph", text=prose, page=1), first_page=True) is None


def test_abbreviation_lists_and_stray_reference_fragments_are_not_body():
    fragment = (
        "for working with local knowledge systems. 2013. http://unesdoc.unesco.org/images/225242e.pdf. "
        "5. Nair DN, Padmavathy S. Impact of endophytic microorganisms. Sci World J. 2014;2014:250693. "
        "6. Afzal M, Khan QM, Sessitsch A. Endophytic bacteria. Chemosphere. 2014;117:232–42. "
        "7. Zahoor M, Irshad M, Rahman H. Alleviation of heavy metal. Chem Cent J. 2017;11:1–10."
    )
    document = _document(
        [("heading", "1. Introduction"), *[("paragraph", BODY)] * 8,
         ("paragraph", "SWA = sensewear armband, TNF-a = tumor necrosis factor alpha, TWEAK = TNF-related weak "
                       "inducer of apoptosis, RT = resistance training, CK = creatine kinase, BIA = impedance"),
         ("paragraph", fragment), ("paragraph", BODY)]
    )
    mark_section_kinds(document)
    kinds = [b.section_kind for b in document.blocks]
    assert kinds[1:9] == ["body"] * 8
    assert kinds[9:] == ["back", "references", "body"]


def test_a_block_between_two_reference_entries_stays_in_the_references():
    entries = [
        "Ford EB (eds) Evolution as a process. Allen and Unwin, London, pp 71–83 Gherardi F, Tiedemann J (2004) "
        "Chemical cues and binary individual recognition in the hermit crab. J Zool 263:23–29",
        "crabs. Behav Ecol Sociobiol 55:524–530 Gingrich B, Liu Y, Cascio C, Wang Z, Insel TR (2000) Dopamine D2",
    ]
    cut_title = (
        "receptors in the nucleus accumbens are important for social attachment in female prairie voles and in "
        "the way they choose and keep a partner over the seasons of the year that follow their first meeting"
    )
    document = _document(
        [("heading", "1. Introduction"), *[("paragraph", BODY)] * 8, ("heading", "References"),
         ("paragraph", entries[0]), ("paragraph", cut_title), ("paragraph", entries[1])]
    )
    mark_section_kinds(document)
    assert [b.section_kind for b in document.blocks[-3:]] == ["references"] * 3


def test_section_names_in_every_tabled_language():
    for heading, role in {
        "Resumo": "abstract", "RESUMEN": "abstract", "Résumé": "abstract", "Zusammenfassung": "abstract", "요약": "abstract",
        "2. Métodos": "methods", "Ⅰ. 서론": "introduction", "一、引言": "introduction", "Discussão": "discussion",
        "Conclusões": "conclusions", "Referências": "references", "Referencias bibliográficas": "references",
        "참고문헌": "references", "Agradecimentos": "acknowledgements", "Palavras-chave": "keywords",
        "Palabras clave:": "keywords", "Mots-clés": "keywords", "Conflito de interesses": "conflicts",
    }.items():
        found = heading_roles(heading)
        assert found is not None and found.role == role, heading
    assert is_abstract_heading("RESUMO") and is_abstract_heading("Abstract") and not is_abstract_heading("Resultados")
    assert heading_roles("Diabetes gestacional autorreferido") is None
    assert summary_part("Metodologia da pesquisa") == "method" and summary_part("Referências") == "skip"


def test_run_in_section_names():
    assert run_in_heading("Palavras-chave: diabetes; gravidez").role == "keywords"
    assert run_in_heading("Conclusão: O estudo mostrou.").role == "conclusions"
    assert strip_run_in_heading("Conclusão: O estudo mostrou.") == "O estudo mostrou."
    assert run_in_heading("O método: uma frase") is None


def test_back_matter_and_references_in_portuguese():
    prose = "O estudo avaliou a prevalência do diabetes gestacional autorreferido em mulheres brasileiras. " * 6
    blocks = [Block(id=f"b{i}", type="paragraph", text=prose, page=1) for i in range(6)]
    blocks += [
        Block(id="h1", type="heading", text="Agradecimentos", page=2),
        Block(id="p1", type="paragraph", text="Agradecemos ao IBGE pelos dados da pesquisa.", page=2),
        Block(id="h2", type="heading", text="Referências", page=2),
        Block(id="r1", type="paragraph", text="1. Silva A, Souza B. Diabetes na gestação. Rev Saude Publica. 2019;53:1-9.", page=2),
        Block(id="k1", type="paragraph", text="Palavras-chave: diabetes gestacional; inquérito de saúde", page=1),
    ]
    document = Document(source="x.pdf", kind="pdf", blocks=blocks)
    mark_section_kinds(document)
    kinds = {b.id: b.section_kind for b in document.blocks}
    assert kinds["b0"] == "body" and kinds["h1"] == kinds["p1"] == "back"
    assert kinds["h2"] == kinds["r1"] == "references" and kinds["k1"] == "front"
