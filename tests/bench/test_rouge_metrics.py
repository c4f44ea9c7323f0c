"""ROUGE with rouge-score: identical, disjoint and hand-counted texts."""

from __future__ import annotations

import pytest

from mmdocsum_desktop.bench.metrics.rouge import (
    lcs_indices,
    lcs_length,
    mean_rouge,
    rouge,
    sentences_per_line,
)


def test_identical_texts_score_one():
    text = "Raised beds protect basil. Rosemary needs no protection at all."
    scores = rouge(text, text)
    assert scores["rouge1"] == scores["rouge2"] == scores["rougeL"] == scores["rougeL_sentence"] == 1.0


def test_disjoint_texts_score_zero():
    scores = rouge("Quantum chromodynamics explains quarks.", "Gardens flood twice daily near seas.")
    assert scores["rouge1"] == scores["rouge2"] == scores["rougeL"] == 0.0


def test_hand_counted_overlap():
    # unigrams: the, cat, sat vs the, cat, ran -> 2 of 3 each way -> F1 2/3
    # bigrams: (the cat), (cat sat) vs (the cat), (cat ran) -> 1 of 2 -> F1 1/2; LCS "the cat" -> 2/3
    scores = rouge("the cat sat", "the cat ran")
    assert scores["rouge1"] == pytest.approx(2 / 3)
    assert scores["rouge2"] == pytest.approx(1 / 2)
    assert scores["rougeL"] == pytest.approx(2 / 3)


def test_stemming_matches_word_forms():
    assert rouge("gardens flooded", "garden floods")["rouge1"] == 1.0


def test_summary_level_lcs_uses_one_sentence_per_line():
    assert sentences_per_line("One claim. Another claim!\n\nA third? Yes.") == "One claim.\nAnother claim!\nA third?\nYes."
    # reversed sentence order: rougeLsum matches each sentence, plain LCS only one of them
    scores = rouge("Beta gamma delta. Alpha one two.", "Alpha one two. Beta gamma delta.")
    assert scores["rougeL"] == 1.0 and scores["rougeL_sentence"] == pytest.approx(0.5)


def test_mean_over_documents():
    rows = [rouge("a b c", "a b c"), rouge("x y z", "a b c")]
    assert mean_rouge(rows)["rouge1"] == 0.5
    assert mean_rouge([])["rouge1"] is None


def test_same_numbers_as_rouge_score_itself():
    """Our fast ROUGE must equal rouge-score's RougeScorer exactly (its LCS pick and clipping too)."""
    import random

    from rouge_score import rouge_scorer
    from rouge_score.rouge_scorer import lcs_ind

    rng = random.Random(11)
    for _ in range(3000):  # tiny alphabets: many ties, the hard case for picking the same LCS
        a = [rng.randint(0, 4) for _ in range(rng.randint(0, 14))]
        b = [rng.randint(0, 4) for _ in range(rng.randint(0, 14))]
        assert lcs_indices(a, b) == lcs_ind(a, b)
        assert lcs_length(a, b) == len(lcs_ind(a, b))
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=True)
    words = "the gardens flooded model models running ran of a basil thyme salt beds raised".split()

    def text() -> str:
        return " ".join(
            " ".join(rng.choice(words) for _ in range(rng.randint(2, 14))).capitalize() + "."
            for _ in range(rng.randint(0, 6))
        )

    for _ in range(150):
        prediction, reference = text(), text() or "Salt."
        ours = rouge(prediction, reference)
        theirs = scorer.score(sentences_per_line(reference), sentences_per_line(prediction))
        assert ours["rouge1"] == pytest.approx(theirs["rouge1"].fmeasure, abs=1e-12)
        assert ours["rouge2"] == pytest.approx(theirs["rouge2"].fmeasure, abs=1e-12)
        assert ours["rougeL"] == pytest.approx(theirs["rougeLsum"].fmeasure, abs=1e-12)
        assert ours["rougeL_sentence"] == pytest.approx(theirs["rougeL"].fmeasure, abs=1e-12)
