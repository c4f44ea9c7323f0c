"""Words of a text for lexical matching (BM25, overlaps) and for ROUGE, in any tabled language.

- **Stop words** come from the language tables (``resources/languages/*.toml``); English's is the list
  the retrieval index was tuned with.
- **Korean, Chinese and Japanese** have no spaces between words (Chinese, Japanese) or glue particles to
  them (Korean: "그림은", "그림을"): their runs of Hangul, Han and kana become overlapping character
  bigrams (a run of one character stays one token), the usual language-independent choice for BM25 over
  CJK text; a morphological analyser (kiwipiepy, jieba) would be more precise and tens of MB larger.
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
