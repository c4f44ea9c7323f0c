"""Figure text in answers (issue 46, item 4): the words inside a figure help the search find it, but an
answer shows them only as a short cleaned quote, and only when they are what answers the question;
elsewhere the figure's caption stands for them. On a committed pmc-test PDF whose charts hold words,
with the real MiniLM and cross-encoder."""

from __future__ import annotations

import re

import pytest

from mmdocsum_desktop.answer.ask import AskOptions, answer_question, extractive_sentences
from mmdocsum_desktop.bench.splits import SPLITS_ROOT
from mmdocsum_desktop.document.reader import read_document
from mmdocsum_desktop.retrieval.passages import FIGURE_TEXT_KINDS, QUOTE_WORDS, figure_text_quote
from mmdocsum_desktop.retrieval.search import Evidence

PAPER = SPLITS_ROOT / "pmc-test" / "papers" / "PMC5497343.pdf"  # charts with axis labels and legends
RAW = "Text in Figure 2: Medical Profession of Respondents Institutional Safety Other 5 (3%)Pharmacist 12 (7%)"


def _quoted_words(text: str) -> list[str]:
    inside = re.search(r"\u201c(.*?)\u2026?\u201d", text)
    assert inside is not None, text
    return inside.group(1).split()


def test_a_figure_text_passage_becomes_a_short_quote_of_words():
    quote = figure_text_quote(RAW)
    assert quote is not None and quote.startswith("Figure 2 reads: \u201c")
    words = _quoted_words(quote)
    assert 3 <= len(words) <= QUOTE_WORDS
    assert "Pharmacist" in words  # the glued run '(3%)Pharmacist' split
    assert not any(ch.isdigit() or ch in "()%" for word in words for ch in word)
    long = "Text in the figure: " + " ".join(f"word{'x' * (i % 3)}alpha{i} Label" for i in range(40))
    assert len(_quoted_words(figure_text_quote(long) or "")) <= QUOTE_WORDS
    assert figure_text_quote("Text in Figure 3: 5 (3%) 12 4.5 p < 0.01 A B") is None  # nothing to read


@pytest.fixture(scope="module")
def paper():
    return read_document(PAPER)


def test_answers_show_figure_text_only_as_a_quote_where_it_answers(retriever, paper):
    index = retriever.index(paper)
    inside = [p for p in index.passages if p.kind in FIGURE_TEXT_KINDS]
    assert len(inside) >= 2, "the paper's figures hold words"
    raw = {p.text for p in inside}
    best_was_figure_text = 0
    for passage in inside:
        # a reader asking about what a chart shows, in the chart's own words
        words = passage.text.split(": ", 1)[-1].split()[:8]
        question = f"What does the paper show about {' '.join(words)}?"
        answer = answer_question(paper, question, None, retriever)
        if answer.not_in_document:
            continue
        assert answer.sentences
        shown = {e.number: e for e in answer.evidence}
        for sentence in answer.sentences:
            assert sentence.text not in raw and not sentence.text.startswith("Text in "), sentence.text
            kinds = {shown[n].kind for n in sentence.evidence}
            if kinds & set(FIGURE_TEXT_KINDS):
                assert sentence.evidence == [1], "figure text is quoted only as the best evidence"
                assert len(_quoted_words(sentence.text)) <= QUOTE_WORDS
                best_was_figure_text += 1
    assert best_was_figure_text >= 1, "some question is answered by a figure's words"


def test_figure_text_below_the_best_passage_gives_way_to_its_caption(retriever, paper):
    index = retriever.index(paper)
    text = next(p for p in index.passages if p.kind in FIGURE_TEXT_KINDS and p.labels and figure_text_quote(p.text))
    caption = next(p for p in index.passages if p.kind == "caption" and p.labels == text.labels)
    sentence = next(p for p in index.passages if p.kind == "sentence" and not p.labels)
    # the search ranked a sentence first, the figure's words second (as strong), its caption last
    evidence = [Evidence(sentence, 0, 0.03, 5.0, 0.7), Evidence(text, 1, 0.03, 5.0, 0.69),
                Evidence(caption, 2, 0.01, 1.0, 0.2)]
    answer = extractive_sentences(evidence, AskOptions())
    assert [s.text for s in answer] == [sentence.text, caption.text]
    assert answer[1].evidence == [3] and text.labels[0] in answer[1].figures
    # the figure's words first: quoted, the caption not added
    first = extractive_sentences([evidence[1], evidence[0], evidence[2]], AskOptions())
    assert first[0].text == figure_text_quote(text.text) and first[0].evidence == [1]
    assert caption.text not in [s.text for s in first]
