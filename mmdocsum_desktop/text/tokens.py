"""Words of a text for lexical matching (BM25, overlaps) and for ROUGE, in any tabled language.

- **Stop words** come from the language tables (``resources/languages/*.toml``); English's is the list
  the retrieval index was tuned with.
- **Korean, Chinese and Japanese** have no spaces between words (Chinese, Japanese) or glue particles to
  them (Korean: "그림은", "그림을"): their runs of Hangul, Han and kana become overlapping character
  bigrams (a run of one character stays one token), the usual language-independent choice for BM25 over
  CJK text; a morphological analyser (kiwipiepy, jieba) would be more precise and tens of MB larger.
- **Variants kept word for word** (:data:`PLACEMENT_STOP_WORDS`, :data:`SALIENCE_STOP_WORDS`,
  :data:`EXCERPT_STOP_WORDS`, with their tokenizers): weights fitted on the dev half (placement's,
  the extractive summary's salience) or a tuned heuristic (the judge's excerpt) depend on their exact
  lists and tokenization, so they are kept here as they were rather than silently replaced by the tables'.
- **ROUGE** (:func:`rouge_tokens`): rouge-score's default tokenizer keeps only ``[a-z0-9]`` and so drops
  accented letters ("método" → "m", "todo") and all of Hangul. This one lower-cases after NFKC, keeps
  every letter and digit run as a word, and splits Han and kana into single characters (Hangul words
  stay whole, as LoRaLay scores Korean on space-separated words); no stemming outside English.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from mmdocsum_desktop.text.languages import language_table, primary_subtag

# Hangul syllables and jamo, Han ideographs, hiragana and katakana
_CJK = "\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3\u3400-\u4dbf\u4e00-\u9fff\u3040-\u30ff"
_WORD_OR_CJK_RUN = re.compile(rf"[{_CJK}]+|[^\W_]+", re.UNICODE)
_IS_CJK = re.compile(rf"^[{_CJK}]")
_HAN_OR_KANA = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\u3040-\u30ff]")
# Languages whose plural is a final "s" ("cells"/"cell", "tabelas"/"tabela", "résultats"/"résultat")
_PLURAL_S = frozenset({"en", "pt", "es", "fr"})


@cache
def stop_words(language: str | None = None) -> frozenset[str]:
    """The function words of a language (English for None or a language without a table)."""
    return language_table(language).stop_words


@cache
def _matching_stop_words(code: str) -> frozenset[str]:
    # English function words also appear in papers written in other languages (titles, quotations)
    return stop_words(code) | stop_words("en")


def cjk_bigrams(run: str) -> list[str]:
    """Overlapping character pairs of a run of CJK characters ("实验结果" → 实验, 验结, 结果)."""
    if len(run) <= 1:
        return [run] if run else []
    return [run[i : i + 2] for i in range(len(run) - 1)]


def tokens(text: str, language: str | None = None) -> list[str]:
    """Lower-case content words for lexical matching: stop words of the language (and English's) left
    out, single letters dropped, a plural "s" folded where the language forms plurals so, and runs of
    Hangul, Han and kana as character bigrams."""
    code = primary_subtag(language) or "en"
    stop = _matching_stop_words(code)
    fold_plural = code in _PLURAL_S
    out: list[str] = []
    for piece in _WORD_OR_CJK_RUN.findall(unicodedata.normalize("NFKC", text or "").casefold()):
        if _IS_CJK.match(piece):
            out.extend(cjk_bigrams(piece))
            continue
        if piece in stop or (len(piece) == 1 and not piece.isdigit()):
            continue
        if fold_plural and len(piece) > 3 and piece.endswith("s") and not piece.endswith("ss") and piece.isalpha():
            piece = piece[:-1]
        out.append(piece)
    return out


# ------------------------------------------------------------------------- variants fitted models depend on

# Placement's lexical signal (TF-IDF of a paragraph against a caption and the figure's text): the placement
# weights (placement/weights.json) were fitted on the dev half with these 136 words. Unlike the English
# table they leave out the words that name figures ("fig", "table", "shown", "see") and keep connectives
# ("however", "thus").
PLACEMENT_STOP_WORDS = frozenset(
    """a an the and or but if then than that this these those there here of in on at to for from by with
    without into onto over under between among as is are was were be been being it its it's we our us you
    your they their them he she his her i me my not no nor so such can could may might must shall should
    will would do does did done have has had having which who whom whose what when where why how also
    each both all any some more most other others same own only very too just s t about above below up
    down out off again further once per via using use used based shown show shows see e g i e et al fig
    figs figure figures table tables""".split()
)
_PLACEMENT_TOKEN = re.compile(r"[^\W_]+(?:[-.][^\W_]+)*", re.UNICODE)


def placement_tokens(text: str) -> list[str]:
    """Placement's tokens: lower-case words (hyphens and dots inside kept: "ResNet-50", "v2.1"),
    PLACEMENT_STOP_WORDS and single letters dropped, a plural "s" folded on words over four letters."""
    out = []
    for token in _PLACEMENT_TOKEN.findall(text.lower()):
        if token in PLACEMENT_STOP_WORDS:
            continue
        if len(token) == 1 and not token.isdigit():
            continue
        if len(token) > 4 and token.endswith("s") and not token.endswith("ss") and token.isalpha():
            token = token[:-1]
        out.append(token)
    return out


# The extractive summary's salience features (the paper's recurring words and its title's words):
# the salience weights (summarize/salience_weights.json, tools/fit_salience.py) are fitted with these 98 words, which also
# leave out the words every paper uses of itself ("study", "using", "based").
SALIENCE_STOP_WORDS = frozenset(
    "the a an and or of in on at to for with by from as is are was were be been being this that these those it its "
    "their our we they which who whom whose than then there here also not no but if into onto over under between "
    "among after before during while such can could may might will would should must has have had do does did "
    "both each other more most less all any some one two three using used use based study studies however thus "
    "well within without through about via et al".split())
_SALIENCE_WORD = re.compile(r"[a-z][a-z0-9-]{2,}")


def salience_words(text: str) -> list[str]:
    """Lower-case content words of three letters or more with a plural or verb ending cut ("cells" and
    "cell" count as one), SALIENCE_STOP_WORDS left out."""
    words = []
    for word in _SALIENCE_WORD.findall(text.lower()):
        if word in SALIENCE_STOP_WORDS:
            continue
        for suffix in ("ies", "es", "s", "ed", "ing"):
            if word.endswith(suffix) and len(word) - len(suffix) >= 4:
                word = word[: -len(suffix)]
                break
        words.append(word)
    return words


# The judge's excerpt of a source (the document sentences that share rare words with the summary): its
# choices were checked with these 55 words of three letters or more.
EXCERPT_STOP_WORDS = frozenset(
    "the and for with that this are was were from have has been their they which these those into than "
    "then also can its our not but all any each such more most other using used use between both over "
    "under while where when what who how may might will would should could there here".split()
)
_EXCERPT_TERM = re.compile(r"[A-Za-z][A-Za-z\-]{2,}|\d+(?:[.,]\d+)*")


def excerpt_terms(text: str) -> list[str]:
    """Lower-case words of three letters or more and numbers, EXCERPT_STOP_WORDS left out."""
    return [w.lower() for w in _EXCERPT_TERM.findall(text) if w.lower() not in EXCERPT_STOP_WORDS]


def rouge_tokens(text: str) -> list[str]:
    """ROUGE tokens for any language (see the module): lower case, accents and Hangul kept, Han and kana
    one character each."""
    out: list[str] = []
    for piece in _WORD_OR_CJK_RUN.findall(unicodedata.normalize("NFKC", text or "").casefold()):
        if _HAN_OR_KANA.search(piece):
            out.extend(piece)  # a Han or kana run: one token per character
        else:
            out.append(piece)
    return out


class RougeTokenizer:
    """:func:`rouge_tokens` as rouge-score's tokenizer object (``RougeScorer(..., tokenizer=...)``)."""

    name = "mmdocsum multilingual (NFKC, lower case, letters and digits incl. accents and Hangul; Han/kana per character; no stemming)"

    def tokenize(self, text: str) -> list[str]:
        return rouge_tokens(text)
