"""The extractive engine: four paragraphs made only of the document's own sentences, so every word is
faithful by construction. Always available: it needs the MiniLM text embedder and no language model.

1. Sentences come from prose blocks (never captions, equations, footnotes, references, front matter).
2. Each sentence gets a score for each role — research background, method, results, conclusion —
   from the section it sits in ("Introduction" → background, "Experiments" → results, ...), its
   position (abstracts and papers run background → method → results → conclusion), cue phrases
   ("we propose", "results show", "in conclusion") and its embedding similarity to a description of
   the role. Section headings win when they are recognisable; position and cues carry papers whose
   headings were lost.
3. Per role, Maximal Marginal Relevance over the embeddings picks central, role-typical sentences that
   repeat neither each other nor the other paragraphs, until the paragraph holds 60–120 words.
4. Sentences keep their document order inside a paragraph. Figures are chosen afterwards by the
   placement engine (the pipeline does that for every engine).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from mmdocsum_desktop.document.model import Document
from mmdocsum_desktop.engines.sentences import Sentence, document_sentences
from mmdocsum_desktop.jobs import JobControl, ensure_control

ROLES = ("background", "method", "results", "conclusion")
ROLE_TITLES = {
    "background": "Research background",
    "method": "Method",
    "results": "Results",
    "conclusion": "Conclusion",
}
MIN_WORDS, TARGET_WORDS, MAX_WORDS = 60, 90, 120

_SECTION_ROLES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("skip", re.compile(
        r"\b(references?|bibliography|acknowledge?ments?|appendix|appendices|author contributions?|"
        r"funding|competing interests?|conflicts? of interest|ethic(s|al)|data availability|"
        r"supplementary|supporting information|declarations?|additional information|keywords)\b")),
    ("conclusion", re.compile(
        r"\b(conclusions?|concluding|discussion|summary|future (work|directions)|limitations?|outlook|"
        r"closing remarks|implications)\b")),
    ("results", re.compile(
        r"\b(results?|experiments?|experimental results|evaluation|evaluations|analysis|analyses|"
        r"performance|findings|ablations?|comparisons?|case stud(y|ies)|validation|benchmarks?)\b")),
    ("method", re.compile(
        r"\b(methods?|methodology|approach|model|models|framework|architecture|materials|algorithms?|"
        r"formulation|theory|theoretical|proposed|design|implementation|setup|set-up|data|datasets?|"
        r"study (area|site)|procedure|system|technique|modell?ing|training)\b")),
    ("background", re.compile(
        r"\b(abstract|introduction|background|motivation|overview|problem statement)\b")),
    ("related", re.compile(
        r"\b(related work|literature|prior work|previous work|state of the art|preliminar(y|ies))\b")),
)

_CUES: dict[str, re.Pattern[str]] = {
    "background": re.compile(
        r"\b(has been|have been|is (a|an|one of)|are (widely|often|commonly)|important|challeng\w*|"
        r"little is known|remains? (unclear|unknown|open)|previous (work|studies)|recent(ly)?|"
        r"however|problem|widely|understood|motivat\w*|need for|gap)\b", re.I),
    "method": re.compile(
        r"\b(we (propose|present|introduce|develop|use|used|apply|applied|design|designed|train|trained|"
        r"adopt|employ|model|define|derive|compute|estimate)|our (approach|method|model|framework)|"
        r"(was|were) (used|applied|computed|estimated|calculated|collected|measured|derived|fitted)|"
        r"method|approach|algorithm|procedure|framework|architecture|dataset|data set|formula|"
        r"equation|parameters?)\b", re.I),
    "results": re.compile(
        r"\b(results? (show|showed|indicate|indicated|demonstrate|suggest)|we (find|found|observe|"
        r"observed|obtain|obtained)|outperform\w*|improv\w*|increase[ds]?|decrease[ds]?|reduc\w*|"
        r"significant\w*|accura\w*|higher|lower|better|worse|compared|achiev\w*|table|figure|fig\.)\b|%",
        re.I),
    "conclusion": re.compile(
        r"\b(in (conclusion|summary)|we conclude|to conclude|overall|this (study|paper|work) "
        r"(shows|showed|demonstrates|has shown|presents?)|our (results|findings) (suggest|show|indicate)|"
        r"implications?|future (work|research|studies)|in this (paper|work|study)|we (have )?(shown|"
        r"demonstrated|presented)|suggests?|recommend\w*|conclude)\b", re.I),
}

_PROTOTYPES = {
    "background": "The research problem, why it matters, what is already known from previous work, and the gap this study addresses.",
    "method": "The proposed method, model, data and experimental procedure used in this study, and how it works.",
    "results": "The main experimental results and measurements, with numbers, comparisons and what the figures and tables show.",
    "conclusion": "The conclusions of the study, their implications, limitations and directions for future work.",
}
# (centre, width) of the position prior over the body, and over an abstract
_BODY_PRIOR = {"background": (0.03, 0.18), "method": (0.35, 0.2), "results": (0.65, 0.2), "conclusion": (0.97, 0.12)}
_ABSTRACT_PRIOR = {"background": (0.0, 0.3), "method": (0.35, 0.25), "results": (0.65, 0.25), "conclusion": (1.0, 0.25)}

_JUNK = re.compile(
    r"(https?://|www\.|\bdoi\b|@|©|\bcopyright\b|all rights reserved|corresponding author|\be-?mail\b|"
    r"\breceived\b.*\baccepted\b|\bkeywords?\b|\bissn\b|elsevier|springer|licen[cs]e[ds]? under|"
    r"\bet al\.\s*\(\d{4}\)\.?$|\bpreprint\b|\barxiv\b)",
    re.I,
)
_BACK_REFERENCE = re.compile(
    r"^(however|therefore|thus|hence|moreover|furthermore|in addition|also|this|these|those|it|they|that|"
    r"such|similarly|in contrast|on the other hand|consequently|as a result|finally|then|here)\b", re.I)
_REFERENCE_LIKE = re.compile(
    r"(\b(thesis|proceedings|proc\.|journal|vol\.|pp\.|university of|press|eds?\.)\b.*\b(19|20)\d\d\b|"
    r"\b(19|20)\d\d\b.*\b(thesis|proceedings|proc\.|journal|vol\.|pp\.|press)\b|"
    r"^\(?\d+[).]\s|\bthanks?\b|\bgrateful\b|\backnowledge|\b(masters?|phd|doctoral) thesis\b|"
    r"\btechnical report\b|\bpp?\. \d+|\bin press\b)", re.I)
_PANEL_TEXT = re.compile(r"^\([a-h]\)\s|\b(solid|dashed|dotted)\s+(lines?|curves?)\b|(\([a-h]\).*){2,}", re.I)
_FIGURE_MENTION = re.compile(r"\b(fig(ure)?s?\.?)\s*\d", re.I)
_CITATION = re.compile(r"\[\d+(?:[,–-]\s*\d+)*\]|\([A-Z][A-Za-z-]+(?: et al\.)?,? \d{4}[a-z]?\)")


class Embedder(Protocol):
    def embed(self, texts: Sequence[str], batch_size: int = 32, control: JobControl | None = None) -> np.ndarray: ...


@dataclass
class DraftParagraph:
    role: str
    sentences: list[Sentence] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " ".join(s.text for s in self.sentences)

    @property
    def words(self) -> int:
        return sum(s.words for s in self.sentences)


@dataclass
class ExtractiveResult:
    paragraphs: list[DraftParagraph]
    sentence_count: int
    warnings: list[str] = field(default_factory=list)


def section_role(heading: str | None) -> str | None:
    """'background', 'method', 'results', 'conclusion', 'skip' (references, acknowledgements...) or None."""
    if not heading:
        return None
    text = re.sub(r"^\s*(?:(?:\d+(?:\.\d+)*|[IVXivx]+|[A-Z])[.)]?\s+)?", "", heading).strip().lower()
    if not text or len(text) > 80:
        return None
    for role, pattern in _SECTION_ROLES:
        if pattern.search(text):
            return role
    return None


def usable(sentence: Sentence) -> bool:
    """Whole prose sentences only: no fragments, front matter, URLs, equations or table rows."""
    text = sentence.text
    words = sentence.words
    if words < 7 or words > 60:
        return False
    if not (text[0].isupper() or text[0] in "\"'“(["):
        return False
    if text[-1] not in ".!?\"'”)" :
        return False
    letters = sum(c.isalpha() for c in text)
    if letters < 0.65 * len(text.replace(" ", "")):
        return False
    if max(len(w) for w in text.split()) > 28:  # words run together: a broken text layer
        return False
    if _PANEL_TEXT.search(text):  # a figure's panel legend that the text layer put among the prose
        return False
    return not _JUNK.search(text) and not _REFERENCE_LIKE.search(text)


class ExtractiveEngine:
    """``ExtractiveEngine(embedder).draft(document)`` → four DraftParagraphs (no model file needed)."""

    name = "extractive"
    model_name = "extractive (MMR over MiniLM sentence embeddings)"
    supports_images = False

    def __init__(self, embedder: Embedder, *, mmr_lambda: float = 0.7, min_words: int = MIN_WORDS,
                 target_words: int = TARGET_WORDS, max_words: int = MAX_WORDS) -> None:
        self.embedder = embedder
        self.mmr_lambda = mmr_lambda
        self.min_words, self.target_words, self.max_words = min_words, target_words, max_words
        self.warnings: list[str] = []

    def describe(self) -> dict:
        return {
            "engine": self.name,
            "model": self.model_name,
            "mmr_lambda": self.mmr_lambda,
            "words_per_paragraph": [self.min_words, self.max_words],
        }

    def close(self) -> None:
        pass

    def draft(self, document: Document, *, include_abstract: bool = True,
              control: JobControl | None = None) -> ExtractiveResult:
        control = ensure_control(control)
        warnings: list[str] = []
        all_sentences = document_sentences(document, include_abstract=include_abstract)
        kept: list[Sentence] = []
        section_roles: list[str | None] = []
        for sentence in all_sentences:
            role = "background" if sentence.in_abstract else section_role(sentence.section)
            if role == "skip" or not usable(sentence):
                continue
            kept.append(sentence)
            section_roles.append(role)
        if not kept:
            # A document of short or unusual lines: take whatever prose there is rather than nothing.
            kept = [s for s in all_sentences if s.words >= 4 and not _JUNK.search(s.text)]
            section_roles = [None] * len(kept)
            if kept:
                warnings.append("no well-formed sentences were found; the summary uses short text fragments")
        if not kept:
            return ExtractiveResult([DraftParagraph(role) for role in ROLES], 0,
                                    ["the document has no prose to summarise"])
        control.report(0, 3, "embedding sentences")
        vectors = np.asarray(self.embedder.embed([s.text for s in kept], control=control), dtype=np.float32)
        prototypes = np.asarray(self.embedder.embed([_PROTOTYPES[r] for r in ROLES]), dtype=np.float32)
        control.report(1, 3, "choosing sentences")
        scores = self._role_scores(kept, section_roles, vectors, prototypes)
        quality = np.array([_quality(s) for s in kept], dtype=np.float32)
        figure_mention = np.array([1.0 if _FIGURE_MENTION.search(s.text) else 0.0 for s in kept], dtype=np.float32)
        centroid = vectors.mean(axis=0)
        centroid /= max(float(np.linalg.norm(centroid)), 1e-9)
        centrality = vectors @ centroid

        taken: set[int] = set()
        paragraphs: list[DraftParagraph] = []
        words = np.array([s.words for s in kept])
        best = scores.argmax(axis=1)
        total = int(words.sum())
        # a short document is shared out evenly instead of the first paragraph taking everything
        target = self.target_words if total >= 6 * self.target_words else max(15, min(self.target_words, total // 4))
        for r, role in enumerate(ROLES):
            others = np.delete(scores, r, axis=1).max(axis=1)
            fit = scores[:, r] - others  # > 0: this role suits the sentence best
            order = [int(i) for i in np.argsort(-fit) if int(i) not in taken]
            own = [i for i in order if best[i] == r]
            pool = own[:60]
            if int(words[own].sum()) < max(target, self.min_words):
                # borrow sentences that no later paragraph needs more
                spare = [i for i in order if best[i] != r and best[i] < r or (best[i] > r and fit[i] > -0.25 and total >= 6 * self.target_words)]
                pool = (own + spare)[:60]
            if not pool:
                paragraphs.append(DraftParagraph(role))
                warnings.append(f"{ROLE_TITLES[role].lower()}: only 0 words of suitable sentences")
                continue
            relevance = _normalise(fit[pool]) * 0.55 + _normalise(centrality[pool]) * 0.3 + quality[pool] * 0.15
            if role in ("method", "results"):
                # a sentence that cites a figure brings that figure into the interleaved summary
                relevance = relevance + 0.08 * figure_mention[pool]
            chosen = self._mmr(pool, relevance, vectors, taken, kept, target)
            taken.update(chosen)
            paragraph = DraftParagraph(role, sorted((kept[i] for i in chosen), key=lambda s: s.position))
            if paragraph.words < self.min_words:
                warnings.append(f"{ROLE_TITLES[role].lower()}: only {paragraph.words} words of suitable sentences")
            paragraphs.append(paragraph)
            control.check()
        control.report(3, 3, "sentences chosen")
        return ExtractiveResult(paragraphs, len(kept), warnings)

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
                cue = min(1.0, 0.5 * len(_CUES[role].findall(sentence.text)))
                section = 0.0
                known = section_roles[i] if not sentence.in_abstract else None
                if known == "related":  # related work is background, but second to the introduction
                    section = 0.8 if role == "background" else -0.3
                elif known is not None:
                    section = 2.0 if known == role else -0.6
                scores[i, r] = section + 0.9 * prior + 0.6 * cue + 4.0 * float(similarity[i, r])
        return scores

    def _mmr(self, pool: list[int], relevance: np.ndarray, vectors: np.ndarray, taken: set[int],
             sentences: list[Sentence], target: int) -> list[int]:
        chosen: list[int] = []
        words = 0
        selected_vectors = [vectors[i] for i in taken]
        remaining = list(range(len(pool)))
        while remaining and words < target:
            best, best_score = None, -np.inf
            for k in remaining:
                i = pool[k]
                if words + sentences[i].words > self.max_words:
                    continue
                redundancy = max((float(vectors[i] @ v) for v in selected_vectors), default=0.0)
                score = self.mmr_lambda * float(relevance[k]) - (1 - self.mmr_lambda) * redundancy
                if redundancy > 0.9:
                    continue  # a near-duplicate of a chosen sentence
                if score > best_score:
                    best, best_score = k, score
            if best is None:
                break
            remaining.remove(best)
            i = pool[best]
            chosen.append(i)
            selected_vectors.append(vectors[i])
            words += sentences[i].words
        return chosen


def _normalise(values: np.ndarray) -> np.ndarray:
    values = np.asarray(values, dtype=np.float32)
    if values.size == 0:
        return values
    low, high = float(values.min()), float(values.max())
    if high - low < 1e-9:
        return np.full_like(values, 0.5)
    return (values - low) / (high - low)


def _quality(sentence: Sentence) -> float:
    """1.0 for a self-contained sentence of typical length; lower for back-references and citations."""
    score = 1.0
    if _BACK_REFERENCE.match(sentence.text):
        score -= 0.4
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
    return max(0.0, score)
