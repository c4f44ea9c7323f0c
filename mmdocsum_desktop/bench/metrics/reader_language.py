"""English a reader of a non-English paper should not see: the app's own strings around the paper's words.

A rendered summary of a Portuguese paper holds the paper's sentences and captions (Portuguese, whatever
they quote) and the app's strings: headings, link text, page markers, notes. :func:`english_strings_in`
removes the paper's own text from the rendered page and looks for the English reader strings
(``resources/reader/en.toml``: every heading, label word before a number, note and placeholder, each
template cut at its ``{fields}``) that are not also the document language's own ("Conclusion" and
"Figure" are French too). Pure: text in, phrases out.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable
from functools import cache
from typing import Any

from mmdocsum_desktop.text.reader_strings import ReaderStrings, reader_strings

_ESCAPE = re.compile(r"\\([\\`*_\[\]<>#|!])")
_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)


def _fragments(strings: ReaderStrings) -> set[str]:
    """The fixed pieces of every template of one language: "{labels}, cited here, has no image." gives
    ", cited here, has no image."; pieces without a word of three letters are dropped (".", " · ")."""
    pieces: set[str] = set()
    templates = [*strings.headings.values(), *strings.sentences.values(), *strings.no_figures.values(),
                 *(strings.words[k] for k in ("summary_of", "warning", "image", "summary", "engine"))]
    for template in templates:
        for literal, *_ in string.Formatter().parse(template):
            literal = " ".join(literal.split()).strip(" ,.:;()")
            if re.search(r"[^\W\d_]{3}", literal):
                pieces.add(literal)
    return pieces


@cache
def _english_phrases(language: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The English phrases to look for in a summary of a paper in ``language``, and the English label
    words that must not stand before a number there."""
    english, own = reader_strings("en"), reader_strings(language)
    phrases = _fragments(english) - _fragments(own)
    words = tuple(sorted({english.labels[k] for k in english.labels if english.labels[k] != own.labels.get(k)}
                         | ({english.words["image"]} - {own.words["image"]})))
    return tuple(sorted(phrases, key=len, reverse=True)), words


def strip_own_text(rendered: str, own_texts: Iterable[str]) -> str:
    """The rendered page without the paper's own words (its title, sentences, captions, the file name)
    and without YAML front matter, Markdown escapes undone and spaces folded, so that only the app's
    strings are left."""
    # YAML front matter is properties for tools (Obsidian's "title", "tags", "engine"), not prose
    rendered = _FRONT_MATTER.sub("", rendered)
    page = " ".join(_ESCAPE.sub(r"\1", rendered).split())
    for text in sorted({" ".join(t.split()) for t in own_texts if t and t.strip()}, key=len, reverse=True):
        page = page.replace(text, " ")
    return page


def english_strings_in(rendered: str, own_texts: Iterable[str], language: str | None) -> list[str]:
    """The English reader strings left in a summary of a paper in ``language`` once its own words are
    removed: phrases of the English reader strings, and English label words before a number ("Table 2"
    where a Portuguese reader should see "Tabela 2"). Empty for an English paper."""
    if reader_strings(language).code == "en":
        return []
    rest = strip_own_text(rendered, own_texts)
    phrases, label_words = _english_phrases(reader_strings(language).code)
    found = [phrase for phrase in phrases if re.search(rf"(?<![^\W_]){re.escape(phrase)}(?![^\W_])", rest)]
    if label_words:
        pattern = re.compile(rf"\b(?:{'|'.join(map(re.escape, label_words))})\s+S?\d+[a-zA-Z]?\b")
        found += sorted(set(pattern.findall(rest)))
    return found


def summary_own_texts(summary: Any) -> list[str]:  # noqa: ANN401
    """The paper's words in a summary (a ``schemas.summary.Summary``, not imported: metrics stay clear of
    the schemas' file helpers), and the names a summary shows as they are: its title, the file name,
    every sentence and caption, the engine's and the model's names."""
    texts = [summary.title or "", summary.source.replace("\\", "/").rsplit("/", 1)[-1], summary.engine.engine or "",
             str(summary.engine.model or "")]
    for paragraph in summary.paragraphs:
        texts += [paragraph.text, paragraph.image_caption, *(s.text for s in paragraph.sentences)]
        if paragraph.figure is not None:
            texts.append(paragraph.figure.caption)
    return texts + [entry.caption for entry in summary.figures]
