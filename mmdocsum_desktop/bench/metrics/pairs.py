"""Pure metric functions of the PDF + JATS pairs benchmark (``mmdocsum bench pairs``).

Nothing here reads files or runs models: each function takes texts, labels, rectangles or index lists
(what the suite extracted, and the gold from ``bench/pairs_gold.py``) and returns numbers.

Text is compared by word n-grams after the same normalisation on both sides (NFKC, soft hyphens
dropped, lower case, runs of letters and digits): a PDF block "belongs" to the JATS part (body,
abstract, back matter, captions, tables, front matter) whose n-grams it shares most.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

NGRAM = 4
# A block is attributed to a part when at least this share of its n-grams occurs there (else "nowhere").
MIN_SHARE = 0.3
# An extracted caption "matches" the gold caption from this bag-of-words F1 on (a line break or two,
# a label printed differently, a unit glyph lost must not fail it; half a caption must).
CAPTION_MATCH_F1 = 0.8
# Two visuals "share" a region when their rectangles overlap by more than this share of the smaller.
SHARED_REGION_OVERLAP = 0.2

# The fallback by single words: at least this many content words, this share of them the part's own.
MIN_OWN_WORDS = 4
MIN_OWN_SHARE = 0.4
_CONTENT = re.compile(r"^(?:[^\W\d_]{3,}|\d{4})$")  # words of 3+ letters and years; not "1", "of", "mg"

PARTS = ("body", "abstract", "back", "caption", "table", "front")
LEAK_PARTS = ("back", "caption", "table")

_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """Comparable words: NFKC (ligatures to letters), soft hyphens dropped, lower case."""
    return _WORD.findall(unicodedata.normalize("NFKC", text.replace("\u00ad", "")).lower())


def ngrams(tokens: Sequence[str], n: int = NGRAM) -> list[tuple[str, ...]]:
    if len(tokens) < n:
        return [tuple(tokens)] if tokens else []
    return [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]


class PartIndex:
    """Which JATS parts each word n-gram occurs in; answers "where does this text come from"."""

    def __init__(self, parts: Mapping[str, Iterable[str]], n: int = NGRAM) -> None:
        self.n = n
        self.grams: dict[str, set[tuple[str, ...]]] = {}
        self.vocab: dict[str, set[str]] = {}
        for name, texts in parts.items():
            grams: set[tuple[str, ...]] = set()
            vocab: set[str] = set()
            for text in texts:
                tokens = words(text)
                grams.update(ngrams(tokens, n))
                vocab.update(t for t in tokens if _CONTENT.match(t))
            self.grams[name] = grams
            self.vocab[name] = vocab
        prose = self.vocab.get("body", set()) | self.vocab.get("abstract", set())
        # words a part has and the prose does not (reference authors, journals, table cells)
        self.own_words = {name: vocab - prose for name, vocab in self.vocab.items() if name not in ("body", "abstract")}

    def shares(self, text: str) -> dict[str, float]:
        grams = ngrams(words(text), self.n)
        if not grams:
            return dict.fromkeys(self.grams, 0.0)
        return {name: sum(g in found for g in grams) / len(grams) for name, found in self.grams.items()}

    def part_of(self, text: str, prefer: Sequence[str] = ("body", "abstract")) -> str:
        """The part the text shares most n-grams with; ties go to ``prefer`` (body first)."""
        shares = self.shares(text)
        if not shares:
            return "nowhere"
        order = {name: i for i, name in enumerate(prefer)}
        best = max(shares, key=lambda name: (round(shares[name], 3), -order.get(name, len(order))))
        if shares[best] >= MIN_SHARE:
            return best
        return self._by_own_words(text)

    def _by_own_words(self, text: str) -> str:
        """Text whose word n-grams match nowhere — a reference the JATS structures as fields ("Gerlich T"
        for "T. Gerlich,"), a table cell split by the layout — is attributed to the part whose own words
        (absent from the body and abstract) make up most of it."""
        tokens = [t for t in words(text) if _CONTENT.match(t)]
        if len(tokens) < MIN_OWN_WORDS:
            return "nowhere"
        shares = {name: sum(t in own for t in tokens) / len(tokens) for name, own in self.own_words.items()}
        if not shares:
            return "nowhere"
        best = max(shares, key=lambda name: shares[name])
        return best if shares[best] >= MIN_OWN_SHARE else "nowhere"

    def covered(self, text: str, part: str) -> float:
        """Share of ``text``'s n-grams found in ``part``."""
        grams = ngrams(words(text), self.n)
        found = self.grams.get(part, set())
        return sum(g in found for g in grams) / len(grams) if grams else 0.0


# --------------------------------------------------------------------------------------------- figures


@dataclass
class LabelScores:
    recall: float | None
    precision: float | None
    missed: list[str] = field(default_factory=list)
    spurious: list[str] = field(default_factory=list)
    matched: list[str] = field(default_factory=list)


def label_scores(gold: Iterable[str], found: Iterable[str]) -> LabelScores:
    """Recall and precision of figure/table labels ("Figure 3", "Table 1"), compared case-blind.

    Both sides are sets: a label found twice (a figure continued on the next page) counts once."""
    gold_set = {g.lower() for g in gold}
    found_set = {f.lower() for f in found}
    matched = gold_set & found_set
    return LabelScores(
        recall=len(matched) / len(gold_set) if gold_set else None,
        precision=len(matched) / len(found_set) if found_set else None,
        missed=sorted(gold_set - found_set),
        spurious=sorted(found_set - gold_set),
        matched=sorted(matched),
    )


_LEADING_LABEL = re.compile(
    r"^\s*(?:supplementary\s+)?(?:figure|fig\.?|scheme|chart|plate|table|tab\.)\s*S?\d+[a-z]?(?:[-.–]\d+)?\s*[:.|—–-]?\s*",
    re.IGNORECASE,
)


def caption_f1(found: str, gold: str) -> float:
    """Bag-of-words F1 between an extracted caption and the gold caption, labels removed from both."""
    a = Counter(words(_LEADING_LABEL.sub("", found, count=1)))
    b = Counter(words(_LEADING_LABEL.sub("", gold, count=1)))
    if not a and not b:
        return 1.0
    hits = sum((a & b).values())
    if not hits:
        return 0.0
    precision, recall = hits / sum(a.values()), hits / sum(b.values())
    return 2 * precision * recall / (precision + recall)


Rect = tuple[float, float, float, float]


def _area(rect: Rect) -> float:
    return max(0.0, rect[2] - rect[0]) * max(0.0, rect[3] - rect[1])


def overlap_share(a: Rect, b: Rect) -> float:
    """Intersection over the smaller rectangle's area."""
    inter = max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    smaller = min(_area(a), _area(b))
    return inter / smaller if smaller > 0 else 0.0


def shared_regions(regions: Sequence[tuple[str, int | None, Rect | None]]) -> list[tuple[str, str]]:
    """Pairs of visuals (id, page, bbox) whose regions on one page overlap: one crop shows two figures."""
    pairs = []
    for i, (id_a, page_a, box_a) in enumerate(regions):
        if box_a is None:
            continue
        for id_b, page_b, box_b in regions[i + 1 :]:
            if box_b is None or page_a != page_b:
                continue
            if overlap_share(box_a, box_b) > SHARED_REGION_OVERLAP:
                pairs.append((id_a, id_b))
    return pairs


def body_text_share(crop_text: str, index: PartIndex) -> float:
    """Share of a crop's words that sit in n-grams of the article's body text and nowhere else that a
    figure may hold (captions, tables): a crop that is mostly running text is a wrong region."""
    tokens = words(crop_text)
    grams = ngrams(tokens, index.n)
    if len(tokens) < index.n or not grams:
        return 0.0
    body = index.grams.get("body", set())
    allowed = index.grams.get("caption", set()) | index.grams.get("table", set())
    covered = [False] * len(tokens)
    for start, gram in enumerate(grams):
        if gram in body and gram not in allowed:
            for position in range(start, start + len(gram)):
                covered[position] = True
    return sum(covered) / len(tokens)


# ------------------------------------------------------------------------------------------------ text

# What should never survive ingestion: replacement and private-use glyphs, soft hyphens, ligatures,
# and a word split by a hyphen and a space ("extracel- lular"; "pre- and post-" is English).
_LIGATURES = re.compile("[\ufb00-\ufb06]")
_PRIVATE = re.compile("[\ue000-\uf8ff]")
_HYPHEN_SPLIT = re.compile(r"\b[a-z]{2,}- (?!(?:and|or|to|nor|versus|vs)\b)[a-z]{2,}\b")


def broken_characters(text: str, written: str = "") -> dict[str, int]:
    """Counts of what should not survive; a "word- word" that the publisher's own text ``written`` (the
    JATS) holds too ("range- would", "lower- extremity") is the paper's writing, not a split."""
    splits = [s for s in _HYPHEN_SPLIT.findall(text) if s not in written]
    return {
        "replacement": text.count("\ufffd"),
        "private_use": len(_PRIVATE.findall(text)),
        "soft_hyphen": text.count("\u00ad"),
        "ligature": len(_LIGATURES.findall(text)),
        "hyphen_split": len(splits),
    }


def leak_shares(blocks: Sequence[str], index: PartIndex) -> dict[str, float]:
    """Share of extracted body characters attributed to each JATS part (and "nowhere")."""
    totals: Counter[str] = Counter()
    chars = 0
    for text in blocks:
        part = index.part_of(text)
        totals[part] += len(text)
        chars += len(text)
    return {part: totals[part] / chars if chars else 0.0 for part in (*PARTS, "nowhere")}


def paragraph_recall(gold_paragraphs: Sequence[str], extracted: str, min_share: float = 0.5) -> float | None:
    """Share of gold body paragraphs (of 8 words or more) whose n-grams are mostly in the extracted text."""
    found = set(ngrams(words(extracted)))
    considered = recovered = 0
    for paragraph in gold_paragraphs:
        grams = ngrams(words(paragraph))
        if len(grams) < 5:
            continue
        considered += 1
        recovered += sum(g in found for g in grams) / len(grams) >= min_share
    return recovered / considered if considered else None


_NUMBERING = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?|[IVX]+\.|[A-Z]\.)\s+")


def heading_recall(gold_titles: Sequence[str], headings: Sequence[str]) -> float | None:
    """Share of JATS section titles that an extracted heading spells (numbering and case aside)."""
    extracted = [" ".join(words(_NUMBERING.sub("", h))) for h in headings]
    considered = hits = 0
    for title in gold_titles:
        wanted = " ".join(words(_NUMBERING.sub("", title)))
        if not wanted:
            continue
        considered += 1
        hits += any(wanted == h or (len(wanted) > 12 and wanted in h and len(h) < 1.5 * len(wanted)) for h in extracted)
    return hits / considered if considered else None


def text_recall(reference: str, candidate: str) -> float:
    """Share of the reference's n-grams found in the candidate (the abstract found, a title matched)."""
    grams = ngrams(words(reference))
    found = set(ngrams(words(candidate)))
    return sum(g in found for g in grams) / len(grams) if grams else 0.0


def title_matches(gold_title: str, first_pages_text: str, min_share: float = 0.6) -> bool:
    """The PDF is the article the JATS describes: most words of its title are on the first pages."""
    wanted = [w for w in words(gold_title) if len(w) > 2]
    if not wanted:
        return True
    present = set(words(first_pages_text))
    return sum(w in present for w in wanted) / len(wanted) >= min_share


# ---------------------------------------------------------------------------------------------- flow


@dataclass
class FlowScores:
    acc_b: float | None
    acc_i: float | None
    acc_ni: float | None
    within_one: float | None
    n_slots: int
    n_image_slots: int
    correct: int
    correct_image: int
    correct_none: int
    near: int
    n_gold_figures: int

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def flow_scores(gold: Sequence[str | None], predicted: Sequence[str | None]) -> FlowScores:
    """FTII's Acc_b / Acc_i / Acc_ni over paragraph slots, and the share of gold figures placed within
    one paragraph of their gold slot (a figure placed twice counts where it is nearest)."""
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold slots but {len(predicted)} predictions")
    correct = correct_image = correct_none = images = 0
    for truth, guess in zip(gold, predicted):
        hit = (truth or None) == (guess or None)
        correct += hit
        if truth:
            images += 1
            correct_image += hit
        else:
            correct_none += hit
    positions: dict[str, list[int]] = {}
    for slot, guess in enumerate(predicted):
        if guess:
            positions.setdefault(guess, []).append(slot)
    near = 0
    gold_figures = [(slot, truth) for slot, truth in enumerate(gold) if truth]
    for slot, truth in gold_figures:
        near += any(abs(slot - other) <= 1 for other in positions.get(truth, []))
    total, nones = len(gold), len(gold) - images
    return FlowScores(
        acc_b=correct / total if total else None,
        acc_i=correct_image / images if images else None,
        acc_ni=correct_none / nones if nones else None,
        within_one=near / len(gold_figures) if gold_figures else None,
        n_slots=total,
        n_image_slots=images,
        correct=correct,
        correct_image=correct_image,
        correct_none=correct_none,
        near=near,
        n_gold_figures=len(gold_figures),
    )


def citing_hits(cites: Sequence[Iterable[str]], predicted: Sequence[str | None]) -> tuple[int, int]:
    """(placed visuals that follow a paragraph citing them, visuals placed): the lenient reading of
    placement — the paragraph a figure is placed after discusses it at all (issue 43's citing precision).
    ``cites``: per slot, the keys of the visuals that paragraph cites."""
    if len(cites) != len(predicted):
        raise ValueError(f"{len(cites)} slots of citations but {len(predicted)} predictions")
    placed = [(set(c), guess) for c, guess in zip(cites, predicted) if guess]
    return sum(guess in c for c, guess in placed), len(placed)


def pool_flow_scores(rows: Iterable[FlowScores]) -> FlowScores:
    """Scores over every slot of several papers (FTII pools slots, it does not average papers)."""
    rows = list(rows)
    total = sum(r.n_slots for r in rows)
    images = sum(r.n_image_slots for r in rows)
    nones = total - images
    gold_figures = sum(r.n_gold_figures for r in rows)
    correct = sum(r.correct for r in rows)
    correct_image = sum(r.correct_image for r in rows)
    correct_none = sum(r.correct_none for r in rows)
    near = sum(r.near for r in rows)
    return FlowScores(
        acc_b=correct / total if total else None,
        acc_i=correct_image / images if images else None,
        acc_ni=correct_none / nones if nones else None,
        within_one=near / gold_figures if gold_figures else None,
        n_slots=total,
        n_image_slots=images,
        correct=correct,
        correct_image=correct_image,
        correct_none=correct_none,
        near=near,
        n_gold_figures=gold_figures,
    )


def match_paragraphs(extracted: Sequence[str], gold: Sequence[str], min_share: float = 0.4) -> list[int | None]:
    """For each extracted paragraph, the gold paragraph it mostly comes from (by n-grams), or None."""
    owner: dict[tuple[str, ...], int] = {}
    for position, text in enumerate(gold):
        for gram in ngrams(words(text)):
            owner.setdefault(gram, position)
    matches: list[int | None] = []
    for text in extracted:
        grams = ngrams(words(text))
        votes = Counter(owner[g] for g in grams if g in owner)
        if not votes:
            matches.append(None)
            continue
        best, count = votes.most_common(1)[0]
        matches.append(best if count >= min_share * len(grams) else None)
    return matches


def transfer_gold(matches: Sequence[int | None], gold: Sequence[str | None]) -> list[str | None]:
    """The gold of extracted paragraphs: a gold paragraph's figure goes to the first extracted paragraph
    that comes from it (a JATS paragraph split over a column break is one slot, not two)."""
    given: set[int] = set()
    out: list[str | None] = []
    for match in matches:
        if match is None or match in given:
            out.append(None)
            continue
        given.add(match)
        out.append(gold[match])
    return out


# ------------------------------------------------------------------------------------------- summaries


def provenance(sentence: str, index: PartIndex) -> str:
    """Where a summary sentence comes from: body, abstract, back, caption, table, front or nowhere."""
    return index.part_of(sentence, prefer=("body", "abstract", "caption", "table", "back", "front"))


def grounded(figure_key: str | None, sentence_sections: Iterable[str | None], citing_sections: Mapping[str, set[str]]) -> bool | None:
    """A paragraph's figure is grounded when the JATS cites it in a section its sentences come from.

    ``citing_sections``: figure key → the sections whose paragraphs cite it. None when no figure."""
    if figure_key is None:
        return None
    sections = {s for s in sentence_sections if s}
    return bool(sections & citing_sections.get(figure_key, set()))


def mean(values: Iterable[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


def gold_parts(gold: Any) -> PartIndex:  # a bench.pairs_gold.PairGold (metrics import no loaders)
    """The index of a pair's JATS parts (body, abstract/digest, back matter, captions, tables, front
    matter) that summary sentences and extracted blocks are attributed to."""
    return PartIndex({
        "body": [p.text for p in gold.paragraphs] + gold.section_titles,
        "abstract": [gold.abstract, gold.digest],
        "back": gold.back_texts,
        "caption": gold.caption_texts,
        "table": gold.table_texts,
        "front": gold.front_texts,
    })


# ------------------------------------------------------------------------------ what a reader sees first
# The numbers of issue 24: is the title the paper's, are the words the paper's, are the four paragraphs
# there, in their roles, without abstract labels, and illustrated where their evidence cites a figure.

# A title "matches" from this bag-of-words F1 on: a lost dash or a ligature may differ, a journal name,
# a file name ("Research.indd") or a cover page's sentence never comes close.
TITLE_MATCH_F1 = 0.9
FOREIGN_MIN_LETTERS = 4
_LETTERS = re.compile(r"[^\W\d_]+")


def title_f1(gold_title: str, found_title: str | None) -> float:
    """Bag-of-words F1 between the title the app shows and the JATS ``<article-title>``."""
    a, b = Counter(words(found_title or "")), Counter(words(gold_title))
    if not a or not b:
        return 0.0 if (a or b) else 1.0
    hits = sum((a & b).values())
    if not hits:
        return 0.0
    precision, recall = hits / sum(a.values()), hits / sum(b.values())
    return 2 * precision * recall / (precision + recall)


def title_correct(gold_title: str, found_title: str | None) -> bool | None:
    """The app's title is the article's (F1 ≥ TITLE_MATCH_F1); None when the JATS has no title."""
    if not words(gold_title):
        return None
    return title_f1(gold_title, found_title) >= TITLE_MATCH_F1


def letter_words(text: str) -> list[str]:
    """Runs of letters after NFKC and lower case (digits and punctuation split words): "fi rst" → fi, rst."""
    return _LETTERS.findall(unicodedata.normalize("NFKC", text.replace("\u00ad", "")).lower())


def vocabulary_of(texts: Iterable[str]) -> set[str]:
    """Every letter-word the texts use (the JATS: title, abstract, body, captions, tables, back, front)."""
    found: set[str] = set()
    for text in texts:
        found.update(letter_words(text))
    return found


def foreign_words(text: str, vocabulary: set[str], min_letters: int = FOREIGN_MIN_LETTERS) -> list[str]:
    """Words of ``min_letters`` letters or more that the paper's JATS never uses: broken ("infl uenza"
    gives "infl" and "uenza") and glued ("smallbowel") words, misread glyphs."""
    return [w for w in letter_words(text) if len(w) >= min_letters and w not in vocabulary]


def per_thousand(count: int, total: int) -> float | None:
    return 1000.0 * count / total if total else None


def jats_vocabulary(gold: Any) -> set[str]:  # a PairGold
    """The vocabulary of a pair's whole JATS, the reference for :func:`foreign_words`."""
    return vocabulary_of([gold.title, gold.abstract, gold.digest, *(p.text for p in gold.paragraphs),
                          *gold.section_titles, *gold.back_texts, *gold.caption_texts, *gold.table_texts,
                          *gold.front_texts])


# A structured abstract's label set into its paragraph ("Background:", "Case presentation:", "Método:",
# "Methods and Findings:"): one to four words, a colon, then the text. What a summary must not keep.
_RUN_IN_LABEL = re.compile(r"^\s*(?:((?:[^\W\d_][\w'’/&-]*)(?:\s+[\w'’/&-]+){0,3})\s*[:：]\s+(?=\S)|"
                           r"(abstract|summary)\s*[—–]\s*(?=\S))", re.UNICODE | re.I)
# prose with a colon, not a label: "The ratio: 3 to 1", "P: 0.05"
_NOT_A_LABEL = re.compile(r"^(?:ratio|p|n|(?:the|a|an|this|these|our|we|in|for)\s.*)$", re.I)


def run_in_labels(sentences: Iterable[str]) -> list[str]:
    """Labels (run-in headings) that open summary sentences: "Background", "Case presentation"."""
    found = []
    for sentence in sentences:
        match = _RUN_IN_LABEL.match(sentence)
        label = match and (match.group(1) or match.group(2))
        if label and not _NOT_A_LABEL.match(label) and label[:1].isupper():
            found.append(label)
    return found


def empty_paragraphs(texts: Sequence[str]) -> int:
    """Paragraphs with no words at all."""
    return sum(1 for t in texts if not letter_words(t or ""))


# The roles of a structured abstract's sections, by their titles (English, Portuguese, Spanish, French).
_ABSTRACT_ROLES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("background", re.compile(r"^(background|introduction|context|rationale|objectives?|aims?|purpose|"
                              r"aims? and objectives?|goals?|problem|importance|introdu[cç][aã]o|introducci[oó]n|"
                              r"contexto|objetivos?|fundamentos?|antecedentes|justificativa|objectifs?)\b", re.I)),
    ("method", re.compile(r"^(methods?|materials?( and methods?)?|methodology|methods and materials|design|"
                          r"study design|setting|participants|patients and methods|experimental|approach|"
                          r"case (presentation|report|description)|m[eé]todos?|metodologia|material e m[eé]todos?|"
                          r"m[eé]thodes?)\b", re.I)),
    ("results", re.compile(r"^(results?|findings|main (results|outcomes?)|principal findings|key findings|"
                           r"resultados?|r[eé]sultats?)\b", re.I)),
    ("conclusion", re.compile(r"^(conclusions?|interpretation|significance|implications?|discussion|"
                              r"conclus[aã]o|conclus[oõ]es|conclusi[oó]n(es)?|considera[cç][oõ]es finais|"
                              r"discuss[aã]o)\b", re.I)),
)
ROLE_ORDER = ("background", "method", "results", "conclusion")


def abstract_role(title: str) -> str | None:
    """The summary role a structured abstract's section title stands for, or None ("Trial registration")."""
    text = re.sub(r"[\s:.]+$", "", " ".join(title.split()))
    for role, pattern in _ABSTRACT_ROLES:
        if pattern.match(text):
            return role
    return None


def abstract_by_role(sections: Sequence[tuple[str, str]]) -> dict[str, str]:
    """A structured abstract's sections joined per role; {} unless it has a background, results and
    conclusion section (the method may be a "Case presentation"): a "structured" abstract is one a
    paragraph of each role can be compared with."""
    by_role: dict[str, list[str]] = {}
    for title, text in sections:
        role = abstract_role(title)
        if role is not None and text.strip():
            by_role.setdefault(role, []).append(text.strip())
    if not {"background", "results", "conclusion"} <= set(by_role):
        return {}
    return {role: " ".join(by_role[role]) for role in ROLE_ORDER if role in by_role}


def illustration(figures: Sequence[str | None], notes: Sequence[str | None] | None = None) -> dict[str, int]:
    """Paragraphs shown with a figure, and those without one that say why (a note) or do not."""
    notes = list(notes) if notes is not None else [None] * len(figures)
    shown = sum(1 for f in figures if f)
    explained = sum(1 for f, n in zip(figures, notes) if not f and n)
    return {"illustrated": shown, "explained": explained, "unexplained": len(figures) - shown - explained}


def cited_visuals(gold: Any) -> set[str]:  # a PairGold
    """Keys ("figure 2", "table 1") of the visuals the JATS body cites: what a summary could show."""
    label_of = {v.id: v.key for v in gold.visuals if v.key}
    return {label_of[rid] for p in gold.paragraphs for rid in p.cites if rid in label_of}


def illustratable_roles(paragraphs: Iterable[tuple[str | None, bool]]) -> set[str]:
    """The summary roles whose sections cite a figure or table, from (role of a JATS paragraph's section
    or None, whether it cites one): the most paragraphs a grounded summary can illustrate. A paragraph
    under a section of no known role may fill any paragraph."""
    roles: set[str] = set()
    for role, cites in paragraphs:
        if cites:
            roles.update(ROLE_ORDER if role is None else ({"background"} if role == "related" else {role}))
    return roles & set(ROLE_ORDER)
