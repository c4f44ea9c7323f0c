"""Evidence search on a real paper (committed in tests/data) with the real MiniLM embedder and cross-encoder."""

from __future__ import annotations

import numpy as np
import pytest

from mmdocsum_desktop.retrieval.passages import build_passages, canonical_label
from mmdocsum_desktop.retrieval.search import Retriever, tokens
from tests.conftest import read_paper

# J. Clin. Biochem. Nutr. 2010: essential oils of holy basil in rats fed cholesterol; 3 figures, 4 tables
PAPER = "PMC2803133.pdf"


@pytest.fixture(scope="module")
def paper():
    return read_paper(PAPER)


def test_passages_carry_page_block_and_the_figures_they_rest_on(paper):
    passages = build_passages(paper)
    kinds = {p.kind for p in passages}
    assert {"sentence", "caption"} <= kinds
    block_ids = {b.id for b in paper.blocks}
    for passage in passages:
        assert passage.page is not None
        if passage.kind == "sentence":
            assert passage.block in block_ids
    citing = [p for p in passages if p.kind == "sentence" and "Figure 2" in p.labels and not p.inherited]
    assert citing and all("Fig" in p.text for p in citing)  # "Fig. 2A" in the text → Figure 2
    # a sentence that cites nothing rests on the figure its paragraph cites
    inherited = [p for p in passages if p.inherited]
    assert inherited and all("Fig" not in p.text and "Table" not in p.text for p in inherited)
    for passage in inherited:
        same_block = [q for q in passages if q.block == passage.block and not q.inherited and q.labels]
        assert any(set(passage.labels) == set(q.labels) for q in same_block)
    captions = {label for p in passages if p.kind == "caption" for label in p.labels}
    assert {"Figure 1", "Table 1"} <= captions


def test_reference_lists_are_not_evidence(paper):
    references = {b.id for b in paper.blocks if b.section == "References"}
    assert references  # the paper has them
    assert not [p for p in build_passages(paper) if p.block in references]


def test_figure_text_from_ocr_becomes_a_passage_of_its_figure(paper):
    figure = next(f for f in paper.figures if f.label)
    passages = build_passages(paper, {figure.id: "Abundance Time 10.00 20.00 30.00 eugenol"})
    ocr = [p for p in passages if p.kind == "ocr"]
    assert len(ocr) == 1 and ocr[0].figure == figure.id
    assert ocr[0].labels == (canonical_label(figure.label),)


def test_table_rows_are_passages_of_their_table(paper):
    from mmdocsum_desktop.retrieval.visual_text import read_region_text

    passages = build_passages(paper, None, read_region_text(paper))
    rows = [p for p in passages if p.kind == "cells"]
    assert {label for p in rows for label in p.labels} == {"Table 1", "Table 2", "Table 3", "Table 4"}
    alt = [p for p in rows if p.labels == ("Table 3",) and "ALT (U/L)" in p.text]
    assert alt and "118 ± 17" in alt[0].text  # the row, with its values (HC rats' ALT)
    assert all(p.text.startswith(p.labels[0]) for p in rows)  # read with the table's name and header


def test_a_question_naming_a_figure_gets_its_caption_first(retriever, paper):
    found = retriever.find(paper, "What does Figure 2 show?", k=5)
    assert found.named == ["Figure 2"] and found.visual.label == "Figure 2"
    assert found.evidence[0].kind == "caption" and found.evidence[0].labels == ("Figure 2",)
    assert all("Figure 2" in e.labels for e in found.evidence[:2])
    missing = retriever.find(paper, "What does Figure 9 show?", k=5)
    assert missing.named == [] and missing.unknown_named == ["Figure 9"]


def test_a_question_about_table_values_finds_the_table_by_its_cells(retriever, paper):
    # Table 1's caption says only "Chemical composition of essential oils ...": its rows hold the compounds
    question = "Which compound has a retention time of 5.48 min?"
    found = retriever.find(paper, question, k=5)
    assert found.visual.label == "Table 1", [(v.label, round(v.probability, 2)) for v in found.visuals[:3]]
    assert found.evidence_for("Table 1") is not None  # its best passage is among the evidence
    wider = retriever.find(paper, question, k=20).evidence
    assert any(e.kind == "cells" and e.labels == ("Table 1",) and "α-thujene" in e.text for e in wider)


def test_canonical_labels():
    assert canonical_label("Fig. 3") == "Figure 3"
    assert canonical_label("TABLE 2") == "Table 2"
    assert canonical_label("Appendix") is None


def test_bm25_tokens_drop_function_words_and_plurals():
    assert tokens("What are the effects of the catchments on flows?") == ["effect", "catchment", "flow"]
    assert tokens("") == []


@pytest.mark.parametrize(
    ("question", "label"),
    [
        ("Which figure shows the histopathology of the liver?", "Figure 2"),
        ("Where is the chemical composition of the essential oils given?", "Table 1"),
        ("Where are the serum ALT and AST activities given?", "Table 3"),
    ],
)
def test_the_evidence_rests_on_the_right_figure_or_table(retriever, paper, question, label):
    evidence = retriever.search(paper, question, k=5)
    assert evidence and evidence[0].rerank is not None
    assert label in {lab for item in evidence[:3] for lab in item.labels}, [e.text[:80] for e in evidence[:3]]
    supports = [e.support for e in evidence if e.rerank is not None]
    assert supports == sorted(supports, reverse=True)  # rescored passages come best first


def test_an_off_topic_question_finds_only_weak_evidence(retriever, paper):
    evidence = retriever.search(paper, "What is the best recipe for a chocolate cake?", k=3)
    assert all(item.support < 0.05 for item in evidence)


def test_the_index_is_built_once_per_document(retriever, paper):
    first = retriever.index(paper)
    runs = retriever.embedder.session_runs
    again = retriever.index(paper)
    assert again is first
    retriever.search(paper, "serum cholesterol", k=3)
    assert retriever.embedder.session_runs - runs <= 1  # the query only (or nothing: it was cached)


def test_keep_hides_passages(retriever, paper):
    question = "How did the liver cells of HC rats change?"
    hidden = retriever.search(paper, question, k=8, keep=lambda p: "Figure 2" not in p.labels)
    assert hidden and all("Figure 2" not in item.labels for item in hidden)


def test_without_a_cross_encoder_the_fused_order_stands(retriever, paper):
    plain = Retriever(retriever.embedder, None)
    evidence = plain.search(paper, "serum lipid profile of the rats", k=5)
    assert evidence and all(item.rerank is None for item in evidence)
    assert not plain.uses_reranker
    fused = [item.fused for item in evidence]
    assert fused == sorted(fused, reverse=True)
    scores = plain.rescore("zero flow days increased", ["The number of zero flow days increased.", "Typewriters."])
    assert scores[0] > scores[1] and np.all((scores >= 0) & (scores <= 1))


def test_an_empty_query_finds_nothing(retriever, paper):
    assert retriever.search(paper, "   ") == []


def test_lower_case_mentions_count_but_numbers_do_not():
    from mmdocsum_desktop.retrieval.passages import sentence_labels

    assert sentence_labels("2D DIGE analysis shown in figure 2 compares samples") == ["Figure 2"]
    assert sentence_labels("as in Figs. 2 and 4 and table 3") == ["Figure 2", "Figure 4", "Table 3"]
    assert sentence_labels("three figures 12.5 cm apart") == []
