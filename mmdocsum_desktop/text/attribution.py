"""Whose finding a sentence reports: this paper's, or someone else's.

A summary's Results and Conclusion paragraphs say what *this* paper found. A sentence that reports other
work (a reference marker, "Smith et al. found", "previous studies showed"), a quotation from an interview
transcript, or a question is not such a finding, however well it reads; nor is a sentence from the
introduction. :func:`attribute` says which of these a sentence is, from its raw text as the document has it
(reference markers included: the extractor's cleaning removes them) and, when known, the role of the
section it sits in. The extractor (``summarize/extractive.py``, ``summarize/content_roles.py``) keeps
flagged sentences out of the Results and Conclusion paragraphs; ``answer/ask.py`` notes when an answer
rests on another study's sentence; ``benchmarks/bench_summary_rouge.py --sets`` counts the share of
flagged sentences a summary's Results and Conclusion still hold. It lives in text/ because both the
summaries and the answers use it (they may not import each other).

Cue lists cover en, pt, es, fr, de and it. A sentence that also says whose work it is ("we found",
"in this study", "nossos resultados") is this paper's unless it carries a reference marker: "Unlike
previous studies, we found…" is a finding of the paper, "consistent with Smith et al. [12]" is not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

KINDS = ("citation", "other study", "quotation", "question", "introduction")
# what may never stand in the Results or Conclusion paragraph as the paper's finding
NOT_A_FINDING = frozenset(KINDS)

# "Smith et al.", "Silva e col.", "García y cols.", "Dupont et coll.", "Müller u. a.", "Smith and colleagues"
_NAMED_AUTHORS = re.compile(
    r"\b[A-ZÀ-Ý][\w'’-]+(?:\s+[A-ZÀ-Ý][\w'’-]+)?\s+(?:et\s+al\b\.?|and\s+(?:colleagues|co-?workers)\b|"
    r"e\s+cols?\b\.?|e\s+colaboradores\b|y\s+cols?\b\.?|y\s+colaboradores\b|et\s+coll\b\.?|et\s+collaborateurs\b|"
    r"u\.\s?a\.|und\s+Kollegen\b|e\s+collaboratori\b)")
# "Smith (2005)", "Smith and Jones (2003)", "Silva e Souza, 2010", "(Smith 2005)"
_NOT_A_NAME = r"(?!(?:January|February|March|April|May|June|July|August|September|October|November|December|Table|Figure|Fig)\b)"
_AUTHOR_YEAR = re.compile(
    r"\b" + _NOT_A_NAME + r"[A-ZÀ-Ý][\w'’-]+(?:\s+(?:and|&|e|y|et|und|ed)\s+[A-ZÀ-Ý][\w'’-]+)?,?\s+\(?(?:19|20)\d\d[a-z]?\)|"
    r"\(" + _NOT_A_NAME + r"[A-ZÀ-Ý][\w'’-]+(?:\s+(?:and|&|e|y|et|und|ed)\s+[A-ZÀ-Ý][\w'’-]+)?,?\s+(?:19|20)\d\d[a-z]?[;,)]")

# other people's work named in words
_OTHER_STUDY = re.compile("|".join((
    # en
    r"\b(?:previous|prior|earlier|other|several|many|some|recent|past|published|existing|numerous)\s+"
    r"(?:studies|reports|works?|research|investigations|authors|investigators|researchers|trials|reviews|"
    r"surveys|experiments|analyses|findings)\b",
    r"\b(?:studies|reports|authors|investigators|researchers|trials)\s+(?:have\s+|has\s+)?(?:shown|showed|"
    r"demonstrated|reported|found|suggested|described|indicated|observed)\b",
    r"\b(?:has|have|had)\s+(?:previously\s+|already\s+|also\s+|recently\s+)?been\s+(?:shown|reported|demonstrated|"
    r"described|observed|proposed|suggested|documented|established|found)\b",
    r"\b(?:was|were)\s+(?:first\s+|previously\s+|originally\s+)?(?:described|reported|proposed|shown|observed|"
    r"introduced|developed)\s+by\b",
    r"\baccording\s+to\s+(?:the\s+)?(?:[A-Z]\w+|literature|previous|prior|earlier)\b",
    r"\b(?:in|from)\s+(?:a|the|their|his|her|another|one)\s+(?:previous|prior|earlier|recent|similar|large|"
    r"separate)\s+(?:study|report|work|trial|survey|analysis|review)\b",
    r"\bthe\s+literature\b", r"\bit\s+is\s+(?:well\s+|widely\s+|generally\s+)?known\s+that\b",
    # pt
    r"\b(?:estudos|trabalhos|pesquisas|autores|pesquisadores)\s+(?:anteriores|prévios|recentes|"
    r"realizados|publicados)\b",
    r"\b(?:outros|diversos|vários|alguns|muitos|inúmeros)\s+(?:autores|estudos|trabalhos|pesquisadores|"
    r"pesquisas)\b",
    r"\b(?:estudos|autores|pesquisas|trabalhos)\s+(?:têm\s+|tem\s+)?(?:mostrado|mostraram|demonstrado|"
    r"demonstraram|relatado|relataram|verificado|verificaram|apontado|apontam|indicam|sugerem)\b",
    r"\b(?:segundo|conforme|de\s+acordo\s+com)\s+(?:[A-ZÀ-Ý]\w+|os\s+autores|a\s+literatura|estudos)\b",
    r"\b(?:foi|foram|tem\s+sido|têm\s+sido)\s+(?:descrit|relatad|demonstrad|observad|reportad)\w*\s+"
    r"(?:anteriormente|previamente|por)\b",
    r"\b(?:a|na|pela)\s+literatura\b",
    # es
    r"\b(?:estudios|trabajos|investigaciones|autores|investigadores)\s+(?:previos|anteriores|recientes|"
    r"realizados|publicados)\b",
    r"\b(?:otros|diversos|varios|algunos|muchos|numerosos)\s+(?:autores|estudios|trabajos|investigadores)\b",
    r"\b(?:estudios|autores|investigaciones)\s+(?:han\s+)?(?:mostrado|demostrado|reportado|encontrado|"
    r"señalado|descrito|sugerido)\b",
    r"\b(?:según|de\s+acuerdo\s+con|conforme\s+a)\s+(?:[A-ZÀ-Ý]\w+|los\s+autores|la\s+literatura)\b",
    r"\b(?:ha|han)\s+sido\s+(?:descrit|report|demostrad|observad|publicad)\w*\b",
    r"\b(?:la|en\s+la)\s+literatura\b",
    # fr
    r"\b(?:études|travaux|recherches|auteurs|chercheurs)\s+(?:antérieur|précédent|récent)\w*\b",
    r"\b(?:d'autres|d’autres|plusieurs|certains|de\s+nombreux|nombreux)\s+(?:auteurs|études|travaux|chercheurs)\b",
    r"\b(?:a|ont)\s+été\s+(?:montré|démontré|rapporté|décrit|observé)e?s?\b",
    r"\b(?:selon|d'après|d’après)\s+(?:[A-ZÀ-Ý]\w+|les\s+auteurs|la\s+littérature)\b",
    r"\bla\s+littérature\b",
    # de
    r"\b(?:frühere|vorherige|bisherige|andere|mehrere|einige|zahlreiche|neuere)\s+(?:Studien|Untersuchungen|"
    r"Arbeiten|Autoren|Forscher)\b",
    r"\b(?:wurde|wurden|ist|sind)\s+(?:bereits|zuvor|früher|schon)\s+(?:\w+\s+)?(?:gezeigt|beschrieben|berichtet|"
    r"nachgewiesen)\b",
    r"\b(?:laut|gemäß)\s+[A-ZÄÖÜ]\w+\b", r"\bin\s+der\s+Literatur\b",
    # it
    r"\b(?:studi|lavori|ricerche|autori|ricercatori)\s+(?:precedenti|recenti|anteriori|pubblicati)\b",
    r"\b(?:altri|diversi|numerosi|alcuni|molti)\s+(?:autori|studi|lavori|ricercatori)\b",
    r"\b(?:è|sono)\s+stat[oie]\s+(?:dimostrat|riportat|descritt|osservat)\w*\b",
    r"\bsecondo\s+(?:[A-Z]\w+|gli\s+autori|la\s+letteratura)\b", r"\bin\s+letteratura\b",
)), re.I)
# "we found", "in this study", "nossos resultados", "nous avons", "unsere Ergebnisse": the paper's own voice
_OWN_WORK = re.compile("|".join((
    r"\b(?:we|our)\b", r"\b(?:this|the\s+present|the\s+current)\s+(?:study|work|paper|article|report|trial|"
    r"survey|analysis|review|research)\b", r"\bhere\b",
    r"\b(?:nosso|nossa|nossos|nossas|encontramos|observamos|verificamos|mostramos)\b",
    r"\b(?:n?este|o\s+presente|no\s+presente|d?esta|a\s+presente)\s+(?:estudo|trabalho|artigo|pesquisa|estudio|"
    r"trabajo|artículo|investigación)\b",
    r"\b(?:nuestro|nuestra|nuestros|nuestras|encontramos|observamos|hallamos)\b",
    r"\b(?:nous|notre|nos)\b", r"\b(?:cette|la\s+présente)\s+(?:étude|recherche|enquête)\b",
    r"\b(?:wir|unsere?[mnrs]?)\b", r"\b(?:diese|die\s+vorliegende|dieser|der\s+vorliegenden)\s+(?:Studie|Arbeit|"
    r"Untersuchung)\b",
    r"\b(?:noi|nostro|nostra|nostri|nostre|abbiamo)\b", r"\b(?:questo|il\s+presente)\s+(?:studio|lavoro)\b",
)), re.I)

# an interview transcript: "P. – Bien…", "E3: …", "Participant 4: …", "— Oui, …", a closing "(P12, nurse)"
_SPEAKER = re.compile(
    r"^\s*(?:[A-Z]{1,3}\s?\d{0,3}\s?[.:]?\s*[–—-]\s|[A-Z]{1,3}\s?\d{1,3}\s?[:.]\s|"
    r"(?:participant|interviewee|respondent|informant|entrevistad[oa]|participante|informante|enquêté|"
    r"interviewé|befragte[rn]?|intervistat[oa])\s*\w{0,4}\s*[:–—-]\s|[–—]\s)", re.I)
_SPEAKER_TAG = re.compile(
    r"\((?:P|E|I|R|M|F|participant|interviewee|respondent|entrevistad[oa]|participante|informante|enquêté|"
    r"interviewé|befragte[rn]?|intervistat[oa])\s?\d{1,3}\b[^)]{0,40}\)", re.I)
_OPEN_QUOTE = "\"“„«‘'‹"
_QUOTED = re.compile(r"[“„«‹\"]([^”»›\"]{3,})[”»›\"]")


@dataclass(frozen=True)
class Attribution:
    """Why a sentence is not this paper's own finding: ``kind`` (one of KINDS) and the words showing it."""

    kind: str
    evidence: str


def attribute(text: str, *, section_role: str | None = None) -> Attribution | None:
    """The reason ``text`` (a sentence as the document has it, reference markers included) is not this
    paper's own finding, or None when it reads as one. ``section_role``: the role of its section
    (``roles.block_roles``); "background"/"related" make it an introduction sentence."""
    text = " ".join(text.split())
    if not text:
        return None
    stripped = text.rstrip(" \"'”’»)]")
    if stripped.endswith("?") or text.lstrip(_OPEN_QUOTE).startswith("¿"):
        return Attribution("question", text[-40:])
    quote = _quotation(text)
    if quote is not None:
        return Attribution("quotation", quote)
    marker = _MARKER.search(text)
    if marker is not None:
        return Attribution("citation", marker.group(0).strip())
    named = _NAMED_AUTHORS.search(text) or _AUTHOR_YEAR.search(text)
    if named is not None:
        return Attribution("citation", named.group(0).strip(" (),;"))
    other = _OTHER_STUDY.search(text)
    if other is not None and _OWN_WORK.search(text) is None:
        return Attribution("other study", other.group(0))
    if section_role in ("background", "related"):
        return Attribution("introduction", section_role)
    return None


def reports_other_work(text: str) -> Attribution | None:
    """Only the kinds that name other people's work ("citation", "other study"): what an answer resting on
    the sentence has to say."""
    found = attribute(text)
    return found if found is not None and found.kind in ("citation", "other study") else None


def cited_authors(text: str) -> str | None:
    """"Scott et al." or "Smith and Jones (2003)": the work a sentence names, when it names one."""
    named = _NAMED_AUTHORS.search(text) or _AUTHOR_YEAR.search(text)
    return named.group(0).strip(" (),;") if named is not None else None


def _quotation(text: str) -> str | None:
    if _SPEAKER.match(text) or _SPEAKER_TAG.search(text):
        return text[:40]
    quoted = sum(len(m.group(1).split()) for m in _QUOTED.finditer(text))
    words = len(text.split())
    # a sentence most of which is inside quotation marks: someone's words, not the paper's
    if quoted >= 6 and quoted >= 0.5 * words:
        return text[:40]
    if text[:1] in _OPEN_QUOTE and words >= 6 and not any(c in text[1:] for c in "”»›\"'’"):
        return text[:40]  # an opening quotation mark whose end is in a later sentence
    return None


# reference markers as the document has them: "[12]", "[3-5]", "(Smith et al., 2005)", "(WHO 2019; Lee
# 2020)", "(3, 4)", a flattened superscript ("disease.12 The", "patients,3,4 and", "cells12,13 were")
_MONTH = (r"(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|"
          r"Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|janeiro|fevereiro|março|abril|maio|junho|julho|agosto|setembro|"
          r"outubro|novembro|dezembro|enero|febrero|marzo|mayo|junio|julio|septiembre|octubre|noviembre|"
          r"diciembre|janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre)")
_MARKER = re.compile(
    r"\[\s*\d{1,3}(?:\s*[-–—,;]\s*\d{1,3})*\s*\]|"
    r"\((?:see |e\.g\.,? |cf\.? |reviewed in |apud |ver |voir |vgl\. )?(?!" + _MONTH + r"\b)[A-ZÀ-Ý][\w'’-]+"
    r"[^()]{0,120}?,?\s(?:19|20)\d\d[a-z]?\s*[);,]|"
    r"(?<=[A-Za-z\]\)])\s*\(\s*\d{1,3}(?:\s*[-–—,]\s*\d{1,3})+\s*\)|"
    r"(?<!\bFig)(?<!\bfig)(?<!\bNo)(?<!\bno)(?<!\bEq)(?<!\bRef)(?<!\bVol)(?<=[a-z)\]])[.,;]\d{1,3}(?:[,–-]\d{1,3})*(?=\s+[A-Za-z(]|$)|"
    r"(?<=[a-z]{4})\d{1,3}(?:[,–-]\d{1,3})+(?=[\s.,;:])")
