"""A figure whose region took in its caption: the words inside it are a passage without the caption
(the caption is a passage of its own), so Ask never answers "Text in Figure 2: Fig. 2 …" (issue 37,
point 6). On two committed pmc-test papers whose figure regions hold their captions."""

from __future__ import annotations

from mmdocsum_desktop.bench.splits import SPLITS_ROOT
from mmdocsum_desktop.document.reader import read_document
from mmdocsum_desktop.retrieval.passages import build_passages, without_caption
from mmdocsum_desktop.retrieval.visual_text import read_region_text

PAPERS = SPLITS_ROOT / "pmc-test" / "papers"


def _opening(caption: str) -> str:
    return " ".join(caption.split()[:5]).lower()


def test_figure_text_passages_do_not_repeat_the_caption():
    for name in ("PMC5745208.pdf", "PMC5497343.pdf"):
        document = read_document(PAPERS / name)
        regions = read_region_text(document)
        captions = {v.id: v.caption for v in document.visuals}
        # the regions of this paper's figures hold their captions (what made the repeats)
        held = [v.id for v in document.figures if v.id in regions and _opening(v.caption) in
                " ".join(regions[v.id].text.split()).lower()]
        assert len(held) >= 2, name
        passages = build_passages(document, region_text=regions)
        inside = [p for p in passages if p.kind in ("figure-text", "ocr")]
        for passage in inside:
            assert _opening(captions[passage.figure]) not in passage.text.lower(), (name, passage.text[:120])
        # each caption is still a passage, once
        for figure_id in held:
            assert sum(p.kind == "caption" and p.figure == figure_id for p in passages) == 1


def test_the_words_around_the_caption_stay():
    # PMC5497343's Figure 4: the chart's labels, then its caption, inside one region
    document = read_document(PAPERS / "PMC5497343.pdf")
    figure = next(v for v in document.figures if v.label == "Figure 4")
    region = " ".join(read_region_text(document)[figure.id].text.split())
    assert _opening(figure.caption) in region.lower()
    kept = without_caption(region, figure.caption)
    assert _opening(figure.caption) not in kept.lower()
    assert kept.startswith(region.split()[0]) and "Lipid peroxidation" in kept and "Concentration" in kept
    assert len(kept) < len(region)
    assert without_caption("Abundance 5e+07 Retention time", figure.caption) == "Abundance 5e+07 Retention time"
