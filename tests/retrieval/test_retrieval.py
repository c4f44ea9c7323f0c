"""Evidence search on real corpus papers with the real MiniLM embedder and cross-encoder."""

from __future__ import annotations

import numpy as np
import pytest

from mmdocsum_desktop.retrieval import Retriever, build_passages, canonical_label
from mmdocsum_desktop.retrieval.search import tokens
from tests.conftest import read_paper

HYDROLOGY = "mineru_demo1.pdf"  # J. Hydrology 2005: flow duration curves, 5 figures, 5 tables


@pytest.fixture(scope="module")
def paper():
    return read_paper(HYDROLOGY)


def test_passages_carry_page_block_and_the_figures_they_rest_on(paper):
    passages = build_passages(paper)
    kinds = {p.kind for p in passages}
    assert {"sentence", "caption"} <= kinds
    block_ids = {b.id for b in paper.blocks}
    for passage in passages:
        assert passage.page is not None
        if passage.kind == "sentence":
            assert passage.block in block_ids
    citing = [p for p in passages if p.kind == "sentence" and "Figure 5" in p.labels and not p.inherited]
    assert citing and all("Fig" in p.text for p in citing)  # "Fig. 5" in the text → Figure 5
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
    passages = build_passages(paper, {figure.id: "Pine Creek annual flow duration curve 1990 2002"})
    ocr = [p for p in passages if p.kind == "ocr"]
    assert len(ocr) == 1 and ocr[0].figure == figure.id
    assert ocr[0].labels == (canonical_label(figure.label),)


def test_table_rows_are_passages_of_their_table(paper):
    from mmdocsum_desktop.retrieval.visual_text import read_region_text

    passages = build_passages(paper, None, read_region_text(paper))
    rows = [p for p in passages if p.kind == "cells"]
    assert {label for p in rows for label in p.labels} == {"Table 1", "Table 2", "Table 3", "Table 4", "Table 5"}
    redhill = [p for p in rows if p.labels == ("Table 4",) and "Redhill" in p.text]
    assert redhill and "6.13" in redhill[0].text  # the row, with its values
    assert all(p.text.startswith(p.labels[0]) for p in rows)  # read with the table's name and header


def test_a_question_naming_a_figure_gets_its_caption_first(retriever, paper):
    found = retriever.find(paper, "What does Figure 5 show?", k=5)
    assert found.named == ["Figure 5"] and found.visual.label == "Figure 5"
    assert found.evidence[0].kind == "caption" and found.evidence[0].labels == ("Figure 5",)
    assert all("Figure 5" in e.labels for e in found.evidence[:2])
    missing = retriever.find(paper, "What does Figure 9 show?", k=5)
    assert missing.named == [] and missing.unknown_named == ["Figure 9"]


def test_a_question_about_table_values_finds_the_table_by_its_cells(retriever, paper):
    # Table 1's caption says only "Site characteristics for all catchments": its rows hold the species
    found = retriever.find(paper, "Which tree species was planted at Pine Creek?", k=5)
    assert found.visual.label == "Table 1", [(v.label, round(v.probability, 2)) for v in found.visuals[:3]]
    assert found.evidence_for("Table 1") is not None  # its best passage is among the evidence
    wider = retriever.find(paper, "Which tree species was planted at Pine Creek?", k=20).evidence
    assert any(e.kind == "cells" and e.labels == ("Table 1",) and "Pine Ck" in e.text for e in wider)


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
        ("Which figure shows the climate adjusted zero flow days?", "Figure 5"),
        ("Where are the catchment details and treatments given?", "Table 1"),
        ("Where are the Thalf values of all catchments given?", "Table 4"),
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
    retriever.search(paper, "zero flow days", k=3)
    assert retriever.embedder.session_runs - runs <= 1  # the query only (or nothing: it was cached)


def test_keep_hides_passages(retriever, paper):
    question = "How did the number of zero flow days change after afforestation?"
    hidden = retriever.search(paper, question, k=8, keep=lambda p: "Figure 5" not in p.labels)
    assert hidden and all("Figure 5" not in item.labels for item in hidden)


def test_without_a_cross_encoder_the_fused_order_stands(retriever, paper):
    plain = Retriever(retriever.embedder, None)
    evidence = plain.search(paper, "site characteristics of each catchment", k=5)
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
