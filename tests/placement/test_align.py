"""Placement as one alignment per document (issue 43): the strong baseline places every visual once, in its
numbering order, where its words are; the fitted alignment leaves out a visual its document does not
discuss; the weights file is checked on load; the shipped file says where it comes from."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mmdocsum_desktop.placement import align as al
from mmdocsum_desktop.placement.engine import DEFAULT_STRATEGY, PlacementEngine
from mmdocsum_desktop.schemas.placement import ImageCandidate, PlacementError

GROWTH = "Growth curves of wheat seedlings under drought, root length and shoot biomass over fourteen days."
BLOT = "Western blot of dehydrin protein accumulation in leaves of stressed plants."
MAP = "Map of the field sites across the northern plains where the cultivars were sown."
PARAGRAPHS = [
    "Drought limits wheat yields worldwide, and breeders look for cultivars that keep growing.",
    "We sowed four cultivars at field sites across the northern plains, marked on the map of sites.",
    "Under drought the seedlings grew shorter roots, and shoot biomass fell over the fourteen days.",
    "Leaves of stressed plants accumulated dehydrin protein, as the western blot shows.",
    "These results suggest that dehydrins protect the seedlings, which future work should test.",
]


def pool(*captions: str) -> list[ImageCandidate]:
    return [ImageCandidate(label=f"Figure {k + 1}", figure=f"Figure {k + 1}", caption=c, order=k)
            for k, c in enumerate(captions)]


def test_the_lexical_score_is_highest_where_the_caption_words_are():
    lex = al.lexical_matrix(PARAGRAPHS, pool(MAP, GROWTH, BLOT))
    assert lex.shape == (5, 3)
    assert [int(np.argmax(lex[:, j])) for j in range(3)] == [1, 2, 3]


def test_the_baseline_places_every_visual_once_in_order():
    candidates = pool(MAP, GROWTH, BLOT)
    valid = np.ones(5, dtype=bool)
    choices, scores = al.baseline_alignment(PARAGRAPHS, candidates, [0, 1, 2], valid, np.zeros((5, 3)))
    assert choices == [None, 0, 1, 2, None]
    # in order even where the words alone would put a later figure first: Figure 1 cannot follow Figure 2
    swapped = [PARAGRAPHS[0], PARAGRAPHS[2], PARAGRAPHS[1], PARAGRAPHS[3], PARAGRAPHS[4]]
    choices, _ = al.baseline_alignment(swapped, candidates, [0, 1, 2], valid, np.zeros((5, 3)))
    placed = [j for j in choices if j is not None]
    assert placed == [0, 1, 2]  # all three, in their numbering order
    assert np.isfinite(scores).all()


def test_the_baseline_never_places_after_a_heading_and_gives_a_cited_figure_to_its_citation():
    candidates = pool(MAP, GROWTH)
    valid = np.array([True, False, True, True, True])
    first = np.zeros((5, 2))
    first[4, 1] = 1  # the last paragraph cites Figure 2 by its label
    choices, _ = al.baseline_alignment(PARAGRAPHS, candidates, [0, 1], valid, first)
    assert choices[1] is None
    assert choices[4] == 1 and choices.count(1) == 1 and 0 in choices


def test_the_alignment_leaves_out_a_visual_its_document_does_not_discuss():
    candidates = pool(MAP, GROWTH, "Electron micrograph of a zebrafish retina photoreceptor synapse.")
    lex = al.lexical_matrix(PARAGRAPHS, candidates)
    valid = np.ones(5, dtype=bool)
    features = al.alignment_features(lex, None, None, None, [0, 1, 2], valid, [None] * 5, [False] * 5,
                                     ["figure"] * 3)
    assert set(features) == set(al.FEATURES)
    # discussed at all: the unrelated micrograph's best score is far below the other visuals' best
    assert features["best_lex"][0, 2] < features["best_lex"][0, 0]
    model = al.AlignmentModel({"lex_z": 1.0, "best_lex": 20.0}, nowhere=1.5, bonus=0.0, out_of_order=None)
    choices = al.solve(model.utility(features, valid), [0, 1, 2], np.zeros((5, 3)), None)
    assert choices[1] == 0 and choices[2] == 1
    assert 2 not in choices
    # the same model with a large placement bonus places it (in order: after the growth paragraph)
    generous = al.AlignmentModel(model.weights, nowhere=1.5, bonus=50.0, out_of_order=None)
    assert 2 in al.solve(generous.utility(features, valid), [0, 1, 2], np.zeros((5, 3)), None)


def test_a_visual_left_out_may_go_against_the_order_past_the_bar():
    utility = np.array([[-5.0, 3.0], [4.0, -5.0], [-5.0, -5.0]])  # Figure 2 discussed before Figure 1
    assert al.solve(utility, [0, 1], np.zeros((3, 2)), None) == [None, 0, None]
    assert al.solve(utility, [0, 1], np.zeros((3, 2)), 6.0) == [None, 0, None]
    assert al.solve(utility, [0, 1], np.zeros((3, 2)), 2.5) == [1, 0, None]


def test_the_weights_file_is_checked(tmp_path):
    good = al.alignment_payload({"ce": al.AlignmentModel({"lex_z": 1.0}, 0.0, 1.0, None),
                                 "no_ce": al.AlignmentModel({"lex_z": 1.0}, 0.0, 1.0, 4.0)}, {"tool": "x"})
    path = tmp_path / "alignment.json"
    path.write_text(json.dumps(good))
    assert al.load_alignment(path).models["no_ce"].out_of_order == 4.0
    for broken in ({**good, "format": 7},
                   {**good, "models": {"ce": good["models"]["ce"]}},
                   {**good, "models": {**good["models"], "ce": {**good["models"]["ce"], "weights": {"made_up": 1.0}}}},
                   {**good, "models": {**good["models"], "ce": {**good["models"]["ce"], "bonus": "big"}}}):
        path.write_text(json.dumps(broken))
        with pytest.raises(PlacementError, match="alignment"):
            al.load_alignment(path)
    path.write_text("{not json")
    with pytest.raises(PlacementError, match="cannot read"):
        al.load_alignment(path)


def test_the_shipped_alignment_names_its_fitting():
    shipped = al.load_alignment()
    assert shipped.provenance.get("tool") == "tools/fit_alignment.py"
    assert set(shipped.provenance.get("data", {}).get("sources", {})) >= {"elife", "multilingual"}
    assert set(shipped.models["ce"].weights) <= set(al.FEATURES)


def test_without_embeddings_the_default_falls_back_to_the_baseline_and_says_so():
    assert DEFAULT_STRATEGY == "align"
    engine = PlacementEngine(None, use_ocr=False)
    placed = engine.place(PARAGRAPHS, pool(MAP, GROWTH, BLOT))
    assert [p.candidate for p in placed] == [None, 0, 1, 2, None]
    assert any("lexical baseline" in w for w in engine.warnings)
    baseline = engine.place(PARAGRAPHS, pool(MAP, GROWTH, BLOT), strategy="baseline")
    assert [p.candidate for p in baseline] == [None, 0, 1, 2, None]
