"""The one sentence splitter of the package.

English (and text of no known language) is split by the rules below. Other languages go through
sentencex (Wikimedia's maintained segmenter for about 300 languages: Portuguese, Korean and the CJK full
stops included, which neither these rules nor pysbd cover), and its cuts after an abbreviation of the
language's table ("p. ex.", "Sr.", "et al.", "Fig.") or an initial are joined again.

Rule-based, and it knows the abbreviations of scientific prose ("Fig. 3", "et al.", "e.g.",
"Eq. (2)", initials such as "J. Smith"), so figure mentions and author lists do not end sentences.
Engines (extractive drafts, citations), placement (paragraph sentences) and benchmarks (answer
sentences, judge claims) all split through here, so one sentence means the same everywhere.
"""

from __future__ import annotations

import re
from functools import cache

from mmdocsum_desktop.text.languages import language_table, primary_subtag

_ABBREVIATIONS = frozenset(
    {
        "fig",
        "figs",
        "eq",
        "eqs",
        "tab",
        "ref",
        "refs",
        "sec",
        "sect",
        "secs",
        "al",
        "e.g",
        "i.e",
        "cf",
        "vs",
        "approx",
        "no",
        "nos",
        "dr",
        "mr",
        "mrs",
        "ms",
        "prof",
        "st",
        "vol",
        "pp",
        "p",
        "ch",
        "chap",
        "resp",
        "etc",
        "viz",
        "ca",
        "inc",
        "ltd",
        "co",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "min",
        "max",
        "avg",
        "est",
        "dept",
        "univ",
        "eqn",
        "suppl",
        "supp",
        "incl",
        "mt",
        "u.s",
        "a.k.a",
        "ph.d",
        "var",
        "app",
    }
)
_BOUNDARY = re.compile(r"([.!?…])([\"'”’)\]]*)\s+(?=[\"'“‘(\[]?[A-Z0-9])")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)$")
_SPACE = re.compile(r"\s+")
# An answer's citation bracket written after the full stop ("A claim.[3]") belongs to that sentence.
_CITATION_AFTER_STOP = re.compile(r"([.!?])\s*((?:\[[^\[\]]{1,40}\]\s*)+)(?=\s|$)")
# Blank lines and list items end a sentence in a model's answer even without a full stop.
_ANSWER_BLOCK = re.compile(r"\n\s*\n|\n(?=\s*[-*•\d]+[.)]?\s)")


def split_sentences(text: str, language: str | None = None) -> list[str]:
    """Split prose into sentences; whitespace is normalised, nothing else is changed. ``language`` (ISO
    639-1) picks the rules: English's own, or sentencex with the language's abbreviations."""
    text = _SPACE.sub(" ", text).strip()
    if not text:
        return []
    code = primary_subtag(language)
    if code and code != "en":
        return _split_other_language(text, code)
    sentences: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        end = match.end(2)
        candidate = text[start:end]
        if match.group(1) == "." and (_is_abbreviation(candidate) or _ends_with_initial(candidate)):
            continue
        sentences.append(candidate.strip())
        start = match.end()
    tail = text[start:].strip()
    if tail:
        sentences.append(tail)
    return [s for s in sentences if s]


def split_answer_sentences(text: str) -> list[str]:
    """Sentences of a model's answer: a citation bracket right after the full stop moves in front of
    it ("A claim.[3]" → "A claim [3]."), and paragraph breaks and list items also end a sentence."""
    text = _CITATION_AFTER_STOP.sub(r" \2\1", (text or "").strip())
    sentences: list[str] = []
    for block in _ANSWER_BLOCK.split(text):
        sentences.extend(split_sentences(block))
    return sentences


def _is_abbreviation(candidate: str) -> bool:
    stripped = candidate.rstrip("\"'”’)]")
    match = _WORD_BEFORE.search(stripped[:-1]) if stripped.endswith(".") else None
    if not match:
        return False
    return match.group(1).lower().rstrip(".") in _ABBREVIATIONS


def _ends_with_initial(candidate: str) -> bool:
    """ "J. Smith": a single capital letter before the full stop is an initial."""
    stripped = candidate.rstrip()
    return (
        len(stripped) >= 2
        and stripped[-1] == "."
        and stripped[-2].isupper()
        and (len(stripped) == 2 or not stripped[-3].isalnum())
    )


_LAST_WORD = re.compile(r"(?:^|[\s(\[])([^\s(\[]+)\.[\"'”’)\]]*$")


@cache
def _abbreviations(code: str) -> frozenset[str]:
    return _ABBREVIATIONS | language_table(code).abbreviations


def _split_other_language(text: str, code: str) -> list[str]:
    from sentencex import segment  # lazy: only documents in other languages need it

    abbreviations = _abbreviations(code)
    pieces = [p.strip() for p in segment(code, text) if p and p.strip()]
    sentences: list[str] = []
    for piece in pieces:
        if sentences and _continues(sentences[-1], piece, abbreviations):
            sentences[-1] = f"{sentences[-1]} {piece}"
        else:
            sentences.append(piece)
    return sentences


def _continues(previous: str, piece: str, abbreviations: frozenset[str]) -> bool:
    """Whether the segmenter cut after an abbreviation or an initial ("et al.", "p. ex.", "M. Dupont"), or
    before a word in lower case: the sentence goes on."""
    if piece[:1].islower():
        return True
    match = _LAST_WORD.search(previous)
    if not match:
        return False
    word = match.group(1).lower()
    # "p. ex." ends on "ex" after "p."; "et al." on "al"
    return word in abbreviations or word.split(".")[-1] in abbreviations or (len(word) == 1 and word.isalpha())
