"""Placing figures after the user's own paragraphs (``mmdocsum place``, the Authoring view)."""


from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.errors import JobCancelled, MmdocsumError
from mmdocsum_desktop.jobs import JobControl, ensure_control
from mmdocsum_desktop.placement.candidates import (
    candidates_from_document,
    candidates_from_folder,
    read_captions_file,
)
from mmdocsum_desktop.placement.engine import (
    DEFAULT_STRATEGY,
    STRATEGIES,
    PlacementEngine,
    PlacementProblem,
    Strategy,
)
from mmdocsum_desktop.placement.scorer import candidate_texts
from mmdocsum_desktop.placement.sequence import heading_rows
from mmdocsum_desktop.schemas.document import Document
from mmdocsum_desktop.schemas.placement import ImageCandidate, Placement
from mmdocsum_desktop.schemas.settings import PlacementSettings
from mmdocsum_desktop.text.paragraphs import split_paragraphs
from mmdocsum_desktop.text.sentences import split_sentences

__all__ = ["DEFAULT_STRATEGY", "STRATEGIES", "FigureTextReading", "PlaceRequest", "PlacementRun", "Strategy", "figure_candidates", "folder_candidates",
           "image_pool", "markdown_structure", "place", "prepare_placement", "prepare_figure_text", "prepare_text", "read_captions_file", "run_placement"]

Sections = list[tuple[str, ...] | None]
# "## Methods": a Markdown ATX heading line (one to six #, then a space or the line's end)
_ATX = re.compile(r"^(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$")


@dataclass
class PlacementRun:
    placements: list[Placement]
    pool: list[ImageCandidate]
    models: list[str]  # what scored the images: "text embeddings", "OCR", "CLIP"
    warnings: list[str]
    timings: dict[str, float] = field(default_factory=dict)  # seconds per step: ocr_s, embed_s, rescore_s, assign_s
    # what placement read as the text's structure: per paragraph, is it a heading (never an image), and
    # the section titles it sits under (outermost first; None: none)
    headings: list[bool] = field(default_factory=list)
    sections: Sections = field(default_factory=list)


def _atx(line: str) -> tuple[int, str] | None:
    match = _ATX.match(line.strip())
    if match is None:
        return None
    return len(match.group(1)), (match.group(2) or "").strip()


def markdown_structure(paragraphs: Sequence[str]) -> tuple[list[bool], Sections, list[str]]:
    """What a writer's Markdown says about its paragraphs: (is each a heading, the section titles each
    sits under, the text placement should read of each).

    Headings are ATX lines (``## Methods``) and the heading-like short lines placement always treated as
    headings ("Results" alone above its text); an ATX line directly above a paragraph's text (no blank
    line between) heads that paragraph: its section, not its words. Levels nest (``###`` inside ``##``);
    a short line without ``#`` sits one level below the last ATX heading (or at level 2). The document's
    title — the first heading when no later heading is at its level or above (``# My paper`` over ``##``
    sections) — is no section: "Methods" in a title must not make every paragraph a methods one."""
    texts = [p or "" for p in paragraphs]
    rows = heading_rows(texts)
    levels: list[int | None] = []
    titles: list[str] = []
    bodies: list[str] = []
    for text, heading in zip(texts, rows):
        lines = text.strip().split("\n")
        atx = _atx(lines[0]) if lines and lines[0].strip() else None
        if heading:
            levels.append(atx[0] if atx else None)
            titles.append(atx[1] if atx else text.strip())
            bodies.append(text)
        elif atx is not None and len(lines) > 1:
            levels.append(atx[0])  # a heading line glued to its paragraph's text
            titles.append(atx[1])
            bodies.append("\n".join(lines[1:]).strip())
        else:
            levels.append(-1)  # not a heading
            titles.append("")
            bodies.append(text)
    heading_at = [i for i, level in enumerate(levels) if level != -1]
    title_row: int | None = None
    if heading_at:
        first = heading_at[0]
        top = levels[first] or 1
        if not any((levels[i] or 2) <= top for i in heading_at[1:]) and len(heading_at) > 1:
            title_row = first
    stack: list[tuple[int, str]] = []
    sections: Sections = []
    for i, level in enumerate(levels):
        if level != -1 and i != title_row:
            depth = level if level is not None else (stack[-1][0] + 1 if stack and stack[-1][0] < 6 else 2)
            while stack and stack[-1][0] >= depth:
                stack.pop()
            if titles[i]:
                stack.append((depth, titles[i]))
        sections.append(tuple(t for _, t in stack) or None)
    return [bool(h) for h in rows], sections, bodies

def figure_candidates(document: Document, root: Path | None = None, *, include_tables: bool = True,
                      require_image: bool = True) -> list[ImageCandidate]:
    """A document's figures (and tables) in document order, numbered as its summary numbers them; crops
    under ``root`` (where its document.json is). May be empty."""
    return candidates_from_document(document, root, include_tables=include_tables, require_image=require_image)


def folder_candidates(folder: Path, captions: Path | None = None) -> list[ImageCandidate]:
    """A folder's images with their captions (``captions`` or the folder's captions.json); may be empty,
    InputNotFoundError when the folder is not there."""
    return candidates_from_folder(folder, captions)


def image_pool(*, document: Document | None = None, root: Path | None = None, folder: Path | None = None,
               captions: Path | None = None, include_tables: bool = True,
               require_image: bool = True) -> list[ImageCandidate]:
    """The images to place: a folder's (captions from ``captions``/captions.json) or a document's
    figures (crops under ``root``, where its document.json is); an MmdocsumError when there are none."""
    if folder is not None:
        pool = folder_candidates(folder, captions)
    elif document is not None:
        pool = figure_candidates(document, root, include_tables=include_tables, require_image=require_image)
    else:
        raise MmdocsumError("open a document or choose a folder of images first")
    if not pool:
        raise MmdocsumError("there are no images to place (the document has no figures, or the folder is empty)")
    return pool


class PlaceRequest(BaseModel):
    """What one placement asks for (:func:`run_placement`): the user's paragraphs, the pool of images, and
    how to choose. The command line builds it from its flags, the window from its text and pool.

    ``paragraphs``: the user's text as typed (split the one way the window and ``mmdocsum place`` split
    it: :func:`~mmdocsum_desktop.text.paragraphs.split_paragraphs`), or paragraphs already split.
    ``sections``: the heading(s) each paragraph sits under, where known (a paper's own text); when not
    given, the text's own Markdown headings are read (:func:`markdown_structure`): they become the
    sections of the paragraphs below them and never get an image. ``headings=False``: the paragraphs are a
    plain list (``mmdocsum place`` with a JSON list): no entry is a heading and none has a section.
    ``placement``: the placement settings (None: the session's); ``threshold``: the calibrated score below
    which no image is placed (None: the settings'); ``top_k``: paragraphs the cross-encoder rescores per
    figure (None: the fitted model's)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    paragraphs: str | list[str]
    pool: list[ImageCandidate]
    sections: list[tuple[str, ...] | str | None] | None = None
    placement: PlacementSettings | None = None
    strategy: Strategy = DEFAULT_STRATEGY
    threshold: float | None = None
    top_k: int | None = None
    headings: bool = True


def run_placement(session: Session, request: PlaceRequest, control: JobControl | None = None) -> PlacementRun:
    """For each paragraph the image of the request's pool that belongs after it, or none; each image at
    most once. The models are the session's (loaded once per process; the cross-encoder and OCR only when
    a call needs them)."""
    prepared = prepare_placement(session, request.paragraphs, request.pool, sections=request.sections,
                                 placement=request.placement, threshold=request.threshold, control=control,
                                 top_k=request.top_k, headings=request.headings)
    engine = prepared.engine
    placements = list(engine.assign(prepared.problem, request.strategy, control=control))
    for placed, text in zip(placements, prepared.written):
        placed.paragraph_text = text  # the paragraph as written (a heading line glued to it included)
    shown: Sections = [(s,) if isinstance(s, str) else (tuple(s) if s else None) for s in prepared.sections]
    return PlacementRun(placements, list(request.pool), engine.models_in_use(), list(engine.warnings),
                        dict(engine.timings), headings=prepared.headings, sections=shown)


def place(
    session: Session,
    paragraphs: str | Sequence[str],
    pool: Sequence[ImageCandidate],
    *,
    sections: Sequence[Sequence[str] | str | None] | None = None,
    placement: PlacementSettings | None = None,
    strategy: Strategy = DEFAULT_STRATEGY,
    threshold: float | None = None,
    control: JobControl | None = None,
    top_k: int | None = None,
    headings: bool = True,
) -> PlacementRun:
    """:func:`run_placement` with the :class:`PlaceRequest`'s fields as arguments: what the benchmarks and
    tests call (the front ends build the request)."""
    if strategy not in STRATEGIES:
        raise MmdocsumError(f"unknown strategy {strategy!r}: use one of {', '.join(STRATEGIES)}")
    request = PlaceRequest(
        paragraphs=paragraphs if isinstance(paragraphs, str) else list(paragraphs), pool=list(pool),
        sections=None if sections is None else [s if s is None or isinstance(s, str) else tuple(s) for s in sections],
        placement=placement, strategy=strategy, threshold=threshold, top_k=top_k, headings=headings)
    return run_placement(session, request, control)


@dataclass
class PreparedPlacement:
    """What :func:`place` reads and scores before it assigns: the engine, the scored problem, the
    paragraphs as written, which are headings, the sections each sits under."""

    engine: PlacementEngine
    problem: PlacementProblem
    written: list[str]
    headings: list[bool]
    sections: list[Sequence[str] | str | None]


def prepare_placement(
    session: Session,
    paragraphs: str | Sequence[str],
    pool: Sequence[ImageCandidate],
    *,
    sections: Sequence[Sequence[str] | str | None] | None = None,
    placement: PlacementSettings | None = None,
    threshold: float | None = None,
    control: JobControl | None = None,
    top_k: int | None = None,
    headings: bool = True,
    read_images: bool = True,
) -> PreparedPlacement:
    """:func:`place` up to the assignment (the same reading of the text, the same models and signals):
    what the placement fitting (``tools/fit_alignment.py``) reads, so that it fits on the user's path.
    ``read_images=False``: OCR is never loaded (crops take the text the content cache has, or none)."""
    engine = session.placement_engine(placement, threshold=threshold)
    if top_k is not None:
        engine.top_k = top_k
    if not read_images:
        engine.ocr_loader = None
    if isinstance(paragraphs, str):
        paragraphs = split_paragraphs(paragraphs)
    written = [p or "" for p in paragraphs]
    read: list[Sequence[str] | str | None]
    if not headings:
        rows, texts = [False] * len(written), written
        read = list(sections) if sections is not None else [None] * len(written)
    else:
        rows, found, texts = markdown_structure(written)
        read = list(sections) if sections is not None else list(found)
    problem = engine.prepare(texts, list(pool), control=control, sections=read, headings=rows)
    return PreparedPlacement(engine, problem, written, rows, read)


@dataclass
class FigureTextReading:
    """What :func:`prepare_figure_text` did: the crops of the pool, those whose text was in the content
    cache already, those read now, and those OCR could not read (a line each: which, and why)."""

    images: int = 0
    cached: int = 0
    read: int = 0
    failed: list[str] = field(default_factory=list)
    seconds: float = 0.0
    embedded: int = 0  # figure texts (captions, figure text, citing sentences) whose vectors are cached now


def prepare_figure_text(session: Session, pool: Sequence[ImageCandidate], control: JobControl | None = None, *,
                        wait_turn: Callable[[JobControl], None] | None = None,
                        embed: bool = True) -> FigureTextReading:
    """Read the text inside the pool's image crops into the content cache (keyed by each file's bytes), so
    that a later :func:`place` with figure text on finds every crop's text there and loads no OCR.

    Crops already in the cache are only hashed: a second call reads nothing and never loads RapidOCR.
    Progress counts crops ("3 of 12 figures"); ``control`` cancels between crops (the crop being read
    finishes first, a second or two). ``wait_turn(control)``, when given, is called before each crop is
    read: the desktop app waits there while foreground work needs the CPU. Crops OCR cannot read (a damaged
    file) are listed in ``failed`` and left for placement to report; OCR itself missing is an MmdocsumError.
    ``embed``: then the figures' side of placement is embedded too (captions, the text read, citing
    sentences: the vectors placement asks for, cached by text), so that placing on the document embeds
    only the user's paragraphs. Needs no PyMuPDF: the crops are image files already rendered."""
    control = ensure_control(control)
    started = time.perf_counter()
    images = [c.image for c in pool if c.image]
    done = FigureTextReading(images=len(images))
    texts: dict[str, str] = {}
    for position, image in enumerate(images):
        control.report(position, len(images), f"reading figure text: {position} of {len(images)} figures")
        known = session.models.ocr_text(image)
        if known is not None:
            texts[image] = known
            done.cached += 1
            continue
        if wait_turn is not None:
            wait_turn(control)
            control.check()
        engine = session.models.ocr()  # loaded on the first crop not in the cache only
        try:
            texts[image] = engine.read(image).text
        except JobCancelled:
            raise
        except MmdocsumError as error:  # a damaged or missing crop; placement says so when it runs
            done.failed.append(f"{Path(image).name}: {error}")
            continue
        done.read += 1
    if embed and pool:
        if wait_turn is not None:
            wait_turn(control)
        read = [c.model_copy(update={"ocr_text": texts.get(c.image or "", c.ocr_text)}) for c in pool]
        done.embedded = _embed_ahead(session, _figure_side(read), control)
    done.seconds = time.perf_counter() - started
    control.report(len(images), len(images), f"figure text read: {len(images)} of {len(images)} figures")
    return done


def prepare_text(session: Session, paragraphs: str | Sequence[str], pool: Sequence[ImageCandidate] = (),
                 control: JobControl | None = None, *, figure_text: bool = False, headings: bool = True,
                 rescore: bool = True) -> int:
    """Embed, into the content cache, what :func:`place` will embed for these paragraphs and this pool: the
    sentences of the paragraphs as ``place`` reads them (split, headings read as ``headings`` says), the
    pool's captions and citing sentences, and with ``figure_text`` the text of crops read before (never
    read here: no OCR runs). A later ``place`` then finds every vector cached. The desktop app runs this
    in the background while the user writes; the number of texts it asked for is returned (most are cache
    hits after the first call: only new or edited sentences are embedded). ``rescore``: with a pool, the
    cross-encoder's pairs of the alignment are scored too (the session remembers them), so that a ``place``
    after it only assigns."""
    control = ensure_control(control)
    if isinstance(paragraphs, str):
        paragraphs = split_paragraphs(paragraphs)
    written = [p or "" for p in paragraphs]
    texts = markdown_structure(written)[2] if headings else written
    wanted = [s for text in texts if text.strip() for s in split_sentences(text)]
    known: list[ImageCandidate] = []
    if pool:
        known = [c.model_copy(update={"ocr_text": (session.models.ocr_text(c.image) if figure_text and c.image
                                                   and c.ocr_text is None else c.ocr_text)}) for c in pool]
        wanted += _figure_side(known)
    asked = _embed_ahead(session, wanted, control)
    if asked and known and rescore:
        _rescore_ahead(session, written, known, headings, control)
    return asked


def _rescore_ahead(session: Session, paragraphs: Sequence[str], pool: Sequence[ImageCandidate], headings: bool,
                   control: JobControl) -> None:
    """The cross-encoder's pairs of the alignment, scored now as :func:`place` will ask for them (the same
    reading, the same embeddings, so the same pairs): the session's RememberedPairs keeps them, and
    ``place`` rescores none it has seen. A model that cannot run is left for ``place`` to report."""
    try:
        prepared = prepare_placement(session, paragraphs, pool, control=control, headings=headings, read_images=False)
        if "caption" in prepared.problem.sims:
            prepared.engine.alignment_inputs(prepared.problem, control)
    except JobCancelled:
        raise
    except (MmdocsumError, OSError):
        return


def _figure_side(pool: Sequence[ImageCandidate]) -> list[str]:
    """The texts placement embeds for a pool: captions, figure text, citing sentences (as its scorer
    chooses them: :func:`~mmdocsum_desktop.placement.scorer.candidate_texts`)."""
    views = candidate_texts(pool, use_caption=True, use_ocr=True, use_context=True)
    return [*views.caption, *views.ocr, *(s for sentences in views.context for s in sentences)]


def _embed_ahead(session: Session, texts: Sequence[str], control: JobControl) -> int:
    """Embed ``texts`` through the session's embedder so that they are cached; how many were asked for
    (0 when there is no embedder: placement says so itself when it runs)."""
    control.check()
    # as the placement engine embeds them (an empty text as one space), so that every one is a cache hit
    wanted = list(dict.fromkeys(t if t.strip() else " " for t in texts))
    if not wanted:
        return 0
    try:
        # the embedder's progress would stand for the caller's on its bar: it only checks for cancel
        session.embedder().embed(wanted, control=JobControl(on_progress=lambda *_step: control.check()))
    except JobCancelled:
        raise
    except (MmdocsumError, OSError):
        return 0
    return len(wanted)
