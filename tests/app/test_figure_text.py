"""Reading figure text ahead (issue 39, point 4): ``app.placement.prepare_figure_text`` fills the content
cache with the text inside a document's crops, so that ``place`` with figure text on reads none. Real
RapidOCR, a real SQLite content cache (the tests' own folder), the crops of a committed paper."""

from __future__ import annotations

from pathlib import Path

import pytest

from mmdocsum_desktop.app.placement import image_pool, place, prepare_figure_text, prepare_text
from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.errors import JobCancelled
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.schemas.placement import ImageCandidate
from mmdocsum_desktop.schemas.settings import PlacementSettings, Settings

PAPER = "pymupdf_test_3780.pdf"  # 5 pages, 3 labelled figures with text in them


def _fresh_session() -> Session:
    """A session with models of its own (nothing loaded yet), figure text on, over the tests' cache."""
    return Session(Settings(placement=PlacementSettings(ocr=True)))


def _unique_pool(exported, folder: Path) -> list[ImageCandidate]:
    """The paper's crops as files no other test has read: each the same picture with bytes after its end
    (another content-cache key), so the cache starts empty for them whatever ran before."""
    document, crops = exported(PAPER)
    pool = image_pool(document=document, root=crops)
    folder.mkdir()
    unique = []
    for index, candidate in enumerate(pool):
        assert candidate.image is not None
        copy = folder / f"{index}-{Path(candidate.image).name}"
        copy.write_bytes(Path(candidate.image).read_bytes() + str(folder).encode())
        unique.append(candidate.model_copy(update={"image": str(copy)}))
    return unique


def test_reading_ahead_fills_the_cache_once_and_place_then_reads_no_crop(exported, tmp_path):
    pool = _unique_pool(exported, tmp_path / "crops")
    assert len(pool) >= 3
    session = _fresh_session()
    assert all(session.models.ocr_text(c.image) is None for c in pool if c.image)  # nothing cached yet
    seen: list[tuple[int, int, str]] = []

    first = prepare_figure_text(session, pool, JobControl(on_progress=lambda *step: seen.append(step)))

    assert (first.images, first.read, first.cached, first.failed) == (len(pool), len(pool), 0, [])
    texts = {c.image: session.models.ocr_text(c.image) for c in pool if c.image}
    assert all(text is not None for text in texts.values())  # every crop's text is in the content cache
    assert any(text for text in texts.values()), "the paper's figures have words in them"
    runs = session.models.ocr().runs
    assert runs == len(pool)  # one RapidOCR call per crop
    assert seen[-1][:2] == (len(pool), len(pool)) and f"of {len(pool)} figures" in seen[-1][2]

    again = prepare_figure_text(session, pool)  # idempotent: everything is cached
    assert (again.read, again.cached) == (0, len(pool))
    assert session.models.ocr().runs == runs

    # another session (a new process's, or the window's after a restart): the cache alone answers, and
    # neither reading ahead nor placing loads RapidOCR
    later = _fresh_session()
    assert prepare_figure_text(later, pool).read == 0
    placed = [c.model_copy() for c in pool]
    run = place(later, [c.caption or "A paragraph about a figure." for c in pool], placed)
    assert later.models._ocr is None  # RapidOCR never loaded: no crop was read
    assert "OCR" in run.models  # figure text was used, from the cache
    assert {c.image: c.ocr_text for c in placed} == texts


def test_cancel_stops_between_crops_and_keeps_what_was_read(exported, tmp_path):
    pool = _unique_pool(exported, tmp_path / "crops")
    session = _fresh_session()
    control = JobControl()

    def stop_after_the_first(done: int, total: int, what: str) -> None:
        if done == 1:
            control.cancel()

    control.on_progress = stop_after_the_first
    turns: list[int] = []
    with pytest.raises(JobCancelled):
        prepare_figure_text(session, pool, control, wait_turn=lambda _control: turns.append(1))

    cached = [session.models.ocr_text(c.image) is not None for c in pool if c.image]
    assert cached == [True] + [False] * (len(pool) - 1)  # the first crop read, none after the cancel
    assert turns == [1]  # the foreground's turn was asked before the one crop read

    rest = prepare_figure_text(session, pool)  # a later run reads only what is missing
    assert (rest.cached, rest.read) == (1, len(pool) - 1)


def test_text_prepared_ahead_leaves_place_nothing_to_embed(exported, tmp_path):
    document, crops = exported(PAPER)
    pool = image_pool(document=document, root=crops)
    session = Session(Settings(placement=PlacementSettings(ocr=False)))
    embedder = session.models.embedder()
    # the writer's own text, new to the cache (the folder's name makes it unlike any other test's)
    text = (f"# Notes {tmp_path.name}\n\n## Results\n\nThe first figure shows the layout we measured in "
            f"{tmp_path.name}. It has two panels.\n\nWe compared it with the second one.\n")
    before = embedder.session_runs

    asked = prepare_text(session, text, pool)

    assert asked > 0 and embedder.session_runs > before  # the new sentences were embedded now
    runs = embedder.session_runs
    assert prepare_text(session, text, pool) == asked and embedder.session_runs == runs  # all cached
    run = place(session, text, pool)
    assert "text embeddings" in run.models
    assert embedder.session_runs == runs  # place found every vector it needed in the cache


def test_text_prepared_ahead_leaves_place_no_pair_to_rescore(exported, tmp_path):
    """The cross-encoder's pairs of the alignment are scored while the user writes: place after it runs
    the cross-encoder on nothing, and places as a session that prepared nothing does (issue 43, cost)."""
    document, crops = exported(PAPER)
    pool = image_pool(document=document, root=crops)
    text = (f"# Draft {tmp_path.name}\n\n## Results\n\nThe first figure shows the page layout of {tmp_path.name}, "
            "with its columns and the text blocks in them.\n\nThe last figure compares the two documents.\n")
    with Session(Settings(placement=PlacementSettings(ocr=False))) as unprepared:
        expected = place(unprepared, text, pool)
    with Session(Settings(placement=PlacementSettings(ocr=False))) as session:
        prepare_text(session, text, pool)
        scorer, why = session.models.pair_scorer()
        assert scorer is not None, why
        remembered, runs = len(scorer), scorer.model.session_runs
        assert remembered > 0  # the pairs were scored ahead
        run = place(session, text, pool)
        assert scorer.model.session_runs == runs and len(scorer) == remembered  # none scored again
    assert "cross-encoder" in run.models and "cross-encoder" in expected.models
    assert [(p.candidate, p.score) for p in run.placements] == [(p.candidate, p.score) for p in expected.placements]
