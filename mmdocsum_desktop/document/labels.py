"""Figure and table labels: recognising captions by their start, and finding mentions in body text."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from mmdocsum_desktop.schemas.document import Document
from mmdocsum_desktop.text.languages import LABEL_KINDS, caption_words, language_table, language_tables

VisualKind = Literal["figure", "table"]

# Canonical label word and kind for each spelling a paper may use, in every tabled language: "Fig." and
# "Figura" are "Figure", "Tabela" and "Tableau" are "Table" (resources/languages/*.toml, "captions").
# Labels are canonical so that "Tabela 2" in a caption and "Table 2" in a question (or "Tab. 2" in the
# text) name the same table.
_WORDS: dict[str, tuple[str, VisualKind]] = {
    word: (label, LABEL_KINDS[label])  # type: ignore[misc]
    for word, label in caption_words().items()
}
# Abbreviations whose full stop may be left out ("Fig 1"); "Tab." keeps its stop, or "tab" in prose
# would read as a label.
_OPTIONAL_STOP = frozenset({"fig", "figs", "figg", "abb"})
_CJK_WORD = re.compile(r"^[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3]+$")
_ENGLISH = frozenset(language_table("en").caption_words)
_HANGUL = re.compile(r"[\uac00-\ud7a3]")


def _spellings(word: str, *, lowercase: bool) -> list[str]:
    """The forms a label word is printed in: "Figura", "FIGURA" (and "figura" where asked); an
    abbreviation with its full stop."""
    if _CJK_WORD.match(word):
        return [re.escape(word)]
    forms = {word[:1].upper() + word[1:], word.upper()} | ({word} if lowercase else set())
    stop = r"\.?" if word in _OPTIONAL_STOP else (r"\." if word == "tab" else "")
    return [re.escape(form) + stop for form in sorted(forms, key=len, reverse=True)]


def _word_alternatives(*, lowercase: bool, english_lowercase: bool = False) -> str:
    latin: list[str] = []
    hangul: list[str] = []
    han_kana: list[str] = []
    for word in sorted(_WORDS, key=len, reverse=True):
        forms = _spellings(word, lowercase=lowercase and (english_lowercase or word not in _ENGLISH))
        if not _CJK_WORD.match(word):
            latin.extend(forms)
        else:
            (hangul if _HANGUL.search(word) else han_kana).extend(forms)
    # Latin words start at a word boundary. Han and kana words are written against the text around them
    # ("如图1所示"); Hangul ones follow a space or a bracket ("그림 1은", "[표 1]"), never a syllable
    # ("분류표5)" is a classification table's footnote 5, not Table 5).
    return (
        rf"(?:\b(?:{'|'.join(latin)})|(?<![A-Za-z\uac00-\ud7a3])(?:{'|'.join(hangul)})"
        rf"|(?<![A-Za-z])(?:{'|'.join(han_kana)}))"
    )


_NUMBER = r"(?:S?\d{1,3}(?:[-.‐–]\d{1,3})?)"
_ROMAN = r"(?:[IVXL]{1,6}\b)"  # IEEE numbers tables "TABLE IV"
_CAPTION_RE = re.compile(
    rf"""^\s*
    (?P<open>[<\[〈［【])?\s*
    (?:(?P<supplement>Supplementa(?:ry|l)\s+|SUPPLEMENTA(?:RY|L)\s+)|Extended\s+Data\s+)?
    (?P<word>{_word_alternatives(lowercase=False)})
    \s*[-‐–]?\s*(?P<number>{_NUMBER}|{_ROMAN})(?P<sub>[a-zA-Z](?![a-zA-Z]))?
    (?P<close>(?(open)\s*[>\]〉］】]))
    (?P<after>.*)$""",
    re.VERBOSE | re.DOTALL,
)
_STRONG_DELIMITER = re.compile(r"^\s*(?:[:.|—–：．]|-\s|\s\|)")
# "Figure 1) Growth of the cells": a closing bracket after the number, then the caption's text, capitalised
# (prose that cites a figure in brackets goes on in lower case or with a comma: "(see Figure 1) and")
_BRACKET_DELIMITER = re.compile(r"^\)\s+[A-Z(\"“]")
# "Figure 1 (A) Growth of ...", "Fig. 3(a–c). ...", "Table 2 (continued)": a panel letter or a note in
# brackets right after the label, then the caption's text (capitalised), is a caption; "Figure 2 (right)
# shows" is prose.
_BRACKETED_START = re.compile(
    r"^\s*\((?:[a-zA-Z](?:\s*[-–,]\s*[a-zA-Z])*|continued|cont['’]?d|cont\.|colou?r online|continuação|continuación|suite)\)\s*(?:[:.|—–-]\s*)?(?:[A-Z(]|$)"
)
_CONTINUED = re.compile(r"^\s*[:.|]?\s*\(?\s*(?:cont(?:inued|'d|\.)?|continuação|continuación|suite)\b", re.IGNORECASE)


def _canonical(word: str) -> tuple[str, VisualKind]:
    key = word.rstrip(".").lower()
    return _WORDS.get(key) or _WORDS.get(key.rstrip("s")) or ("Figure", "figure")


@dataclass(frozen=True)
class CaptionStart:
    kind: VisualKind
    label: str
    number: str
    strong: bool  # the label is followed by a caption delimiter (":", ".", "|") rather than prose
    continued: bool  # "Figure 4. Cont." — the rest of a figure split over pages
    rest: str


def normalise_number(number: str) -> str:
    return re.sub(r"[‐–.]", "-", number) if re.search(r"\d[‐–.]\d", number) else number


def parse_caption_start(text: str) -> CaptionStart | None:
    """Recognise text that begins like a caption ("Figure 3:", "Fig. 3.", "FIG. 3", "Table 4")."""
    match = _CAPTION_RE.match(text)
    if not match:
        return None
    canonical, kind = _canonical(match.group("word"))
    after = match.group("after")
    if match.group("sub") and after[:1].isalpha():
        return None
    # "Figure 3.2" in "Figure 3.2 shows" is a number; "Fig. 3. The ..." is a delimiter.
    number = normalise_number(match.group("number"))
    if match.group("supplement") and not number.upper().startswith("S"):
        # "Supplemental Figure 1" is not the paper's Figure 1: named as publishers number them, "Figure S1"
        number = f"S{number}"
    bracketed = bool(_BRACKET_DELIMITER.match(after))
    strong = (
        bracketed
        or bool(_STRONG_DELIMITER.match(after))
        or after.strip() == ""
        or bool(_BRACKETED_START.match(after))
        or bool(match.group("open"))  # "<표 1> 연구 대상", "[Figura 2]": a bracketed label is a caption's
    )
    # "Table 1 [27,28] compares ..." and "Figure 2 (right) shows": prose citing a figure, not its caption
    if after[:1] and after[:1] in ",;)" and not bracketed or (after.lstrip()[:1] in {"(", ",", "["} and not strong):
        return None
    if bracketed:
        after = after[1:]
    continued = bool(_CONTINUED.match(after))
    return CaptionStart(kind, f"{canonical} {number}", number, strong, continued, after.lstrip(" :.|—–-\t\n"))


# Mentions: "Fig. 3", "Figure 3a", "Figs. 2 and 3", "Figures 2-4", "Table 1, 2, and 3", "Fig. 1(a)",
# "Tabelas 1 e 2", "Figuras 2 a 4", "表1", "그림 2".
_TABLES = language_tables().values()
# Words joining numbers in a list of labels ("and", "e", "y", "et", "und", "및") or a range ("to", "a",
# "até", "bis", "至"), in every tabled language.
_JOINERS = sorted(
    {"and", "&", "to"} | {w for t in _TABLES for w in (*t.label_and, *t.label_range) if w != ","}, key=len, reverse=True
)
_RANGE_WORDS = sorted({"to"} | {w for t in _TABLES for w in t.label_range}, key=len, reverse=True)
_RANGES = "|".join(re.escape(w) for w in _RANGE_WORDS)
# A range written with a word of more than one letter is a range even after a singular label word
# ("Figure 2 to 4"); "a" ("Tabelas 1 a 3") only after a plural one.
_LONG_RANGES = r"\s(?:" + "|".join(re.escape(w) for w in _RANGE_WORDS if len(w) > 1) + r")\s"


def _mention_pattern(*, lowercase: bool) -> re.Pattern[str]:
    joiners = "|".join(re.escape(c) for c in _JOINERS)
    return re.compile(
        rf"""(?P<word>{_word_alternatives(lowercase=lowercase, english_lowercase=lowercase)})
    \s*(?P<list>(?:{_NUMBER}|(?<=Table\s){_ROMAN}|(?<=TABLE\s){_ROMAN})[a-z]?(?:\s*(?:,|{joiners}|[-–—])\s*(?:{_NUMBER}|[a-z]\b)[a-z]?)*)""",
        re.VERBOSE,
    )


_MENTION_RE = _mention_pattern(lowercase=False)
# Papers in other languages print their label words in lower case in running text ("na tabela 2",
# "la figure 3"); English ones are kept capitalised there, as before.
_MENTION_ANY_CASE_RE = _mention_pattern(lowercase=True)
_NUMBER_IN_LIST = re.compile(rf"{_NUMBER}")
_ONE_LETTER_JOINER = re.compile(r"\d\s+[a-z]\s+\d")
_TRAILING_LETTERS = re.compile(r"(?<=\d)(?:\s*(?:,\s*|\s)[a-z]\b)+\s*$")


def find_mentions(text: str, language: str | None = None) -> list[tuple[VisualKind, str]]:
    """Return (kind, label) for every figure or table the text cites, in order, without repeats.
    ``language``: the text's language; other than English, label words in lower case count too."""
    pattern = _MENTION_ANY_CASE_RE if language and not language.lower().startswith("en") else _MENTION_RE
    found: list[tuple[VisualKind, str]] = []
    for match in pattern.finditer(text):
        word = match.group("word").rstrip(".").lower()
        canonical, kind = _canonical(word)
        # "Figuras 1 a 3, e o …": a letter after the last number is a panel or the next word, not the list's
        listed = _TRAILING_LETTERS.sub("", match.group("list"))
        plural = word.endswith("s") and word != "tab"
        # "Tables 1-3" and "Figures 2–4" are ranges; "Table 2-1" is chapter-style numbering.
        range_match = re.fullmatch(rf"(\d+)\s*(?:–|—|-|{_RANGES})\s*(\d+)", listed.strip())
        if range_match and (plural or "–" in listed or re.search(_LONG_RANGES, listed)):
            low, high = int(range_match.group(1)), int(range_match.group(2))
            expanded = [str(n) for n in range(low, high + 1)] if 0 < high - low < 20 else [str(low), str(high)]
        else:
            expanded = [normalise_number(n) for n in _NUMBER_IN_LIST.findall(listed)]
            if not plural and _ONE_LETTER_JOINER.search(listed):
                expanded = expanded[:1]  # "Figura 1 a 25 pacientes": one figure; lists follow a plural
        for number in expanded:
            item = (kind, f"{canonical} {number}")
            if item not in found:
                found.append(item)
    return found


def link_mentions(document: Document) -> None:
    """Fill ``mentions`` of every figure and table with the ids of the blocks that cite it."""
    by_label = {(v.kind, v.label.lower()): v for v in document.visuals if v.label}
    for visual in document.visuals:
        visual.mentions = []
    for block in document.blocks:
        if block.type == "caption" or block.is_translation:
            continue  # a translation's mentions are the original's, already linked
        for kind, label in find_mentions(block.text, document.language):
            mentioned = by_label.get((kind, label.lower()))
            if mentioned is not None and block.id not in mentioned.mentions:
                mentioned.mentions.append(block.id)
