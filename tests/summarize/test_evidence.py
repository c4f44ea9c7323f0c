"""The summary's figure per paragraph with placement's matcher (issue 39 point 5): the same score as
``mmdocsum place`` gives the same (text, figure) pair, the evidence's citations decisive, each figure once,
and the typed reasons of a paragraph without a figure — with the real MiniLM embedder."""

from __future__ import annotations

import numpy as np
import pytest

from mmdocsum_desktop.placement.engine import PlacementEngine
from mmdocsum_desktop.schemas.summary import FigureEntry
from mmdocsum_desktop.summarize.evidence import (
    ROLE_SECTIONS,
    EvidenceItem,
    ParagraphEvidence,
    assign_evidence_figures,
    evidence_mentions,
    figure_pool,
    placement_scores,
)

ROLES = ("background", "method", "results", "conclusion")
TEXTS = [
    "Forests planted on grassland change how much water reaches the streams, and dry-season flows matter most.",
    "We measured daily stream flow in ten paired catchments with weirs and rain gauges for fifteen years.",
    "Low flows fell by 60 percent within ten years of planting pine trees, while high flows changed little.",
    "Planting pine on grassland lowers dry-season flow; water managers should weigh this before planting.",
]
ENTRIES = [
    FigureEntry(index=1, label="Figure 1", caption="Map of the ten paired catchments, the weirs and the rain gauges."),
    FigureEntry(index=2, label="Figure 2", caption="Low flow and high flow before and after planting pine trees."),
    FigureEntry(index=3, label="Figure 3", caption="Annual rainfall at each rain gauge over fifteen years."),
    FigureEntry(index=4, label="Table 1", kind="table", caption="Area, slope and forest cover of each catchment."),
]


def _item(n: int, text: str, *, cites=(), passage=(), section=(), part=(), first=()) -> EvidenceItem:
    return EvidenceItem(n, text, f"b{n}", 1, None, tuple(cites), tuple(passage), tuple(section), tuple(part),
                        tuple(first))


def _evidence(**by_role) -> list[ParagraphEvidence]:
    return [ParagraphEvidence(role, [_item(k + 1, TEXTS[k], **by_role.get(role, {}))]) for k, role in enumerate(ROLES)]


def test_a_pair_scores_as_placement_scores_it(embedder):
    # every figure discussed only by the paragraphs' parts of the paper: no mention enters either path, so
    # the summary's score of each pair is the one `mmdocsum place` computes for the same texts, sections
    # and pool
    labels = [e.label for e in ENTRIES]
    evidence = _evidence(**{role: {"part": labels} for role in ROLES})
    used = [e.items for e in evidence]
    scores = placement_scores(evidence, used, ENTRIES, TEXTS, embedder)
    assert scores.model == "sequence"
    placements = PlacementEngine(embedder=embedder).place(
        TEXTS, figure_pool(ENTRIES), sections=[ROLE_SECTIONS[r] for r in ROLES], headings=[False] * 4,
        strategy="sequence")
    compared = 0
    for row, placement in enumerate(placements):
        shown = placement.candidate if placement.candidate is not None else placement.signals.get("best_candidate")
        assert shown is not None
        assert scores.probabilities[row, int(shown)] == pytest.approx(placement.score, abs=1e-9)
        compared += 1
    assert compared == 4
    # and the choice carries that score
    chosen = assign_evidence_figures(evidence, used, ENTRIES, TEXTS, embedder)
    for row, (choice, _) in enumerate(chosen):
        assert choice is not None
        k = [e.index for e in ENTRIES].index(choice.index)
        assert choice.score == pytest.approx(float(scores.probabilities[row, k]), abs=1e-9)
        assert choice.signals["utility"] == pytest.approx(float(scores.utility[row, k]), abs=1e-9)


def test_the_evidence_citing_figure_2_shows_figure_2(embedder):
    # the results paragraph's text is closest to Figure 3's caption (rain gauges, fifteen years), but its
    # evidence sentence cites Figure 2: the citation is decisive, as a mention is in placement
    text = "Rain fell at every gauge in all fifteen years; flows at the weirs followed it closely."
    plain = [ParagraphEvidence("results", [_item(1, text, part=["Figure 2", "Figure 3"])])]
    closest = assign_evidence_figures(plain, [plain[0].items], ENTRIES[:3], [text], embedder)
    assert closest[0][0] is not None and closest[0][0].label == "Figure 3"
    evidence = [ParagraphEvidence("results", [_item(1, text, cites=["Figure 2"], part=["Figure 2", "Figure 3"])])]
    scores = placement_scores(evidence, [evidence[0].items], ENTRIES[:3], [text], embedder)
    assert scores.problem.mention[0].tolist() == [0.0, 1.0, 0.0]
    chosen = assign_evidence_figures(evidence, [evidence[0].items], ENTRIES[:3], [text], embedder)
    assert chosen[0][0] is not None and chosen[0][0].label == "Figure 2"
    assert chosen[0][0].signals["mention"] == 1.0


def test_the_figure_first_discussed_in_the_paragraphs_part_is_preferred(embedder):
    # both figures are cited in the results' part of the paper and the paragraph's text is closest to
    # Figure 3's caption (without more, Figure 3 is shown); Figure 1 is first cited in that part, Figure 3
    # was first cited earlier: the results paragraph shows Figure 1
    text = "Annual rainfall at each rain gauge varied little over the fifteen years of the study."
    plain = [ParagraphEvidence("results", [_item(1, text, part=["Figure 1", "Figure 3"])])]
    closest = assign_evidence_figures(plain, [plain[0].items], ENTRIES[:3], [text], embedder)
    assert closest[0][0] is not None and closest[0][0].label == "Figure 3"
    evidence = [ParagraphEvidence("results", [_item(1, text, part=["Figure 1", "Figure 3"], first=["Figure 1"])])]
    mentions = evidence_mentions(evidence, [evidence[0].items], ENTRIES[:3], [text])
    assert mentions.first[0].tolist() == [1.0, 0.0, 0.0] and not mentions.cites.any()
    chosen = assign_evidence_figures(evidence, [evidence[0].items], ENTRIES[:3], [text], embedder)
    assert chosen[0][0] is not None and chosen[0][0].label == "Figure 1"
    # the paragraph's own citation comes before the part's: citing Figure 3 itself, it shows Figure 3
    cited = [ParagraphEvidence("results", [_item(1, text, cites=["Figure 3"], part=["Figure 1", "Figure 3"],
                                                 first=["Figure 1"])])]
    assert not evidence_mentions(cited, [cited[0].items], ENTRIES[:3], [text]).first.any()
    own = assign_evidence_figures(cited, [cited[0].items], ENTRIES[:3], [text], embedder)
    assert own[0][0] is not None and own[0][0].label == "Figure 3"


def test_each_figure_at_most_once_and_the_most_paragraphs_illustrated(embedder):
    # all four paragraphs cite Figure 2 in their own sentences; only background and results discuss any
    # other figure: three paragraphs can be illustrated with different figures, and are
    evidence = _evidence(
        background={"cites": ["Figure 2"]},
        method={"cites": ["Figure 2"], "part": ["Figure 1", "Table 1"]},
        results={"cites": ["Figure 2"], "part": ["Figure 3"]},
        conclusion={"cites": ["Figure 2"]},
    )
    chosen = assign_evidence_figures(evidence, [e.items for e in evidence], ENTRIES, TEXTS, embedder)
    shown = [c.label for c, _ in chosen if c is not None]
    assert len(shown) == len(set(shown)) == 3
    assert "Figure 2" in shown
    # the paragraph left out says the figure it cites is shown with another paragraph
    reasons = [n for _, n in chosen if n is not None]
    assert [n.kind for n in reasons] == ["shown_elsewhere"] and reasons[0].labels == ["Figure 2"]


def test_every_reason_for_no_figure_is_still_given(embedder):
    evidence = _evidence(
        method={"cites": ["Figure 1"], "first": ["Figure 1"]},  # where the paper first discusses it
        results={"passage": ["Figure 1"]},
        conclusion={"passage": ["Table 7"]},  # a table the paper has no image of
    )
    texts = ["", *TEXTS[1:]]  # the background paragraph has no text
    chosen = assign_evidence_figures(evidence, [e.items for e in evidence], ENTRIES[:1], texts, embedder)
    assert [c.label if c else None for c, _ in chosen] == [None, "Figure 1", None, None]
    assert [n.kind if n else None for _, n in chosen] == ["no_text", None, "shown_elsewhere", "no_image"]
    nothing = assign_evidence_figures(evidence, [e.items for e in evidence], [], texts, embedder)
    assert [n.kind for _, n in nothing] == ["no_text", "document_has_none", "document_has_none", "document_has_none"]
    uncited = _evidence()
    none_cited = assign_evidence_figures(uncited, [e.items for e in uncited], ENTRIES, TEXTS, embedder)
    assert all(c is None for c, _ in none_cited)
    assert {n.kind for _, n in none_cited} == {"not_cited"}


def test_the_matchers_measured_beside_it_still_run(embedder):
    evidence = _evidence(results={"cites": ["Figure 2"]}, method={"part": ["Figure 1"]})
    used = [e.items for e in evidence]
    old = assign_evidence_figures(evidence, used, ENTRIES, TEXTS, embedder, matcher="citations")
    assert [c.label if c else None for c, _ in old] == [None, "Figure 1", "Figure 2", None]
    baseline = assign_evidence_figures(evidence, used, ENTRIES, TEXTS, embedder, matcher="caption")
    labels = [c.label for c, _ in baseline if c is not None]
    assert len(labels) == len(set(labels))
    assert all(c.signals["caption_similarity"] >= 0.675 for c, _ in baseline if c is not None)
    with pytest.raises(ValueError, match="unknown figure matcher"):
        assign_evidence_figures(evidence, used, ENTRIES, TEXTS, embedder, matcher="nearest")  # type: ignore[arg-type]
    assert np.isfinite(placement_scores(evidence, used, ENTRIES, TEXTS, embedder).utility).all()
