"""Citation keys, unique within the library.

A Zotero item's own key comes first: Better BibTeX's (its ``better-bibtex.sqlite`` in the Zotero data
folder, read by :mod:`library.zotero` read-only), else a ``Citation Key: …`` line in the item's Extra
field (what Better BibTeX writes there when a key is pinned, and what people type by hand). Every other
paper gets Better BibTeX's default shape, first author's family name, year, first word of the title that
is not an article or a preposition (``smith2020malaria``, ``debock2019imprecise``). Two papers whose keys
would be the same are told apart as Better BibTeX does: the later paper (by its id in the library) gets
``a``, the next ``b``… after the key (``smith2020malariaa``); a key Zotero gave is never changed for a
generated one. A paper with neither authors, year nor title is ``paper{id}``.
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import product

_STOP = {"a", "an", "the", "of", "on", "in", "and", "for", "to", "with", "from", "by", "at"}
# "Citation Key: smith2020" in Zotero's Extra field; "bibtex: smith2020" is Better BibTeX's older spelling
_EXTRA_KEY = re.compile(r"^\s*(?:citation\s*key|bibtex)\s*:\s*(\S+)\s*$", re.IGNORECASE | re.MULTILINE)
_VALID_KEY = re.compile(r"[^\s,{}%#\"'()=\\~]{1,200}")


@dataclass(frozen=True)
class KeyEntry:
    """What a paper's key is made of."""

    paper_id: int
    family_name: str  # the first author's family name ("" when unknown)
    year: int | None
    title: str
    given: str | None = None  # the key Zotero gave (Better BibTeX, the Extra field)


def ascii_word(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower())


def extra_citation_key(extra: str) -> str | None:
    """The key of a ``Citation Key: …`` (or ``bibtex: …``) line of a Zotero item's Extra field."""
    match = _EXTRA_KEY.search(extra or "")
    return clean_key(match.group(1)) if match else None


def clean_key(key: str | None) -> str | None:
    """A key as given, when it is one a BibTeX file could hold (no spaces, braces, commas or quotes)."""
    key = (key or "").strip()
    return key if _VALID_KEY.fullmatch(key) else None


def generated_key(family_name: str, year: int | None, title: str) -> str:
    """``smith2020malaria``: family name, year, first word of the title that is no article or preposition;
    "" when that makes fewer than four characters."""
    words = [w for w in (ascii_word(w) for w in title.split()) if w and w not in _STOP]
    key = f"{ascii_word(family_name)}{year or ''}{words[0] if words else ''}"
    return key if len(key) >= 4 else ""


_SUFFIXES = ["".join(letters) for length in (1, 2) for letters in product(string.ascii_lowercase, repeat=length)]


def _suffix(index: int) -> str:
    """a … z, aa … zz, then the number (a library with 700 papers of one key is no library of papers)."""
    return _SUFFIXES[index] if index < len(_SUFFIXES) else str(index)


def unique_keys(entries: Iterable[KeyEntry]) -> dict[int, str]:
    """Paper id → its key, no two alike (case folded, as BibTeX compares them): Zotero's keys first, as
    given; the generated ones by paper id, a later paper taking ``a``, ``b``… after a key already taken."""
    ordered = sorted(entries, key=lambda e: e.paper_id)
    keys: dict[int, str] = {}
    taken: set[str] = set()
    tried: dict[str, int] = {}  # base → the suffixes already tried for it (each tried once)
    for entry in ordered:
        if entry.given and entry.given.lower() not in taken:
            keys[entry.paper_id] = entry.given
            taken.add(entry.given.lower())
    for entry in ordered:
        if entry.paper_id in keys:
            continue
        base = entry.given or generated_key(entry.family_name, entry.year, entry.title) or f"paper{entry.paper_id}"
        key = base
        while key.lower() in taken:
            index = tried.get(base.lower(), 0)
            tried[base.lower()] = index + 1
            key = base + _suffix(index)
        keys[entry.paper_id] = key
        taken.add(key.lower())
    return keys
