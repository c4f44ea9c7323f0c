"""The language of a document and of each of its blocks, and which blocks are translations.

Every reader's document passes through :func:`mark_languages` (``reader.read_document``):

- each prose block, heading and caption gets ``Block.language`` where the detector can tell
  (``text.languages.detect_language``; Hangul, kana and Han decide short ones);
- the document's language is the one most of its body text is written in (letters counted), not the
  declared one when they disagree: SciELO files declare ``xml:lang="pt"`` over Spanish bodies, PDFs carry
  an English ``/Lang`` over Portuguese text. The declared language decides only where the text is too
  short to tell;
- blocks in another language are translations (``Block.is_translation``): an abstract printed again in
  English or Spanish under its own heading ("Abstract", "Resumen", "Keywords"), or any paragraph the
  detector is sure is in another language. They are kept for reading and search, and left out of
  summaries (``Block.is_body`` is False for them) and of the document's abstract.
"""

from __future__ import annotations

import re
from collections import Counter

from mmdocsum_desktop.document.sections import heading_roles, run_in_heading
from mmdocsum_desktop.schemas.document import Block, Document
from mmdocsum_desktop.text.languages import (
    MIN_CONFIDENCE,
    detect_language,
    language_table,
    language_tables,
    primary_subtag,
    script_language,
)

_TEXT_TYPES = frozenset({"paragraph", "list", "heading", "caption", "footnote"})
# A paragraph is called a translation on its own only when it is long enough and the detector sure.
TRANSLATION_MIN_LETTERS = 80
TRANSLATION_MIN_CONFIDENCE = 0.95
# Headings of a front-matter part that a journal prints once per language.
_PER_LANGUAGE_ROLES = frozenset({"abstract", "keywords"})


def guess_language(text: str) -> str | None:
    """The language of a text (ISO 639-1), or None when it is too short to tell."""
    script = script_language(text)
    guess = detect_language(text)
    if guess is None:
        return script
    return guess.code


# A question is short ("O que o artigo conclui?": 19 letters): the detector is asked from this many letters
QUESTION_MIN_LETTERS = 8


def question_language(question: str, document_language: str | None) -> str | None:
    """The language an answer to ``question`` is written in: the question's own when the detector can
    tell (a Portuguese question about an English paper is answered in Portuguese), else the document's."""
    guess = detect_language(question, min_letters=QUESTION_MIN_LETTERS)
    if guess is not None and guess.confidence >= MIN_CONFIDENCE:
        return guess.code
    return script_language(question) or document_language


def block_language(block: Block) -> tuple[str | None, float]:
    """The block's language and the detector's confidence (1.0 for a script-decided short text)."""
    guess = detect_language(block.text)
    if guess is not None:
        return guess.code, guess.confidence
    script = script_language(block.text)
    return (script, 1.0) if script else (None, 0.0)


def document_language(document: Document, languages: dict[str, tuple[str | None, float]]) -> str | None:
    """The language most of the body is written in (letters counted), else the declared one."""
    votes: Counter[str] = Counter()
    fallback: Counter[str] = Counter()
    for block in document.blocks:
        code, _confidence = languages.get(block.id, (None, 0.0))
        if code is None or block.type not in ("paragraph", "list"):
            continue
        fallback[code] += len(block.text)
        if block.section_kind in (None, "body") and not block.is_abstract:
            votes[code] += len(block.text)
    counted = votes if sum(votes.values()) >= 400 else votes + fallback
    declared = primary_subtag(document.language)
    if not counted:
        return declared
    language, letters = counted.most_common(1)[0]
    if declared and declared != language and counted[declared] >= 0.4 * letters:
        return declared  # a bilingual text that is about even: its declaration decides
    return language


def mark_languages(document: Document) -> None:
    """Set ``Block.language``, ``Document.language`` and ``Block.is_translation`` (see the module)."""
    languages = {
        block.id: block_language(block) if block.type in _TEXT_TYPES and not block.is_translation else (None, 0.0)
        for block in document.blocks
    }
    for block in document.blocks:
        code, _confidence = languages[block.id]
        block.language = block.language or code
    language = document_language(document, languages)
    document.language = language
    if language is None:
        return
    _mark_translations(document, languages, language)


def _heading_like(block: Block) -> bool:
    """A heading, or a short paragraph that is only a section name (a reader that missed its font)."""
    if block.type == "heading":
        return True
    return block.type == "paragraph" and len(block.text) <= 40 and heading_roles(block.text) is not None


def _mark_translations(document: Document, languages: dict[str, tuple[str | None, float]], language: str) -> None:
    in_foreign_part = False  # under an abstract or keywords heading of another language
    foreign_heading: Block | None = None  # that heading, marked once a block under it is found foreign
    # after a foreign abstract, blocks a PDF reader kept in it (it missed the next heading) are no abstract
    clearing_abstract = False
    changed_abstract = False
    for block in document.blocks:
        code, confidence = languages[block.id]
        if _heading_like(block):
            role = heading_roles(block.text)
            ended = in_foreign_part
            if role is not None and role.role in _PER_LANGUAGE_ROLES:
                in_foreign_part = language not in role.languages and code != language
            elif role is not None or block.section_kind in (None, "body"):
                in_foreign_part = False
            if ended and not in_foreign_part:
                clearing_abstract = not (role is not None and role.role == "abstract" and language in role.languages)
            foreign_heading = block if in_foreign_part else None
            if clearing_abstract and block.is_abstract and block.type == "paragraph":
                block.is_abstract, changed_abstract = False, True
            continue
        if block.is_translation or block.type == "caption":
            continue
        foreign = code is not None and code != language
        if in_foreign_part and code == language and block.type == "paragraph":
            in_foreign_part, clearing_abstract = False, True  # back in the document's language
        if clearing_abstract:
            if block.is_abstract and not foreign:
                block.is_abstract, changed_abstract = False, True
            elif not block.is_abstract:
                clearing_abstract = False
        run_in = run_in_heading(block.text) if block.type == "paragraph" else None
        if run_in is not None and run_in.role in _PER_LANGUAGE_ROLES:
            # "Abstract: …", "Keywords: …" printed as one paragraph: its label says its language
            foreign = language not in run_in.languages and (code != language or code is None)
        elif in_foreign_part:
            pass  # under "Abstract" in a Portuguese paper: whatever the detector says is not Portuguese
        elif foreign and (block.type not in ("paragraph", "list") or block.section_kind not in (None, "body", "front")):
            foreign = False  # references, notes and furniture in another language are not translations
        elif foreign:
            letters = sum(ch.isalpha() for ch in block.text)
            foreign = (
                letters >= TRANSLATION_MIN_LETTERS
                and confidence >= TRANSLATION_MIN_CONFIDENCE
                and _reads_as_prose_in(block.text, code)
            )
        if foreign:
            changed_abstract = changed_abstract or block.is_abstract
            _translate(block, role_languages=None)
            if foreign_heading is not None:
                role = heading_roles(foreign_heading.text)
                _translate(foreign_heading, role_languages=role.languages if role else None)
                foreign_heading = None
    if changed_abstract or (document.abstract and guess_language(document.abstract) not in (None, language)):
        own = [b.text for b in document.blocks if b.is_abstract and b.type not in ("heading", "caption")]
        document.abstract = "\n\n".join(own) or None


def _reads_as_prose_in(text: str, code: str | None) -> bool:
    """Whether the text is running prose of that tabled language, not a list of names ("An Yang, Baosong
    Yang, …" reads as Indonesian to a detector): its function words make a share of its words, or its
    script is the language's."""
    if code is None or code not in language_tables():
        return False
    stop = language_table(code).stop_words
    if not stop:
        return script_language(text) == code
    words = re.findall(r"[^\W\d_]+", text.lower())
    function_words = sum(word in stop for word in words)
    return function_words >= 3 and function_words >= 0.15 * len(words)


def _translate(block: Block, *, role_languages: frozenset[str] | None) -> None:
    block.is_translation = True
    block.is_abstract = False
    if block.language is None and role_languages and len(role_languages) == 1:
        block.language = next(iter(role_languages))
