"""The one sentence splitter: prose from documents and answers written by models."""

from __future__ import annotations

from mmdocsum_desktop.text.sentences import split_answer_sentences, split_sentences


def test_split_sentences_keeps_abbreviations_inside():
    text = "The data in Fig. 1. Another sentence (Table 2). Smith et al. (2020) say so, e.g. here."
    assert split_sentences(text) == [
        "The data in Fig. 1.",
        "Another sentence (Table 2).",
        "Smith et al. (2020) say so, e.g. here.",
    ]
    assert split_sentences("   ") == []


def test_initials_and_numbers_do_not_end_sentences():
    text = "As Fig. 3 shows (Lane et al. 2005), flows drop by 3.5 mm. J. Smith agreed, e.g. in Table 2. Next."
    assert split_sentences(text) == [
        "As Fig. 3 shows (Lane et al. 2005), flows drop by 3.5 mm.",
        "J. Smith agreed, e.g. in Table 2.",
        "Next.",
    ]


def test_closing_quote_and_bracket_stay_with_their_sentence():
    assert split_sentences('He said "it works." Then (it did.) Done!') == [
        'He said "it works."',
        "Then (it did.)",
        "Done!",
    ]


def test_answer_citation_after_full_stop_moves_inside():
    assert split_answer_sentences("A claim.[3] Another one.") == ["A claim [3].", "Another one."]
    assert split_answer_sentences("Two sources.[1][2] End.") == ["Two sources [1][2].", "End."]


def test_answer_blocks_and_list_items_end_sentences():
    answer = "Findings:\n- the flow drops [1]\n- costs rise (Table 2)\n\nIn short, it works. See Fig. 2 too."
    assert split_answer_sentences(answer) == [
        "Findings:",
        "- the flow drops [1]",
        "- costs rise (Table 2)",
        "In short, it works.",
        "See Fig. 2 too.",
    ]
    assert split_answer_sentences("") == []


def test_other_languages_split_with_their_abbreviations():
    assert split_sentences(
        "Conforme a Fig. 2, a taxa aumentou (Silva et al., 2019). O Sr. Souza, p. ex. os autores, concordam. "
        "Éramos 12. Outra frase aqui.",
        "pt",
    ) == [
        "Conforme a Fig. 2, a taxa aumentou (Silva et al., 2019).",
        "O Sr. Souza, p. ex. os autores, concordam.",
        "Éramos 12.",
        "Outra frase aqui.",
    ]
    assert split_sentences("Según el Dr. García et al. mostraron el efecto. La siguiente frase.", "es") == [
        "Según el Dr. García et al. mostraron el efecto.",
        "La siguiente frase.",
    ]
    assert split_sentences("Selon M. Dupont et al. l'effet est net. La phrase suivante.", "fr-FR") == [
        "Selon M. Dupont et al. l'effet est net.",
        "La phrase suivante.",
    ]


def test_cjk_full_stops_end_sentences():
    assert split_sentences("그림 1은 결과를 보여준다. 두 번째 문장이다! 세 번째인가?", "ko") == [
        "그림 1은 결과를 보여준다.", "두 번째 문장이다!", "세 번째인가?",
    ]
    assert split_sentences("如图1所示，结果显著。第二句话。第三句话！", "zh") == ["如图1所示，结果显著。", "第二句话。", "第三句话！"]
    assert split_sentences("図1に結果を示す。二番目の文である。", "ja") == ["図1に結果を示す。", "二番目の文である。"]
