"""Text helpers: citations removed cleanly, sentences kept whole, a paragraph's own sentences recognised."""

from __future__ import annotations

from mmdocsum_desktop.placement.text import (
    LexicalIndex,
    caption_body,
    contains_sentence,
    mentioned_labels,
    normalised,
    strip_mentions,
    tokens,
)


def test_strip_mentions_removes_citations_and_their_parentheses():
    text = "As shown in Figure 3, the flow (see Fig. 2b) rises. Results are in Table 1 and Fig. 4(a)."
    stripped = strip_mentions(text)
    assert "Fig" not in stripped and "Table" not in stripped and "(a)" not in stripped
    assert stripped == "As shown in, the flow rises. Results are in."
    assert strip_mentions("We compare (Figs. 2 and 3; Table IV) here.") == "We compare here."
    assert strip_mentions("No citation here (2020).") == "No citation here (2020)."


def test_labels_captions_and_tokens():
    assert mentioned_labels("see Fig. 3b and Table 2") == {"figure 3", "table 2"}
    assert caption_body("Fig. 3. Flow duration curves") == "Flow duration curves"
    assert caption_body("Figure 1 | Crystal structure") == "Crystal structure"
    assert caption_body("An image without a label") == "An image without a label"
    assert tokens("The Qwen2-72B models perform better") == ["qwen2-72b", "model", "perform", "better"]


def test_contains_sentence_ignores_citations_and_case():
    paragraph = normalised("As shown in, the stream flow rises after afforestation. More follows.")
    assert contains_sentence(paragraph, "As shown in Figure 3, the stream flow rises after afforestation.")
    assert not contains_sentence(paragraph, "The stream flow falls.")
    assert not contains_sentence(paragraph, "Figure 3")  # nothing left once the citation is gone


def test_lexical_index_prefers_shared_rare_words():
    docs = [tokens(t) for t in ("flow duration curve", "crystal ion gate", "flow of ions in a crystal")]
    index = LexicalIndex(docs)
    vectors = [index.vector(d) for d in docs]
    query = index.vector(tokens("duration curves of the flow"))
    sims = index.matrix([query], vectors)[0]
    assert sims.argmax() == 0 and sims[1] == 0.0
    assert index.vector([]) == {}
