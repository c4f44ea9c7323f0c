"""A small stop-word vote for the document language, for files that do not declare one."""

from __future__ import annotations

import re
from collections import Counter

_STOPWORDS = {
    "en": "the of and to in is that for are with as by this on be we from which an",
    "de": "der die und den das ist nicht mit von sich des ein eine auch auf für werden",
    "fr": "le la les des et est une dans du que pour pas sur par qui avec sont",
    "es": "el la los las de que en y es por una para con del se su como",
    "it": "il di che la per non una sono della con nel gli delle anche",
    "pt": "de que os as uma para com não por mais dos das se ao",
    "nl": "de het een van en is dat niet op te zijn voor met",
}
_WORDS = {language: set(words.split()) for language, words in _STOPWORDS.items()}
_TOKEN = re.compile(r"[^\W\d_]+", re.UNICODE)


def guess_language(text: str) -> str | None:
    tokens = [t.lower() for t in _TOKEN.findall(text[:20000])]
    if len(tokens) < 20:
        return None
    if sum(1 for t in tokens if re.match(r"[\u4e00-\u9fff]", t)) > 0.3 * len(tokens):
        return "zh"
    votes = Counter({language: sum(t in words for t in tokens) for language, words in _WORDS.items()})
    language, count = votes.most_common(1)[0]
    return language if count >= 0.05 * len(tokens) else None
