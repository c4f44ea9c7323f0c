"""Roles by what the text does, where no heading names them.

Reviews, guidelines, commentaries, case reports, book reviews and short reports rarely use IMRaD headings:
a review's body sits under "Epidemiology", "Treatment", "Applications" after its "Introduction", a
Portuguese essay under its own topics. ``roles.block_roles`` then files the whole body under the
introduction, and the summary had no sentence for its method and results paragraphs ("The paper has no
methods section…"). Here the paragraphs no section serves get sentences by what they say:

- background: what the paper sets out to do and why (aim statements, the problem), early in the paper;
- method: how it went about it (a search strategy, "this review covers…", the data and tools, the case
  presented, how recommendations were made);
- results: what it found or its main points (findings with numbers, "we found", recommendations);
- conclusion: what it concludes ("In conclusion", "we recommend", the closing paragraphs).

Only sentences that are the paper's own may fill results and conclusion (``text.attribution``): no reference
markers, no "previous studies showed", no interview quotation, no question, nothing from the introduction.
A placeholder remains only where even this finds nothing (an erratum, a one-paragraph notice).

The cue lexicons cover en, pt, es, fr, de and it; :data:`ROLE_CUES_OTHER_LANGUAGES` (the non-English
half) also adds to the extractor's role scores, whose own cue lists are English.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from mmdocsum_desktop.document.sections import is_abstract_heading
from mmdocsum_desktop.schemas.document import Document
from mmdocsum_desktop.summarize.roles import names_a_case, section_role
from mmdocsum_desktop.summarize.sentences import Sentence

# what each role's sentences say, in the five other languages (the English cues are the extractor's)
ROLE_CUES_OTHER_LANGUAGES: dict[str, re.Pattern[str]] = {
    "background": re.compile("|".join((
        r"\b(?:objetivo|objetivos|propósito|finalidade|problema|lacuna|desafio|relevância|importância)\b",
        r"\b(?:objectif|but|problématique|enjeu|lacune)\b", r"\b(?:Ziel|Fragestellung|Problem|Lücke)\b",
        r"\b(?:obiettivo|scopo|problema|lacuna)\b",
        r"\b(?:tem|teve|tiene|tuvo) (?:como|por) (?:objetivo|finalidade|propósito)\b",
        r"\b(?:pouco|poco) (?:se sabe|conhecido|conocido)\b", r"\bpeu (?:connu|étudié)\b",
    )), re.I),
    "method": re.compile("|".join((
        r"\b(?:foi|foram|fue|fueron) (?:realizad|utilizad|aplicad|coletad|analisad|entrevistad|selecionad|"
        r"incluíd|recolectad|analizad|seleccionad|incluid)\w*\b",
        r"\b(?:metodologia|metodología|método|métodos|amostra|muestra|questionário|cuestionario|entrevistas?|"
        r"levantamento|coleta de dados|recolección|revisão|revisión|busca|búsqueda|base de dados|bases de datos|"
        r"critérios de inclusão|criterios de inclusión|abordagem|enfoque|estudo (?:transversal|descritivo|"
        r"qualitativo|quantitativo|de caso)|estudio (?:transversal|descriptivo|cualitativo|cuantitativo))\b",
        r"\b(?:méthode|méthodologie|échantillon|enquête|entretiens?|corpus|questionnaire|a été (?:réalisée?|menée?))\b",
        r"\b(?:Methode|Methodik|Stichprobe|Befragung|Interviews?|Fragebogen|wurde(?:n)? (?:durchgeführt|erhoben|"
        r"analysiert))\b",
        r"\b(?:metodo|metodologia|campione|questionario|interviste|(?:è|sono) stat[oie] (?:condott|effettuat|"
        r"analizzat|raccolt)\w*)\b",
    )), re.I),
    "results": re.compile("|".join((
        r"\b(?:resultados? (?:mostr|indic|revel|evidenci|demonstr)\w*|observou-se|verificou-se|constatou-se|"
        r"encontrou-se|identificou-se|se observó|se encontró|se identificó|significativ\w*|aumento|redução|"
        r"reducción|maior|menor|mayor|diferença|diferencia|associação|asociación)\b",
        r"\b(?:résultats? (?:montr|indiqu|révèl)\w*|on observe|significati\w*|augmentation|diminution|plus élevé)\b",
        r"\b(?:Ergebnisse (?:zeig|deut)\w*|signifikant\w*|Anstieg|Rückgang|höher|niedriger)\b",
        r"\b(?:risultati (?:mostr|indic|evidenzi)\w*|significativ\w*|aumento|riduzione|maggiore|minore)\b",
    )), re.I),
    "conclusion": re.compile("|".join((
        r"\b(?:conclui-se|concluímos|em conclusão|em suma|em síntese|por fim|portanto|recomenda-se|sugere-se|"
        r"concluye|concluimos|en conclusión|en resumen|en síntesis|se recomienda|implicações|implicaciones)\b",
        r"\b(?:en conclusion|pour conclure|en somme|nous concluons|il convient de|implications)\b",
        r"\b(?:zusammenfassend|abschließend|Schlussfolgerung|wir schließen|empfehlen|Implikationen)\b",
        r"\b(?:in conclusione|concludendo|in sintesi|si raccomanda|implicazioni)\b",
    )), re.I),
}

# English content cues the extractor's lists lack: how a review, guideline or case report goes about it
_METHOD_CONTENT = re.compile(
    r"\b(?:we (?:searched|reviewed|review|discuss|describe|summari[sz]e|outline|examine|highlight|consider|"
    r"focus|report)|this (?:review|article|paper|chapter|guideline|commentary|report) (?:summari[sz]es|"
    r"discusses|describes|reviews|covers|focuses|outlines|examines|presents|provides|highlights)|"
    r"(?:pubmed|medline|embase|scopus|web of science|cochrane|google scholar)\b|search (?:strategy|terms)|"
    r"inclusion criteria|(?:systematic|literature|narrative) (?:search|review)|"
    r"(?:the )?(?:panel|committee|working group|task force|expert group)\b|consensus|delphi|grade\b|"
    r"(?:a|an) \d{1,3}-year-old|presented (?:to|with|at)|was admitted|on (?:physical )?examination|"
    r"(?:was|were) (?:diagnosed|treated|referred|performed|prescribed))", re.I)
_RESULTS_CONTENT = re.compile(
    r"\b(?:we (?:recommend|suggest|found|find|observed|show|showed|identified)|is recommended|are recommended|"
    r"should (?:be|not)|recommendations?|key (?:points?|findings?|messages?)|the (?:main|key|major) "
    r"(?:findings?|points?|results?)|(?:was|were) (?:associated|found|observed|detected|reduced|increased|"
    r"improved|resolved)|(?:improv|recover|resolv)\w*|showed|revealed|demonstrated|confirmed|disclosed|"
    r"follow-up|recall|uneventful|discharged|no (?:recurrence|complications?|signs?))\b", re.I)
_CONCLUSION_CONTENT = re.compile(
    r"\b(?:in (?:conclusion|summary|sum)|to (?:conclude|sum up|summari[sz]e)|overall|taken together|"
    r"we (?:conclude|recommend|propose|believe)|future (?:research|studies|work)|further (?:research|studies)|"
    r"(?:should|must) be (?:considered|further)|implications?)\b", re.I)
# an aim or the problem: what the paper sets out to do
_BACKGROUND_CONTENT = re.compile(
    r"\b(?:the (?:aim|objective|purpose|goal)s? of (?:this|the present|our)|(?:this|the present|our) (?:study|"
    r"review|paper|article|work|report) (?:aims?|aimed|seeks?|sought)|we aim(?:ed)?|little is known|"
    r"remains? (?:unclear|unknown|poorly))\b", re.I)

CONTENT_CUES: dict[str, tuple[re.Pattern[str], ...]] = {
    "background": (_BACKGROUND_CONTENT, ROLE_CUES_OTHER_LANGUAGES["background"]),
    "method": (_METHOD_CONTENT, ROLE_CUES_OTHER_LANGUAGES["method"]),
    "results": (_RESULTS_CONTENT, ROLE_CUES_OTHER_LANGUAGES["results"]),
    "conclusion": (_CONCLUSION_CONTENT, ROLE_CUES_OTHER_LANGUAGES["conclusion"]),
}
# what may not fill a paragraph as the paper's own: an interview quotation or a question fills no paragraph
# but the background; other people's work and the introduction never fill the results or the conclusion
BLOCKED_BY: dict[str, frozenset[str]] = {
    "quotation": frozenset({"method", "results", "conclusion"}),
    "question": frozenset({"method", "results", "conclusion"}),
    "citation": frozenset({"results", "conclusion"}),
    "other study": frozenset({"results", "conclusion"}),
    "introduction": frozenset({"results", "conclusion"}),
}


# the parts whose unnamed subsections may hold a missing role's sentences
_ABSORBING: dict[str, tuple[str | None, ...]] = {
    "background": (None, "background", "related"),
    "method": (None, "background", "related"),
    "results": (None, "background", "related"),
    "conclusion": (None, "background", "related", "results"),
}
# what a protocol says it will do: never a finding
_FUTURE = re.compile(r"\b(?:will|shall|ser[áa]|ser[ãa]o|serán|sera|seront|wird|werden|sar[àa]|saranno)\b", re.I)


class PoolItem(Protocol):
    """What this module needs of an extractor candidate (``extractive.Candidate``)."""

    @property
    def serves(self) -> frozenset[str]: ...

    @property
    def attribution(self) -> str | None: ...

    @property
    def section_role(self) -> str | None: ...

    @property
    def sentence(self) -> Sentence: ...


def content_cue(role: str, text: str) -> bool:
    """Whether ``text`` says what a sentence of ``role`` says (any of the six languages)."""
    return any(pattern.search(text) for pattern in CONTENT_CUES[role])


def other_language_cues(role: str, text: str) -> int:
    """How many non-English cue words of ``role`` the text has (added to the extractor's English cues)."""
    return len(ROLE_CUES_OTHER_LANGUAGES[role].findall(text))


def widen_by_content(pool: Sequence[PoolItem], document: Document, roles: Sequence[str]) -> list[frozenset[str]]:
    """Each candidate's paragraphs once the roles no section serves are filled from the content.

    A role some candidate's section already serves is left alone (headings that name a part are the
    paper's own word). For a missing role, in tiers, the first that finds any sentence wins:
    1. sentences under a heading that names no role (a review's "Treatment") that say what the role says;
    2. any sentence under such a heading (results: the paper's main points; conclusion: from the last
       third of the paper; background: from the first third; method: any);
    3. sentences anywhere that say what the role says (a case report's outcome inside its case, the
       approach stated at the end of the introduction), outside the introduction for results/conclusion.
    Blocked kinds (``BLOCKED_BY``) are never added."""
    serves = [frozenset(c.serves) for c in pool]
    missing = [role for role in roles if not any(role in s for s in serves)]
    if not missing or not pool:
        return serves
    n = len(pool)
    body_rank = {i: k / max(n - 1, 1) for k, i in enumerate(range(n))}
    # the role the sentence's own heading names ("Abstract" over body text the reader left there: none)
    own_heading = [None if c.sentence.in_abstract or is_abstract_heading(c.sentence.section)
                   else section_role(c.sentence.section) for c in pool]
    case_report = any(b.type == "heading" and names_a_case(b.text) for b in document.blocks)
    for role in missing:
        allowed = [i for i, c in enumerate(pool)
                   if own_heading[i] != "skip" and role not in BLOCKED_BY.get(c.attribution or "", frozenset())]
        # under a heading that names no role, in a part no heading names or that the introduction absorbed
        # (a review's "Treatment" after its "Introduction"), not a subsection of a named method ("2.5
        # Intervention" of a protocol, which has no results to report)
        free = [i for i in allowed if own_heading[i] is None and pool[i].section_role in _ABSORBING.get(role, ())]
        cued = [i for i in allowed if content_cue(role, pool[i].sentence.text)
                and (role != "conclusion" or body_rank[i] >= 0.5)  # a conclusion is not said in the methods
                and not (role in ("results", "conclusion") and _FUTURE.search(pool[i].sentence.text))
                # a method part's sentences are not findings, but for a case report's case (its outcome)
                and not (role == "results" and pool[i].section_role == "method" and not case_report)]
        if role == "conclusion":
            placed = [i for i in free if body_rank[i] >= 2 / 3]
        elif role == "background":
            placed = [i for i in free if body_rank[i] <= 1 / 3]
        else:
            placed = free
        tiers = ([i for i in free if i in set(cued)], placed, cued)
        chosen = next((tier for tier in tiers if tier), [])
        for i in chosen:
            serves[i] = serves[i] | {role}
    return serves
