"""Figure and table labels: recognising captions by their start, and finding mentions in body text."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from mmdocsum_desktop.document.model import Document

VisualKind = Literal["figure", "table"]

# Canonical label word for each spelling a paper may use; tables are the only non-figure kind.
_WORDS: dict[str, tuple[str, VisualKind]] = {
    "figure": ("Figure", "figure"),
    "figures": ("Figure", "figure"),
    "fig": ("Figure", "figure"),
    "figs": ("Figure", "figure"),
    "scheme": ("Scheme", "figure"),
    "schemes": ("Scheme", "figure"),
    "chart": ("Chart", "figure"),
    "plate": ("Plate", "figure"),
    "example": ("Example", "figure"),
    "table": ("Table", "table"),
    "tables": ("Table", "table"),
    "tab": ("Table", "table"),
}

_NUMBER = r"(?:S?\d{1,3}(?:[-.‐–]\d{1,3})?)"
_ROMAN = r"(?:[IVXL]{1,6}\b)"  # IEEE numbers tables "TABLE IV"
_CAPTION_RE = re.compile(
    rf"""^\s*
    (?:Supplementary\s+|Extended\s+Data\s+)?
    (?P<word>Figure|FIGURE|Fig\.?|FIG\.?|Scheme|SCHEME|Chart|Plate|Example|Table|TABLE|Tab\.)
    \s*[-‐–]?\s*(?P<number>{_NUMBER}|{_ROMAN})(?P<sub>[a-zA-Z](?![a-zA-Z]))?
    (?P<after>.*)$""",
    re.VERBOSE | re.DOTALL,
)
_STRONG_DELIMITER = re.compile(r"^\s*(?:[:.|—–]|-\s|\s\|)")
# "Figure 1 (A) Growth of ...", "Fig. 3(a–c). ...", "Table 2 (continued)": a panel letter or a note in
# brackets right after the label, then the caption's text (capitalised), is a caption; "Figure 2 (right)
# shows" is prose.
_BRACKETED_START = re.compile(
    r"^\s*\((?:[a-zA-Z](?:\s*[-–,]\s*[a-zA-Z])*|continued|cont['’]?d|cont\.|colou?r online)\)\s*(?:[:.|—–-]\s*)?(?:[A-Z(]|$)"
)
_CONTINUED = re.compile(r"^\s*[:.]?\s*\(?\s*(?:cont(?:inued|'d|\.)?)\b", re.IGNORECASE)


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
    word = match.group("word").rstrip(".").lower()
    canonical, kind = _WORDS[word]
    after = match.group("after")
    if match.group("sub") and after[:1].isalpha():
        return None
    # "Figure 3.2" in "Figure 3.2 shows" is a number; "Fig. 3. The ..." is a delimiter.
    number = normalise_number(match.group("number"))
    strong = bool(_STRONG_DELIMITER.match(after)) or after.strip() == "" or bool(_BRACKETED_START.match(after))
    # "Table 1 [27,28] compares ..." and "Figure 2 (right) shows": prose citing a figure, not its caption
    if after[:1] and after[:1] in ",;)" or (after.lstrip()[:1] in {"(", ",", "["} and not strong):
        return None
    continued = bool(_CONTINUED.match(after))
    return CaptionStart(kind, f"{canonical} {number}", number, strong, continued, after.lstrip(" :.|—–-\t\n"))


# Mentions: "Fig. 3", "Figure 3a", "Figs. 2 and 3", "Figures 2-4", "Table 1, 2, and 3", "Fig. 1(a)".
_MENTION_RE = re.compile(
    rf"""\b(?P<word>Figures?|FIGURES?|Figs?\.?|FIGS?\.?|Schemes?|Tables?|TABLES?|Tab\.|Example)
    \s*(?P<list>(?:{_NUMBER}|(?<=Table\s){_ROMAN}|(?<=TABLE\s){_ROMAN})[a-z]?(?:\s*(?:,|and|&|to|[-–—])\s*(?:{_NUMBER}|[a-z]\b)[a-z]?)*)""",
    re.VERBOSE,
)
_NUMBER_IN_LIST = re.compile(rf"{_NUMBER}")


def find_mentions(text: str) -> list[tuple[VisualKind, str]]:
    """Return (kind, label) for every figure or table the text cites, in order, without repeats."""
    found: list[tuple[VisualKind, str]] = []
    for match in _MENTION_RE.finditer(text):
        word = match.group("word").rstrip(".").lower()
        canonical, kind = _WORDS.get(word, _WORDS.get(word.rstrip("s"), ("Figure", "figure")))
        listed = match.group("list")
        plural = word.endswith("s")
        # "Tables 1-3" and "Figures 2–4" are ranges; "Table 2-1" is chapter-style numbering.
        range_match = re.fullmatch(r"(\d+)\s*(?:–|—|to|-)\s*(\d+)", listed.strip())
        if range_match and (plural or "–" in listed or "to" in listed):
            low, high = int(range_match.group(1)), int(range_match.group(2))
            expanded = [str(n) for n in range(low, high + 1)] if 0 < high - low < 20 else [str(low), str(high)]
        else:
            expanded = [normalise_number(n) for n in _NUMBER_IN_LIST.findall(listed)]
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
        if block.type == "caption":
            continue
        for kind, label in find_mentions(block.text):
            visual = by_label.get((kind, label.lower()))
            if visual is not None and block.id not in visual.mentions:
                visual.mentions.append(block.id)
