"""Deliberately damaged copies of a summary, to check that a judge measures anything.

Each function takes a summary record (the JSON form ``summarize.render.to_json`` writes: paragraphs
with ``text`` and ``figure``, the document's ``figures``) and returns a damaged deep copy, or None when
the damage cannot be made on that summary (no figure to move, no number to change). The copy says what
was done in ``damage``; its ``mdocsum`` answer is rebuilt so that every form of the record agrees.

- ``shuffle_figures``: the paragraphs' figures move to other paragraphs (each figure still shown once);
- ``foreign_paragraph``: one paragraph's text is replaced by the paragraph of the same role from a
  summary of another document; its figure stays;
- ``change_numbers``: every number in the text (not figure/table labels) gets other digits.
"""

from __future__ import annotations

import copy
import random
import re
from typing import Any

DAMAGES = ("shuffled_figures", "foreign_paragraph", "changed_numbers")

# A number in prose: 12, 0.936, 3.5%, 1,024; not the "3" of "Figure 3" / "Table 2" / "p. 4" / "Eq. 2",
# which are references rather than claims.
_NUMBER = re.compile(r"(?<![\w.])(\d+(?:[.,]\d+)*)(?![\w])")
_REFERENCE_BEFORE = re.compile(
    r"(?:fig(?:ure)?s?|tab(?:le)?s?|p|pp|pages?|eqs?|equations?|sec(?:tion)?s?|image|chapter|example|ref)\.?\s*\(?$",
    re.IGNORECASE,
)


def _refresh(record: dict[str, Any]) -> dict[str, Any]:
    record["mdocsum"] = [
        {
            "summary": paragraph.get("text") or "",
            "image": {
                "imageRef": str(paragraph["figure"]["index"]) if paragraph.get("figure") else "None",
                "imageCaption": (paragraph.get("image_caption") or "") if paragraph.get("figure") else "",
            },
        }
        for paragraph in record.get("paragraphs") or []
    ]
    return record


def shuffle_figures(record: dict[str, Any], seed: int = 0) -> dict[str, Any] | None:
    """Rotate the figures over the paragraphs by 1–3 places, so that no figure stays where it was."""
    paragraphs = record.get("paragraphs") or []
    shown = [(p.get("figure"), p.get("image_caption", "")) for p in paragraphs]
    if len(paragraphs) < 2 or not any(figure for figure, _ in shown):
        return None
    shift = random.Random(seed).randint(1, len(paragraphs) - 1)
    damaged = copy.deepcopy(record)
    moved = []
    for i, paragraph in enumerate(damaged["paragraphs"]):
        figure, caption = shown[(i - shift) % len(shown)]
        paragraph["figure"] = copy.deepcopy(figure)
        paragraph["image_caption"] = caption if figure else ""
        if figure:
            moved.append({"paragraph": i + 1, "figure": figure.get("label") or figure.get("index")})
    damaged["damage"] = {"kind": "shuffled_figures", "shift": shift, "now": moved}
    return _refresh(damaged)


def foreign_paragraph(
    record: dict[str, Any], donor: dict[str, Any], seed: int = 0
) -> dict[str, Any] | None:
    """Replace one paragraph's text by the donor summary's paragraph of the same role."""
    paragraphs = record.get("paragraphs") or []
    donor_by_role = {p.get("role"): p for p in donor.get("paragraphs") or [] if (p.get("text") or "").strip()}
    choices = [
        i
        for i, p in enumerate(paragraphs)
        if p.get("role") in donor_by_role and donor_by_role[p["role"]]["text"].strip() != (p.get("text") or "").strip()
    ]
    if not choices:
        return None
    index = random.Random(seed).choice(choices)
    damaged = copy.deepcopy(record)
    paragraph = damaged["paragraphs"][index]
    paragraph["text"] = donor_by_role[paragraph["role"]]["text"]
    paragraph["words"] = len(paragraph["text"].split())
    paragraph["sentences"] = []  # its citations pointed into the other document
    damaged["damage"] = {
        "kind": "foreign_paragraph",
        "paragraph": index + 1,
        "role": paragraph["role"],
        "from": donor.get("source"),
    }
    return _refresh(damaged)


def _other_digits(number: str, rng: random.Random) -> str:
    """The same shape (separators, number of digits) with the leading digit and the rest redrawn, so
    that the value always differs and still looks plausible."""
    digits = [i for i, ch in enumerate(number) if ch.isdigit()]
    chars = list(number)
    first = digits[0]
    leading = "123456789" if len(digits) > 1 and number[first] != "0" else "0123456789"
    chars[first] = rng.choice([d for d in leading if d != number[first]])
    for i in digits[1:]:
        chars[i] = rng.choice("0123456789")
    return "".join(chars)


def change_numbers(record: dict[str, Any], seed: int = 0) -> dict[str, Any] | None:
    """Give every number in the paragraphs' text other digits (labels such as "Figure 3" are kept)."""
    rng = random.Random(seed)
    damaged = copy.deepcopy(record)
    changes: list[dict[str, Any]] = []
    for k, paragraph in enumerate(damaged.get("paragraphs") or []):
        text = paragraph.get("text") or ""

        def swap(match: re.Match[str], k: int = k, text: str = text) -> str:
            if _REFERENCE_BEFORE.search(text[: match.start()]):
                return match.group(0)
            new = _other_digits(match.group(1), rng)
            changes.append({"paragraph": k + 1, "was": match.group(1), "now": new})
            return new

        paragraph["text"] = _NUMBER.sub(swap, text)
        if paragraph["text"] != text:
            paragraph["sentences"] = []  # their text no longer matches the paragraph
    if not changes:
        return None
    damaged["damage"] = {"kind": "changed_numbers", "changes": changes}
    return _refresh(damaged)


def damaged_versions(
    record: dict[str, Any], donor: dict[str, Any] | None, seed: int = 0
) -> dict[str, dict[str, Any] | None]:
    """Every damage of :data:`DAMAGES` for one summary (None where it does not apply)."""
    return {
        "shuffled_figures": shuffle_figures(record, seed),
        "foreign_paragraph": foreign_paragraph(record, donor, seed) if donor is not None else None,
        "changed_numbers": change_numbers(record, seed),
    }
