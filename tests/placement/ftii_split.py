"""A small FTII-format split built from a real paper (citations removed, gold = first citation)."""

from __future__ import annotations

import json
from pathlib import Path

from mmdocsum_desktop.document.labels import find_mentions
from mmdocsum_desktop.document.reader import export_document
from mmdocsum_desktop.placement.text import strip_mentions
from tests.conftest import read_paper


def build_paper_split(folder: Path, name: str = "pymupdf_test_3780.pdf", *, every: int = 3) -> dict:
    """Every paragraph that cites a visual, and every ``every``-th of the others (to keep tests quick)."""
    document = read_paper(name).model_copy(deep=True)
    export_document(document, folder / "doc")
    visuals = [v for v in document.visuals if v.image]
    by_label = {v.label.lower(): v for v in visuals if v.label}
    path_of = {v.id: f"doc/{v.image}" for v in visuals}
    content, gold, cited = [], [], set()
    others = 0
    for block in document.blocks:
        if block.type != "paragraph" or block.is_abstract or len(block.text.split()) < 8:
            continue
        if not find_mentions(block.text):
            others += 1
            if others % every:
                continue
        first = ""
        for _kind, label in find_mentions(block.text):
            visual = by_label.get(label.lower())
            if visual is not None and visual.id not in cited:
                cited.add(visual.id)
                first = first or path_of[visual.id]
        content.append(strip_mentions(block.text))
        gold.append(first)
    pool = [path_of[v.id] for v in visuals]
    data = [{"imagedatabase": [pool], "news_text": [{"id": Path(name).stem, "content": content, "groundtruth": gold}]}]
    (folder / "split.json").write_text(json.dumps(data))
    captions = {path_of[v.id]: v.caption for v in visuals}
    (folder / "captions.json").write_text(json.dumps(captions))
    return {"root": folder, "data": folder / "split.json", "captions": folder / "captions.json", "pool": pool}
