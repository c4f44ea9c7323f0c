"""The extractor: four paragraphs made only of the document's own sentences, so every claim is the
paper's own. Always available: it needs the MiniLM text embedder and no language model. It is the
extractive summary strategy's text (``strategies/extractive.py``) and the grounded writer's evidence
(``evidence.py``).

1. Candidates come only from body prose: never the abstract (when left out), back matter, references,
   captions, table text, footnotes, journal furniture, author and affiliation lines, equations, or
   sentences whose glyphs the PDF could not decode. Blocks ingestion marked (``Block.section_kind``,
   ``Block.unmapped_glyphs``) are left out, and so is what looks like them anyway (a PDF reader that did
   not mark a "Competing interests" line still leaves its words).
2. Each candidate is cleaned (:func:`clean_sentence`): ligatures and soft hyphens normalised, reference
   markers ("[3]", "(Smith et al., 2005)", a superscript "disease.12 The") removed with their brackets,
   and the spacing around them repaired.
3. A sentence that leans on the one before it never stands alone: a leading connective ("However,",
   "Consequently,") is dropped, and a sentence that opens with a pronoun ("This", "These", "It") is
   taken together with its predecessor, or not at all.
4. Each candidate gets a score for each role — research background, method, results, conclusion —
   from the section it sits in (a subsection takes its parent section's role), its position, cue phrases
   ("we propose", "results show", "in conclusion") and its embedding similarity to a description of the
   role; a sentence goes to the paragraph whose role suits it best.
5. Each candidate also gets a salience: how much it reads like the paper's abstract, a linear model
   fitted by ``tools/fit_salience.py`` (weights in ``salience_weights.json``, with their provenance) over
   what the sentence is (the paper's recurring words and its title's
   words, "here we" / "we show" cues, reference markers, length) and where it sits (the end of the
   introduction, the first sentence of a section or paragraph, the opening of the paper).
6. Per role, Maximal Marginal Relevance over the embeddings picks salient, central, role-typical
   sentences that repeat neither each other nor the other paragraphs, until the paragraph holds its
   target length (short: an abstract spends about 200 words in all, least of them on the method).
7. Sentences keep their document order inside a paragraph. Figures are chosen afterwards, among those
   the chosen sentences' passages cite (summarize/evidence.py).
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np

from mmdocsum_desktop.document.injection import is_injection
from mmdocsum_desktop.document.labels import parse_caption_start
from mmdocsum_desktop.document.normalize import (
    has_unmapped_glyphs,
    join_split_words,
    normalize_text,
    vocabulary,
)
from mmdocsum_desktop.document.sections import (
    PROSE_TYPES,
    is_abstract_heading,
    is_body_prose,
    is_references_heading,
)
from mmdocsum_desktop.jobs import JobControl, ensure_control
from mmdocsum_desktop.schemas.document import Block, Document
from mmdocsum_desktop.schemas.summary import ROLE_TITLES, ROLES
from mmdocsum_desktop.summarize.content_roles import BLOCKED_BY, other_language_cues, widen_by_content
from mmdocsum_desktop.summarize.roles import (
    ANY_ROLE,
    absence_sentence,
    block_roles,
    block_serves,
    names_a_part,
    section_role,
)
from mmdocsum_desktop.summarize.sentences import Embedder, Sentence, document_sentences
from mmdocsum_desktop.text.attribution import attribute
from mmdocsum_desktop.text.sentences import split_sentences
from mmdocsum_desktop.text.tokens import salience_words

MIN_WORDS, TARGET_WORDS, MAX_WORDS = 60, 90, 120
# Words each role aims at in a paragraph a writer writes: an abstract spends least on the method. The
# grounded writer writes paragraphs of this length and the extractor gives it a multiple of it as evidence.
ROLE_TARGETS = {"background": 60, "method": 50, "results": 70, "conclusion": 55}
# The extractive summary's own paragraphs: chosen on the dev halves of pmc/ and eLife by
# tools/fit_role_lengths.py (issue 45), read from the data file beside this module with its provenance
# (ROLE_TARGETS before).
ROLE_LENGTHS_FILE = Path(__file__).with_name("role_lengths.json")


def parse_role_targets(data: object, origin: str = "role lengths") -> dict[str, int]:
    """The ``role_targets`` object of a role-lengths file, checked: a whole number of words from 10 to 300
    for each of the four roles. ValueError naming the first problem."""
    targets = data.get("role_targets") if isinstance(data, dict) else None
    if not isinstance(targets, dict) or set(targets) != set(ROLES):
        raise ValueError(f"{origin}: expected a 'role_targets' object with {', '.join(ROLES)}")
    for role, value in targets.items():
        if isinstance(value, bool) or not isinstance(value, int) or not 10 <= value <= 300:
            raise ValueError(f"{origin}: the target of {role!r} is not a whole number of words from 10 to 300: {value!r}")
    return {role: int(targets[role]) for role in ROLES}


SUMMARY_ROLE_TARGETS = parse_role_targets(json.loads(ROLE_LENGTHS_FILE.read_text(encoding="utf-8")),
                                          ROLE_LENGTHS_FILE.name)
# The extractive summary's own paragraphs: at the targets, each stopped at the length nearest its target
# (NEAREST_LENGTH); 0.85 of them when each paragraph ran one sentence past its target (dev half of pmc/).
SUMMARY_LENGTH = 1.0
# How much less relevant (a share of a paragraph's range of relevance) a sentence whose passage cites a
# figure may be than the sentence it replaces, in a paragraph that would otherwise show no figure. On the
# dev half of pmc/ swapping whenever there is such a sentence (1.0) kept ROUGE-1 (0.486 -> 0.487) and
# illustrated more paragraphs (1.57 -> 1.60 a paper) than a margin of 0.25.
FIGURE_SWAP_MARGIN = 1.0
# The summary's own paragraphs stop at the length nearest their target, not at the first sentence past it:
# eLife's long sentences overshot every paragraph by most of a sentence (272 words against 146-word
# abstracts). With SUMMARY_LENGTH 1.0, on the dev halves (issue 35): pmc ROUGE-1 0.488 -> 0.489, eLife
# 0.395 -> 0.409 (0.85 without it; 0.85 with it gave eLife 0.419 but pmc 0.480). Chosen leaving a source
# out: the best on pmc alone, and better than before on the left-out eLife.
NEAREST_LENGTH = True

# How a sentence's relevance to its paragraph is made up (tuned on the dev half of pmc/ for ROUGE against
# the abstract with the abstract left out).
# Closeness to the whole paper and to its title matter more than how typical of its role a sentence is.
RELEVANCE_WEIGHTS = {"fit": 0.2, "centrality": 0.45, "title": 0.3, "quality": 0.15, "contribution": 0.3,
                     "numbers": 0.1, "salience": 0.6, "figures": 0.1}


_CUES: dict[str, re.Pattern[str]] = {
    "background": re.compile(
        r"\b(has been|have been|is (a|an|one of)|are (widely|often|commonly)|important|challeng\w*|"
        r"little is known|remains? (unclear|unknown|open|poorly)|previous (work|studies)|recent(ly)?|"
        r"problem|widely|understood|motivat\w*|need for|gap|leading cause|burden|prevalen\w*)\b", re.I),
    "method": re.compile(
        r"\b(we (propose|present|introduce|develop|developed|use|used|apply|applied|design|designed|train|"
        r"trained|adopt|employ|model|define|derive|compute|estimate|conducted|performed|collected|analy[sz]ed|"
        r"enrolled|recruited|investigated|examined)|our (approach|method|model|framework)|"
        r"(was|were) (used|applied|computed|estimated|calculated|collected|measured|derived|fitted|"
        r"performed|conducted|enrolled|recruited|included|analy[sz]ed)|method|approach|algorithm|procedure|"
        r"framework|architecture|dataset|data set|cohort|randomi[sz]ed|cross-sectional|retrospective|"
        r"prospective)\b", re.I),
    "results": re.compile(
        r"\b(results? (show|showed|indicate|indicated|demonstrate|suggest|revealed)|we (find|found|observe|"
        r"observed|obtain|obtained|show|showed)|outperform\w*|improv\w*|increase[ds]?|decrease[ds]?|reduc\w*|"
        r"significant\w*|accura\w*|higher|lower|better|worse|compared|achiev\w*|associated with|"
        r"odds ratio|hazard|p ?[<=]|95 ?% ?ci)\b|%", re.I),
    "conclusion": re.compile(
        r"\b(in (conclusion|summary)|we conclude|to conclude|overall|this (study|paper|work) "
        r"(shows|showed|demonstrates|has shown|presents?|suggests?|provides?)|our (results|findings|data|study) "
        r"(suggest|show|indicate|demonstrate|support|provide)|implications?|future (work|research|studies)|"
        r"we (have )?(shown|demonstrated|presented)|suggests?|recommend\w*|conclude|should be)\b", re.I),
}
# What a paper says of its own contribution ("Here we show", "In this study, we"): what abstracts say.
_CONTRIBUTION = re.compile(
    r"\b(here,? we|in (this|the present|our) (study|paper|work|article|report|research|investigation)|"
    r"(this|the present|our) (study|paper|work|article|report|research) (aims?|aimed|investigat\w*|examin\w*|"
    r"evaluat\w*|assess\w*|describ\w*|report\w*|present\w*|shows?|demonstrat\w*|provid\w*)|"
    r"the (aim|objective|purpose|goal) of (this|the present|our)|we (aimed|sought|hypothesi[sz]ed))\b", re.I)

_PROTOTYPES = {
    "background": "The research problem, why it matters, what is already known from previous work, and the gap this study addresses.",
    "method": "The proposed method, model, data and experimental procedure used in this study, and how it works.",
    "results": "The main experimental results and measurements, with numbers, comparisons and what the figures and tables show.",
    "conclusion": "The conclusions of the study, their implications, limitations and directions for future work.",
}
# (centre, width) of the position prior over the body, and over an abstract
_BODY_PRIOR = {"background": (0.03, 0.18), "method": (0.35, 0.2), "results": (0.65, 0.2), "conclusion": (0.97, 0.12)}
_ABSTRACT_PRIOR = {"background": (0.0, 0.3), "method": (0.35, 0.25), "results": (0.65, 0.25), "conclusion": (1.0, 0.25)}

# ------------------------------------------------------------------------------ what is not body prose

_JUNK = re.compile(
    r"(https?://|www\.|\bdoi\b|@|©|\bcopyright\b|all rights reserved|corresponding author|\be-?mail\b|"
    r"\breceived\b.*\baccepted\b|\bkeywords?\b|\bissn\b|elsevier|springer|licen[cs]e[ds]? under|"
    r"\bet al\.\s*\(\d{4}\)\.?$|\bpreprint\b|\barxiv\b)",
    re.I,
)
# Back matter that a PDF reader left among the prose: disclosures, funding, contributions, consent, data.
_BACK_MATTER = re.compile(
    r"\b(competing (financial )?interests?|conflicts? of interests?|(the )?authors? (declare|declared|have declared|"
    r"report|state|disclose)|funding|funded by|financial(ly)? support|grant (no|number|agreement)|"
    r"author(s'|'s)? contributions?|writing\s*[—–-]\s*(original|review)|conceptuali[sz]ation|data curation|"
    r"formal analysis:|patient consent|consent (for|to) publication|ethics (committee|approval)|ethical approval|"
    r"institutional review board|approved by the|data (availability|sharing)|(are|is) available (from|upon|on) "
    r"(the )?(corresponding|reasonable|request)|supporting information|supplementary (material|data|information|"
    r"table|figure|file)|additional file|to cite|open access|creative commons|distributed under|this (is an|article "
    r"is)|acknowledg\w*|we (thank|are grateful|gratefully)|the funders?|correspondence|publisher'?s note|"
    r"reprints? and permissions|orcid|peer review|(funded|financed) by|financially supported|supported (in part |"
    r"partly |financially )?by (a |the )?(grants?|national|foundation|ministry|council|society|fund\w*|program\w*|"
    r"agency|institute)|(this|the|our) (study|work|research|project|trial) (is|was) (partly |partially |financially )?"
    r"supported by|"
    r"written (informed )?consent|will be (published|disseminated)|(trial|study) (is|was) registered|"
    r"clinicaltrials|nct\d{8}|preparation of the manuscript|(wrote|drafted|revised|edited) the (manuscript|paper|"
    r"article)|read and approved|critical(ly)? revis\w*|responsibility for the submission)\b|^the authors\b|"
    r"^[A-Z]{2,4}(, [A-Z]{2,4})*:\s",
    re.I,
)
_REFERENCE_LIKE = re.compile(
    r"(\b(thesis|proceedings|proc\.|journal|vol\.|pp\.|university of|press|eds?\.)\b.*\b(19|20)\d\d\b|"
    r"\b(19|20)\d\d\b.*\b(thesis|proceedings|proc\.|journal|vol\.|pp\.|press)\b|"
    r"^\(?\d+[).]\s|\bthanks?\b|\bgrateful\b|\backnowledge|\b(masters?|phd|doctoral) thesis\b|"
    r"\btechnical report\b|\bpp?\. \d+|\bin press\b|\b(19|20)\d\d\s*;\s*\d+|\d+\s*\(\d+\)\s*:\s*\d+)", re.I)
# what only a reference entry has: "2019;12:345", "12(3):45-67", "J. Biol. Chem."
_STRONG_REFERENCE = re.compile(r"\b(19|20)\d\d\s*;\s*\d+|\b\d+\s*\(\d+\)\s*:\s*\d+|\bdoi\s*:|\b(19|20)\d\d,\s*\d+,\s*\d+[-–]\d+")
# "Park DJ, Dudas G, Wohl S" — a reference list's author names
_AUTHOR_LIST = re.compile(r"(?:\b[A-Z][a-zA-Z'’-]+,? (?:[A-Z]{1,3}|[A-Z]\.(?: ?[A-Z]\.)*)(?:,|;| and| &)\s+){2,}")
# "Toschi, V.; Lettino, M." — the same in the "Surname, I." style
_AUTHOR_INITIALS = re.compile(r"\b[A-Z][\w'’-]+,\s(?:[A-Z]\.\s?-?){1,3}")
_AFFILIATION = re.compile(r"\b(department of|university|institute|hospital|school of|college of|faculty of|"
                          r"laborator(y|ies) of|centre for|center for)\b", re.I)
_PANEL_TEXT = re.compile(r"^\([a-h]\)\s|\b(solid|dashed|dotted)\s+(lines?|curves?)\b|(\([a-h]\).*){2,}", re.I)
# a figure legend's or a table's notes: "M, extracellular messenger; PLC, phospholipase C", "Note: Data are …"
_LEGEND = re.compile(
    r"^(notes?|abbreviations?|legend|key|source|data are|values are|results are (presented|expressed|shown)|"
    r"error bars|scale bars?|bars? (represent|indicate|show)|\*+ ?p ?[<=]|[a-z]?\*|†|‡)\b|"
    r"(?:^|;\s*)[A-Za-z0-9α-ωΑ-Ω+/-]{1,12},\s+[a-z][^;,.]{2,60};.*;"
    r"|\b(mean|median) ?± ?(sd|se|sem)\b|\bn \(%\)|\(iqr\)|\bor n \(%\)"
    r"|\b(asterisks?|arrows?|arrowheads?|dashed|dotted|solid|open|filled) (lines? |circles? |symbols? |bars? )?"
    r"(indicates?|shows?|denotes?|represents?|marks?)\b|[.;]\s\([a-h]\)\s",
    re.I,
)
# a protocol's recipe: concentrations and volumes, not a finding
_UNIT = re.compile(r"\b\d+(\.\d+)?\s?(mm|µm|μm|nm|mg|µg|μg|ng|ml|µl|μl|mmol|µmol|μmol|g/l|mg/ml|rpm|°c|x g|× g|h|min|s)\b", re.I)
_FIGURE_MENTION = re.compile(r"\b(fig(ure)?s?\.?)\s*\d", re.I)
_FIGURE_OR_TABLE = re.compile(r"\b(fig(ure)?s?\.?|tables?)\s*S?\d", re.I)
_CITATION = re.compile(r"\[\d+(?:[,–-]\s*\d+)*\]|\([A-Z][A-Za-z-]+(?: et al\.)?,? \d{4}[a-z]?\)")
_NUMBER = re.compile(r"\d")

# ------------------------------------------------------------------------- cleaning reference markers

_NUMERIC_BRACKETS = re.compile(r"\s*\[\s*\d{1,3}(?:\s*[-–—,;]\s*\d{1,3})*\s*\]")
_NUMERIC_PARENS = re.compile(r"(?<=[A-Za-z\]\)])\s*\(\s*\d{1,3}(?:\s*[-–—,]\s*\d{1,3})+\s*\)|(?<=[a-z])\s*\(\s*\d{1,2}\s*\)(?=[\s.,;])")
_AUTHOR_YEAR = re.compile(
    r"\s*[(\[](?=[^()\[\]]{0,240}\b(?:19|20)\d\d[a-z]?\s*[)\]])(?:see |e\.g\.,? |cf\.? |reviewed in )?"
    r"[A-Z][^()\[\]]{0,230}?\b(?:19|20)\d\d[a-z]?(?:\s*[;,]\s*(?:[A-Z][^()\[\]]{0,120}?)?(?:19|20)\d\d[a-z]?)*\s*[)\]]")
# "disease.12 The", "patients.3,4 We": a superscript reference number the text layer flattened
_SUPERSCRIPT_AFTER_STOP = re.compile(r"(?<=[a-z)\]])([.,;])(\d{1,3}(?:[,–-]\d{1,3})*)(?=\s+[A-Z(]|$)")
# "compounds,2 but": a superscript after a comma, the sentence going on in lower case
_SUPERSCRIPT_AFTER_COMMA = re.compile(r"(?<=[a-z]{3}),(\d{1,3}(?:[,–-]\d{1,3})*)(?=\s+[a-z])")
_SUPERSCRIPT_ON_WORD = re.compile(r"(?<=[a-z]{4})(\d{1,3}(?:[,–-]\d{1,3})+)(?=[\s.,;:])")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([.,;:!?)\]])")
_EMPTY_BRACKETS = re.compile(r"\(\s*[,;]?\s*\)|\[\s*[,;]?\s*\]")
_DOUBLE_STOP = re.compile(r"(?<!\.)\.\.(?!\.)")

# ------------------------------------------------------------------------- sentences leaning backwards

_CONNECTIVE = re.compile(
    r"^(however|therefore|thus|hence|moreover|furthermore|in addition|additionally|also|similarly|likewise|"
    r"in contrast|by contrast|conversely|on the other hand|consequently|as a result|accordingly|finally|then|"
    r"nevertheless|nonetheless|besides|notably|interestingly|importantly|indeed|in particular|specifically|"
    r"alternatively|instead|meanwhile|subsequently|in this (regard|context|respect|case)|to this end|"
    r"for this reason|in turn|still|yet|otherwise|on the contrary|as expected|surprisingly|in fact|"
    r"taken together|altogether|second(ly)?|third(ly)?|first(ly)?|lastly)\b,?\s*", re.I)
_PRONOUN_OPENER = re.compile(
    r"^(this|these|those|that|it|they|its|their|such|both|the latter|the former|he|she|them|which|"
    r"the (same|above|aforementioned|following)|these (two|three)|similar)\b", re.I)
# pointers to the paper itself and impersonal "it", not to a missing sentence
_SELF_CONTAINED = re.compile(
    r"^(this|these|the present|our) (study|studies|paper|work|article|manuscript|review|report|research|trial|"
    r"survey|investigation|analysis|meta-analysis|experiment|project)\b|"
    r"^it (is|was|has been|remains|seems|appears|should be|must be|can be|could be|may be|would be) "
    r"(\w+ ){0,3}(to|that|whether|how|why)\b", re.I)


@dataclass
class DraftParagraph:
    role: str
    sentences: list[Sentence] = field(default_factory=list)
    # the one honest sentence of a paragraph no sentence of the paper can fill ("The paper has no
    # section describing its method."): said, never filled with another part's sentences
    absent: str | None = None

    @property
    def text(self) -> str:
        return " ".join(s.text for s in self.sentences) if self.sentences else (self.absent or "")

    @property
    def words(self) -> int:
        return sum(s.words for s in self.sentences)


@dataclass
class ExtractiveResult:
    paragraphs: list[DraftParagraph]
    sentence_count: int
    warnings: list[str] = field(default_factory=list)


# A run-in heading the PDF reader glued to its paragraph: "Conclusion The results show…",
# "Essential oil scavenging activity on DPPH radical The essential oil…"
# The heading is a phrase without a verb of its own; the sentence opens with a word that is capitalised only
# where a sentence begins (a determiner, quantifier, pronoun, preposition or subordinator: closed classes,
# so no name or term: "Vitamin A is…" keeps its "A").
_RUN_IN_HEADING = re.compile(
    r"^(?:\d+(?:\.\d+)*\.?\s+)?[A-Z][^.!?:;,]{2,90}?[a-z0-9)]\s+"
    r"(?=(?:The|This|These|Those|In|On|At|Of|From|With|By|As|We|Our|They|Their|It|Its|To|For|Using|All|Each|"
    r"Every|After|Before|Here|Although|Though|Whereas|Since|If|Unlike|More|Most|Many|Several|Some|Few|Half|"
    r"Nearly|Almost|Approximately|Only|Among|Between|Within|Across|Over|Both|Overall|When|While|Where|There|"
    r"Because|During|Following|Despite|Compared|According|Based|Given)\s)")
# what a heading does not hold: a verb of its own or a pronoun ("We used the One…" is a sentence), or a last
# word that a phrase cannot end on ("Prevalence of Some…")
_NOT_A_HEADING = re.compile(
    r"\b(is|are|was|were|be|been|has|have|had|do|does|did|can|could|may|might|will|would|should|must|we|our|"
    r"they|it|he|she|i)\b|\b(of|and|or|the|a|an|in|on|at|to|for|with|by|from|as|than|that)\s*$", re.I)


# A structured abstract's label or a run-in heading set into the sentence: "Background: …", "Case
# presentation: …", "Método: …", "Abstract—We …", "Index Terms—…". A reader of a summary sees the
# paragraph's own title instead; the label goes.
_RUN_IN_LABEL = re.compile(
    r"^(?:[^\W\d_][\w'’/&-]*(?:\s+[\w'’/&()-]+){0,3}\s*[:：]|(?:abstract|summary|index terms|keywords)\s*[—–]\s*)\s*"
    r"(?=[\"“(]?[^\W_])", re.I)
_NOT_A_LABEL = re.compile(r"^((e\.?g|i\.?e|ratio|p|n|vs?)\s*[:：]|(the|a|an|this|these|our|we|in|for)\s)", re.I)
# the abstract set as a run-in paragraph ("Abstract—We propose…", "ABSTRACT: …"): not body text
ABSTRACT_RUN_IN = re.compile(r"^\s*(abstract|summary)\s*[—–:.-]\s*\S", re.I)


def strip_run_in_label(text: str) -> str:
    """"Background: Influenza is…" → "Influenza is…"; text without such a label is returned as is."""
    match = _RUN_IN_LABEL.match(text)
    if not match or _NOT_A_LABEL.match(text) or not text[:1].isupper():
        return text
    rest = text[match.end():]
    if len(rest.split()) < 4:
        return text
    return rest[:1].upper() + rest[1:]


def clean_sentence(text: str) -> str:
    """The sentence as a reader should see it: normalised characters, a run-in heading or an abstract's
    label cut off, reference markers removed with their brackets, spacing and punctuation around them
    repaired."""
    text = normalize_text(" ".join(text.split()))
    text = strip_run_in_label(text)
    heading = _RUN_IN_HEADING.match(text)
    if (heading and len(heading.group(0).split()) <= 12 and not _NOT_A_HEADING.search(heading.group(0).strip())
            and len(text[heading.end():].split()) >= 4):
        text = text[heading.end():]
    text = _NUMERIC_BRACKETS.sub("", text)
    text = _AUTHOR_YEAR.sub("", text)
    text = _NUMERIC_PARENS.sub("", text)
    text = _SUPERSCRIPT_AFTER_STOP.sub(r"\1", text)
    text = _SUPERSCRIPT_AFTER_COMMA.sub(",", text)
    text = _SUPERSCRIPT_ON_WORD.sub("", text)
    text = _EMPTY_BRACKETS.sub("", text)
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", text)
    text = _DOUBLE_STOP.sub(".", text)
    text = re.sub(r"([,;])\s*([,;.])", r"\2", text)
    text = re.sub(r"\(\s+", "(", text)
    return " ".join(text.split()).strip()


def _comparable(text: str) -> str:
    return " ".join(re.findall(r"[^\W_]+", normalize_text(text).lower()))


def reference_markers(text: str) -> int:
    """How many reference markers ("[3]", "(Smith et al., 2005)", a flattened superscript) the raw text has."""
    return (len(_NUMERIC_BRACKETS.findall(text)) + len(_AUTHOR_YEAR.findall(text)) + len(_NUMERIC_PARENS.findall(text))
            + len(_SUPERSCRIPT_AFTER_STOP.findall(text)) + len(_SUPERSCRIPT_AFTER_COMMA.findall(text))
            + len(_SUPERSCRIPT_ON_WORD.findall(text)))


def opener(text: str) -> str | None:
    """"connective" (a leading "However," that can be dropped), "pronoun" (the sentence needs the one
    before it) or None (it stands on its own)."""
    if _SELF_CONTAINED.match(text):
        return None
    if _CONNECTIVE.match(text):
        return "connective"
    if _PRONOUN_OPENER.match(text) or _INNER_CONNECTIVE.match(text):
        return "pronoun"
    return None


# "Here we, however, use…", "The model, therefore, fails…": a connective set after the first words leans
# on the sentence before as much as one that opens the sentence, and cannot simply be dropped
_INNER_CONNECTIVE = re.compile(r"^[^,.;:]{1,40}?,\s*(however|therefore|thus|hence|nevertheless|nonetheless|"
                               r"in contrast|by contrast|moreover|furthermore|consequently|instead)\s*,", re.I)


def drop_connective(text: str) -> str:
    """"However, the flow fell." → "The flow fell."; text without a leading connective is returned as is."""
    match = _CONNECTIVE.match(text)
    if not match:
        return text
    rest = text[match.end():].lstrip(" ,")
    quote = rest[:1] if rest[:1] in "\"'‘“" else ""  # "Otherwise, ‘Vana Tulsi’ clustered…"
    if len(rest.split()) < 4 or not rest[len(quote):len(quote) + 1].isalpha():
        return text
    rest = quote + rest[len(quote)].upper() + rest[len(quote) + 1:]
    return rest if opener(rest) is None else text


def junk_reason(text: str) -> str | None:
    """Why a sentence is not body prose (back matter, reference entry, legend, table row, affiliation,
    equation, recipe, broken glyphs...), or None when it reads as prose."""
    if has_unmapped_glyphs(text):
        return "undecodable glyphs"
    if is_injection(text):  # the reader took these out; a document.json from elsewhere may still hold them
        return "addressed to a language model"
    if _starts_a_caption(text):
        return "caption"
    if _BACK_MATTER.search(text):
        return "back matter"
    if _JUNK.search(text):
        return "front matter or furniture"
    if _REFERENCE_LIKE.search(text) or _AUTHOR_LIST.search(text) or len(_AUTHOR_INITIALS.findall(text)) >= 2:
        return "reference entry"
    if _LEGEND.search(text):
        return "legend or table note"
    if _PANEL_TEXT.search(text):
        return "figure panel text"
    if _AFFILIATION.search(text) and (text.count(",") >= 3 or re.search(r"\b\d{4,6}\b", text)):
        return "affiliation"
    if text.count("=") >= 2 or text.count("±") >= 3:
        return "equation or table row"
    if len(_UNIT.findall(text)) >= 4:
        return "recipe"
    return None


def _starts_a_caption(text: str) -> bool:
    """"Figure 3: …", "Table 2. …": a label set off as a caption's (the reader's caption rules), not
    prose that cites one ("Figure 3 shows …")."""
    start = parse_caption_start(text)
    return start is not None and start.strong


def usable(sentence: Sentence) -> bool:
    """Whole prose sentences only: no fragments, front or back matter, URLs, equations or table rows."""
    text = sentence.text
    words = sentence.words
    if words < 7 or words > 60:
        return False
    if not (text[0].isupper() or text[0] in "\"'“(["):
        return False
    if text[-1] not in ".!?\"'”)":
        return False
    letters = sum(c.isalpha() for c in text)
    if letters < 0.65 * len(text.replace(" ", "")):
        return False
    if max(len(w) for w in text.split()) > 28:  # words run together: a broken text layer
        return False
    if text.count("(") > text.count(")") or text.count("[") > text.count("]"):
        return False  # cut inside a bracket: "Durum wheat (Triticum turgidum ssp. durum (Desf.)"
    return junk_reason(text) is None


def body_blocks(document: Document, *, include_abstract: bool) -> set[str]:
    """Ids of the blocks summaries may quote: body prose of a body section, in the reading order before the
    reference list (a Methods section after it, Nature style, still counts), without undecodable glyphs."""
    allowed: set[str] = set()
    after_references = False
    # Before the first heading of the body ("Introduction", "Methods"…) a PDF has its title, authors,
    # affiliations and abstract: not the body, even where the reader did not mark them.
    started = not any(b.type == "heading" and section_role(b.text) in ("background", "method", "results", "related")
                      and not _ABSTRACT_HEADING.match(b.text or "") and names_a_part(b.text) for b in document.blocks)
    body_start = _body_start(document)
    title = " ".join((document.title or "").split()).lower()
    for index, block in enumerate(document.blocks):
        if block.type == "heading" and is_references_heading(block.text or ""):
            after_references = True
        if (block.type == "heading" and index >= body_start and not _ABSTRACT_HEADING.match(block.text or "")
                and section_role(block.text) in ("background", "method", "results", "related", "conclusion")):
            started = True
        if block.type not in PROSE_TYPES:
            continue
        if block.is_abstract:
            if include_abstract and not _unmapped(block):
                allowed.add(block.id)
            continue
        if not include_abstract and (not started or index < body_start or _structured_abstract_block(block, index, document)
                                     or _opens_with_title(block.text, title)):
            continue  # the abstract the reader did not mark: before the body, labelled, or glued to the title
        if not is_body_prose(block) or _unmapped(block) or (block.ocr and len(block.text) < 40):
            continue
        if _back_matter_block(block.text):
            continue
        role = section_role(block.section)
        if role == "skip" and not (is_abstract_heading(block.section) and _ABSTRACT_HEADING.match(block.section or "") is None):
            continue  # back matter; body text a paper with no other heading left under its "Resumo" stays
        if after_references and role not in ("method", "results"):
            continue
        allowed.add(block.id)
    return allowed


# a reference list that the reader left inside a body paragraph: "References 1. De Martino L, …"
_INLINE_REFERENCES = re.compile(r"\b(references|bibliography|literature cited)\s*:?\s*(\[1\]|1\.(\s+[A-Z]|\s*$))", re.I)
_ABSTRACT_HEADING = re.compile(r"^\s*(abstract|summary|author summary)\s*$", re.I)
# "Objective(s): …", "Methods: …": a structured abstract's paragraph the reader did not mark as abstract
_STRUCTURED_ABSTRACT = re.compile(
    r"^(objectives?(\(s\))?|aims?|purpose|background|introduction|methods?|materials and methods|design|setting|"
    r"results?|findings|conclusions?(\(s\))?|significance|interpretation)\s*:\s", re.I)


def _body_start(document: Document) -> int:
    """Index of the block where the body begins when the abstract's own subheadings ("Background",
    "Methods", "Results", "Conclusions") came out as headings: the heading of a background section that
    follows, early in the paper, a conclusion heading ("Conclusions" of the abstract, then "Introduction").
    0 when there is no such restart."""
    headings = [(i, section_role(b.text)) for i, b in enumerate(document.blocks) if b.type == "heading"]
    early = max(8, int(0.4 * len(document.blocks)))
    seen_conclusion = False
    for i, role in headings:
        if i > early:
            break
        if role == "conclusion":
            seen_conclusion = True
        elif role in ("background", "related") and seen_conclusion and not _ABSTRACT_HEADING.match(document.blocks[i].text):
            return i
    return 0


def _opens_with_title(text: str, title: str) -> bool:
    return len(title) >= 20 and " ".join(text[: len(title) + 40].split()).lower().startswith(title[:60])


def _structured_abstract_block(block: Block, index: int, document: Document) -> bool:
    """A labelled paragraph ("Objective(s): …") in the first fifth of the paper, before the body's headings."""
    return index < max(8, len(document.blocks) // 5) and bool(_STRUCTURED_ABSTRACT.match(block.text))


def _back_matter_block(text: str) -> bool:
    """A block any sentence of which is back matter or a reference entry is left out whole: a funding
    paragraph's second sentence ("The funders had no role…") is back matter too."""
    head = text[:300]  # the opening of the block: a long methods paragraph that mentions consent stays
    return bool(_BACK_MATTER.search(head) or _AUTHOR_LIST.search(head) or len(_AUTHOR_INITIALS.findall(head)) >= 2
                or _STRONG_REFERENCE.search(head))


def _unmapped(block: Block) -> bool:
    return bool(getattr(block, "unmapped_glyphs", False)) or has_unmapped_glyphs(block.text)


@dataclass(frozen=True)
class Candidate:
    """A sentence (or a sentence with the one it leans on) that may go into a summary."""

    sentence: Sentence  # cleaned text; position of its first sentence
    covers: tuple[int, ...]  # positions of the document sentences it is made of
    section_role: str | None
    cited: int = 0  # reference markers the raw sentences carried: a sentence about others' work
    opens_paragraph: bool = False  # its first sentence opens its block (a topic sentence)
    closes_paragraph: bool = False  # its last sentence closes its block (a paragraph's conclusion)
    serves: frozenset[str] = ANY_ROLE  # the paragraphs it may fill (block_serves); the abstract's, any
    figure_cited: bool = False  # its block cites a figure or table: it can bring one into the summary
    # why it is not this paper's own finding (attribution.KINDS: a citation, an interview quotation, a
    # question, the introduction), judged on the raw text with its reference markers; None: it is
    attribution: str | None = None


def candidates(document: Document, *, include_abstract: bool = True) -> list[Candidate]:
    """Every clean body sentence of ``document`` a summary may use, in document order, cleaned, with a
    sentence that opens with a pronoun joined to its predecessor (or left out)."""
    allowed = body_blocks(document, include_abstract=include_abstract)
    sentences = document_sentences(document, include_abstract=include_abstract)
    cleaned: dict[int, Sentence] = {}
    raw: dict[int, str] = {}  # the sentence as the document has it: reference markers say whose work it is
    # "extracel- lular" joined by the paper's own vocabulary (what a reader of the PDF did not join)
    known = vocabulary(b.text for b in document.blocks)
    markers: dict[int, int] = {}
    references_began: set[str] = set()  # blocks whose text runs on into a reference list
    title = " ".join((document.title or "").split()).lower()
    # with the abstract left out, its sentences stay out wherever they recur (a second copy, an
    # unmarked "Abstract—…" paragraph) and so does a block that opens with the abstract's label
    abstract_texts = set() if include_abstract else {
        _comparable(t) for b in document.blocks if b.is_abstract for t in split_sentences(b.text)}
    for s in sentences:
        if s.block not in allowed or s.block in references_began:
            continue
        if not include_abstract and ABSTRACT_RUN_IN.match(s.text):
            references_began.add(s.block)  # the rest of the block is the abstract too
            continue
        if not include_abstract and _comparable(s.text) in abstract_texts:
            continue
        if _INLINE_REFERENCES.search(s.text):
            references_began.add(s.block)  # "… industry. References 1. De Martino L, …": the rest is the list
            continue
        if _opens_with_title(s.text, title):
            continue  # the title glued to the first sentence of the abstract
        if is_injection(s.text):
            continue  # before cleaning: "Assistant: …" would lose its label (a run-in heading) and pass
        text = join_split_words(clean_sentence(s.text), known)
        if text:
            cleaned[s.position] = dataclasses.replace(s, text=text)
            raw[s.position] = s.text
            markers[s.position] = reference_markers(s.text)
    roles = block_roles(document)
    first_of_block = {s.position for k, s in enumerate(sentences) if k == 0 or sentences[k - 1].block != s.block}
    last_of_block = {s.position for k, s in enumerate(sentences)
                     if k == len(sentences) - 1 or sentences[k + 1].block != s.block}

    serves = block_serves(document)
    block_text = {b.id: b.text for b in document.blocks}

    def candidate(sentence: Sentence, covers: tuple[int, ...], role: str | None) -> Candidate:
        # whose finding it reports: a sentence under the introduction's own heading is the introduction's
        # (its subsections' role is inherited, and a review's body may be all of them)
        heading = None if sentence.in_abstract or is_abstract_heading(sentence.section) else section_role(sentence.section)
        found = attribute(" ".join(raw.get(c, "") for c in covers), section_role=heading)
        kind = found.kind if found is not None else None
        may = ANY_ROLE if sentence.in_abstract else serves.get(sentence.block, ANY_ROLE)
        return Candidate(sentence, covers, role, sum(markers.get(c, 0) for c in covers),
                         covers[0] in first_of_block, covers[-1] in last_of_block,
                         may - BLOCKED_BY.get(kind or "", frozenset()),
                         bool(_FIGURE_OR_TABLE.search(block_text.get(sentence.block, ""))), kind)

    result: list[Candidate] = []
    for position, sentence in cleaned.items():
        if not usable(sentence):
            continue
        role = "background" if sentence.in_abstract else roles.get(sentence.block)
        if role == "skip":
            continue
        kind = opener(sentence.text)
        if kind == "connective":
            text = drop_connective(sentence.text)
            if text == sentence.text:
                kind = "pronoun"  # what is left still leans backwards: treat it like a pronoun
            else:
                result.append(candidate(dataclasses.replace(sentence, text=text), (position,), role))
                continue
        if kind is None:
            result.append(candidate(sentence, (position,), role))
            continue
        before = cleaned.get(position - 1)
        if (before is None or before.block != sentence.block or not usable(before)
                or opener(drop_connective(before.text)) is not None or before.words + sentence.words > 70):
            continue  # a sentence that points at something not there is left out
        text = drop_connective(before.text) + " " + sentence.text
        result.append(candidate(dataclasses.replace(before, text=text), (position - 1, position), role))
    return result


# "we show / we found": the paper reporting its own finding, what an abstract's results sentences say
_OWN_FINDING = re.compile(
    r"\b(we (show|showed|found|find|demonstrate|demonstrated|report|observed|identified|reveal|revealed|conclude|"
    r"suggest|propose|provide|describe|developed|present)|(our|these|the present) (results|findings|data) "
    r"(show|showed|suggest|indicate|demonstrate|reveal|confirm|support)|this is the first)\b", re.I)
_QUANTITY = re.compile(r"\d+(\.\d+)?\s?%|\bp\s?[<=>≤]\s?0?\.\d|\b(95\s?%\s?ci|odds ratio|hazard ratio|"
                       r"fold|r2|r²|auc|sensitivity|specificity)\b", re.I)
# a comparison or a direction: what a results sentence of an abstract reports
_COMPARISON = re.compile(
    r"\b(than|compared (with|to)|in comparison|versus|vs\.?|relative to|(in|de)creas\w*|higher|lower|greater|"
    r"fewer|more|less|improv\w*|reduc\w*|outperform\w*|superior|inferior|differ\w*|similar to)\b", re.I)
_FIRST_PERSON = re.compile(r"\b(we|our|us)\b", re.I)
# How much each feature of salience_features says that a sentence reads like the paper's abstract: a linear
# model fitted by tools/fit_salience.py on the open corpora's fitting halves (never the test halves), read
# from the data file beside this module with its provenance (date, data, command, leave-one-source-out
# scores). Only the order of the scores within a paper matters (they are min-max normalised per paragraph).
SALIENCE_WEIGHTS_FILE = Path(__file__).with_name("salience_weights.json")


@dataclass(frozen=True)
class SalienceWeights:
    """The salience model: one weight per name of SALIENCE_FEATURES (a name left out weighs 0), and where
    the numbers come from."""

    weights: Mapping[str, float]
    provenance: Mapping[str, object] = field(default_factory=dict)
    # how much the salience counts in a sentence's relevance to its paragraph (RELEVANCE_WEIGHTS's
    # "salience" unless the file says)
    share: float = RELEVANCE_WEIGHTS["salience"]

    def vector(self) -> np.ndarray:
        return np.array([float(self.weights.get(name, 0.0)) for name in SALIENCE_FEATURES], dtype=np.float32)


def parse_salience_weights(data: object, origin: str = "salience weights") -> SalienceWeights:
    """The decoded JSON of a weights file, checked: a ``weights`` object of finite numbers whose names are all
    SALIENCE_FEATURES, and at least one of them not zero. ValueError naming the first problem."""
    if not isinstance(data, dict) or not isinstance(data.get("weights"), dict):
        raise ValueError(f"{origin}: expected an object with a 'weights' object")
    weights: dict[str, float] = {}
    for name, value in data["weights"].items():
        if name not in SALIENCE_FEATURES:
            raise ValueError(f"{origin}: unknown feature {name!r}")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"{origin}: the weight of {name!r} is not a finite number: {value!r}")
        weights[name] = float(value)
    if not any(weights.values()):
        raise ValueError(f"{origin}: every weight is zero")
    share = data.get("share", RELEVANCE_WEIGHTS["salience"])
    if isinstance(share, bool) or not isinstance(share, (int, float)) or not math.isfinite(share) or share < 0:
        raise ValueError(f"{origin}: 'share' is not a number >= 0: {share!r}")
    provenance = data.get("provenance", {})
    return SalienceWeights(weights, provenance if isinstance(provenance, dict) else {}, float(share))


def load_salience_weights(path: str | Path | None = None) -> SalienceWeights:
    """The weights of ``path`` (default: the shipped SALIENCE_WEIGHTS_FILE, read once)."""
    if path is None:
        return _shipped_weights()
    path = Path(path)
    return parse_salience_weights(json.loads(path.read_text(encoding="utf-8")), str(path))


@cache
def _shipped_weights() -> SalienceWeights:
    return parse_salience_weights(json.loads(SALIENCE_WEIGHTS_FILE.read_text(encoding="utf-8")),
                                  SALIENCE_WEIGHTS_FILE.name)


SALIENCE_FEATURES = (
    "section_background", "section_related", "section_method", "section_results", "section_conclusion",
    "section_unknown", "document_start", "document_end", "section_first", "section_last", "section_position",
    "intro_last_paragraph", "discussion_first_paragraph", "paragraph_first", "paragraph_last",
    "contribution", "own_finding", "cue_background", "cue_method", "cue_results", "cue_conclusion",
    "numbers", "quantity", "figure_mention", "cited", "long", "short", "words",
    "centrality", "title", "frequent_words", "title_words", "proto_background", "proto_method", "proto_results", "proto_conclusion", "quality",
    # added by issue 45 (0 in the weights fitted before it): closeness to the sentence's own section, a
    # comparison, a passage that cites the paper's own figures or tables, the paper's first person
    "section_similarity", "comparison", "figure_cited", "first_person",
)


def salience_features(pool: Sequence[Candidate], vectors: np.ndarray, title_similarity: np.ndarray,
                      prototypes: np.ndarray, title_text: str = "") -> np.ndarray:
    """One row per candidate, one column per name of SALIENCE_FEATURES: where the sentence sits (its
    section's role, its place in the paper, in its section and in its paragraph), what it says of itself
    (cue phrases, numbers, reference markers, length) and how close it is to the paper, its title and
    each role's description."""
    n = len(pool)
    features = np.zeros((n, len(SALIENCE_FEATURES)), dtype=np.float32)
    if n == 0:
        return features
    column = {name: k for k, name in enumerate(SALIENCE_FEATURES)}
    roles = [c.section_role for c in pool]
    # runs of consecutive candidates under one heading, and under one section role
    runs: list[tuple[int, int]] = []
    start = 0
    for i in range(1, n + 1):
        if i == n or pool[i].sentence.section != pool[start].sentence.section:
            runs.append((start, i))
            start = i
    centroid = vectors.mean(axis=0)
    centroid = centroid / max(float(np.linalg.norm(centroid)), 1e-9)
    centrality = vectors @ centroid
    similarity = vectors @ prototypes.T
    title_z = (title_similarity - title_similarity.mean()) / (float(title_similarity.std()) + 1e-6) if n > 1 else title_similarity * 0
    central_z = (centrality - centrality.mean()) / (float(centrality.std()) + 1e-6) if n > 1 else centrality * 0
    section_close = _section_closeness(pool, vectors)
    section_z = (section_close - section_close.mean()) / (float(section_close.std()) + 1e-6) if n > 1 else section_close * 0
    role_blocks: dict[str, list[str]] = {}
    for c in pool:
        if c.section_role in ("background", "conclusion"):
            role_blocks.setdefault(c.section_role, [])
            if c.sentence.block not in role_blocks[c.section_role]:
                role_blocks[c.section_role].append(c.sentence.block)
    last_intro = role_blocks.get("background", [])[-1:]
    first_discussion = role_blocks.get("conclusion", [])[:1]
    for run_start, run_end in runs:
        length = run_end - run_start
        for i in range(run_start, run_end):
            features[i, column["section_first"]] = float(i == run_start)
            features[i, column["section_last"]] = float(i == run_end - 1 and length > 1)
            features[i, column["section_position"]] = (i - run_start) / max(length - 1, 1)
    # the paper's own vocabulary: a sentence made of the words the paper keeps using, and of its title's
    # words, says what the paper is about (what ROUGE against its abstract counts, word by word)
    words_of = [salience_words(c.sentence.text) for c in pool]
    counts: dict[str, int] = {}
    for words in words_of:
        for word in set(words):
            counts[word] = counts.get(word, 0) + 1
    top = max(counts.values(), default=1)
    title_words = set(salience_words(title_text))
    for i, c in enumerate(pool):
        text = c.sentence.text
        if words_of[i]:
            features[i, column["frequent_words"]] = sum(counts[w] for w in words_of[i]) / (len(words_of[i]) * top)
            features[i, column["title_words"]] = sum(w in title_words for w in words_of[i]) / len(words_of[i])
        role = roles[i] if roles[i] in ("background", "related", "method", "results", "conclusion") else "unknown"
        features[i, column[f"section_{role}"]] = 1.0
        place = i / max(n - 1, 1)
        features[i, column["document_start"]] = float(place < 0.15)
        features[i, column["document_end"]] = float(place > 0.85)
        features[i, column["intro_last_paragraph"]] = float(c.sentence.block in last_intro)
        features[i, column["discussion_first_paragraph"]] = float(c.sentence.block in first_discussion)
        features[i, column["paragraph_first"]] = float(c.opens_paragraph)
        features[i, column["paragraph_last"]] = float(c.closes_paragraph)
        features[i, column["contribution"]] = float(bool(_CONTRIBUTION.search(text)))
        features[i, column["own_finding"]] = float(bool(_OWN_FINDING.search(text)))
        for cue in ROLES:
            features[i, column[f"cue_{cue}"]] = min(1.0, 0.5 * len(_CUES[cue].findall(text)))
        features[i, column["numbers"]] = float(bool(_NUMBER.search(text)))
        features[i, column["quantity"]] = float(bool(_QUANTITY.search(text)))
        features[i, column["figure_mention"]] = float(bool(_FIGURE_MENTION.search(text)))
        features[i, column["cited"]] = min(1.0, c.cited / 2)
        n_words = c.sentence.words
        features[i, column["long"]] = float(n_words > 40)
        features[i, column["short"]] = float(n_words < 14)
        features[i, column["words"]] = min(n_words, 60) / 60
        features[i, column["centrality"]] = float(central_z[i])
        features[i, column["title"]] = float(title_z[i])
        for r, name in enumerate(ROLES):
            features[i, column[f"proto_{name}"]] = float(similarity[i, r])
        features[i, column["quality"]] = _quality(c.sentence)
        features[i, column["section_similarity"]] = float(section_z[i])
        features[i, column["comparison"]] = min(1.0, 0.5 * len(_COMPARISON.findall(text)))
        features[i, column["figure_cited"]] = float(c.figure_cited)
        features[i, column["first_person"]] = float(bool(_FIRST_PERSON.search(text)))
    return features


def _section_closeness(pool: Sequence[Candidate], vectors: np.ndarray) -> np.ndarray:
    """Each sentence's cosine to the mean of the other sentences under its heading (0 alone there)."""
    closeness = np.zeros(len(pool), dtype=np.float32)
    groups: dict[str | None, list[int]] = {}
    for i, c in enumerate(pool):
        groups.setdefault(c.sentence.section, []).append(i)
    for members in groups.values():
        if len(members) < 2:
            continue
        block = vectors[members]
        total = block.sum(axis=0)
        for k, i in enumerate(members):
            rest = total - block[k]
            closeness[i] = float(block[k] @ rest) / max(float(np.linalg.norm(rest)), 1e-9)
    return closeness


@dataclass
class Prepared:
    """What the extractor knows of a document before it chooses: the candidates, their embeddings, role
    scores and salience features. ``Extractor.choose`` turns it into paragraphs; the fitting of the salience
    weights (tools/fit_salience.py) prepares each paper once and chooses with many weights."""

    document: Document
    pool: list[Candidate]
    vectors: np.ndarray
    title_similarity: np.ndarray
    scores: np.ndarray  # (n, 4), a role the sentence's section does not serve pushed below the others
    serves: np.ndarray  # (n, 4) bool
    features: np.ndarray  # salience_features
    warnings: list[str] = field(default_factory=list)

    @property
    def kept(self) -> list[Sentence]:
        return [c.sentence for c in self.pool]


class Extractor:
    """``Extractor(embedder).draft(document)`` → four DraftParagraphs (no model file needed)."""

    model_name = "extractive (MMR over MiniLM sentence embeddings)"

    def __init__(self, embedder: Embedder, *, mmr_lambda: float = 0.85, min_words: int = MIN_WORDS,
                 target_words: int = TARGET_WORDS, max_words: int = MAX_WORDS,
                 role_targets: dict[str, int] | None = None, salience: SalienceWeights | None = None) -> None:
        self.embedder = embedder
        self.mmr_lambda = mmr_lambda
        self.min_words, self.target_words, self.max_words = min_words, target_words, max_words
        # the summary's own paragraphs' lengths; evidence for a writer (a ``scale``) is a multiple of ROLE_TARGETS
        self.role_targets = dict(role_targets or SUMMARY_ROLE_TARGETS)
        # the shipped weights (salience_weights.json) unless given: a benchmark compares two sets
        self.salience = salience or load_salience_weights()

    def draft(self, document: Document, *, include_abstract: bool = True, control: JobControl | None = None,
              scale: float | None = None) -> ExtractiveResult:
        """Four paragraphs of SUMMARY_LENGTH × each role's target length; a ``scale`` asks for that multiple
        of the targets instead (the grounded writer asks for more sentences than it will write, as evidence)."""
        control = ensure_control(control)
        prepared = self.prepare(document, include_abstract=include_abstract, control=control)
        if isinstance(prepared, ExtractiveResult):
            return prepared
        return self.choose(prepared, scale=scale, control=control)

    def prepare(self, document: Document, *, include_abstract: bool = True,
                control: JobControl | None = None) -> Prepared | ExtractiveResult:
        """The candidates of ``document`` with everything ``choose`` needs; an ExtractiveResult of four empty
        paragraphs when the document has no body prose."""
        control = ensure_control(control)
        warnings: list[str] = []
        pool = candidates(document, include_abstract=include_abstract)
        if not pool:
            # A document of short or unusual lines: take whatever clean prose there is rather than nothing.
            allowed = body_blocks(document, include_abstract=include_abstract)
            loose = [dataclasses.replace(s, text=clean_sentence(s.text))
                     for s in document_sentences(document, include_abstract=include_abstract) if s.block in allowed]
            pool = [Candidate(s, (s.position,), None) for s in loose
                    if s.words >= 4 and junk_reason(s.text) is None and opener(s.text) is None]
            if pool:
                warnings.append("no well-formed sentences were found; the summary uses short text fragments")
        if not pool:
            return ExtractiveResult([DraftParagraph(role) for role in ROLES], 0,
                                    ["the document has no body prose to summarise"])
        kept = [c.sentence for c in pool]
        section_roles = [c.section_role for c in pool]
        control.report(0, 3, "embedding sentences")
        vectors = np.asarray(self.embedder.embed([s.text for s in kept], control=control), dtype=np.float32)
        anchors = [_PROTOTYPES[r] for r in ROLES] + ([document.title] if document.title else [])
        anchor_vectors = np.asarray(self.embedder.embed(anchors), dtype=np.float32)
        prototypes = anchor_vectors[: len(ROLES)]
        title_similarity = (vectors @ anchor_vectors[len(ROLES)]) if document.title else np.zeros(len(kept), np.float32)
        control.report(1, 3, "choosing sentences")
        scores = self._role_scores(kept, section_roles, vectors, prototypes)
        features = salience_features(pool, vectors, title_similarity, prototypes, document.title or "")
        # a sentence fills only the paragraphs its section serves (a Method paragraph is never made of
        # the introduction): the other roles' scores are pushed below any it may take
        # the paragraphs no section serves take sentences by what they say (content_roles): a review's
        # approach and main points, a case report's case, a Portuguese essay's findings
        widened = widen_by_content(pool, document, ROLES)
        serves = np.array([[role in may for role in ROLES] for may in widened], dtype=bool)
        scores = np.where(serves, scores, scores - 5.0)
        return Prepared(document, pool, vectors, np.asarray(title_similarity, dtype=np.float32), scores, serves,
                        features, warnings)

    def choose(self, prepared: Prepared, *, scale: float | None = None, control: JobControl | None = None,
               salience: SalienceWeights | None = None) -> ExtractiveResult:
        """The four paragraphs of a prepared document (``salience``: other weights than the extractor's)."""
        nearest = NEAREST_LENGTH and scale is None  # the summary's own paragraphs, not the grounded writer's evidence
        scale = SUMMARY_LENGTH if scale is None else scale
        control = ensure_control(control)
        document, pool, vectors = prepared.document, prepared.pool, prepared.vectors
        title_similarity, scores, serves = prepared.title_similarity, prepared.scores, prepared.serves
        warnings = list(prepared.warnings)
        kept = prepared.kept
        quality = np.array([_quality(s) for s in kept], dtype=np.float32)
        figure_mention = np.array([1.0 if _FIGURE_MENTION.search(s.text) else 0.0 for s in kept], dtype=np.float32)
        numbers = np.array([1.0 if _NUMBER.search(s.text) else 0.0 for s in kept], dtype=np.float32)
        contribution = np.array([1.0 if _CONTRIBUTION.search(s.text) else 0.0 for s in kept], dtype=np.float32)
        centroid = vectors.mean(axis=0)
        centroid /= max(float(np.linalg.norm(centroid)), 1e-9)
        centrality = vectors @ centroid
        model = salience or self.salience
        salience_ = prepared.features @ model.vector()
        figure_cited = np.array([1.0 if c.figure_cited else 0.0 for c in pool], dtype=np.float32)
        has_visuals = any(v.label for v in document.visuals)

        taken: set[int] = set()
        covered: set[int] = set()
        paragraphs: list[DraftParagraph] = []
        words = np.array([s.words for s in kept])
        best = scores.argmax(axis=1)
        total = int(words.sum())
        # the words of a part the paper does not have (a protocol's results, a review's method) go to the
        # parts it has: a summary of a protocol says more of its method, not less in all
        present = [role for r, role in enumerate(ROLES) if serves[:, r].any()]
        targets = self.role_targets if nearest else ROLE_TARGETS
        wanted = sum(targets.get(role, self.target_words) for role in ROLES)
        kept_share = sum(targets.get(role, self.target_words) for role in present)
        stretch = min(1.5, wanted / kept_share) if kept_share else 1.0
        for r, role in enumerate(ROLES):
            role_target = int(round(targets.get(role, self.target_words) * scale * stretch))
            max_words = max(self.max_words, int(round(self.max_words * scale * stretch)))
            # a short document is shared out evenly instead of the first paragraph taking everything
            target = role_target if total >= 6 * role_target else max(15, min(role_target, total // 4))
            others = np.delete(scores, r, axis=1).max(axis=1)
            fit = scores[:, r] - others  # > 0: this role suits the sentence best
            order = [int(i) for i in np.argsort(-fit) if int(i) not in taken and not covered & set(pool[int(i)].covers)
                     and serves[int(i), r]]
            own = [i for i in order if best[i] == r]
            candidates_ = own[:60]
            if int(words[own].sum()) < max(target, self.min_words):
                # borrow sentences that may fill this paragraph too and that no later paragraph needs more
                spare = [i for i in order if best[i] != r and best[i] < r or (best[i] > r and fit[i] > -0.25 and total >= 6 * target)]
                candidates_ = (own + spare)[:60]
            if not candidates_:
                paragraphs.append(DraftParagraph(role, absent=absence_sentence(document, role)))
                warnings.append(f"{ROLE_TITLES[role].lower()}: no sentence of the paper can fill it; the summary says so")
                continue
            # Roles that hold: a Conclusion is what was found or what it means, never a step of the method
            # ("The assays were carried out on … at 0, 1, 2, 5 and 7 days"); a Results sentence reports a
            # finding (a number, a comparison, a direction). While there are such sentences enough for the
            # paragraph, only they may fill it; with fewer, it still opens with one (below).
            holds = ROLE_HOLDS.get(role)
            findings = [i for i in candidates_ if holds(kept[i].text)] if holds else []
            if findings and int(words[findings].sum()) >= min(target, 2 * self.min_words // 3):
                candidates_ = findings
            w = RELEVANCE_WEIGHTS
            relevance = (_normalise(fit[candidates_]) * w["fit"] + _normalise(centrality[candidates_]) * w["centrality"]
                         + _normalise(title_similarity[candidates_]) * w["title"] + quality[candidates_] * w["quality"])
            if role in ("background", "conclusion"):
                relevance = relevance + w["contribution"] * contribution[candidates_]
            if role == "results":
                # the main results come with their numbers
                relevance = relevance + w["numbers"] * numbers[candidates_]
            if role in ("method", "results"):
                # a sentence that cites a figure brings that figure into the interleaved summary
                relevance = relevance + 0.06 * figure_mention[candidates_]
            # so does a sentence whose passage cites one: the paragraph can show what it discusses
            relevance = relevance + w["figures"] * figure_cited[candidates_]
            relevance = relevance + model.share * _normalise(salience_[candidates_])
            chosen = self._mmr(candidates_, relevance, vectors, taken, kept, target, max_words, pool, covered, nearest)
            if has_visuals:
                chosen = self._with_a_cited_figure(chosen, candidates_, relevance, kept, max_words, pool, covered)
            if holds and findings and chosen and not any(holds(kept[i].text) for i in chosen):
                # none of the chosen sentences holds the role: the most relevant one that does takes the
                # least relevant one's place, so the paragraph can open with it
                rank = {i: float(relevance[k]) for k, i in enumerate(candidates_)}
                free = [i for i in findings if i not in chosen]
                if free:
                    weakest = min(chosen, key=lambda i: rank[i])
                    chosen = [i for i in chosen if i != weakest] + [max(free, key=lambda i: rank[i])]
            taken.update(chosen)
            for i in chosen:
                covered.update(pool[i].covers)
            ordered = sorted((kept[i] for i in chosen), key=lambda s: s.position)
            if holds:
                ordered = _holding_first(ordered, holds)
            paragraph = DraftParagraph(role, ordered)
            if paragraph.words < min(self.min_words * min(scale, 1.0), 0.8 * role_target):
                warnings.append(f"{ROLE_TITLES[role].lower()}: only {paragraph.words} words of suitable sentences")
            paragraphs.append(paragraph)
            control.check()
        control.report(3, 3, "sentences chosen")
        return ExtractiveResult(paragraphs, len(kept), warnings)

    def _with_a_cited_figure(self, chosen: list[int], pool_: list[int], relevance: np.ndarray,
                             sentences: list[Sentence], max_words: int, units: list[Candidate],
                             covered: set[int]) -> list[int]:
        """A paragraph none of whose sentences' passages cites a figure or table shows none: its least
        relevant sentence gives way to the most relevant one from a passage that cites one, when there
        is such a sentence of nearly the same relevance (FIGURE_SWAP_MARGIN of the paragraph's range)."""
        if not chosen or any(units[i].figure_cited for i in chosen):
            return chosen
        rank = {i: float(relevance[k]) for k, i in enumerate(pool_)}
        weakest = min(chosen, key=lambda i: rank[i])
        words = sum(sentences[i].words for i in chosen) - sentences[weakest].words
        used = set(covered)
        for i in chosen:
            if i != weakest:
                used.update(units[i].covers)
        options = [i for i in pool_ if i not in chosen and units[i].figure_cited
                   and words + sentences[i].words <= max_words and not used & set(units[i].covers)]
        if not options:
            return chosen
        best = max(options, key=lambda i: rank[i])
        if rank[best] < rank[weakest] - FIGURE_SWAP_MARGIN * (float(relevance.max()) - float(relevance.min())):
            return chosen
        return [i for i in chosen if i != weakest] + [best]

    def _role_scores(self, sentences: list[Sentence], section_roles: list[str | None],
                     vectors: np.ndarray, prototypes: np.ndarray) -> np.ndarray:
        n = len(sentences)
        body = [i for i, s in enumerate(sentences) if not s.in_abstract]
        abstract = [i for i, s in enumerate(sentences) if s.in_abstract]
        position = np.zeros(n, dtype=np.float32)
        for group in (body, abstract):
            for rank, i in enumerate(group):
                position[i] = rank / max(len(group) - 1, 1)
        similarity = vectors @ prototypes.T  # (n, 4)
        similarity = similarity - similarity.mean(axis=1, keepdims=True)
        scores = np.zeros((n, len(ROLES)), dtype=np.float32)
        for r, role in enumerate(ROLES):
            for i, sentence in enumerate(sentences):
                centre, width = (_ABSTRACT_PRIOR if sentence.in_abstract else _BODY_PRIOR)[role]
                prior = float(np.exp(-(((position[i] - centre) / width) ** 2)))
                cue = min(1.0, 0.5 * (len(_CUES[role].findall(sentence.text))
                                      + other_language_cues(role, sentence.text)))
                section = 0.0
                known = section_roles[i] if not sentence.in_abstract else None
                if known == "related":  # related work is background, but second to the introduction
                    section = 0.8 if role == "background" else -0.3
                elif known is not None:
                    section = 2.0 if known == role else -0.6
                scores[i, r] = section + 0.9 * prior + 0.6 * cue + 4.0 * float(similarity[i, r])
        return scores

    def _mmr(self, pool: list[int], relevance: np.ndarray, vectors: np.ndarray, taken: set[int],
             sentences: list[Sentence], target: int, max_words: int, units: list[Candidate],
             covered: set[int], nearest: bool = False) -> list[int]:
        """Maximal Marginal Relevance: relevance, less the closeness to what is already chosen (MiniLM embeddings)."""
        chosen: list[int] = []
        words = 0
        used = set(covered)
        selected_vectors = [vectors[i] for i in taken]
        remaining = list(range(len(pool)))
        while remaining and words < target:
            best, best_score = None, -np.inf
            for k in remaining:
                i = pool[k]
                if words + sentences[i].words > max_words or used & set(units[i].covers):
                    continue
                redundancy = max((float(vectors[i] @ v) for v in selected_vectors), default=0.0)
                score = self.mmr_lambda * float(relevance[k]) - (1 - self.mmr_lambda) * redundancy
                if redundancy > 0.9:
                    continue  # a near-duplicate of a chosen sentence
                if score > best_score:
                    best, best_score = k, score
            if best is None:
                break
            i = pool[best]
            if nearest and chosen and words + sentences[i].words - target > target - words:
                break  # the paragraph is nearer its length without this sentence than with it
            remaining.remove(best)
            chosen.append(i)
            used.update(units[i].covers)
            selected_vectors.append(vectors[i])
            words += sentences[i].words
        return chosen


# What was done, not what was found or what it means: a protocol's sentence ("The assays were carried out
# on … at 0, 1, 2, 5 and 7 days", "We recruited 40 patients") — a Method sentence, never a Conclusion's first
_WHAT_WAS_DONE = re.compile(
    r"\b((was|were|had been|has been|have been) (\w+ly )?(carried out|performed|conducted|measured|collected|"
    r"analy[sz]ed|recorded|determined|assessed|evaluated|obtained|prepared|incubated|calculated|estimated|"
    r"tested|done|applied|administered|harvested|extracted|isolated|cultured|stored|washed|centrifuged|enrolled|"
    r"recruited|randomi[sz]ed|followed up|monitored|sampled|divided|assigned|injected|dissolved|added|"
    r"interviewed|surveyed)|we (used|performed|conducted|measured|collected|analy[sz]ed|carried out|recruited|"
    r"enrolled|applied|tested|sampled|interviewed|surveyed))\b"
    # any passive step followed by how, where or for what it was done: "were considered for time course
    # analysis", "was inoculated with", "were grown in"
    r"|\b(was|were|had been) (\w+ly )?(\w+ed|grown|kept|taken|chosen|made|run|drawn|given|held|spun|split) "
    r"(by|using|with|at|in|for|from|on|to|as|into|under|after|before|over|until|via|through|according)\b", re.I)
# …unless the same sentence says what came of it
_FINDING = re.compile(
    r"\b(show\w*|found|finds?|suggest\w*|indicat\w*|demonstrat\w*|reveal\w*|confirm\w*|significant\w*|"
    r"higher|lower|greater|increas\w*|decreas\w*|reduc\w*|improv\w*|better|worse|associated|effective|"
    r"conclud\w*|may|might|could|should|important|promising|potential|useful|able to|observed|detected|"
    r"identified|related|linked|correlat\w*|limited|expected|needed|required|consistent|lack\w*|likely)\b", re.I)
# what a Conclusion says and a Results paragraph does not: "In conclusion, …", "Taken together, …"
_CONCLUDES = re.compile(r"^(in (conclusion|summary|sum)|to (conclude|summari[sz]e)|taken together|overall|"
                        r"collectively|altogether)\b|\bwe conclude\b|\bfuture (work|research|stud\w+)\b|"
                        r"\bfurther (\w+ )?(stud\w+|research|work|analys\w+|investigations?|experiments?|trials?) "
                        r"(is|are|will|would|should|may|might|could)\b", re.I)


def reports_what_was_done(text: str) -> bool:
    """A sentence that says how the study was done and nothing it found (a protocol's step)."""
    return bool(_WHAT_WAS_DONE.search(text)) and not _FINDING.search(text) and not _CONTRIBUTION.search(text)


# a verb of finding, a comparison or a direction: what a Results sentence of an abstract reports
_FOUND = re.compile(
    r"\b(show(s|ed|n)?|found|finds?|reveal\w*|demonstrat\w*|indicat\w*|confirm\w*|significant\w*|observed|"
    r"identified|detected|associated|correlat\w*|predict\w*|effective|inhibit(s|ed)|no (significant )?"
    r"(difference|effect|change|association)|did not|(in|de)creas\w*|rose|fell|remained|stayed|exceed\w*|peak\w*|"
    r"against|longer|shorter|twice|times as)\b",
    re.I)


def reports_a_finding(text: str) -> bool:
    """A sentence that reports what was found: a verb of finding, a comparison or a direction, a quantity
    (a percentage, a p value, a ratio), or a number in a sentence that is no step of the method ("at 0, 1,
    2, 5 and 7 days" is when the samples were taken, not what they showed)."""
    if _CONCLUDES.search(text) or (_CONTRIBUTION.search(text) and not _QUANTITY.search(text)):
        return False  # a conclusion or what the paper offers ("this work presents…"), for the Conclusion
    if _FOUND.search(text) or _COMPARISON.search(text) or _QUANTITY.search(text):
        return True
    return bool(_NUMBER.search(text)) and not reports_what_was_done(text)


def is_no_method_step(text: str) -> bool:
    """What may open a Conclusion: anything but a sentence that reports what was done."""
    return not reports_what_was_done(text)


# the test each role's sentences pass (Extractor.roles_hold): a Results sentence reports a finding, a
# Conclusion's is no step of the method
ROLE_HOLDS = {"results": reports_a_finding, "conclusion": is_no_method_step}


def _holding_first(sentences: list[Sentence], holds: Callable[[str], bool]) -> list[Sentence]:
    """Document order, except that a sentence that does not hold the role (a step of the method in a
    Conclusion, a sentence without a finding in Results) does not open the paragraph: the first that does
    comes first (all left in order when none does)."""
    first = next((k for k, s in enumerate(sentences) if holds(s.text)), None)
    if not first:
        return sentences
    return [sentences[first], *sentences[:first], *sentences[first + 1:]]


def _normalise(values: np.ndarray) -> np.ndarray:
    values = np.asarray(values, dtype=np.float32)
    if values.size == 0:
        return values
    low, high = float(values.min()), float(values.max())
    if high - low < 1e-9:
        return np.full_like(values, 0.5)
    return (values - low) / (high - low)


def _quality(sentence: Sentence) -> float:
    """1.0 for a self-contained sentence of typical length; lower for citations, questions, digit soup."""
    score = 1.0
    citations = len(_CITATION.findall(sentence.text))
    score -= min(0.4, 0.15 * citations)
    if sentence.text.rstrip("\"'”)").endswith("?"):
        score -= 0.4  # a question is rarely a finding
    words = sentence.words
    if words < 12:
        score -= 0.3
    elif words > 40:
        score -= 0.2
    digits = sum(c.isdigit() for c in sentence.text)
    if digits > 0.1 * len(sentence.text):
        score -= 0.2
    if len(_UNIT.findall(sentence.text)) >= 2:
        score -= 0.2  # a protocol's quantities, not a finding
    return max(0.0, score)
