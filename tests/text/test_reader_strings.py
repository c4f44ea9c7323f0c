"""Reader-facing strings per language (text/reader_strings.py, resources/reader/*.toml): every language has
every string English has, with the same fields; labels, markers and notes read in the paper's language."""

from __future__ import annotations

import re
import tomllib
from importlib import resources

import pytest

from mmdocsum_desktop.schemas.summary import ROLES, NoFigure
from mmdocsum_desktop.text.languages import language_tables
from mmdocsum_desktop.text.reader_strings import (
    READER_STRINGS,
    ReaderStringsError,
    _load,
    reader_languages,
    reader_strings,
)

LANGUAGES = ("en", "pt", "es", "fr", "de", "it")


def _raw(code: str) -> dict:
    return tomllib.loads(resources.files(READER_STRINGS).joinpath(f"{code}.toml").read_text(encoding="utf-8"))


def test_every_language_the_app_knows_has_reader_strings():
    assert set(LANGUAGES) <= set(reader_languages())
    assert set(language_tables()) <= set(reader_languages())  # ko, zh, ja too


def test_chinese_and_japanese_labels_have_no_spaces():
    assert reader_strings("zh").labels_list(["Figure 1", "Table 2"]) == "图1和表2"
    assert reader_strings("ja").label("Table 3") == "表3"
    assert reader_strings("ko").label("Figure 2") == "그림 2"


@pytest.mark.parametrize("code", [c for c in LANGUAGES if c != "en"])
def test_every_heading_and_placeholder_is_translated(code):
    strings, english = reader_strings(code), reader_strings("en")
    assert strings.code == code
    # "Conclusion" is French as well as English; at least three of the four headings differ everywhere
    assert sum(strings.heading(role) != english.heading(role) for role in ROLES) >= 3
    for role in ROLES:
        assert strings.no_section(role) != english.no_section(role)
        assert strings.no_content(role) != english.no_content(role)
        assert "{" not in strings.no_readable_sentence(role)
    assert strings.not_in_document != english.not_in_document
    assert strings.label("Table 2") != "Table 2"


@pytest.mark.parametrize(("code", "label", "shown"), [
    ("pt", "Table 2", "Tabela 2"), ("pt", "Box 1", "Quadro 1"), ("es", "Table S1", "Tabla S1"),
    ("fr", "Table 3", "Tableau 3"), ("de", "Figure 4b", "Abbildung 4b"), ("it", "Table 1", "Tabella 1"),
    ("en", "Figure 2", "Figure 2"), ("pt", "Supplementary Figure 1", "Supplementary Figure 1"),
])
def test_labels_are_printed_in_the_papers_language(code, label, shown):
    assert reader_strings(code).label(label) == shown


def test_markers_and_notes_name_pages_and_labels_in_the_papers_language():
    assert reader_strings("pt").marker([3], ["Figure 2", "Table 1"]) == "(p. 3; Figura 2; Tabela 1)"
    assert reader_strings("de").marker([4, 3], ["Table 1"], ocr=True) == "(S. 3, 4, OCR; Tabelle 1)"
    note = NoFigure(kind="no_image", labels=["Table 2", "Figure 1"])
    assert note.message_in("pt") == "Tabela 2 e Figura 1, que este parágrafo cita, não têm imagem."
    assert note.message_in(None) == note.message  # English as the schema always said it


def test_a_language_without_strings_reads_english():
    assert reader_strings("nl").code == "en"  # Dutch: detected, no tables
    assert reader_strings(None).heading("method") == "Method"
    assert reader_strings("pt-BR").heading("results") == "Resultados"


def test_a_translation_missing_a_string_or_a_field_is_refused():
    english = _raw("en")
    broken = _raw("pt")
    del broken["sentences"]["no_content"]
    with pytest.raises(ReaderStringsError, match="lacks no_content"):
        _load("pt", broken, english)
    renamed = _raw("pt")
    renamed["no_figure"]["no_image_one"] = re.sub(r"\{labels\}", "{label}", renamed["no_figure"]["no_image_one"])
    with pytest.raises(ReaderStringsError, match="other fields"):
        _load("pt", renamed, english)
