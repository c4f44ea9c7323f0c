"""Text normalisation for what PDFs hand out: ligatures, soft hyphens, words hyphenated across lines,
columns and pages, and glyphs that have no Unicode at all.

- Ligature glyphs (U+FB00–U+FB06: "ﬁ", "ﬂ", "ﬀ") and mathematical styled letters ("𝜅") become their
  letters by NFKC. Only those: NFKC of the whole text would also turn "m²" into "m2" and "µ" into "μ",
  which changes what a paper says.
- Soft hyphens (U+00AD) are removed; one at the end of a line joins the two halves of the word.
- A word split by a hyphen and a break that PyMuPDF did not join ("extracel- lular") is joined using the
  document's own vocabulary (:func:`join_split_words`): "extracellular" elsewhere in the paper → joined,
  "long-term" elsewhere → hyphen kept, neither half a word of the paper → joined; otherwise left alone
  ("subjects- compared" in a table is two words).
- U+FFFD and private-use code points mean the PDF's font maps a glyph to no character (a degree sign, a
  "+" in "Ca2+" drawn from a symbol font). The text cannot be recovered from the text layer, so blocks
  holding them are marked (``Block.unmapped_glyphs``) for later stages to avoid.
"""

from __future__ import annotations

import functools
import gzip
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from mmdocsum_desktop.text.languages import language_tables

if TYPE_CHECKING:
    from mmdocsum_desktop.schemas.document import Block, Document

LIGATURES = {chr(code): unicodedata.normalize("NFKC", chr(code)) for code in range(0xFB00, 0xFB07)}
# Mathematical italic/bold letters ("𝜅 > 0.85", U+1D400–U+1D7FF) are a font's styling of plain letters
# and digits that equation typesetting leaves in the text layer; a reader, a search and the embedders
# want the letter itself
MATH_LETTERS = {
    chr(code): folded
    for code in range(0x1D400, 0x1D800)
    if (folded := unicodedata.normalize("NFKC", chr(code))) != chr(code)
}
_LIGATURE_TABLE = str.maketrans({**LIGATURES, **MATH_LETTERS})
SOFT_HYPHEN = "\u00ad"
_UNMAPPED = re.compile("[\ufffd\ue000-\uf8ff]")
# "extracel- lular", "hy- drogen"; not "pre- and post-", "2- or 3-fold"
_SPLIT_WORD = re.compile(r"\b([^\W\d_]{2,})[-\u2010\u2011] ([^\W\d_]{2,})\b")
_CONJUNCTIONS = frozenset({"and", "or", "to", "nor", "versus", "vs", "und", "et", "ou"})
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


# English words by frequency (wordninja's list, from Wikipedia; wordninja is a dependency of the app): a
# word list consulted only where the paper's own text does not decide
_COMMON = 60_000
_RARE = 10**9


@functools.lru_cache(maxsize=1)
def english_word_ranks() -> dict[str, int]:
    import wordninja  # importing it reads its 1 MB word list: only when a paper needs the ranks

    listed = Path(wordninja.__file__).parent / "wordninja" / "wordninja_words.txt.gz"
    return {word: rank for rank, word in enumerate(gzip.decompress(listed.read_bytes()).decode().split())}


def normalize_line(text: str) -> str:
    """One line of PDF text: ligatures to letters, soft hyphens that are not at the line end removed."""
    text = text.translate(_LIGATURE_TABLE)
    if SOFT_HYPHEN in text:
        ends_soft = text.rstrip().endswith(SOFT_HYPHEN)
        text = text.replace(SOFT_HYPHEN, "")
        if ends_soft:
            text = text.rstrip() + SOFT_HYPHEN  # kept for join_lines: the word goes on on the next line
    return text


def normalize_text(text: str) -> str:
    """Any text: ligatures to letters; a soft hyphen before a break joins the word, others are removed."""
    text = text.translate(_LIGATURE_TABLE)
    if SOFT_HYPHEN in text:
        text = re.sub(SOFT_HYPHEN + r"\s+(?=[^\W\d_])", "", text).replace(SOFT_HYPHEN, "")
    return text


_SEARCH_FOLD = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2212": "-",
                              "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', SOFT_HYPHEN: ""})


def search_key(text: str) -> str:
    """What a search compares: NFKC (ligatures, styled letters and full-width forms to plain ones), case
    folded, hyphens and quotes of every kind alike, and no spaces at all, so that a phrase is found whether
    the PDF set its words apart, glued or broken by a ligature ("zero ﬂow days", "zero flowdays")."""
    folded = unicodedata.normalize("NFKC", text).casefold().translate(_SEARCH_FOLD)
    return "".join(folded.split())


def has_unmapped_glyphs(text: str) -> bool:
    """The text holds glyphs the PDF gave no Unicode for (U+FFFD or private-use code points)."""
    return _UNMAPPED.search(text) is not None


# A full stop glued to the next sentence, as publishers' text sometimes has it, PDF and XML alike ("(Figure
# 5C).Also", "antibody levels.The anion gap", "in vivo.These complexes"): a word of two letters or a closing
# bracket, the stop, then a capitalised word
_GLUED_SENTENCE = re.compile(r"(?<=[^\W\d_]{2}[.!?])(?=[A-Z][a-z]{2,}\b)|(?<=[)\]][.!?])(?=[A-Z][a-z])")
# what the glued word before the stop must not hold: a URL, a domain, an e-mail, a dotted name ("java.lang");
# an address or e-mail after it ("Morten.Sivertsvik@nofima.no") is left alone too
_DOTTED_WORD = re.compile(r"[./@:\\]|www")


def space_sentences(text: str, abbreviations: frozenset[str] = frozenset()) -> str:
    """"(Table 4).There" → "(Table 4). There": a space after a sentence's stop where the source glued the
    next sentence to it; not in "www.Example.org", "e.g.The", "U.S.Army" or after an abbreviation
    ("No.ChiCTR", "Dr.Smith": ``abbreviations``, lower case, without their stop)."""
    if "." not in text and "!" not in text and "?" not in text:
        return text

    def space(match: re.Match[str]) -> str:
        start = max(text.rfind(" ", 0, match.start()), text.rfind("\n", 0, match.start())) + 1
        word = text[start : match.start() - 1]
        after = re.match(r"\S*", text[match.start() :])
        token = word + (after.group(0) if after else "")
        if _DOTTED_WORD.search(word) or "@" in token or "/" in token or word.strip("([{").lower() in abbreviations:
            return ""
        return " "

    return _GLUED_SENTENCE.sub(space, text)


def space_glued_sentences(document: Document) -> None:
    """:func:`space_sentences` on every text block and the abstract of a document of any format (the
    abbreviations of every language table are not sentence ends)."""
    abbreviations = frozenset().union(*(table.abbreviations for table in language_tables().values()))
    for block in document.blocks:
        if block.type in ("paragraph", "list", "caption", "footnote"):
            block.text = space_sentences(block.text, abbreviations)
    if document.abstract:
        document.abstract = space_sentences(document.abstract, abbreviations)


def unreadable_text(text: str) -> bool:
    """Most of a page's text is glyphs its fonts map to no character (a text layer some typesetters write
    with fonts that carry no Unicode: the page shows words, the layer holds U+FFFD for each). Only OCR can
    read such a page; a few unmapped symbols in readable text do not make it so."""
    visible = "".join(text.split())
    return len(visible) >= 200 and len(_UNMAPPED.findall(visible)) >= 0.5 * len(visible)


def vocabulary(texts: Iterable[str]) -> set[str]:
    """Lower-cased words, hyphenated compounds both whole and in parts."""
    words: set[str] = set()
    for text in texts:
        for word in _WORD.findall(text):
            lowered = word.lower()
            words.add(lowered)
            if "-" in lowered:
                words.update(lowered.split("-"))
    return words


def join_split_words(text: str, known: set[str]) -> str:
    """Join "extracel- lular" into "extracellular" when the paper's vocabulary ``known`` says so."""
    if "- " not in text:
        return text

    def join(match: re.Match[str]) -> str:
        head, tail = match.group(1), match.group(2)
        if tail.lower() in _CONJUNCTIONS:
            return match.group(0)
        whole = (head + tail).lower()
        if whole in known:
            return head + tail
        if f"{head}-{tail}".lower() in known:
            return f"{head}-{tail}"
        if head.lower() not in known and tail.lower() not in known:
            return head + tail  # two fragments that are no words of this paper: one word broken in two
        if whole in english_word_ranks():
            return head + tail
        return match.group(0)

    return _SPLIT_WORD.sub(join, text)


# a hyphen at a line end that line joining marked with a soft hyphen ("paired\u00adcatchments")
_MARKED_BREAK = re.compile(rf"([^\W\d_]+){SOFT_HYPHEN}([^\W\d_]+)")


def _compound_written(head: str, tail: str, known: set[str]) -> bool:
    """The paper writes ``head-tail`` with its hyphen elsewhere (a plural or singular of it counts:
    "paired-catchment" vouches for "paired-catchments") and never as one word; or, when the paper does
    not say, both halves are words and the two together are no word ("concentration-dependent",
    "brownish-red", while "con-firmed" and "hydro-carbons" are one word broken at a syllable)."""
    whole = (head + tail).lower()
    if whole in known or whole.rstrip("s") in known:
        return False
    hyphenated = f"{head}-{tail}".lower()
    if hyphenated in known or hyphenated.rstrip("s") in known or f"{hyphenated}s" in known:
        return True
    listed = english_word_ranks()
    if whole in listed or whole.rstrip("s") in listed:
        return False
    return _is_word(head, known, listed) and _is_word(tail, known, listed)


def _is_word(piece: str, known: set[str], listed: dict[str, int]) -> bool:
    lowered = piece.lower()
    if len(lowered) < 3 or lowered in _BOUND_PREFIXES:
        return False  # "co-", "re-", "hyper-": prefixes of one word
    return lowered in known or listed.get(lowered, _RARE) < _COMMON


# prefixes the word list also holds as words of their own ("hyper", "micro"), though they begin one word
_BOUND_PREFIXES = frozenset(
    "hyper hypo anti intra inter multi poly micro macro semi pseudo neo peri trans ultra mono iso para "
    "meta homo hetero photo electro immuno cyto hydro bio geo thermo".split()
)


def keep_compound_hyphens(texts: Sequence[str]) -> list[str]:
    """Texts whose line-end hyphens were marked by line joining: the hyphen is kept where the paper
    writes that compound with it elsewhere, else the soft hyphen stays and joins the word when the text
    is normalised (what a typesetter's hyphenation needs, "extracel-/lular")."""
    if not any(SOFT_HYPHEN in text for text in texts):
        return list(texts)
    # the marked words themselves are left out, or a compound broken at its hyphen would vouch for itself
    known = vocabulary(_MARKED_BREAK.sub(" ", text) for text in texts)

    def keep(match: re.Match[str]) -> str:
        head, tail = match.group(1), match.group(2)
        return f"{head}-{tail}" if _compound_written(head, tail, known) else match.group(0)

    return [_MARKED_BREAK.sub(keep, text) if SOFT_HYPHEN in text else text for text in texts]


def normalize_blocks(blocks: Sequence[Block]) -> dict[str, str]:
    """Normalise every block's text in place, join split words with the document's own vocabulary, read
    ligatures the font set as private-use glyphs, join ligatures set apart from their word, split words
    glued together that the paper writes apart elsewhere, and mark blocks whose text holds glyphs that
    stay unmapped. Returns the readings found for private-use glyphs (for the captions)."""
    for block, text in zip(blocks, keep_compound_hyphens([block.text for block in blocks])):
        block.text = normalize_text(text)
    readings = private_glyph_readings([block.text for block in blocks])
    if readings:
        table = str.maketrans(readings)
        for block in blocks:
            block.text = block.text.translate(table)
    # the vocabulary leaves out the split words themselves, or "extracel" would vouch for itself
    known = vocabulary(_SPLIT_WORD.sub(" ", block.text) for block in blocks)
    for block in blocks:
        block.text = join_split_words(block.text, known)
    repaired = repair_word_breaks([block.text for block in blocks])
    for block, text in zip(blocks, repaired):
        block.text = text
        block.unmapped_glyphs = has_unmapped_glyphs(block.text)
    return readings


# Ligatures a font draws from private-use code points (Adobe's "AdvOT...+e1" fonts: U+E103 for "fi"):
# which ligature each code point is, is read from the paper's words, the same for all its uses
_LIGATURE_READINGS = ("fi", "fl", "ff", "ffi", "ffl", "ft", "st", "Th")
_PRIVATE_IN_WORD = re.compile("[^\\W\\d_]*[\ue000-\uf8ff][^\\W\\d_\ue000-\uf8ff]*")


def private_glyph_readings(texts: Sequence[str]) -> dict[str, str]:
    """``{private-use character: ligature}`` for the private-use glyphs that read as one ligature in the
    words they stand in: the reading must make a word (of the paper, or of the English word list) of
    most of its uses, and of more uses than any other reading."""
    uses: dict[str, list[str]] = {}
    for text in texts:
        if not _UNMAPPED.search(text):
            continue
        for word in _PRIVATE_IN_WORD.findall(text):
            private_chars = [ch for ch in word if "\ue000" <= ch <= "\uf8ff"]
            if len(private_chars) == 1 and len(word) >= 3:
                uses.setdefault(private_chars[0], []).append(word)
    if not uses:
        return {}
    known = vocabulary(text for text in texts)
    listed = english_word_ranks()
    readings: dict[str, str] = {}
    for private, words in uses.items():
        scores: Counter[str] = Counter()
        for reading in _LIGATURE_READINGS:
            for word in words:
                candidate = word.replace(private, reading).lower()
                if candidate in known or listed.get(candidate, _RARE) < _COMMON:
                    scores[reading] += 1
        ranked = scores.most_common(2)
        if not ranked:
            continue
        best, hits = ranked[0]
        runner_up = ranked[1][1] if len(ranked) > 1 else 0
        if hits > runner_up and hits >= max(1, 0.6 * len(words)):
            readings[private] = best
    return readings


# A ligature set as its own glyph run and joined to its word by a space: "fi rst", "infl uenza",
# "benefi t", "N95 fi ltering"
_LIGATURE_APART = re.compile(r"\b([^\W\d_]*?(?:ffi|ffl|ff|fi|fl)) ([^\W\d_]+)")
_GLUED = re.compile(r"[^\W\d_]{7,}")


def repair_word_breaks(texts: Sequence[str]) -> list[str]:
    """Ligatures set apart from their word are joined, and words glued together are split, where the
    paper's own text decides: the whole word is one the paper writes (or an English word) and its pieces
    are not; the glued word is one the paper never writes alone while it writes the two words apart."""
    counts = Counter(word.lower() for text in texts for word in _WORD_ONLY.findall(text))
    listed = english_word_ranks()

    pieces_seen: set[str] = set()
    as_pieces: Counter[str] = Counter()  # how often each word occurs as a piece of a ligature set apart
    for text in texts:
        for match in _LIGATURE_APART.finditer(text):
            pieces_seen.update((match.group(1).lower(), match.group(2).lower()))
            as_pieces.update((match.group(1).lower(), match.group(2).lower()))
    stop_words = _stop_words()

    def alone(word: str) -> bool:
        """The paper writes the word on its own, not only as a piece of a ligature set apart."""
        return counts[word] > as_pieces[word] or word in stop_words

    def join(match: re.Match[str]) -> str:
        head, tail = match.group(1), match.group(2)
        whole = (head + tail).lower()
        if not (counts[whole] > 0 or listed.get(whole, _RARE) < _COMMON):
            # a word of another language the paper writes only broken ("bibliográfi ca", "científi co",
            # "defi nição"): the head ends in the ligature, and neither piece is a word of its own anywhere
            # in the paper, an English word or a function word of a tabled language
            lowered = head.lower()
            # ("fl uxo": the ligature alone is the head; "fl" the word list knows as Florida's)
            if (lowered.endswith(("fi", "fl")) and (lowered in _LIGATURE_LETTERS or lowered not in listed)
                    and not alone(lowered) and not alone(tail.lower()) and len(whole) >= 5):
                return head + tail
            return match.group(0)
        # "staff members", "of fish": two words stay two
        if _common_word(head, listed) or (_common_word(tail, listed) and tail.lower() not in pieces_seen):
            return match.group(0)
        return head + tail

    # ligatures first: the pieces of a word set apart ("bibliográfi ca") are no two words that vouch for
    # splitting the word they make
    joined = [_LIGATURE_APART.sub(join, text) if " " in text and ("f" in text or "F" in text) else text
              for text in texts]
    bigrams: Counter[tuple[str, str]] = Counter()
    for text in joined:
        words = [word.lower() for word in _WORD_ONLY.findall(text)]
        bigrams.update(zip(words, words[1:]))

    def split(match: re.Match[str]) -> str:
        word = match.group(0)
        lowered = word.lower()
        if lowered in listed:
            return word
        best = max(
            ((bigrams[(lowered[:cut], lowered[cut:])], cut) for cut in range(2, len(word) - 1)),
            default=(0, 0),
        )
        if best[0] == 0 or best[0] < counts[lowered]:
            return word
        return f"{word[: best[1]]} {word[best[1]:]}"

    return [_GLUED.sub(split, text) for text in joined]


_LIGATURE_LETTERS = frozenset({"fi", "fl", "ffi", "ffl"})


@functools.lru_cache(maxsize=1)
def _stop_words() -> frozenset[str]:
    """The function words of every tabled language ("ca" is none, "de" and "la" are)."""
    return frozenset().union(*(table.stop_words for table in language_tables().values()))


def _common_word(piece: str, listed: dict[str, int]) -> bool:
    lowered = piece.lower()
    return listed.get(lowered, _RARE) < (_SHORT_COMMON if len(lowered) <= 3 else _COMMON)


_SHORT_COMMON = 3_000
_WORD_ONLY = re.compile(r"[^\W\d_]+")


def join_across_break(head: str, tail: str, known: set[str]) -> str:
    """The word "head-" at the end of one block and "tail" at the start of the next: one word, or a
    hyphenated compound when the paper writes it so ("long-term")."""
    if f"{head}-{tail}".lower() in known and (head + tail).lower() not in known:
        return f"{head}-{tail}"
    return head + tail
