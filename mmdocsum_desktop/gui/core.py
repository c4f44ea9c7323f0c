"""The GUI's calls into the application, as job functions ``fn(control, stream)`` for :class:`Job`.

These are the use cases the command line calls (:mod:`mmdocsum_desktop.app`), over the window's own
Session, which the window creates and hands the saved settings on the GUI thread before it starts a job
(:meth:`MainWindow.current_session`); a job only uses it. This module splits one progress bar over several
steps and turns results into what the views show.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from mmdocsum_desktop.app import catalog, present
from mmdocsum_desktop.app import summary as app_summary
from mmdocsum_desktop.app.judging import judge
from mmdocsum_desktop.app.placement import (
    PlaceRequest,
    figure_candidates,
    image_pool,
    prepare_figure_text,
    prepare_text,
    run_placement,
)
from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.bench import report
from mmdocsum_desktop.bench.compare import compare
from mmdocsum_desktop.errors import MmdocsumError
from mmdocsum_desktop.gui.subprocess_job import run_in_child
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.schemas.document import Document
from mmdocsum_desktop.schemas.summary import Summary

StreamFn = Callable[[str], None]
JobFn = Callable[[JobControl, StreamFn], Any]

sub_control = present.span_control  # one progress bar over several steps (the open and summary jobs)


# Imported by a background job when the window opens, so that no first use on the GUI thread (or a
# long module initialisation holding the GIL) stalls it later: the application's use cases (and through
# them the readers, the summary pipeline, placement and the engines), the libraries their models run on,
# and what the Benchmark view shows.
WARM_UP_MODULES = (
    "mmdocsum_desktop.app.summary",
    # the readers are imported by the first document of their kind (document.reader.format_reader)
    "mmdocsum_desktop.document.pdf",
    "mmdocsum_desktop.document.html",
    "mmdocsum_desktop.app.placement",
    "mmdocsum_desktop.app.ask",
    "mmdocsum_desktop.app.judging",
    "onnxruntime",
    "tokenizers",
    "scipy.optimize",
    "mmdocsum_desktop.bench.suites.mdocsum",
    "mmdocsum_desktop.bench.report",
)


def warm_up(session: Session, modules: tuple[str, ...] = WARM_UP_MODULES, *, embedder: bool = True) -> JobFn:
    """Import what the jobs will need and load the text embedder (an ONNX session whose creation holds
    the GIL for a while), right after the window appears rather than in the middle of a summary."""

    def run(control: JobControl, stream: StreamFn) -> list[str]:
        missing = []
        for position, name in enumerate(modules):
            control.report(position, len(modules) + 1, name)
            try:
                importlib.import_module(name)
            except ImportError:
                missing.append(name)
        if embedder:
            try:
                session.embedder()
            except (MmdocsumError, OSError, ImportError):
                missing.append("text embedder")  # the summary job says what is missing
        return missing

    return run


SUMMARY_IMAGE_WIDTH = 560


def scaled_images(paths: list[Path], width: int) -> dict[str, Any]:
    """{path: QImage at most ``width`` wide}, decoded off the GUI thread."""
    out: dict[str, Any] = {}
    for path in paths:
        image = QImage(str(path))
        if image.isNull():
            continue
        if image.width() > width:
            image = image.scaledToWidth(width, Qt.TransformationMode.SmoothTransformation)
        out[str(path)] = image
    return out


def make_thumbnails(paths: list[tuple[str, Path]], size: int) -> JobFn:
    """Scaled QImages of figure crops, made off the GUI thread (QImage is safe to use in a worker)."""

    def run(control: JobControl, stream: StreamFn) -> list[tuple[str, Any]]:
        out = []
        for position, (figure_id, path) in enumerate(paths):
            control.report(position, len(paths), "thumbnails")
            image = QImage(str(path))
            if not image.isNull():
                out.append((figure_id, image.scaled(size, size, Qt.AspectRatioMode.KeepAspectRatio,
                                                    Qt.TransformationMode.SmoothTransformation)))
        return out

    return run


# ------------------------------------------------------------------------------------ documents


def open_document(session: Session, path: Path, workspace_root: Path, *,
                  password: str | None = None) -> JobFn:
    """Read the file (as `mmdocsum extract` does, scanned pages with OCR) and render its figure crops
    into the workspace (:func:`app.present.open_document`)."""

    def run(control: JobControl, stream: StreamFn) -> Document:
        return present.open_document(session, path, workspace_root, password=password, control=control)

    return run


# ------------------------------------------------------------------------------------ summaries


def summarize(session: Session, document: Document, workspace_root: Path) -> JobFn:
    """The summary (as `mmdocsum summarize` writes it, through :func:`app.summary.summarize`) with the session's
    engine; an LLM's text streams to ``stream``."""

    def run(control: JobControl, stream: StreamFn) -> dict[str, Any]:
        current = session
        control.report(0, 100, f"starting the {current.engine_name()} engine")
        summary = app_summary.summarize(current, document, workspace_root, control=sub_control(control, 5, 100),
                                on_text=stream)
        control.report(100, 100, "done")
        return _prepared(summary, workspace_root)

    return run


def regenerate_paragraph(session: Session, document: Document, workspace_root: Path, summary: Summary,
                         index: int, attempt: int) -> JobFn:
    """Paragraph ``index`` written anew (:func:`app.summary.regenerate_paragraph`); the other three are kept."""

    def run(control: JobControl, stream: StreamFn) -> dict[str, Any]:
        current = session
        control.report(0, 100, f"starting the {current.engine_name()} engine")
        fresh = app_summary.regenerate_paragraph(current, document, summary, index, attempt=attempt,
                                         control=sub_control(control, 5, 100), on_text=stream)
        control.report(100, 100, "done")
        return _prepared(fresh, workspace_root)

    return run


def _prepared(summary: Summary, workspace_root: Path) -> dict[str, Any]:
    """The summary with its figures' images decoded here, not on the GUI thread."""
    paths = [workspace_root / p.figure.image for p in summary.paragraphs if p.figure and p.figure.image]
    return {"summary": summary, "images": scaled_images(paths, SUMMARY_IMAGE_WIDTH)}


def engine_name(session: Session) -> str:
    """The engine a summary would use with the session's settings ("auto" resolved)."""
    try:
        return session.engine_name()
    except MmdocsumError:
        return session.settings.engines.engine


# ------------------------------------------------------------------------------------ judging

def judge_description(session: Session) -> str:
    """What the judge is, for the job title: "llama (model.gguf)" or "openai (http://…)"; an
    MmdocsumError (JudgeNotConfiguredError) when only the extractive engine is set up."""
    return session.judge_description()


def judge_record(summary: Summary, document: Document | None = None) -> dict[str, Any]:
    """The summary as the judge reads it: its JSON form (``mmdocsum summarize --format json``), as the
    user has it now (edited text, figures picked by hand); image paths relative to the workspace."""
    return present.summary_json(summary)


def judge_summary(session: Session, document: Document, summary: Summary, workspace_root: Path, *,
                  insist: bool = False) -> JobFn:
    """Judge the summary against its document on the aspects of ``judge.summary`` (what
    `mmdocsum bench judge` does for one document), with the LLM engine of the settings. Returns the
    judgement's JSON (``judge.summary.judge_document``) with ``aspect_titles`` {name: title}. A model
    labelled unfit to judge runs only with ``insist`` (the user pressed "Judge anyway")."""

    def run(control: JobControl, stream: StreamFn) -> dict[str, Any]:
        current = session
        control.report(0, 100, f"starting the {current.judge_name()} judge")
        judgement = judge(current, document, summary, base_dir=workspace_root,
                          control=sub_control(control, 5, 100), insist=insist)
        control.report(100, 100, "done")
        # the views and the project file keep the judgement's JSON form
        return judgement.model_dump(mode="json")

    return run


# ------------------------------------------------------------------------------------ placement


def place_images(session: Session, paragraphs: list[str], *, document: Document | None,
                 workspace_root: Path | None, folder: Path | None) -> JobFn:
    """Flow insertion over the user's paragraphs with the document's figures or a folder of images
    (:func:`app.placement.place`, what `mmdocsum place` runs), with the placement settings (OCR, CLIP)."""

    def run(control: JobControl, stream: StreamFn) -> list[dict[str, Any]]:
        pool = image_pool(document=None if folder is not None else document, root=workspace_root, folder=folder)
        placed = run_placement(session, PlaceRequest(paragraphs=paragraphs, pool=pool), control)
        return [_suggestion(p, pool) for p in placed.placements]

    return run


def read_figure_text(session: Session, document: Document, workspace_root: Path,
                     wait_turn: Callable[[JobControl], None] | None = None) -> JobFn:
    """The text inside an open document's figure crops read into the content cache ahead of Place images
    (:func:`app.placement.prepare_figure_text`, what `mmdocsum extract --figure-text` runs); the crops are
    image files already rendered, so no PyMuPDF is entered."""

    def run(control: JobControl, stream: StreamFn) -> Any:
        pool = figure_candidates(document, workspace_root)  # the pool Place images gives (none: nothing to read)
        return prepare_figure_text(session, pool, control, wait_turn=wait_turn)

    return run


def embed_text_ahead(session: Session, text: str, document: Document, workspace_root: Path, *, figure_text: bool,
                     wait_turn: Callable[[JobControl], None] | None = None) -> JobFn:
    """The user's text and the document's figure texts embedded into the cache while the user writes
    (:func:`app.placement.prepare_text`), so that Place images embeds nothing it has seen."""

    def run(control: JobControl, stream: StreamFn) -> int:
        if wait_turn is not None:
            wait_turn(control)
        return prepare_text(session, text, figure_candidates(document, workspace_root), control,
                            figure_text=figure_text)

    return run


def _suggestion(placement: Any, pool: list[Any]) -> dict[str, Any]:
    data = placement.model_dump() if hasattr(placement, "model_dump") else dict(placement)
    candidate = data.get("candidate")
    chosen = pool[candidate] if isinstance(candidate, int) and 0 <= candidate < len(pool) else None
    return {
        "paragraph": int(data.get("paragraph", 0)),
        "image": data.get("image"),
        "figure": getattr(chosen, "source_id", None) if data.get("image") else None,
        "label": (chosen.display_name() if chosen is not None and data.get("image") else None),
        "score": float(data.get("score") or 0.0),
        # placement.PlacementWhy as JSON: the Why column and the row's tooltip
        "why": data.get("why") or _why_from_signals(data, chosen),
    }


def _why_from_signals(data: dict[str, Any], chosen: Any) -> dict[str, Any] | None:
    """A PlacementWhy from the placement's signals, where the engine's strategy gave none (its global
    and greedy assignments explain nothing yet): the mention and the caption match, which is what the
    Why column shows."""
    signals = data.get("signals") or {}
    if not data.get("image") or not signals:
        return None
    caption = next((signals[name] for name in ("caption_sent", "caption", "caption_lex") if name in signals), None)
    return {
        "candidate": int(data.get("candidate") or 0),
        "caption_match": caption,
        "mention": getattr(chosen, "label", None) if signals.get("mention") else None,
        "decision": "placed",
    }


# ------------------------------------------------------------------------------------ models


def verify_models(name: str | None = None) -> JobFn:
    def run(control: JobControl, stream: StreamFn) -> list[catalog.VerifyReport]:
        return catalog.verify(name, control=control)

    return run


def download_model(repo: str, filename: str, role: str | None) -> JobFn:
    def run(control: JobControl, stream: StreamFn) -> Path:
        return catalog.download(repo, filename, role=role, control=control)

    return run


# ------------------------------------------------------------------------------------ benchmarks


def run_benchmark(suite: str, split: str, engine: str, out: Path) -> JobFn:
    """A benchmark run as `mmdocsum bench SUITE --split SPLIT --engine ENGINE -o OUT` runs it (resumable:
    the same folder continues), in a child process so that it cannot stall the GUI. Returns the folder."""

    def run(control: JobControl, stream: StreamFn) -> Path:
        run_in_child("mmdocsum_desktop.gui.bench_child:benchmark_in_this_process",
                     {"suite": suite, "split": split, "engine": engine, "out": str(out)}, control, stream)
        return out

    return run


def load_run(run: Path) -> JobFn:
    """A finished run's headline numbers and plots (matplotlib, so off the GUI thread)."""

    def job(control: JobControl, stream: StreamFn) -> dict[str, Any]:
        metrics = report.load_metrics(run)
        control.report(1, 3, "plots")
        return {"run": run, "headline": report.headline(metrics), "plots": report.plots(metrics),
                "suite": report.suite_of(metrics),
                # a cancelled run's numbers cover only the items finished before the cancel
                "cancelled": bool(metrics.get("cancelled"))}

    return job


def compare_runs(runs: list[Path]) -> JobFn:
    def job(control: JobControl, stream: StreamFn) -> dict[str, Any]:
        result: dict[str, Any] = compare(runs)
        return result

    return job
