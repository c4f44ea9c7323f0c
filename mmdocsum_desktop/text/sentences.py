"""The one sentence splitter of the package.

Rule-based, and it knows the abbreviations of scientific prose ("Fig. 3", "et al.", "e.g.",
"Eq. (2)", initials such as "J. Smith"), so figure mentions and author lists do not end sentences.
Engines (extractive drafts, citations), placement (paragraph sentences) and benchmarks (answer
sentences, judge claims) all split through here, so one sentence means the same everywhere.
"""

from __future__ import annotations

import re

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


def split_sentences(text: str) -> list[str]:
    """Split prose into sentences; whitespace is normalised, nothing else is changed."""
    text = _SPACE.sub(" ", text).strip()
    if not text:
        return []
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
