"""Text helpers of placement: figure-mention removal, tokens (``text.tokens.placement_tokens``) and a small
TF-IDF index.

The lexical index is the fallback when no embedder is available, and a signal of its own when one is:
OCR text of charts (axis labels, legends, model names, numbers) matches better word for word than in a
sentence-embedding space.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np

from mmdocsum_desktop.document.labels import _MENTION_RE, find_mentions, parse_caption_start
from mmdocsum_desktop.text.tokens import placement_tokens

# "(see Fig. 3b)", "(Figs. 2 and 3)", "(Table 1; Fig. 2)": a parenthesis that only cites visuals.
_MENTION = re.sub(r"\(\?P<\w+>", "(?:", _MENTION_RE.pattern)
_CITE_PAREN = re.compile(
    rf"\(\s*(?:see\s+|cf\.\s*|e\.g\.,?\s*|as\s+in\s+|in\s+)?(?:also\s+)?"
    rf"(?:{_MENTION})(?:\s*\([a-z]\))?"
    rf"(?:\s*(?:[,;]|and)\s*(?:{_MENTION})(?:\s*\([a-z]\))?)*\s*\)",
    re.VERBOSE,
)
# "Table 1 and Fig. 4(a)": a run of citations outside parentheses.
_CITE_RUN = re.compile(
    rf"(?:{_MENTION})(?:\s*\([a-z]\))?(?:\s*(?:[,;&]|and)\s*(?:{_MENTION})(?:\s*\([a-z]\))?)*", re.VERBOSE
)
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.;:)\]])")
_EMPTY_PARENS = re.compile(r"\(\s*(?:see|cf\.?)?\s*[,;]?\s*\)")

def strip_mentions(text: str) -> str:
    """Remove every "Figure N" / "Fig. Nb" / "Table N" citation, with the parenthesis around it."""
    text = _CITE_PAREN.sub("", text)
    text = _CITE_RUN.sub("", text)
    text = _EMPTY_PARENS.sub("", text)
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", text)
    return " ".join(text.split())


def caption_body(caption: str) -> str:
    """A caption without its leading label ("Fig. 3. Results" -> "Results")."""
    start = parse_caption_start(caption)
    if start is None:
        return caption.strip()
    return start.rest.strip()


def mentioned_labels(text: str) -> set[str]:
    """Lower-case labels the text cites ("figure 3", "table 2"); sub-panels cite their figure."""
    return {label.lower() for _kind, label in find_mentions(text)}


def tokens(text: str) -> list[str]:
    """Lower-case content words for lexical matching: :func:`text.tokens.placement_tokens` (the stop words
    placement's weights were fitted with)."""
    return placement_tokens(text)


def normalised(text: str) -> str:
    """Mention-free, lower-case, alphanumeric-only text, for "is this sentence part of that paragraph"."""
    return " ".join(re.findall(r"[^\W_]+", strip_mentions(text).lower()))


def contains_sentence(paragraph_norm: str, sentence: str) -> bool:
    """Whether ``sentence`` (mention-free) appears, word for word, in the normalised paragraph text."""
    norm = normalised(sentence)
    return bool(norm) and f" {norm} " in f" {paragraph_norm} "


class LexicalIndex:
    """TF-IDF (sublinear tf, smoothed idf) over the texts of one placement problem; cosine similarity."""

    def __init__(self, documents: Iterable[Sequence[str]]) -> None:
        frequency: Counter[str] = Counter()
        count = 0
        for doc in documents:
            count += 1
            frequency.update(set(doc))
        self.count = max(count, 1)
        self.idf = {term: math.log((1 + self.count) / (1 + df)) + 1.0 for term, df in frequency.items()}

    def vector(self, doc: Sequence[str]) -> dict[str, float]:
        counts = Counter(doc)
        default = math.log(1 + self.count) + 1.0
        weights = {t: (1.0 + math.log(c)) * self.idf.get(t, default) for t, c in counts.items()}
        norm = math.sqrt(sum(w * w for w in weights.values()))
        return {t: w / norm for t, w in weights.items()} if norm > 0 else {}

    @staticmethod
    def cosine(a: dict[str, float], b: dict[str, float]) -> float:
        if len(a) > len(b):
            a, b = b, a
        return float(sum(w * b.get(t, 0.0) for t, w in a.items()))

    def matrix(self, rows: Sequence[dict[str, float]], cols: Sequence[dict[str, float]]) -> np.ndarray:
        out = np.zeros((len(rows), len(cols)), dtype=np.float64)
        for i, row in enumerate(rows):
            if not row:
                continue
            for j, col in enumerate(cols):
                if col:
                    out[i, j] = self.cosine(row, col)
        return out
