"""Reading a question with the paper's own vocabulary: which figure or table it names, and the paper's
abbreviations it uses (or spells out).

* **Named visuals**: "What does Figure 5 show?", "Fig. 3", "table II", "the second table", "the last
  figure" → the canonical labels ("Figure 5", "Table 2") the question points at. A roman table number
  meets the document's arabic one and back ("Table II" ↔ "Table 2").
* **Abbreviations** defined in the paper ("essential oil of Ocimum sanctum (OSEO)"), found with the
  Schwartz–Hearst rule (Schwartz & Hearst 2003: the short form's letters appear in order in the words
  before the bracket, the first letter starting a word). A question that spells the long form out gets
  the short form added to its lexical tokens, and one that uses the short form gets the long form: a
  reader asks about "holy basil oil" or "OSEO" while the paper writes the other.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from mmdocsum_desktop.document.labels import find_mentions

_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50}
_LOWER_NAMED = re.compile(
    r"\b(?:(?P<fig>fig(?:ure)?s?\.?|scheme)|(?P<tab>tab(?:le)?s?\.?))\s*(?P<number>\d{1,3}|[ivxl]{1,6}\b)",
    re.IGNORECASE,
)
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
             "eighth": 8, "ninth": 9, "tenth": 10, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5,
             "last": -1, "final": -1}
_ORDINAL_NAMED = re.compile(
    rf"\b(?P<ordinal>{'|'.join(_ORDINALS)})\s+(?:(?P<tab>tables?)|(?P<fig>figures?|graphs?|charts?|plots?|diagrams?|images?|pictures?|photos?))\b",
    re.IGNORECASE,
)
_ABBREVIATION = re.compile(r"\(\s*(?P<short>[A-Za-z][A-Za-z0-9\-]{1,9})\s*[;,)]")
_WORD = re.compile(r"[^\W_]+(?:-[^\W_]+)*")


def roman_to_int(text: str) -> int | None:
    """ "IV" → 4; None when ``text`` is not a roman numeral."""
    text = text.lower()
    if not text or any(c not in _ROMAN_VALUES for c in text):
        return None
    total = 0
    for position, char in enumerate(text):
        value = _ROMAN_VALUES[char]
        following = _ROMAN_VALUES[text[position + 1]] if position + 1 < len(text) else 0
        total += -value if value < following else value
    return total if total > 0 else None


def _number_forms(number: str) -> set[str]:
    """The spellings of one visual number a document may use: "2" and "II" for each other."""
    forms = {number, number.upper()}
    as_roman = roman_to_int(number)
    if as_roman is not None:
        forms.add(str(as_roman))
    if number.isdigit() and 0 < int(number) < 40:
        value, numeral = int(number), ""
        for arabic, roman in ((10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")):
            while value >= arabic:
                numeral += roman
                value -= arabic
        forms.add(numeral)
    return forms


def named_visuals(question: str, labels_in_order: Sequence[str]) -> list[str]:
    """The document's labels the question names, in the order named; ``labels_in_order``: the
    document's canonical labels in reading order (figures before tables is fine: order counts per kind)."""
    wanted: list[tuple[str, str]] = []  # (word, number) as asked
    for _kind, label in find_mentions(question):
        word, number = label.split(" ", 1)
        wanted.append((word, number))
    for match in _LOWER_NAMED.finditer(question):
        word = "Table" if match.group("tab") else ("Scheme" if match.group("fig").lower() == "scheme" else "Figure")
        wanted.append((word, match.group("number")))
    found: list[str] = []
    for word, number in wanted:
        forms = _number_forms(number.rstrip("abcdefgh") if number[:1].isdigit() else number)
        words = {word} | ({"Figure", "Scheme", "Chart", "Plate"} if word == "Figure" else set())
        for label in labels_in_order:
            label_word, _, label_number = label.partition(" ")
            if label_word in words and label_number in forms and label not in found:
                found.append(label)
                break
    for match in _ORDINAL_NAMED.finditer(question):
        is_table = bool(match.group("tab"))
        same_kind = [label for label in labels_in_order if label.startswith("Table") == is_table
                     and not label.startswith(("Table S", "Figure S"))]
        position = _ORDINALS[match.group("ordinal").lower()]
        index = len(same_kind) - 1 if position < 0 else position - 1
        if 0 <= index < len(same_kind) and same_kind[index] not in found:
            found.append(same_kind[index])
    return found


def find_abbreviations(sentences: Iterable[str]) -> dict[str, str]:
    """Short form → long form for every "long form (SF)" the text defines (the first definition wins)."""
    found: dict[str, str] = {}
    for sentence in sentences:
        for match in _ABBREVIATION.finditer(sentence):
            short = match.group("short")
            if short in found or not any(c.isupper() for c in short) or short.isdigit():
                continue
            before = _WORD.findall(sentence[: match.start()])[-(min(len(short) + 5, len(short) * 2)):]
            long_form = _long_form(short, before)
            if long_form:
                found[short] = long_form
    return found


def _long_form(short: str, words: list[str]) -> str | None:
    """Schwartz–Hearst: the shortest run of final ``words`` whose letters hold the short form's letters
    in order, its first letter starting the first word."""
    letters = [c.lower() for c in short if c.isalnum()]
    if not letters or not words:
        return None
    for count in range(1, len(words) + 1):
        candidate = words[-count:]
        if candidate[0][:1].lower() != letters[0]:
            continue
        text = " ".join(candidate).lower()
        position = len(text)
        matched = True
        for letter in reversed(letters):
            position = text.rfind(letter, 0, position)
            if position < 0:
                matched = False
                break
        if matched and position == 0 and len(candidate) >= max(1, len(letters) // 3):
            long_form = " ".join(candidate)
            return long_form if long_form.lower() != short.lower() else None
    return None


def expand_tokens(query_tokens: list[str], abbreviations: dict[str, list[str]]) -> list[str]:
    """``query_tokens`` plus the paper's other spelling of each abbreviation the question uses.

    ``abbreviations``: short-form token → long-form tokens (as :func:`abbreviation_tokens` gives)."""
    present = set(query_tokens)
    extra: list[str] = []
    for short, long_tokens in abbreviations.items():
        if not long_tokens:
            continue
        if short in present:
            extra += [t for t in long_tokens if t not in present]
        elif len(long_tokens) >= 2 and sum(t in present for t in long_tokens) * 3 >= len(long_tokens) * 2:
            extra.append(short)
    return query_tokens + [t for t in dict.fromkeys(extra) if t not in present]
