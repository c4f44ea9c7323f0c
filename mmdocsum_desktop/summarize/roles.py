"""The parts of a paper a summary has — research background, method, results, conclusion — and which
section of a document serves which part.

- :func:`section_role`: the role a heading names ("Materials and methods" → method, "References" → skip),
  English cues first, the other tabled languages' section names after (``document.sections.summary_part``);
- :func:`block_roles`: the role of the section each block sits in (a subsection takes its part's role);
- :func:`block_serves`: the paragraphs of the summary each block's sentences may fill;
- :func:`absence_sentence`: what a paragraph says when no sentence of the paper can fill it.

The roles themselves and their titles are the summary's schema (``schemas.summary.ROLES``/``ROLE_TITLES``).
The cue lists were tuned on the dev half of pmc/ with the extractive summary.
"""

from __future__ import annotations

import re

from mmdocsum_desktop.document import sections
from mmdocsum_desktop.schemas.document import Document
from mmdocsum_desktop.schemas.summary import ROLES
from mmdocsum_desktop.text.reader_strings import reader_strings

_CASE_PART = re.compile(r"\b(case (presentation|reports?|description|history|details)|clinical (case|presentation)|"
                        r"relato d[eo] caso|caso cl[íi]nico|presentaci[óo]n del caso|descri[çc][ãa]o do caso|"
                        r"pr[ée]sentation (du|de) cas|cas clinique|fallbericht|fallvorstellung|kasuistik|"
                        r"presentazione del caso)\b", re.I)


def names_a_part(heading: str | None) -> bool:
    """Whether the heading is a part's name ("Introduction", "2. Métodos", "Results Taxonomy"), not a
    longer heading that happens to hold one ("HIRSCHKOP, Ken. The Cambridge Introduction to …", the book
    a review reviews)."""
    return _names_a_part(heading)


def names_a_case(heading: str | None) -> bool:
    """"Case presentation", "Relato de caso", "Cas clinique": a case report's case (its method part, which
    also holds the outcome a case report has instead of results)."""
    return bool(heading and _CASE_PART.search(heading))


_SECTION_ROLES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("skip", re.compile(
        r"\b(references?|bibliography|literature cited|acknowledge?ments?|appendix|appendices|"
        r"(authors'? )?contributions?|funding|financial (support|disclosure)|competing interests?|"
        r"conflicts? of interests?|ethic(s|al)|consent|data availability|availability of data|"
        r"supplementary|supporting information|declarations?|additional information|keywords|abbreviations|"
        r"disclosures?|trial registration|publisher'?s note|footnotes|notes|orcid|associated data|"
        r"author information|copyright|licen[cs]e)\b")),
    # "Statistical analysis", "Data analysis", "Study design" are methods, though "analysis" reads as results
    ("method", re.compile(r"\b(statistic(s|al)|data (analys[ie]s|collection)|sample (collection|preparation|size)|"
                          r"study (design|population)|experimental(?! results?\b)( (design|procedures?|section|details))?|materials and)\b")),
    ("results", re.compile(r"\bresults? and discussions?\b")),
    # a case report's case is what it did and saw: the method paragraph's matter, as structured abstracts
    # file it ("Case presentation" under Methods)
    ("method", _CASE_PART),
    ("conclusion", re.compile(
        r"\b(conclusions?|concluding|discussion|summary|future (work|directions)|limitations?|outlook|"
        r"closing remarks|implications)\b")),
    ("results", re.compile(
        r"\b(results?|experiments?|experimental results|evaluation|evaluations|analysis|analyses|"
        r"performance|findings|ablations?|comparisons?|case stud(y|ies)|validation|benchmarks?)\b")),
    ("method", re.compile(
        r"\b(methods?|methodology|approach|model|models|framework|architecture|materials|algorithms?|"
        r"formulation|theory|theoretical|proposed|design|implementation|setup|set-up|data|datasets?|"
        r"study (area|site|population)|procedure|system|technique|modell?ing|training|patients|participants|"
        r"statistic(s|al)|samples?|measurements?|protocol)\b")),
    ("background", re.compile(
        r"\b(abstract|introduction|backgrounds?|motivation|overview|problem statement)\b")),
    ("related", re.compile(
        r"\b(related work|literature|prior work|previous work|state of the art|preliminar(y|ies))\b")),
)


def absence_sentence(document: Document, role: str) -> str:
    """What a paragraph says when no sentence of the paper can fill it: the paper has no such section, or
    its section has no sentence that stands on its own (lists, tables, formulas, sentences cut short)."""
    present = {role_ for role_ in block_roles(document).values() if role_ is not None}
    if "related" in present:
        present.add("background")
    strings = reader_strings(document.language)  # in the paper's language, like every string around it
    if role in present:
        return strings.no_readable_sentence(role)
    return strings.no_section(role)


def section_role(heading: str | None) -> str | None:
    """'background', 'method', 'results', 'conclusion', 'skip' (references, acknowledgements...) or None."""
    if not heading:
        return None
    heading = " ".join(heading.split())  # "Results and\xa0discussion": one kind of space
    text = re.sub(r"^\s*(?:(?:\d+(?:\.\d+)*|[IVXivx]+|[A-Z])[.)]?\s+)?", "", heading).strip().lower()
    if not text or len(text) > 80:
        return None
    for role, pattern in _SECTION_ROLES:
        if pattern.search(text):
            return role
    # headings of the other tabled languages ("Métodos", "Resultados", "Discussão", "서론"): data, not code
    found = sections.summary_part(heading) or sections.summary_part(text)  # "1 Introdução" as "Introdução"
    if found is not None:
        return found
    # a part's name inside a longer heading of another language ("2 Aspectos metodológicos e éticos")
    for role, pattern in _OTHER_LANGUAGE_HEADINGS:
        if pattern.search(text):
            return role
    return None


# words that name a part inside a longer heading, in pt, es, fr, de and it (the English ones are above)
_OTHER_LANGUAGE_HEADINGS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("skip", re.compile(r"\b(referências|referencias|références|literaturverzeichnis|bibliografia|bibliographie|"
                        r"agradecimentos|agradecimientos|remerciements|danksagung|ringraziamenti)\b")),
    ("conclusion", re.compile(r"\b(conclus\w*|considera[çc][õo]es finais|consideraciones finales|discuss[ãa]o|"
                              r"discusi[óo]n|diskussion|discussione|schlussfolgerung\w*|fazit)\b")),
    ("results", re.compile(r"\b(resultad\w*|résultats?|ergebnisse?|risultat\w*)\b")),
    ("method", re.compile(r"\b(metodol\w*|m[ée]todos?|méthod\w*|methodik|methoden|metodi|materia(is|les|li) e?y? ?"
                          r"m[ée]tod\w*|procedimentos?|procedimientos?)\b")),
    ("background", re.compile(r"\b(introdu[çc][ãa]o|introducci[óo]n|einleitung|einführung|introduzione)\b")),
)


def block_roles(document: Document) -> dict[str, str | None]:
    """Block id → the role of the section it sits in. A paper's parts are opened by headings that name
    them ("Materials and methods", "3. Results", "DISCUSSION"); a subsection inside such a part takes the
    part's role whatever its own words ("Dorsal neurons as a model" in the Results is results, "Zero flow
    day analysis" in the Methods is method). Where no heading names a part, a heading whose words suggest
    a role ("Plant material", "Data analysis") gives it, and its subsections inherit it."""
    roles: dict[str, str | None] = {}
    part: str | None = None  # the role of the part the reading is in
    named = False  # the part was opened by a heading that names it
    capitals = False  # the last heading that opened a part was set in capitals ("INTRODUCTION")
    seen_heading = False
    local: str | None = None
    for block in document.blocks:
        if block.type == "heading" and _TABLE_HEADER.match(block.text or ""):
            pass  # "90 Sample*": a table's header row the reader took for a heading changes no section
        elif block.type == "heading":
            seen_heading = True
            own = section_role(block.text)
            if own in ("background", "skip") and sections.is_abstract_heading(block.text):
                # "Abstract", "Resumo": the abstract's own blocks are the abstract (Block.is_abstract); body
                # text the reader left under the heading (a paper with no other heading) is of no known part
                part, named, local = None, False, None
                roles[block.id] = None
                continue
            top_level = bool(_TOP_LEVEL_NUMBER.match(block.text or "")) or (capitals and _in_capitals(block.text))
            local = None  # the role of this heading's own blocks when it is not the part's
            if own == "skip" and named and part != "skip" and not _BACK_MATTER_PART.search(block.text or ""):
                local = "skip"  # "Ethical approval" inside the Methods: its blocks only
            elif own == "skip" or (own is not None and (_names_a_part(block.text) or top_level)):
                part, named, capitals = own, True, _in_capitals(block.text)
            elif top_level:
                # "3. Flow duration curves", "PLANT ANAEROBIOSIS" after "INTRODUCTION": a section of its
                # own at the level of the introduction, not one of its subsections
                part, named = None, False
            elif own is not None and not named:
                part = own
        if block.type == "heading" or seen_heading:
            # back matter stays back matter wherever the reader put it
            back = section_role(block.section) == "skip" and not (sections.is_abstract_heading(block.section)
                                                                   and not block.is_abstract)
            roles[block.id] = "skip" if local == "skip" or back else part
        else:
            own = None if _TABLE_HEADER.match(block.section or "") else section_role(block.section)
            roles[block.id] = own
    return roles


# the names of a paper's parts, as headings write them
_PART_NAME = re.compile(
    r"(abstract|introduction|backgrounds?|motivation|related work|literature review|"
    r"(materials?|patients|subjects|participants)( and |\s*&\s*)methods?|"
    r"methods?((\s*/\s*| and )(materials?|design|analysis|study design))?|(study )?design and methods?|methodology|"
    r"experimental( section| procedures?| methods?| design)?|results?( and discussions?)?|findings|"
    r"discussions?( and conclusions?)?|conclusions?( and (future work|outlook|perspectives?))?|concluding remarks|"
    r"summary|case (reports?|presentation|description)|evaluation|experiments?|limitations|future (work|directions))",
    re.I)


# back matter that ends the body ("References", "Acknowledgements"), unlike "Ethics approval" or
# "Consent" inside a Methods section
_BACK_MATTER_PART = re.compile(r"\b(references?|bibliography|literature cited|acknowledg\w*|funding|conflicts?|"
                               r"competing|contributions?|declarations?|supplementary|supporting|abbreviations|"
                               r"availability|disclosures?|appendix|appendices|footnotes|notes)\b", re.I)


def _names_a_part(heading: str | None) -> bool:
    text = re.sub(r"^\s*(?:(?:\d+(?:\.\d+)*|[IVXivx]+|[A-Z])[.)]?\s+)?", "", " ".join((heading or "").split())).strip(" .:")
    # the name alone, or glued to its first subsection's heading ("Results Taxonomy", "Materials and
    # methods Drugs and chemicals", "Methods: participants and outcomes")
    match = _PART_NAME.match(text)
    if match is not None and (match.end() == len(text) or re.match(r"\s*:|\s+[A-Z]", text[match.end():])):
        return True
    # a part's name in another tabled language ("Procedimentos Metodológicos", "Resultados e Discussão",
    # "Considerações finais") or a case report's case ("Caso clínico"): it opens a part as "Methods" does,
    # or a Portuguese paper's whole body stays in its introduction
    if match is not None and not text[match.end():match.end() + 1].isalpha():
        return False  # "Results of PCR": an English subsection's heading, as before
    return (sections.heading_roles(text) is not None or sections.summary_part(text) in ("method", "results", "conclusion")
            or bool(_CASE_PART.match(text)))


# a number no section has ("90 Sample*") or a table note's asterisk: a table header, not a heading
_TABLE_HEADER = re.compile(r"^\s*(?:[3-9]\d|\d{3,})\b(?!\.\d)|.*\*\s*$")


def _in_capitals(text: str | None) -> bool:
    letters = [c for c in text or "" if c.isalpha()]
    return len(letters) >= 4 and all(c.isupper() for c in letters)


# "3. Results", "IV. DISCUSSION": a top-level section's number (a subsection's is "3.2")
_TOP_LEVEL_NUMBER = re.compile(r"^\s*(?:\d{1,2}|[IVX]{1,5})\.?\s+[A-Z]")
# a section serving both the results and the conclusion paragraphs: "Results and discussion"
_RESULTS_AND_DISCUSSION = re.compile(
    r"\b(results?|findings|resultados?|résultats?|ergebnisse|risultati)\b.*\b(discussions?|conclusions?|discussão|"
    r"discusión|diskussion|discussione|conclus(ões|iones|ioni))\b|"
    r"\b(discussions?|conclusions?|discussão|discusión|diskussion|discussione)\b.*\b(results?|findings|resultados?|"
    r"résultats?|ergebnisse|risultati)\b", re.I)
# the paragraphs each section role may fill: related work is background too
_SERVES = {"background": frozenset({"background"}), "related": frozenset({"background"}),
           "method": frozenset({"method"}), "results": frozenset({"results"}),
           "conclusion": frozenset({"conclusion"})}
ANY_ROLE = frozenset(ROLES)


def block_serves(document: Document) -> dict[str, frozenset[str]]:
    """Block id → the summary paragraphs its sentences may fill: those of its section's role
    (:func:`block_roles`), both results and conclusion for a "Results and discussion" section, and any
    paragraph for text under no heading of known role (the scores decide there)."""
    roles = block_roles(document)
    combined = False
    serves: dict[str, frozenset[str]] = {}
    for block in document.blocks:
        if block.type == "heading" and section_role(block.text) is not None and (
                _names_a_part(block.text) or _TOP_LEVEL_NUMBER.match(block.text or "") or not combined):
            # a subsection of "Results and discussion" whose words suggest a role ("A novel sequencing
            # method") is still part of it: its discussion may fill the conclusion (eLife 00569 had none)
            combined = bool(_RESULTS_AND_DISCUSSION.search(block.text or ""))
        role = roles.get(block.id)
        if role is None:
            serves[block.id] = ANY_ROLE
        elif role == "results" and (combined or _RESULTS_AND_DISCUSSION.search(block.section or "")):
            serves[block.id] = frozenset({"results", "conclusion"})
        else:
            serves[block.id] = _SERVES.get(role, frozenset())
    return serves
