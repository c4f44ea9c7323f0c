"""Ask the paper end to end on real papers committed with the tests: real MiniLM, cross-encoder and (for the model path) the
real SmolLM2-135M GGUF. The model's own words are not asserted (a 135M model says what it says); what
is asserted is what the checks guarantee about whatever it says."""

from __future__ import annotations

import pymupdf
import pytest

from mmdocsum_desktop.answer.ask import (
    MAX_QUESTION_CHARS,
    AskOptions,
    answer_question,
    check_model_answer,
    prepare_question,
)
from mmdocsum_desktop.document.reader import read_document
from mmdocsum_desktop.engines.llama import LlamaConfig, LlamaEngine
from mmdocsum_desktop.errors import EmptyQuestionError
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.schemas.answer import NOT_IN_DOCUMENT, Answer
from tests.conftest import DATA_PAPERS, read_paper

# J. Clin. Biochem. Nutr. 2010: essential oils of holy basil in rats fed cholesterol; 3 figures, 4 tables
PAPER = "PMC2803133.pdf"
FIGURE_QUESTION = "Which figure shows the histopathology of the liver?"  # Fig. 2, p. 6


@pytest.fixture(scope="module")
def paper():
    return read_paper(PAPER)


@pytest.fixture(scope="module")
def pages_without_figures(tmp_path_factory):
    """Pages 3-6 of a Hindawi review: body text and references, no figure or table printed or cited."""
    with pymupdf.open(DATA_PAPERS / "PMC4736972.pdf") as source, pymupdf.open() as pages:
        pages.insert_pdf(source, from_page=2, to_page=5)
        path = tmp_path_factory.mktemp("no-figures") / "notch-review-pp3-6.pdf"
        pages.save(path)
    return read_document(path)


@pytest.fixture(scope="module")
def smollm_engine(smollm):
    engine = LlamaEngine(LlamaConfig(model=smollm, n_ctx=2048, n_threads=1, seed=0))
    yield engine
    engine.close()


def test_extractive_answer_quotes_the_document_and_cites_the_figure(retriever, paper):
    answer = answer_question(paper, FIGURE_QUESTION, None, retriever)
    assert not answer.not_in_document and answer.sentences
    first = answer.sentences[0]
    assert first.source == "extracted" and "Figure 2" in first.figures
    texts = {p.text for p in retriever.index(paper).passages}
    for sentence in answer.sentences:
        assert sentence.text in texts  # quoted verbatim from the evidence
        assert sentence.pages and sentence.blocks and sentence.evidence
        assert all(paper.block(block).page in sentence.pages for block in sentence.blocks)
    assert "Figure 2" in answer.cited_labels
    assert answer.engine.engine == "extractive" and answer.engine.retrieval is not None and answer.engine.retrieval.reranker is True
    assert answer.timings["retrieval_s"] > 0 and "first_token_s" not in answer.timings
    assert Answer.model_validate_json(answer.model_dump_json(indent=2)) == answer  # the JSON form round-trips


def _recording_control() -> tuple[JobControl, list[tuple[float, str]]]:
    seen: list[tuple[float, str]] = []
    return JobControl(on_progress=lambda done, total, what: seen.append((done / total, what))), seen


def _assert_one_forward_bar(seen: list[tuple[float, str]], stages: tuple[str, ...]) -> None:
    fractions = [fraction for fraction, _ in seen]
    assert fractions == sorted(fractions), "the bar ran backwards"
    assert fractions[-1] == 1.0
    for stage in stages:
        assert any(what.startswith(stage) for _, what in seen), stage


def test_extractive_answer_progress_moves_forward_through_reading_and_searching(retriever, paper):
    control, seen = _recording_control()
    answer_question(paper, FIGURE_QUESTION, None, retriever, control)
    _assert_one_forward_bar(seen, ("searching", "answering"))


def test_a_table_question_cites_the_table(retriever, paper):
    answer = answer_question(paper, "Where are the serum ALT and AST activities given?", None, retriever)
    assert "Table 3" in answer.cited_labels


@pytest.mark.parametrize(
    ("question", "label", "caption_start"),
    [
        ("What does Figure 2 show?", "Figure 2", "Fig. 2."),  # answered "does not say" before (issue 25)
        ("What is shown in Fig. 3?", "Figure 3", "Fig. 3."),  # answered with a sentence about another figure before
        ("What does the second table report?", "Table 2", "Table 2"),
    ],
)
def test_a_question_naming_a_visual_is_answered_from_it(retriever, paper, question, label, caption_start):
    answer = answer_question(paper, question, None, retriever)
    assert not answer.not_in_document
    assert answer.visual == label and answer.cited_labels[0] == label
    assert answer.sentences[0].text.startswith(caption_start)  # its caption first
    assert all(label in sentence.labels for sentence in answer.sentences)


def test_a_visual_the_document_lacks_is_said_so(retriever, paper):
    answer = answer_question(paper, "What does Figure 9 show?", None, retriever)
    assert any("no Figure 9" in note for note in answer.notes)
    assert "Figure 9" not in answer.cited_labels


def test_a_method_question_is_answered_with_the_method(retriever, paper):
    # issue 25: "got a sentence about results"; the paper extracts the oils by hydrodistillation
    answer = answer_question(paper, "How were the essential oils extracted from the leaves?", None, retriever)
    assert "hydrodistillation" in answer.sentences[0].text
    assert answer.cited_labels  # the answer rests on a table: Table 1 lists the oils' composition


def test_an_off_topic_question_is_not_answered_from_the_document(retriever, paper):
    answer = answer_question(paper, "What is the best recipe for a chocolate cake?", None, retriever)
    assert answer.not_in_document
    assert [s.text for s in answer.sentences] == [NOT_IN_DOCUMENT]
    assert answer.cited_labels == []


def test_a_document_without_figures_answers_with_pages_and_says_so(retriever, pages_without_figures):
    question = "Which breast cancer cell line was forced to express the Notch ligand Jagged1?"
    answer = answer_question(pages_without_figures, question, None, retriever)
    assert any("figures" in note for note in answer.notes)
    assert not answer.not_in_document
    assert "MDA-MB-231" in answer.sentences[0].text and answer.sentences[0].pages
    assert answer.cited_labels == []


def test_empty_and_overlong_questions():
    with pytest.raises(EmptyQuestionError):
        prepare_question("  \n\t ")
    text, repairs = prepare_question("why " * 5000)
    assert len(text) <= MAX_QUESTION_CHARS and repairs[0].kind == "question-truncated"
    assert "20000" in repairs[0].reason or "19999" in repairs[0].reason


def test_model_answer_is_streamed_checked_and_cited(retriever, paper, smollm_engine):
    pieces: list[str] = []
    control, seen = _recording_control()
    answer = answer_question(paper, FIGURE_QUESTION, smollm_engine, retriever, control,
                             options=AskOptions(max_tokens=48), on_text=pieces.append)
    # prompt and tokens, then the checks, all inside the one bar of the question
    _assert_one_forward_bar(seen, ("searching", "answering: writing", "answering: checking"))
    assert pieces and "".join(pieces) == answer.model_text
    assert answer.generation is not None and answer.generation.completion_tokens <= 48
    assert 0 < answer.timings["first_token_s"] <= answer.timings["total_s"]
    assert answer.engine.engine == "llama"
    assert answer.sentences
    for sentence in answer.sentences:
        if sentence.source == "model":
            # every kept model sentence passed the support check and rests on shown evidence
            assert sentence.support >= AskOptions().support_threshold
            assert sentence.evidence and sentence.pages
        else:
            assert sentence.source in ("extracted", "notice")
    dropped = [r for r in answer.repairs if r.kind == "unsupported-sentence-dropped"]
    kept_text = " ".join(s.text for s in answer.sentences)
    assert all(r.text not in kept_text for r in dropped)


def test_checks_drop_a_figure_the_document_does_not_have(retriever, paper):
    # what a model that invents a figure writes; the checker is run on it directly
    index = retriever.index(paper)
    evidence = retriever.search(index, FIGURE_QUESTION, k=6)
    repairs = []
    kept = check_model_answer(
        "The histopathological appearance of the liver is shown in Fig. 2 (Figure 42) [1]. "
        "The liver weight of the rats rose by 987 percent [1]. "
        "Penguins enjoy cold water [2]. It is also in passage [9].",
        evidence, evidence, index, retriever, AskOptions(), repairs,
    )
    kinds = [r.kind for r in repairs]
    assert "unknown-figure-citation-dropped" in kinds
    assert "Figure 42" not in " ".join(s.text for s in kept)
    assert kinds.count("unsupported-sentence-dropped") >= 2  # 987 is in no passage; penguins are off topic
    assert "unknown-evidence-number-dropped" in kinds  # [9]: only 6 passages were shown
    assert kept and kept[0].figures == ["Figure 2"] and kept[0].evidence == [1]
