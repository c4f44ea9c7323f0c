"""The fixed dev/test split of pair folders and the gold read from real JATS files."""

from __future__ import annotations

import hashlib

import pytest

from mmdocsum_desktop.bench.pairs_gold import (
    XREF_MARK,
    GoldError,
    canonical_label,
    read_gold,
    strip_citations,
)
from mmdocsum_desktop.bench.pairs_split import SPLIT_DEV_PERCENT, pairs_in, split_of
from tests.bench.conftest import PMC_TEST_PAPERS
from tests.conftest import CORPUS, DATA_PAPERS

PMC = CORPUS / "pmc"


def _hash_half(name: str) -> str:
    digest = int(hashlib.sha256(name.encode()).hexdigest()[:8], 16)
    return "dev" if digest % 100 < SPLIT_DEV_PERCENT else "test"


def test_split_is_the_documented_hash_of_the_stem():
    # the committed pairs: PMC2803133, PMC4521097, PMC4736972 (pymupdf_test_3780.pdf has no JATS: left out)
    items = pairs_in(DATA_PAPERS)
    assert [item.name for item in items] == ["PMC2803133", "PMC4521097", "PMC4736972"]
    assert all(item.pdf is not None and item.split == _hash_half(item.name) for item in items)
    dev, test = pairs_in(DATA_PAPERS, "dev"), pairs_in(DATA_PAPERS, "test")
    assert sorted(i.name for i in dev + test) == [i.name for i in items]
    assert {i.name for i in dev}.isdisjoint({i.name for i in test})
    # a path or a file name lands in the same half as its stem
    path = DATA_PAPERS / "PMC4736972.xml"
    assert split_of("PMC4736972") == split_of("PMC4736972.pdf") == split_of(str(path)) == _hash_half("PMC4736972")


@pytest.mark.corpus
def test_the_corpus_splits_about_sixty_forty():
    items = pairs_in(PMC)
    assert len(items) == 104 and all(item.pdf is not None for item in items)
    assert all(item.split == _hash_half(item.name) for item in items)
    dev, test = pairs_in(PMC, "dev"), pairs_in(PMC, "test")
    assert {i.name for i in dev}.isdisjoint({i.name for i in test})
    assert len(dev) + len(test) == 104 and 0.5 < len(dev) / 104 < 0.7


def test_jats_only_items_are_kept_and_lone_pdfs_are_not(tmp_path):
    (tmp_path / "a.xml").write_text("<article/>")
    (tmp_path / "b.pdf").write_bytes(b"%PDF-1.4")
    items = pairs_in(tmp_path)
    assert [(i.name, i.pdf) for i in items] == [("a", None)]
    with pytest.raises(ValueError):
        pairs_in(tmp_path, "train")


def test_gold_of_a_real_article_has_its_figures_citations_and_back_matter():
    gold = read_gold(DATA_PAPERS / "PMC4521097.xml")
    xml = (DATA_PAPERS / "PMC4521097.xml").read_text(encoding="utf-8")
    assert len(gold.visuals) == xml.count("<fig ") + xml.count("<table-wrap ")
    assert all(v.label for v in gold.visuals)
    first = gold.first_citations()
    cited = [g for g in first if g]
    assert len(cited) == len(set(cited)) and cited  # each figure is first cited once
    # the first paragraph that cites a figure is its gold slot, and its flow text no longer cites it
    slot = first.index(cited[0])
    assert cited[0] in gold.paragraphs[slot].cites
    paragraph = gold.paragraphs[slot]
    assert XREF_MARK not in paragraph.flow_text and len(paragraph.flow_text) < len(paragraph.text)
    assert gold.abstract and gold.back_texts and gold.section_titles


def test_figures_parked_in_back_count_and_their_captions_are_not_back_matter():
    path = PMC_TEST_PAPERS / "atoms4010009.xml"  # MDPI Atoms: all seven <fig> sit in <back>, none in <body>
    body, back = path.read_text(encoding="utf-8").split("<back>", 1)
    assert body.count("<fig ") == 0 and back.count("<fig ") == 7
    gold = read_gold(path)
    assert [v.label for v in gold.figures] == [f"Figure {k}" for k in range(1, 8)]
    assert not any(v.caption[:40] in " ".join(gold.back_texts) for v in gold.figures)


@pytest.mark.parametrize(
    ("marked", "expected"),
    [
        (f"as shown ({XREF_MARK}).", "as shown."),
        (f"increased (Figs. {XREF_MARK} and {XREF_MARK}), then", "increased, then"),
        (f"see {XREF_MARK}B for details", "for details"),
        (f"values in Table 3 were low [{XREF_MARK}a]", "values in were low"),
    ],
)
def test_citations_are_removed_with_their_brackets_and_words(marked, expected):
    assert strip_citations(marked.replace("Figs. " + XREF_MARK, "Figs. " + XREF_MARK)) == expected


def test_labels_are_canonical():
    assert canonical_label("Fig. 3.") == ("figure", "Figure 3")
    assert canonical_label("TABLE 2") == ("table", "Table 2")
    assert canonical_label("Figure S1") == ("figure", "Figure S1")
    assert canonical_label("Box 1") is None


def test_malformed_xml_is_a_gold_error(tmp_path):
    broken = tmp_path / "x.xml"
    broken.write_text("<article><body><p>unclosed</body>")
    with pytest.raises(GoldError, match="malformed XML"):
        read_gold(broken)


def test_a_structured_abstract_keeps_its_sections():
    gold = read_gold(PMC_TEST_PAPERS / "PMC7376533.xml")
    assert [title for title, _ in gold.abstract_sections] == ["Background", "Methods", "Results", "Conclusions"]
    assert all(text and text in gold.abstract for _, text in gold.abstract_sections)
    assert read_gold(DATA_PAPERS / "PMC4736972.xml").abstract_sections == []
