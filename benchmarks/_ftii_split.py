"""Build an FTII-format split from the real papers of the shared corpus.

For every PDF in ``../shared/corpus/papers`` with at least one cited figure or table:

* text: body paragraphs in reading order (paragraph and list blocks, no abstract, nothing after the
  references heading, at least 8 words of mostly alphabetic text; a block that continues the previous
  one across a column or page break — the previous does not end a sentence and this one starts in lower
  case — is joined to it), with every "Figure N" / "Fig. N" / "Table N" citation removed
  (:func:`mmdocsum_desktop.placement.text.strip_mentions`);
* pool: every figure and table of the paper that has an image crop, in document order (uncaptioned
  pictures such as logos stay in the pool as distractors);
* gold: a paragraph's image is the first visual it cites that no earlier paragraph cited (a visual is
  inserted where it is first cited, and each image once, as in FTII); "" otherwise.

Written under ``benchmarks/results/ftii_papers/`` (gitignored): ``docs/<paper>/`` (document.json and the
figure crops, the images root), ``split_all.json`` / ``split_fit.json`` / ``split_test.json`` (FTII's
flow-insertion format), ``captions.json`` (image path -> caption, as ``bench ftii --captions`` reads it)
and ``annotations.json`` (image path -> caption, label, kind and the document's sentences that cite it,
each with the index of the split paragraph it came from, or null).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from _corpus import PAPERS, RESULTS

from mmdocsum_desktop.document.labels import find_mentions
from mmdocsum_desktop.document.reader import export_document, read_document
from mmdocsum_desktop.placement.text import strip_mentions
from mmdocsum_desktop.schemas.document import Document, Figure
from mmdocsum_desktop.text.sentences import split_sentences

SPLIT_DIR = RESULTS / "ftii_papers"
MIN_WORDS = 8
_REFERENCES = re.compile(r"^\s*(?:[\dIVX]+\.?\s*)?(references|bibliography|literature cited)\s*$", re.IGNORECASE)

# Papers are assigned to the fitting split or the test split alternately, in name order, among the
# papers that have at least one gold image; the calibration constants are fitted on "fit" only.
SPLITS = ("fit", "test")


@dataclass
class PaperSplit:
    id: str
    content: list[str]
    groundtruth: list[str]
    pool: list[str]
    annotations: dict[str, dict] = field(default_factory=dict)
    skipped_second_new: int = 0  # paragraphs that first-cite two visuals: only the first is gold


def load_or_export(pdf: Path, docs_dir: Path) -> Document:
    out = docs_dir / pdf.stem
    cached = out / "document.json"
    if cached.is_file():
        document = Document.load(cached)
        if Path(document.source).resolve() == pdf.resolve() and all(
            (out / v.image).is_file() for v in document.visuals if v.image
        ):
            return document
    document = read_document(pdf)
    export_document(document, out)
    return document


def _document_order(visual: Figure) -> tuple:
    if visual.page is not None and visual.bbox is not None:
        return (visual.page, round(visual.bbox[1]), visual.bbox[0])
    return (visual.page or 0, visual.index, 0)


def _is_body_text(text: str) -> bool:
    words = text.split()
    if len(words) < MIN_WORDS:
        return False
    if re.search(r"(?:\s\.){5,}|\.{5,}", text):  # table-of-contents leaders
        return False
    alphabetic = sum(1 for w in words if re.search(r"[A-Za-z]{2,}", w))
    return alphabetic / len(words) >= 0.6


def _continues(previous: str, text: str) -> bool:
    """Whether ``text`` is the rest of ``previous``, cut by a column or page break."""
    return not re.search(r"[.!?:][\"”')\]]*$", previous) and bool(re.match(r"[a-z(,;]", text))


def paper_split(pdf: Path, docs_dir: Path) -> PaperSplit:
    document = load_or_export(pdf, docs_dir)
    visuals = sorted((v for v in document.visuals if v.image), key=_document_order)
    by_label = {(v.kind, v.label.lower()): v for v in visuals if v.label}
    path_of = {v.id: f"docs/{pdf.stem}/{v.image}" for v in visuals}

    # Body blocks in reading order, a block continuing the previous one across a break joined to it.
    paragraphs: list[tuple[list[str], str]] = []  # (block ids, text)
    in_references = False
    for block in document.blocks:
        if block.type == "heading":
            in_references = bool(_REFERENCES.match(block.text))
            continue
        if in_references or block.is_abstract or block.type not in ("paragraph", "list"):
            continue
        text = " ".join(block.text.split())
        if paragraphs and _continues(paragraphs[-1][1], text):
            ids, previous = paragraphs[-1]
            paragraphs[-1] = ([*ids, block.id], f"{previous} {text}")
        else:
            paragraphs.append(([block.id], text))

    content: list[str] = []
    groundtruth: list[str] = []
    block_paragraph: dict[str, int] = {}
    cited: set[str] = set()
    skipped = 0
    for ids, original in paragraphs:
        text = strip_mentions(original)
        if not _is_body_text(text):
            continue
        gold = ""
        new = 0
        for kind, label in find_mentions(original):
            visual = by_label.get((kind, label.lower()))
            if visual is None or visual.id in cited:
                continue
            cited.add(visual.id)
            new += 1
            if not gold:
                gold = path_of[visual.id]
        skipped += max(0, new - 1)
        for block_id in ids:
            block_paragraph[block_id] = len(content)
        content.append(text)
        groundtruth.append(gold)

    annotations: dict[str, dict] = {}
    for visual in visuals:
        context = []
        for block in document.blocks:
            if block.type == "caption" or block.id not in visual.mentions:
                continue
            for sentence in split_sentences(block.text):
                if any(k == visual.kind and lab.lower() == (visual.label or "").lower() for k, lab in find_mentions(sentence)):
                    context.append({"sentence": sentence, "paragraph": block_paragraph.get(block.id)})
        annotations[path_of[visual.id]] = {
            "caption": visual.caption,
            "label": visual.label,
            "kind": visual.kind,
            "context": context,
        }
    return PaperSplit(pdf.stem, content, groundtruth, [path_of[v.id] for v in visuals], annotations, skipped)


def build(out_dir: Path = SPLIT_DIR) -> dict:
    """Write the split files; return a summary (papers per split, slots, image slots)."""
    docs_dir = out_dir / "docs"
    papers = []
    for pdf in sorted(PAPERS.glob("*.pdf")):
        split = paper_split(pdf, docs_dir)
        if any(split.groundtruth):
            papers.append(split)
    groups: dict[str, list[dict]] = {"all": [], "fit": [], "test": []}
    summary: dict = {"papers": {}, "splits": {}}
    for position, paper in enumerate(papers):
        which = SPLITS[position % 2]
        group = {
            "imagedatabase": [paper.pool],
            "news_text": [{"id": paper.id, "content": paper.content, "groundtruth": paper.groundtruth}],
        }
        groups["all"].append(group)
        groups[which].append(group)
        summary["papers"][paper.id] = {
            "split": which,
            "paragraphs": len(paper.content),
            "image_slots": sum(1 for g in paper.groundtruth if g),
            "pool": len(paper.pool),
            "second_new_citations_not_gold": paper.skipped_second_new,
        }
    for name, data in groups.items():
        (out_dir / f"split_{name}.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
        slots = [g for group in data for article in group["news_text"] for g in article["groundtruth"]]
        summary["splits"][name] = {"papers": len(data), "slots": len(slots), "image_slots": sum(1 for g in slots if g)}
    annotations = {path: note for paper in papers for path, note in paper.annotations.items()}
    (out_dir / "annotations.json").write_text(json.dumps(annotations, indent=1, ensure_ascii=False) + "\n")
    captions = {path: note["caption"] for path, note in annotations.items()}
    (out_dir / "captions.json").write_text(json.dumps(captions, indent=1, ensure_ascii=False) + "\n")
    return summary


if __name__ == "__main__":
    print(json.dumps(build(), indent=2))
