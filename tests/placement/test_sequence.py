"""The sequence decision (monotone alignment by dynamic programming) and its features, property-tested."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from mmdocsum_desktop.placement.sequence import (
    GAP_CLIP,
    figure_ranks,
    monotone_assign,
    monotone_total,
    neighbour_features,
    paragraph_prior,
)

values = st.floats(min_value=-5, max_value=5, allow_nan=False, allow_infinity=False)


@st.composite
def problems(draw, max_rows=7, max_cols=5):
    n = draw(st.integers(1, max_rows))
    m = draw(st.integers(1, max_cols))
    utility = draw(arrays(np.float64, (n, m), elements=values))
    ranks = draw(st.permutations(list(range(m))))
    return utility, list(ranks)


def brute_force(utility: np.ndarray, ranks: list[int]) -> float:
    """The best total over every monotone partial matching (small problems only)."""
    n, m = utility.shape
    best = 0.0
    columns = sorted(range(m), key=lambda j: ranks[j])
    for size in range(1, min(n, m) + 1):
        for rows in itertools.combinations(range(n), size):
            for figures in itertools.combinations(columns, size):  # kept in rank order
                total = sum(max(utility[i, j], 0.0) for i, j in zip(rows, figures))
                best = max(best, total)
    return best


@settings(max_examples=150, deadline=None)
@given(problems())
def test_the_alignment_is_monotone_each_figure_once_and_only_paying_pairs(problem):
    utility, ranks = problem
    choice = monotone_assign(utility, ranks)
    placed = [(i, j) for i, j in enumerate(choice) if j is not None]
    assert len({j for _, j in placed}) == len(placed)
    assert all(utility[i, j] > 0 for i, j in placed)
    assert [ranks[j] for _, j in placed] == sorted(ranks[j] for _, j in placed)


@settings(max_examples=120, deadline=None)
@given(problems(max_rows=5, max_cols=4))
def test_the_alignment_is_optimal(problem):
    utility, ranks = problem
    choice = monotone_assign(utility, ranks)
    assert abs(monotone_total(utility, choice) - brute_force(utility, ranks)) < 1e-9


@settings(max_examples=100, deadline=None)
@given(problems(), st.floats(min_value=0.5, max_value=4))
def test_out_of_order_only_adds_confident_pairs_to_free_paragraphs(problem, margin):
    utility, ranks = problem
    backbone = monotone_assign(utility, ranks)
    extended = monotone_assign(utility, ranks, out_of_order=margin)
    for i, (before, after) in enumerate(zip(backbone, extended)):
        if before is not None:
            assert after == before
        elif after is not None:
            assert utility[i, after] >= margin
            assert after not in backbone
    used = [j for j in extended if j is not None]
    assert len(used) == len(set(used))


def test_nan_and_empty_problems():
    assert monotone_assign(np.zeros((0, 3)), [0, 1, 2]) == []
    assert monotone_assign(np.zeros((2, 0)), []) == [None, None]
    utility = np.array([[np.nan, 2.0], [3.0, -np.inf]])
    # figure 1 (rank 0) pays 3 at paragraph 1; figure 2 pays 2 at paragraph 0: only one fits the order
    assert monotone_assign(utility, [0, 1]) == [None, 0]


def test_a_later_figure_cannot_jump_ahead_without_the_margin():
    # Figure 2 matches paragraph 0 best, Figure 1 paragraph 2: the order keeps only the better one
    utility = np.array([[-1.0, 2.5], [-1.0, -1.0], [3.0, -1.0]])
    assert monotone_assign(utility, [0, 1]) == [None, None, 0]
    assert monotone_assign(utility, [0, 1], out_of_order=2.0) == [1, None, 0]


def test_ranks_follow_label_numbers_within_a_kind():
    # document order: Figure 3 printed above Figure 2, a table between them
    labels = ["Figure 1", "Figure 3", "Table 1", "Figure 2"]
    kinds = ["figure", "figure", "table", "figure"]
    ranks = figure_ranks(labels, kinds, [0, 1, 2, 3])
    assert ranks == [0, 3, 2, 1]


def test_unnumbered_pools_keep_document_order():
    ranks = figure_ranks([None, "Figure 2", None], ["figure"] * 3, [2, 0, 1])
    assert ranks == [2, 0, 1]


def test_supplementary_figures_come_after_the_main_ones():
    ranks = figure_ranks(["Figure S1", "Figure 2"], ["figure", "figure"], [0, 1])
    assert ranks == [1, 0]


def test_neighbour_features_see_the_first_paragraph_about_a_figure():
    z = np.array([[0.0], [3.0], [2.5], [3.2], [0.0]])
    features = neighbour_features(z, [0])
    assert features["prior_gap"][0, 0] == GAP_CLIP  # nothing before the first paragraph
    assert features["prior_gap"][1, 0] == 3.0  # first strong match
    assert features["prior_gap"][3, 0] < 0.5  # a later one no better than what came before
    assert features["later_gap"][1, 0] > 0  # ... though a later one matches slightly better
    assert features["next_z"][1, 0] > features["next_z"][3, 0]  # discussion runs on after paragraph 1
    assert features["rel_pos"][0, 0] == 0.0 and features["rel_pos"][4, 0] == 1.0


def test_neighbour_features_skip_empty_paragraphs():
    z = np.array([[1.0], [9.0], [2.0]])
    valid = np.array([True, False, True])
    features = neighbour_features(z, [0], valid)
    assert np.all(features["prior_gap"][1] == 0)
    assert features["prior_gap"][2, 0] == 1.0  # the empty row is no earlier paragraph


def test_an_unlabeled_image_among_numbered_figures_is_flagged():
    z = np.zeros((3, 3))
    valid = np.array([True, False, True])
    features = neighbour_features(z, [0, 1, 2], valid, labeled=[True, False, True])
    assert features["unlabeled"][0].tolist() == [0.0, 1.0, 0.0]
    assert features["unlabeled"][2].tolist() == [0.0, 1.0, 0.0]
    assert np.all(features["unlabeled"][1] == 0)  # an empty paragraph gets no features
    # a pool where nothing is numbered: nothing to tell its images apart by
    unnumbered = neighbour_features(z, [0, 1, 2], valid, labeled=[False, False, False])
    assert np.all(unnumbered["unlabeled"] == 0)
    assert np.all(neighbour_features(z, [0, 1, 2])["unlabeled"] == 0)  # labels unknown


def test_the_paragraph_prior_grows_with_the_number_of_paragraphs():
    assert paragraph_prior(30, 0.0) == 0.0
    assert paragraph_prior(1, 0.75) == 0.0
    assert paragraph_prior(0, 0.75) == 0.0  # no paragraph with text: no bonus, no error
    assert paragraph_prior(120, 0.75) > paragraph_prior(30, 0.75) > 0.0
    assert abs(paragraph_prior(120, 0.5) - paragraph_prior(30, 0.5) - 0.5 * np.log(4)) < 1e-9


def test_headings_and_title_lines_are_told_from_paragraphs():
    from mmdocsum_desktop.placement.sequence import is_heading

    for heading in ("Results", "2.1 Cell culture and treatment", "# Methods", "Effects of TNF on HEK293 cells"):
        assert is_heading(heading), heading
    for paragraph in ("Cells grew.", "We measured the growth of the cells over a week, and it doubled twice.",
                      "", "   ", "as shown below:"):
        assert not is_heading(paragraph), paragraph


def test_sections_from_the_callers_titles_or_from_the_headings_among_the_paragraphs():
    import numpy as np

    from mmdocsum_desktop.placement.sequence import paragraph_sections, section_features

    kinds, first = paragraph_sections(["a.", "b.", "c.", "d."], [("Introduction",), ("Introduction",),
                                                                  ("Results", "TNF raises apoptosis"), None])
    assert kinds == ["intro", "intro", "results", None]
    assert first == [True, False, True, True]
    texts = ["A title line", "Some intro text here.", "Materials and methods", "We grew cells.", "Then counted.",
             "Results", "Cells doubled."]
    kinds, first = paragraph_sections(texts)
    assert kinds[3:5] == ["methods", "methods"] and kinds[6] == "results"
    assert first[3] and not first[4] and first[6] and not first[2]
    features = section_features(kinds, first, 2)
    assert features["sec_methods"].shape == (7, 2) and features["sec_methods"][3].tolist() == [1.0, 1.0]
    assert np.all(features["sec_results"][:5] == 0.0)  # the "Results" heading itself opens it


def test_a_lone_or_last_short_line_is_a_paragraph_not_a_heading():
    from mmdocsum_desktop.placement.sequence import heading_rows

    assert heading_rows(["Gate infidelity and pulse shaping of the laser detuning"]).tolist() == [False]
    assert heading_rows(["Results", "Cells doubled.", "Outlook", ""]).tolist() == [True, False, False, False]
