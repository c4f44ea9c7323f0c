"""ROUGE-1/2/L against reference summaries (rouge-score, Porter-stemmed, one sentence per line).

``rougeL`` here is the summary-level LCS (rouge-score's ``rougeLsum``) over sentences written one per
line, the form summarisation papers (LoRaLay, arXiv/PubMed) report; ``rougeL_sentence`` is the plain
LCS over the whole text. Numbers are F-measures in 0..1 unless the key says otherwise. Overall values
are means over documents.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

from mmdocsum_desktop.errors import MissingDependencyError
from mmdocsum_desktop.text.sentences import split_sentences
from mmdocsum_desktop.text.tokens import rouge_tokens

ROUGE_KEYS = ("rouge1", "rouge2", "rougeL")


def sentences_per_line(text: str, language: str | None = None) -> str:
    """One sentence per line (blank lines and paragraph breaks collapse); what rougeLsum expects."""
    lines = []
    for block in re.split(r"\n\s*\n|\n", text):
        lines.extend(split_sentences(block, language))
    return "\n".join(lines)


class _CachedStemmer:
    """nltk's Porter stemmer (what rouge-score uses) with a memo: the same words recur constantly."""

    def __init__(self) -> None:
        try:
            from nltk.stem import porter  # lazy: nltk loads its data tables on import, only ROUGE needs it
        except ImportError as error:  # pragma: no cover — a dependency of rouge-score
            raise MissingDependencyError(
                "ROUGE needs the rouge-score package: pip install rouge-score"
            ) from error
        self._stemmer = porter.PorterStemmer()
        self._memo: dict[str, str] = {}

    def stem(self, word: str) -> str:
        stemmed = self._memo.get(word)
        if stemmed is None:
            stemmed = self._memo[word] = self._stemmer.stem(word)
        return stemmed


@cache
def _stemmer() -> _CachedStemmer:
    return _CachedStemmer()


def tokens(text: str, language: str | None = None) -> list[str]:
    """rouge-score's own tokenizer (lower case, alphanumeric runs, Porter stems of words over 3 letters) for
    English; for another ``language`` text.tokens.rouge_tokens, which keeps accented letters and Hangul
    (rouge-score's drops them) and does not stem (issue 26)."""
    if language and not language.lower().startswith("en"):
        return rouge_tokens(text)
    try:
        from rouge_score import tokenize  # lazy, as the stemmer: only ROUGE needs rouge-score
    except ImportError as error:  # pragma: no cover — a declared dependency
        raise MissingDependencyError(
            "ROUGE needs the rouge-score package: pip install rouge-score"
        ) from error
    tokens: list[str] = tokenize.tokenize(text, _stemmer())
    return tokens


def _f(hits: float, predicted: int, reference: int) -> tuple[float, float, float]:
    precision = hits / predicted if predicted else 0.0
    recall = hits / reference if reference else 0.0
    f = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return precision, recall, f


def _ngram_hits(a: list[str], b: list[str], n: int) -> tuple[int, int, int]:
    ref = Counter(tuple(a[i : i + n]) for i in range(len(a) - n + 1))
    pred = Counter(tuple(b[i : i + n]) for i in range(len(b) - n + 1))
    return sum(min(count, pred[gram]) for gram, count in ref.items()), sum(pred.values()), sum(ref.values())


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence, bit-parallel (Hyyrö 2004) on Python integers."""
    if not a or not b:
        return 0
    masks: dict[str, int] = {}
    for i, token in enumerate(a):
        masks[token] = masks.get(token, 0) | (1 << i)
    full = (1 << len(a)) - 1
    v = full
    for token in b:
        u = v & masks.get(token, 0)
        v = ((v + u) | (v - u)) & full
    return len(a) - v.bit_count()


def lcs_indices(a: Sequence[int], b: Sequence[int], masks: dict[int, int] | None = None) -> list[int]:
    """The indices into ``a`` of the LCS that rouge-score's backtracking picks (``lcs_ind``), without
    its quadratic table: bit-parallel columns, then a walk that jumps along each column.

    rouge-score walks back from the end: on a match it takes the diagonal, otherwise it moves up when
    that keeps the LCS length (ties go up) and left when it does not. Column j's bit vector ``V_j``
    has a 0 at row r exactly where L(r, j) = L(r-1, j) + 1, so the row where the walk must leave the
    column, and the match rows it may stop at first, are found with a few integer operations. Columns
    whose token does not occur in ``a`` change nothing and are stepped over together.
    """
    if not a or not b:
        return []
    if masks is None:
        masks = {}
        for i, token in enumerate(a):
            masks[token] = masks.get(token, 0) | (1 << i)
    relevant = [(j, masks[token]) for j, token in enumerate(b) if token in masks]
    if not relevant:
        return []
    full = (1 << len(a)) - 1
    columns: list[int] = []
    keep = columns.append
    v = full
    for _, mask in relevant:
        u = v & mask
        if u:
            v = ((v + u) | (v - u)) & full
        keep(v)
    length = len(a) - v.bit_count()
    picked: list[int] = []
    i, column = len(a), len(b)
    k = len(relevant) - 1
    while length and k >= 0:
        j, mask = relevant[k]
        zeros = ~columns[k] & ((1 << i) - 1)  # rows up to i where the column's value steps up
        for _ in range(length - 1):
            zeros &= zeros - 1
        lowest = (zeros & -zeros).bit_length()  # the first row with value ``length`` in this column
        if j + 1 < column:
            i = lowest  # the walk went up to here in the columns stepped over (same bit vector)
        matches = mask & ((1 << i) - 1) & ~((1 << (lowest - 1)) - 1)
        if matches:
            i = matches.bit_length() - 1
            picked.append(i)
            length -= 1
        else:
            i = lowest
        column = j
        k -= 1
    picked.reverse()
    return picked


def _union_lcs_hits(ref_sentences: list[list[str]], cand_sentences: list[list[str]]) -> tuple[int, int, int]:
    """Summary-level LCS hits exactly as rouge-score's ``_summary_level_lcs`` counts them (same
    backtracking tie-break, same clipping by token counts)."""
    ref_sentences = [s for s in ref_sentences if s]
    cand_sentences = [s for s in cand_sentences if s]
    m = sum(map(len, ref_sentences))
    n = sum(map(len, cand_sentences))
    if not m or not n:
        return 0, n, m
    vocabulary: dict[str, int] = {}
    ids_ref = [[vocabulary.setdefault(t, len(vocabulary)) for t in s] for s in ref_sentences]
    ids_cand = [[vocabulary.setdefault(t, len(vocabulary)) for t in s] for s in cand_sentences]
    counts_ref: Counter[str] = Counter(t for s in ref_sentences for t in s)
    counts_cand: Counter[str] = Counter(t for s in cand_sentences for t in s)
    hits = 0
    cand_sets = [set(c) for c in ids_cand]
    for sentence, ids in zip(ref_sentences, ids_ref):
        masks: dict[int, int] = {}
        for i, token in enumerate(ids):
            masks[token] = masks.get(token, 0) | (1 << i)
        reachable = {i for i, token in enumerate(ids) if any(token in c for c in cand_sets)}
        union: set[int] = set()
        for candidate, candidate_set in zip(ids_cand, cand_sets):
            if len(union) == len(reachable):
                break  # every index that any candidate could add is in already
            if not candidate_set.isdisjoint(masks):
                union.update(lcs_indices(ids, candidate, masks))
        for index in sorted(union):
            word = sentence[index]
            if counts_cand[word] > 0 and counts_ref[word] > 0:
                hits += 1
                counts_cand[word] -= 1
                counts_ref[word] -= 1
    return hits, n, m


def rouge(prediction: str, reference: str, language: str | None = None) -> dict[str, float]:
    """F-measures (and precision/recall) of one prediction against one reference: the numbers of
    rouge-score's ``RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=True)``
    (tests check they are identical), computed fast enough to score 500 documents in seconds. A
    ``language`` other than English scores with text.tokens.rouge_tokens (see ``tokens``)."""
    reference_lines = sentences_per_line(reference, language).split("\n")
    prediction_lines = sentences_per_line(prediction, language).split("\n")
    ref_sentences = [tokens(line, language) for line in reference_lines if line]
    pred_sentences = [tokens(line, language) for line in prediction_lines if line]
    ref_tokens = [t for s in ref_sentences for t in s]
    pred_tokens = [t for s in pred_sentences for t in s]
    result: dict[str, float] = {}
    for name, n in (("rouge1", 1), ("rouge2", 2)):
        hits, predicted, expected = _ngram_hits(ref_tokens, pred_tokens, n)
        precision, recall, f = _f(hits, max(predicted, 1), max(expected, 1))
        result[name], result[f"{name}_precision"], result[f"{name}_recall"] = f, precision, recall
    precision, recall, f = _f(*_union_lcs_hits(ref_sentences, pred_sentences))
    result["rougeL"], result["rougeL_precision"], result["rougeL_recall"] = f, precision, recall
    result["rougeL_sentence"] = _f(lcs_length(ref_tokens, pred_tokens), len(pred_tokens), len(ref_tokens))[2]
    return result


def mean_rouge(rows: Iterable[dict[str, Any]]) -> dict[str, float | None]:
    rows = [row for row in rows if row]
    keys = ("rouge1", "rouge2", "rougeL", "rougeL_sentence")
    if not rows:
        return dict.fromkeys(keys)
    return {key: sum(row[key] for row in rows) / len(rows) for key in keys}


def summary_text(paragraphs: Sequence[str]) -> str:
    return "\n".join(p.strip() for p in paragraphs if p and p.strip())
