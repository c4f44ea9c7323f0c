"""The pure metric functions of the pairs benchmark."""

from __future__ import annotations

import pytest

from mmdocsum_desktop.bench.metrics import pairs as m


def test_labels_recall_precision_and_what_was_missed():
    scores = m.label_scores(["Figure 1", "Figure 2", "Table 1"], ["figure 1", "Table 1", "Table 9"])
    assert scores.recall == pytest.approx(2 / 3) and scores.precision == pytest.approx(2 / 3)
    assert scores.missed == ["figure 2"] and scores.spurious == ["table 9"]
    assert m.label_scores([], ["Figure 1"]).recall is None


def test_caption_f1_ignores_the_label_and_penalises_half_a_caption():
    gold = "Figure 2. Growth of the cells over five days in three media."
    assert m.caption_f1("Fig. 2: Growth of the cells over five days in three media.", gold) == 1.0
    assert m.caption_f1("Figure 2. Growth of the cells", gold) < m.CAPTION_MATCH_F1


def test_shared_regions_only_on_the_same_page():
    regions = [("fig1", 1, (0, 0, 100, 100)), ("fig2", 1, (10, 10, 90, 90)), ("fig3", 2, (0, 0, 100, 100))]
    assert m.shared_regions(regions) == [("fig1", "fig2")]


def test_broken_characters_by_kind():
    found = m.broken_characters("Ca2\ufffd e\ufb03cient extracel\u00adlular extracel- lular pre- and post-")
    assert found == {"replacement": 1, "private_use": 0, "soft_hyphen": 1, "ligature": 1, "hyphen_split": 1}


def test_a_hyphen_split_the_publisher_wrote_is_not_counted():
    text = "below the expected range- would be unacceptable; extracel- lular"
    assert m.broken_characters(text)["hyphen_split"] == 2
    written = "any LC below 84% - therefore below the expected range- would be deemed unacceptable"
    assert m.broken_characters(text, written)["hyphen_split"] == 1


def test_text_is_attributed_to_the_part_it_comes_from():
    index = m.PartIndex(
        {
            "body": ["The cells grew faster in the enriched medium than in the control medium."],
            "back": ["Gerlich T Blauth M Witte F Effective initiation of osteoporosis diagnosis 2010"],
            "caption": ["Growth curves of the cells in both media"],
        }
    )
    assert index.part_of("the cells grew faster in the enriched medium") == "body"
    # structured references share no n-grams with the printed entry; their own words give them away
    assert index.part_of("[6] T. Gerlich, M. Blauth, F. Witte, Effective initiation") == "back"
    assert index.part_of("entirely unrelated words appear here together") == "nowhere"
    shares = m.leak_shares(["The cells grew faster in the enriched medium", "Gerlich T Blauth M Witte F Effective"], index)
    assert shares["back"] > 0 and shares["body"] > 0


def test_flow_scores_and_within_one():
    gold = ["fig1", None, None, "fig2", None]
    predicted = [None, "fig1", None, "fig2", "fig3"]
    scores = m.flow_scores(gold, predicted)
    assert scores.acc_b == pytest.approx(2 / 5)
    assert scores.acc_i == pytest.approx(1 / 2) and scores.acc_ni == pytest.approx(1 / 3)
    assert scores.within_one == 1.0  # fig1 one paragraph late, fig2 exact
    pooled = m.pool_flow_scores([scores, m.flow_scores(["fig1"], ["fig1"])])
    assert pooled.n_slots == 6 and pooled.correct == 3
    with pytest.raises(ValueError):
        m.flow_scores(["fig1"], [])


def test_own_paragraphs_inherit_the_gold_of_the_jats_paragraph_they_come_from():
    gold_paragraphs = ["alpha beta gamma delta epsilon zeta eta", "one two three four five six seven"]
    extracted = ["alpha beta gamma delta", "epsilon zeta eta and more", "one two three four five", "noise"]
    matches = m.match_paragraphs(extracted, gold_paragraphs)
    assert matches[0] == 0 and matches[2] == 1 and matches[3] is None
    assert m.transfer_gold(matches, ["fig1", None]) == ["fig1", None, None, None]


def test_grounding_needs_a_citing_section_among_the_sentences_sources():
    citing = {"figure 2": {"Results"}}
    assert m.grounded("figure 2", ["Methods", "Results"], citing) is True
    assert m.grounded("figure 2", ["Methods"], citing) is False
    assert m.grounded(None, ["Results"], citing) is None


def test_title_match_tells_another_article():
    assert m.title_matches("Circulating Visfatin in Hypothyroidism", "Clinical Study Circulating Visfatin in Hypothyroidism Is")
    assert not m.title_matches("Circulating Visfatin in Hypothyroidism", "A Role for Notch Signalling in Breast Cancer")


def test_title_is_right_only_when_it_is_the_article_title():
    gold = "Circulating Visfatin in Hypothyroidism: A Case-Control Study"
    assert m.title_correct(gold, "Circulating visfatin in hypothyroidism – a case–control study")
    for wrong in ("Research.indd", "REVIEW", "Circulating Visfatin", None,
                  "Since January 2020 Elsevier has created a COVID-19 resource centre"):
        assert not m.title_correct(gold, wrong)
    assert m.title_correct("", "anything") is None


def test_foreign_words_are_broken_and_glued_words_the_jats_never_uses():
    vocabulary = m.vocabulary_of(["The first influenza season; N95 filtering respirators benefit small bowel."])
    found = m.foreign_words("The fi rst infl uenza season: N95 ﬁltering respirators: the smallbowel, a benefi t.", vocabulary)
    assert found == ["infl", "uenza", "smallbowel", "benefi"]  # "fi", "rst" are too short to tell
    assert m.per_thousand(len(found), 250) == 16.0 and m.per_thousand(0, 0) is None


def test_run_in_labels_and_empty_paragraphs():
    sentences = ["Background: Influenza kills.", "Case presentation: A man.", "Método: Estudo.",
                 "The ratio: 3 to 1.", "e.g.: nothing", "Abstract—We propose.", "Flows fell."]
    assert m.run_in_labels(sentences) == ["Background", "Case presentation", "Método", "Abstract"]
    assert m.empty_paragraphs(["Text.", "", "  ", "12 (3)."]) == 3


def test_a_structured_abstract_by_role():
    sections = [("Background", "Flu kills."), ("Materials and Methods:", "We enrolled."), ("Results", "Half died."),
                ("Conclusions/Significance", "Masks help."), ("Trial registration", "NCT01234567")]
    assert m.abstract_by_role(sections) == {"background": "Flu kills.", "method": "We enrolled.",
                                            "results": "Half died.", "conclusion": "Masks help."}
    assert m.abstract_by_role([("Abstract", "One paragraph.")]) == {}


def test_illustration_counts_and_what_can_be_illustrated():
    assert m.illustration(["Figure 1", None, None, "Table 2"], [None, "not_cited", None, None]) == {
        "illustrated": 2, "explained": 1, "unexplained": 1}
    assert m.illustratable_roles([("background", False), ("related", True), ("results", True)]) == {"background", "results"}
    assert m.illustratable_roles([(None, True)]) == set(m.ROLE_ORDER)
