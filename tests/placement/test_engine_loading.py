"""What placement loads and reads, and when (issue 15's speed): the cross-encoder only when a figure is
rescored, OCR only for crops whose text is not in the content cache; real models throughout."""

from __future__ import annotations

import numpy as np

from mmdocsum_desktop.bench.pairs_gold import read_gold
from mmdocsum_desktop.models.ocr import cached_text
from mmdocsum_desktop.models.rerank import CrossEncoder
from mmdocsum_desktop.placement.candidates import candidates_from_document
from mmdocsum_desktop.placement.engine import PlacementEngine
from mmdocsum_desktop.placement.rescore import PAIR_MAX_LENGTH, RememberedPairs
from mmdocsum_desktop.schemas.placement import ImageCandidate
from tests.conftest import DATA

ARTICLE = DATA / "articles" / "elife-56337.nxml"  # committed (CC0)


def _counting(loader, calls: list[int]):
    def load():
        calls.append(1)
        return loader()

    return load


def _captioned_article():
    gold = read_gold(ARTICLE)
    figures = [v for v in gold.figures if v.caption.strip()]
    pool = [ImageCandidate(label=v.label, figure=v.label, caption=v.caption, order=k) for k, v in enumerate(figures)]
    return [p.flow_text for p in gold.paragraphs], pool


def test_the_cross_encoder_is_loaded_only_when_a_figure_is_rescored(embedder):
    paragraphs, pool = _captioned_article()
    calls: list[int] = []
    engine = PlacementEngine(embedder, None, None, top_k=0)
    engine.cross_encoder_loader = _counting(lambda: (CrossEncoder(max_length=PAIR_MAX_LENGTH), None), calls)

    engine.place(paragraphs, [c.model_copy() for c in pool])
    assert calls == [] and engine.cross_encoder is None  # top_k 0: nothing to rescore, nothing loaded

    engine.top_k = 3
    placements = engine.place(paragraphs, [c.model_copy() for c in pool])
    again = engine.place(paragraphs, [c.model_copy() for c in pool])
    assert calls == [1]  # loaded once, kept for the next call
    assert engine.cross_encoder is not None
    for run in (placements, again):
        assert any(p.why is not None and p.why.cross_encoder is not None for p in run)


def test_crops_read_before_take_their_text_from_the_cache_without_loading_ocr(ocr, embedder, paper_3780, tmp_path):
    document, folder = paper_3780
    pool = candidates_from_document(document, folder)
    assert len(pool) >= 2
    # the last crop is one no test has read yet: the same picture with a byte after its end is another
    # cache key (another test of the session may have read every crop of this paper)
    unread = tmp_path / "never-read.png"
    unread.write_bytes(open(pool[-1].image, "rb").read() + f"{tmp_path}".encode())
    pool[-1] = pool[-1].model_copy(update={"image": str(unread)})
    texts = {c.image: ocr.read_text(c.image) for c in pool[:-1]}  # all crops but the last read before
    assert any(t.strip() for t in texts.values()), "the test needs a crop with text in it"
    paragraphs = [c.caption or "A paragraph about the figure." for c in pool]

    def engine_with(calls: list[int]) -> PlacementEngine:
        engine = PlacementEngine(embedder, None, None)
        engine.ocr_lookup = lambda image: cached_text(image, cache=ocr.cache)
        engine.ocr_loader = _counting(lambda: (ocr, None), calls)
        return engine

    calls: list[int] = []
    runs = ocr.runs
    known = [c.model_copy() for c in pool[:-1]]
    engine_with(calls).place(paragraphs[:-1], known)
    assert calls == [] and ocr.runs == runs  # every crop's text came from the cache: OCR never loaded
    assert [c.ocr_text for c in known] == [texts[c.image] for c in known]

    fresh = [c.model_copy() for c in pool]
    engine_with(calls).place(paragraphs, fresh)
    assert calls == [1] and ocr.runs == runs + 1  # only the crop never read is read
    assert fresh[-1].ocr_text is not None
    assert cached_text(pool[-1].image, cache=ocr.cache) == fresh[-1].ocr_text  # and now it is cached too


def test_cached_text_is_none_for_an_image_never_read_or_a_missing_file(ocr, tmp_path, paper_3780):
    document, folder = paper_3780
    crop = candidates_from_document(document, folder)[0].image
    copy = tmp_path / "changed.png"
    copy.write_bytes(open(crop, "rb").read() + b"\0")  # other bytes: another key, even if it looks the same
    assert cached_text(copy, cache=ocr.cache) is None
    assert cached_text(tmp_path / "absent.png", cache=ocr.cache) is None


def test_remembered_pairs_rescore_only_the_pairs_of_an_edited_paragraph(embedder):
    paragraphs, pool = _captioned_article()
    paragraphs = paragraphs[:14]
    cross = CrossEncoder(max_length=PAIR_MAX_LENGTH)  # its own instance: runs counted from zero
    remembered = RememberedPairs(cross)  # what a session's models hand each placement engine

    def engine() -> PlacementEngine:
        return PlacementEngine(embedder, None, None, cross_encoder=remembered, top_k=3)

    first = engine().prepare(paragraphs, [c.model_copy() for c in pool])
    engine().rescore(first)
    scored = int(np.isfinite(first.ce).sum())
    assert cross.session_runs == scored > 0

    again = engine().prepare(paragraphs, [c.model_copy() for c in pool])
    engine().rescore(again)
    assert cross.session_runs == scored  # the same pairs: nothing run again
    np.testing.assert_array_equal(again.ce, first.ce)  # and the same logits (pairs are scored alone)

    edited = list(paragraphs)
    row = int(np.flatnonzero(np.isfinite(first.ce).any(axis=1))[0])  # a paragraph that was rescored
    edited[row] += " We note this again."
    changed = engine().prepare(edited, [c.model_copy() for c in pool])
    engine().rescore(changed)
    new_pairs = int(np.isfinite(changed.ce[row]).sum())
    # Pairs of other paragraphs that entered a figure's best 3 (the edit moves the paper's word
    # statistics a little, so a pair at the boundary of the top 3 may change): scored once, as new.
    entered = int((np.isfinite(changed.ce) & ~np.isfinite(first.ce))[np.arange(len(edited)) != row].sum())
    assert cross.session_runs == scored + new_pairs + entered  # nothing scored before is scored again
    assert entered <= 2
    fresh = PlacementEngine(embedder, None, None, cross_encoder=cross, top_k=3)  # no memory: every pair
    check = fresh.prepare(edited, [c.model_copy() for c in pool])
    fresh.rescore(check)
    np.testing.assert_allclose(changed.ce, check.ce, equal_nan=True)
