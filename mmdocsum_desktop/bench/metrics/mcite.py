"""MCiteBench: answer a question from shuffled evidence and distractors, citing the sources.

Sources carry normalised ids: a text passage is its index ("1", "2", …), a figure "Figure N", a table
"Table N". Scores, per record and then averaged over records (0..1; the paper prints ×100):

- **Source F1 / Source EM**: the set of ids cited anywhere in the answer against the gold evidence ids
  (as MCiteBench's scoring code builds them: figure/table numbers from ``evidence_keys``, text ids from
  ``text_2_idx``). F1 is 0 when nothing is cited; EM is 1 only for a non-empty exact set match.
- **Citation F1** (judge): per sentence that cites something, *support* 0/1/2 of the concatenated cited
  sources (→ 0, 0.5, 1; 0 when none of its citations exists) and *relevance* 0/1 of each cited source
  (0 for one that does not exist); recall = mean support, precision = mean over sentences of the mean
  relevance; F1 = their harmonic mean.
- **Answer accuracy** (judge): rating 0/1/2 against the reference answer, reported as sum / (2·n).

Differences from the MCiteBench scripts, on purpose: sentences and citations are split by rules here
(they ask GPT-4o to do it), and an answer that cites nothing scores 0 instead of being dropped
(their ``process_record`` drops it, which would reward never citing); ``n_uncited`` counts those.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from mmdocsum_desktop.bench.metrics.common import harmonic
from mmdocsum_desktop.schemas.bench import MCiteRecord
from mmdocsum_desktop.text.sentences import split_answer_sentences

CATEGORIES = ("explanation_single", "explanation_multi", "locating_single")

# -------------------------------------------------------------------------------------- citations


_BRACKETS = re.compile(r"\[([^\[\]]{1,40})\]")
# "Figure 3", "Fig. 4", "Image 2", "Table 5": a figure or table named in a sentence.
LABEL_MENTION = re.compile(r"\b(figure|fig\.?|image|img\.?|table|tab\.?)\s*(\d+)", re.IGNORECASE)


def citations_in(sentence: str) -> list[str]:
    """Normalised source ids cited in one sentence: "[1][2]", "[1, 3]", "[2-4]", "Figure 3(a)",
    "Fig. 3", "Image 2" (a figure), "Table 4", "[Table 2]"."""
    found: list[str] = []

    def add(source_id: str) -> None:
        if source_id not in found:
            found.append(source_id)

    for inner in _BRACKETS.findall(sentence):
        for piece in re.split(r"[,;]|\]\s*\[", inner):
            piece = piece.strip()
            span = re.fullmatch(r"(\d+)\s*[-–]\s*(\d+)", piece)
            if span and int(span.group(2)) - int(span.group(1)) < 20:
                for number in range(int(span.group(1)), int(span.group(2)) + 1):
                    add(str(number))
            elif piece.isdigit():
                add(str(int(piece)))
    for word, number in LABEL_MENTION.findall(sentence):
        add(f"{'Table' if word.lower().startswith('tab') else 'Figure'} {int(number)}")
    return found


def sentence_citations(response: str) -> list[tuple[str, list[str]]]:
    """(sentence, cited ids) for the sentences that cite something, in order."""
    pairs = []
    for sentence in split_answer_sentences(response or ""):
        cited = citations_in(sentence)
        if cited:
            pairs.append((sentence, cited))
    return pairs


def source_scores(gold: Sequence[str], predicted: Sequence[str]) -> dict[str, float]:
    gold_set, pred_set = set(gold), set(predicted)
    correct = len(gold_set & pred_set)
    recall = correct / len(gold_set) if gold_set else 0.0
    precision = correct / len(pred_set) if pred_set else 0.0
    return {
        "source_recall": recall,
        "source_precision": precision,
        "source_f1": harmonic(recall, precision) or 0.0,
        "source_em": 1.0 if gold_set and gold_set == pred_set else 0.0,
    }


def score_record(
    record: MCiteRecord, response: str, sentence_citation_list: Sequence[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Rule-based part of a record's score (no judge). ``sentence_citation_list``: the answer already
    split into MCiteBench's ``{"Sentence", "Citation"}`` pairs (the app's answers carry them; MCiteBench
    asks GPT-4o for them); without it the response is split by rules."""
    if sentence_citation_list is not None:
        pairs = [(str(p["Sentence"]), [str(c) for c in p["Citation"]]) for p in sentence_citation_list if p["Citation"]]
    else:
        pairs = sentence_citations(response)
    predicted = [c for _, cited in pairs for c in cited]
    row: dict[str, Any] = {
        "id": record.id,
        "category": record.category,
        "evidence_modal": record.evidence_modal,
        "gold": record.gold,
        "cited": sorted(set(predicted)),
        "unknown_citations": sorted({c for c in predicted if c not in record.sources}),
        "sentences": [{"sentence": s, "citations": c} for s, c in pairs],
        "uncited": not pairs,
        **source_scores(record.gold, predicted),
    }
    return row


# -------------------------------------------------------------------------------------- aggregation


def aggregate(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    def mean(key: str, subset: Sequence[dict[str, Any]]) -> float | None:
        values = [r[key] for r in subset if r.get(key) is not None]
        return sum(values) / len(values) if values else None

    def accuracy(subset: Sequence[dict[str, Any]]) -> float | None:
        ratings = [r["answer_rating"] for r in subset if r.get("answer_rating") is not None]
        return sum(ratings) / (2 * len(ratings)) if ratings else None

    result: dict[str, Any] = {
        "n_records": len(rows),
        "n_uncited": sum(1 for r in rows if r.get("uncited")),
        "source_f1": mean("source_f1", rows),
        "source_em": mean("source_em", rows),
        "citation_f1": mean("citation_f1", rows),
        "citation_recall": mean("citation_recall", rows),
        "citation_precision": mean("citation_precision", rows),
        "answer_accuracy": accuracy(rows),
        "n_judged_citations": sum(1 for r in rows if r.get("citation_f1") is not None),
        "n_judged_answers": sum(1 for r in rows if r.get("answer_rating") is not None),
    }
    by_category = {}
    for category in sorted({r.get("category", "unknown") for r in rows} | set(CATEGORIES)):
        subset = [r for r in rows if r.get("category") == category]
        if not subset:
            continue
        by_category[category] = {
            "n": len(subset),
            "source_f1": mean("source_f1", subset),
            "source_em": mean("source_em", subset),
            "citation_f1": mean("citation_f1", subset),
            "answer_accuracy": accuracy(subset),
        }
    result["by_category"] = by_category
    return result
