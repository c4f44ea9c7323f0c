"""Tokens for lexical matching and for ROUGE in any tabled language."""

from __future__ import annotations

from rouge_score import rouge_scorer, tokenize

from mmdocsum_desktop.bench.metrics.rouge import rouge
from mmdocsum_desktop.text.tokens import (
    EXCERPT_STOP_WORDS,
    PLACEMENT_STOP_WORDS,
    SALIENCE_STOP_WORDS,
    RougeTokenizer,
    cjk_bigrams,
    excerpt_terms,
    placement_tokens,
    rouge_tokens,
    salience_words,
    stop_words,
    tokens,
)


def test_stop_words_are_per_language_and_english_is_the_retrieval_list():
    assert {"the", "of", "which"} <= stop_words("en") and "results" not in stop_words("en")
    assert {"de", "que", "não", "uma"} <= stop_words("pt")
    assert {"el", "los", "del"} <= stop_words("es") and {"les", "dans"} <= stop_words("fr")
    assert stop_words("xx") == stop_words("en")


def test_tokens_drop_function_words_fold_plurals_and_keep_accents():
    assert tokens("Os resultados das tabelas mostram que o método funciona", "pt") == [
        "resultado", "tabela", "mostram", "método", "funciona",
    ]
    assert tokens("The cells of the study", "en") == ["cell", "study"]
    # English function words are left out in a Portuguese paper too (titles, quotations)
    assert "the" not in tokens("the diabetes gestacional", "pt")


def test_cjk_runs_become_character_bigrams():
    assert cjk_bigrams("实验结果") == ["实验", "验结", "结果"] and cjk_bigrams("表") == ["表"]
    assert tokens("实验结果表明", "zh") == ["实验", "验结", "结果", "果表", "表明"]
    assert "그림" in tokens("그림 1은 결과를 보여준다", "ko")


def test_rouge_tokens_keep_what_rouge_score_drops():
    text = "O método mostrou 그림 결과 e Économie"
    assert rouge_tokens(text) == ["o", "método", "mostrou", "그림", "결과", "e", "économie"]
    # rouge-score's own tokenizer loses the accented word and the Hangul entirely
    default = tokenize.tokenize(text, None)
    assert "método" not in default and "그림" not in default
    assert rouge_tokens("实验结果") == ["实", "验", "结", "果"]


def test_rouge_scorer_accepts_the_tokenizer_and_matches_our_rouge():
    scorer = rouge_scorer.RougeScorer(["rouge1"], tokenizer=RougeTokenizer())
    prediction, reference = "O método mostrou aumento da glicemia.", "O método mostrou um aumento."
    theirs = scorer.score(reference, prediction)["rouge1"].fmeasure
    ours = rouge(prediction, reference, "pt")["rouge1"]
    assert abs(theirs - ours) < 1e-9 and 0.5 < ours < 1
    assert rouge("그림 1은 결과를 보여준다.", "그림 1은 결과를 보여준다.", "ko")["rouge1"] == 1.0
    # rouge-score's tokenizer sees only the digit of a Korean sentence: two unrelated sentences match fully
    unrelated = ("그림 1은 결과를 보여준다.", "표 1은 방법을 설명한다.")
    assert rouge(*unrelated)["rouge1"] == 1.0
    assert rouge(*unrelated, "ko")["rouge1"] < 0.3


def test_placement_tokens_keep_the_list_its_weights_were_fitted_with():
    # figure words and "shown"/"using" are not evidence of a match; numbers and hyphenated names stay whole
    assert placement_tokens("As shown in Figure 3, the ResNet-50 models using masks") == ["3", "resnet-50", "model", "mask"]
    assert placement_tokens("cells class") == ["cell", "class"]  # a plural folded, "ss" kept
    # a variant, not the English table: connectives the table drops are kept, figure words it keeps are dropped
    assert "however" in stop_words("en") and "however" not in PLACEMENT_STOP_WORDS
    assert "figure" in PLACEMENT_STOP_WORDS and "figure" not in stop_words("en")


def test_salience_words_cut_endings_and_leave_out_what_every_paper_says_of_itself():
    assert salience_words("This study analysed the growing cells using flies") == ["analys", "grow", "cell", "flie"]
    assert "study" in SALIENCE_STOP_WORDS and "study" not in stop_words("en")


def test_excerpt_terms_keep_numbers_and_words_of_three_letters():
    assert excerpt_terms("The 2.5 mg dose was used in 12 of the rats") == ["2.5", "dose", "12", "rats"]
    assert EXCERPT_STOP_WORDS <= stop_words("en") | {"use", "used", "using"}
