"""A cited sentence found on its page (issue 46, item 5): the lines of exactly that sentence inside its
block's box, on committed PDFs read by the app's reader; a sentence the page does not print is not found."""

from __future__ import annotations

import pymupdf
import pytest

from mmdocsum_desktop.document.highlight import fold, match_words, sentence_span
from mmdocsum_desktop.text.sentences import split_sentences
from tests.conftest import DATA_PAPERS, read_paper

PAPERS = ["PMC2803133.pdf", "PMC4736972.pdf"]


def _inside(rects, word) -> bool:
    cx, cy = (word[0] + word[2]) / 2, (word[1] + word[3]) / 2
    return any(r[0] - 0.5 <= cx <= r[2] + 0.5 and r[1] - 0.5 <= cy <= r[3] + 0.5 for r in rects)


@pytest.mark.parametrize("name", PAPERS)
def test_the_lines_of_a_cited_sentence_hold_that_sentence_and_no_other(name):
    document = read_paper(name)
    checked = 0
    with pymupdf.open(DATA_PAPERS / name) as pdf:
        for block in document.blocks:
            sentences = [s for s in split_sentences(block.text) if len(s.split()) >= 8]
            if block.type != "paragraph" or block.bbox is None or block.page is None or len(sentences) < 3:
                continue
            sentence = sentences[len(sentences) // 2]  # one in the middle: text on both sides of it
            span = sentence_span(DATA_PAPERS / name, block.page, sentence, block.bbox)
            assert span is not None, sentence
            assert span.found >= 0.9 and span.lines
            page_words = pdf[block.page - 1].get_text("words")
            shown = [fold(w[4]) for w in page_words if _inside(span.lines, w) and fold(w[4])]
            wanted = [fold(w) for w in sentence.split() if fold(w)]
            # what the highlight covers is the sentence: its first and last words, nothing of its neighbours
            assert shown[:2] == wanted[:2] and shown[-2:] == wanted[-2:], (shown, wanted)
            assert abs(len(shown) - len(wanted)) <= 2
            checked += 1
            if checked == 6:
                break
    assert checked >= 3


def test_a_sentence_not_on_the_page_is_not_found_and_a_changed_word_is_allowed():
    document = read_paper("PMC2803133.pdf")
    block = next(b for b in document.blocks if b.type == "paragraph" and b.bbox and len(b.text.split()) > 60)
    assert sentence_span(DATA_PAPERS / "PMC2803133.pdf", block.page, "Seal pups recognise the calls of their "
                         "mothers and of familiar pups on the beach.", block.bbox) is None
    words = block.text.split()[:20]
    changed = " ".join([*words[:9], "notably", *words[10:]])
    found = match_words(changed, block.text.split())
    assert found is not None and found[0] == 0 and found[2] >= 0.9
    assert match_words("extracellular matrix", ["the", "extracel-", "lular", "matrix"]) == (1, 3, 1.0)
    assert match_words("for ERα and Her2", ["available", "for", "ER𝛼and", "Her2", "+ve"])[:2] == (1, 3)
