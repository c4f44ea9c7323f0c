"""The GUI's calls into the core, as job functions ``fn(control, stream)`` for :class:`Job`.

These are the same functions the CLI calls (read_document/export_document, the summary pipeline, the
placement engine, the benchmark runner, the model registry); this module only splits one progress bar
over several steps and turns results into what the views show. Packages that a build may lack are
imported lazily, so a missing one gives a clear message instead of a broken window.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mmdocsum_desktop.document.model import Document
from mmdocsum_desktop.errors import MmdocsumError
from mmdocsum_desktop.jobs import JobControl

StreamFn = Callable[[str], None]


class FeatureMissingError(MmdocsumError):
    """A part of the app this build does not include yet."""


def sub_control(parent: JobControl, start: int, end: int, label: str = "") -> JobControl:
    """A JobControl whose progress fills ``start``..``end`` (of 100) of the parent's, sharing its cancel."""

    def forward(done: int, total: int, what: str) -> None:
        fraction = done / total if total > 0 else 0.0
        if parent.on_progress is not None:
            parent.on_progress(start + int(round(fraction * (end - start))), 100, what or label)

    child = JobControl(on_progress=forward)
    child._cancel = parent._cancel  # one cancel flag for the whole job
    return child


# Imported by a background job when the window opens, so that no first use on the GUI thread (or a
# long module initialisation holding the GIL) stalls it later.
WARM_UP_MODULES = (
    "mmdocsum_desktop.document.reader",
    "mmdocsum_desktop.document.pdf",
    "mmdocsum_desktop.document.html",
    "mmdocsum_desktop.document.markdown",
    "mmdocsum_desktop.document.jats",
    "mmdocsum_desktop.engines.auto",
    "mmdocsum_desktop.summarize.pipeline",
    "mmdocsum_desktop.summarize.render",
    "mmdocsum_desktop.placement",
    "mmdocsum_desktop.models.embed",
    "onnxruntime",
    "tokenizers",
    "scipy.optimize",
    "mmdocsum_desktop.bench.suites.mdocsum",
    "mmdocsum_desktop.bench.report",
)


def warm_up(modules: tuple[str, ...] = WARM_UP_MODULES, *, embedder: bool = True) -> Callable:
    """Import what the jobs will need and load the text embedder (an ONNX session whose creation holds
    the GIL for a while), right after the window appears rather than in the middle of a summary."""

    def run(control: JobControl, stream: StreamFn) -> list[str]:
        missing = []
        for position, name in enumerate(modules):
            control.report(position, len(modules) + 1, name)
            if optional_module(name) is None:
                missing.append(name)
        if embedder:
            try:
                shared_embedder()
            except (MmdocsumError, OSError, ImportError):
                missing.append("text embedder")  # the summary job says what is missing
        return missing

    return run


SUMMARY_IMAGE_WIDTH = 560


def scaled_images(paths: list[Path], width: int) -> dict[str, Any]:
    """{path: QImage at most ``width`` wide}, decoded off the GUI thread."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage

    out: dict[str, Any] = {}
    for path in paths:
        image = QImage(str(path))
        if image.isNull():
            continue
        if image.width() > width:
            image = image.scaledToWidth(width, Qt.TransformationMode.SmoothTransformation)
        out[str(path)] = image
    return out


def make_thumbnails(paths: list[tuple[str, Path]], size: int) -> Callable:
    """Scaled QImages of figure crops, made off the GUI thread (QImage is safe to use in a worker)."""

    def run(control: JobControl, stream: StreamFn) -> list[tuple[str, Any]]:
        from PySide6.QtCore import Qt
        from PySide6.QtGui import QImage

        out = []
        for position, (figure_id, path) in enumerate(paths):
            control.report(position, len(paths), "thumbnails")
            image = QImage(str(path))
            if not image.isNull():
                out.append((figure_id, image.scaled(size, size, Qt.AspectRatioMode.KeepAspectRatio,
                                                    Qt.TransformationMode.SmoothTransformation)))
        return out

    return run


def optional_module(name: str) -> Any | None:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


# ------------------------------------------------------------------------------------ documents


def open_document(path: Path, workspace_root: Path, *, password: str | None = None) -> Callable:
    """Read the file (as `mmdocsum extract` does) and render its figure crops into the workspace."""

    def run(control: JobControl, stream: StreamFn) -> Document:
        from mmdocsum_desktop.app.session import default_session
        from mmdocsum_desktop.document.reader import export_document

        # scanned pages are read with OCR, per page in the progress, as every command reads them
        document = default_session().read(path, password=password, control=sub_control(control, 0, 80, "reading"))
        export_document(document, workspace_root, password=password,
                        control=sub_control(control, 80, 100, "figures"))
        control.report(100, 100, "done")
        return document

    return run


# ------------------------------------------------------------------------------------ summaries


def summarize(document: Document, workspace_root: Path, settings: Any, *, seed_offset: int = 0) -> Callable:
    """The summary pipeline (as `mmdocsum summarize` runs it) with the user's engine settings; an LLM's
    text streams to ``stream``. Returns {"summary": the Summary, "images": its figures decoded}."""

    def run(control: JobControl, stream: StreamFn) -> dict[str, Any]:
        try:
            from mmdocsum_desktop.engines.auto import EngineRequest, build_engine, choose_engine_name
            from mmdocsum_desktop.summarize.pipeline import SummaryOptions, summarize_document
        except ImportError as error:
            raise FeatureMissingError(f"summaries are not part of this build yet ({error})") from error
        engines = settings.engines
        name = choose_engine_name(EngineRequest(engine="auto"), engines)
        control.report(0, 100, f"starting the {name} engine")
        embedder = shared_embedder()
        engine = build_engine(EngineRequest(engine="auto"), engines, embedder=embedder)
        try:
            ocr = None
            if name != "extractive" and not getattr(engine, "supports_images", False):
                ocr = _shared_ocr()
            options = SummaryOptions(figure_mode=engines.figure_mode, max_tokens=engines.max_tokens,
                                     temperature=engines.temperature, seed=engines.seed + seed_offset)
            summary = summarize_document(document, workspace_root, engine=engine, embedder=embedder, ocr=ocr,
                                         options=options, control=sub_control(control, 5, 100), on_text=stream)
        finally:
            close = getattr(engine, "close", None)
            if callable(close):
                close()
        control.report(100, 100, "done")
        # the figures' images are decoded here, not on the GUI thread
        paths = [workspace_root / p.figure.image for p in summary.paragraphs if p.figure and p.figure.image]
        return {"summary": summary, "images": scaled_images(paths, SUMMARY_IMAGE_WIDTH)}

    return run


def engine_name(settings: Any) -> str:
    """The engine a summary would use with these settings ("auto" resolved)."""
    try:
        from mmdocsum_desktop.engines.auto import EngineRequest, choose_engine_name

        return choose_engine_name(EngineRequest(engine="auto"), settings.engines)
    except (ImportError, MmdocsumError):
        return getattr(getattr(settings, "engines", None), "engine", "auto")


_embedder: Any = None
_embedder_lock = threading.Lock()


def shared_embedder() -> Any:
    """One text embedder per process (loading MiniLM takes about a second); None when it cannot load,
    in which case the pipeline says what is missing."""
    global _embedder
    with _embedder_lock:
        if _embedder is None:
            from mmdocsum_desktop.models.embed import TextEmbedder

            _embedder = TextEmbedder()
        return _embedder


def _shared_ocr() -> Any:
    try:
        from mmdocsum_desktop.models.ocr import shared_engine

        return shared_engine()
    except (ImportError, MmdocsumError):
        return None


# ------------------------------------------------------------------------------------ judging

JUDGE_NEEDS_MODEL = (
    "Judging a summary needs a language model, and only the extractive engine is set up. Choose a GGUF "
    "model (Settings ▸ Local model) or an OpenAI-compatible endpoint (Settings ▸ Server), then judge again."
)


class JudgeNotConfiguredError(MmdocsumError):
    """No language model is configured to act as the judge (only the extractive engine)."""


def judge_engine_name(settings: Any) -> str:
    """The engine that judges with these settings: the configured LLM engine ("llama" with a GGUF model,
    "openai" with an endpoint), the engine chosen in Settings first. JudgeNotConfiguredError when there
    is none: the extractive engine cannot judge."""
    engines = settings.engines
    usable = {"llama": bool(engines.llama.model), "openai": bool(engines.openai.base_url)}
    if engines.engine in usable and usable[engines.engine]:
        return engines.engine
    for name in ("llama", "openai"):
        if usable[name]:
            return name
    raise JudgeNotConfiguredError(JUDGE_NEEDS_MODEL)


def judge_description(settings: Any) -> str:
    """What the judge is, for the job title: "llama (model.gguf)" or "openai (http://…)"."""
    name = judge_engine_name(settings)
    engines = settings.engines
    if name == "llama":
        return f"llama ({Path(str(engines.llama.model)).name})"
    return f"openai ({engines.openai.model or engines.openai.base_url})"


def judge_record(summary: Any, document: Document | None = None) -> dict[str, Any]:
    """The summary as the judge reads it: its JSON form (``mmdocsum summarize --format json``), as the
    user has it now (edited text, figures picked by hand); image paths relative to the workspace."""
    from mmdocsum_desktop.summarize.render import to_json

    return to_json(summary)


def judge_summary(document: Document, summary: Any, workspace_root: Path, settings: Any) -> Callable:
    """Judge the summary against its document on the aspects of ``bench.summary_judge`` (what
    `mmdocsum bench judge` does for one document), with the LLM engine of the settings. Returns the
    judgement's JSON (``bench.suites.judge.judge_document``) with ``aspect_titles`` {name: title}."""

    def run(control: JobControl, stream: StreamFn) -> dict[str, Any]:
        try:
            from mmdocsum_desktop.bench.judge_suite import judge_document
            from mmdocsum_desktop.engines.auto import EngineRequest, build_engine
        except ImportError as error:
            raise FeatureMissingError(f"judging is not part of this build ({error})") from error
        name = judge_engine_name(settings)
        record = judge_record(summary, document)
        control.report(0, 100, f"starting the {name} judge")
        engine = build_engine(EngineRequest(engine=name), settings.engines, embedder=None)
        try:
            control.check()
            result = judge_document(document, record, engine, base_dir=workspace_root,
                                    control=sub_control(control, 5, 100))
        finally:
            close = getattr(engine, "close", None)
            if callable(close):
                close()
        control.report(100, 100, "done")
        from mmdocsum_desktop.bench.summary_judge import load_aspects

        result["aspect_titles"] = {name: aspect.title for name, aspect in load_aspects().items()}
        return result

    return run


# ------------------------------------------------------------------------------------ placement


def place_images(paragraphs: list[str], *, document: Document | None, workspace_root: Path | None,
                 folder: Path | None, use_ocr: bool = True, clip: str | None = None) -> Callable:
    """Flow insertion over the user's paragraphs with the document's figures or a folder of images."""

    def run(control: JobControl, stream: StreamFn) -> list[dict[str, Any]]:
        candidates_module = optional_module("mmdocsum_desktop.placement.candidates")
        if candidates_module is None:
            raise FeatureMissingError("image placement is not part of this build yet")
        if folder is not None:
            pool = candidates_module.candidates_from_folder(folder)
        elif document is not None:
            pool = candidates_module.candidates_from_document(document, workspace_root)
        else:
            raise MmdocsumError("open a document or choose a folder of images first")
        if not pool:
            raise MmdocsumError("there are no images to place (the document has no figures, or the folder is empty)")
        engine_cls = _placement_engine_class()
        # the same engine `mmdocsum place` builds: the installed models, each optional
        engine = engine_cls.with_default_models(ocr=use_ocr, clip=clip)
        placements = list(engine.place(paragraphs, pool, strategy="global", control=control))
        return [_suggestion(p, pool) for p in placements]

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
    }


def _placement_engine_class():
    for name in ("mmdocsum_desktop.placement.engine", "mmdocsum_desktop.placement.assign", "mmdocsum_desktop.placement"):
        module = optional_module(name)
        if module is not None and hasattr(module, "PlacementEngine"):
            return module.PlacementEngine
    raise FeatureMissingError("image placement is not part of this build yet (no PlacementEngine)")


# ------------------------------------------------------------------------------------ benchmarks


# ------------------------------------------------------------------------------------ models


def verify_models(name: str | None = None) -> Callable:
    def run(control: JobControl, stream: StreamFn):
        from mmdocsum_desktop.models import registry

        return registry.verify(name, control=control)

    return run


def download_model(repo: str, filename: str, role: str | None) -> Callable:
    def run(control: JobControl, stream: StreamFn):
        import inspect

        from mmdocsum_desktop.models import registry

        parameters = inspect.signature(registry.download).parameters
        kwargs: dict[str, Any] = {"control": control}
        if "role" in parameters and role:
            kwargs["role"] = role
        return registry.download(repo, filename, **kwargs)

    return run


def run_benchmark(suite: str, split: str, engine: str, out: Path) -> Callable:
    """A benchmark run as `mmdocsum bench SUITE --split SPLIT --engine ENGINE -o OUT` runs it (resumable:
    the same folder continues), in a child process so that it cannot stall the GUI. Returns the folder."""

    def run(control: JobControl, stream: StreamFn) -> Path:
        from mmdocsum_desktop.gui.subprocess_job import run_in_child

        run_in_child("mmdocsum_desktop.gui.core:benchmark_in_this_process",
                     {"suite": suite, "split": split, "engine": engine, "out": str(out)}, control, stream)
        return out

    return run


def benchmark_in_this_process(suite: str, split: str, engine: str, out: str, control: JobControl) -> str:
    """The benchmark suites of the bench package (what `mmdocsum bench` calls)."""
    try:
        from mmdocsum_desktop.bench.glue import EngineSpec
    except ImportError as error:
        raise FeatureMissingError(f"the benchmark runner is not part of this build yet ({error})") from error
    spec = EngineSpec(engine=engine)
    if suite == "mdocsum":
        from mmdocsum_desktop.bench.mdocsum import run_mdocsum

        run_mdocsum(split, out, engine_spec=spec, control=control)
    elif suite == "mcite":
        from mmdocsum_desktop.bench.mcite import run_mcite

        run_mcite(split, out, engine_spec=spec, control=control)
    elif suite == "rouge":
        from mmdocsum_desktop.bench.rouge import run_rouge

        run_rouge(split, out, engine_spec=spec, control=control)
    elif suite == "ftii":
        _run_ftii(split, Path(out), control)
    else:
        raise MmdocsumError(f"unknown benchmark suite {suite!r}")
    return out


def _run_ftii(split: str, out: Path, control: JobControl) -> None:
    from mmdocsum_desktop.bench import report, splits
    from mmdocsum_desktop.bench.ftii import load_flow_insertion, run_flow_insertion, score_articles
    from mmdocsum_desktop.fileio import write_json_atomic
    from mmdocsum_desktop.placement import PlacementEngine, read_captions_file

    if split == "demo":
        data, images_root, captions_file = splits.demo_ftii()
    else:
        data = Path(split)
        images_root = data.parent
        captions_file = data.with_name("captions.json")
    articles = load_flow_insertion(data)
    captions = read_captions_file(captions_file) if captions_file.is_file() else None
    engine = PlacementEngine.with_default_models(ocr=True)
    result = run_flow_insertion(articles, engine, images_root, captions=captions, strategy="global", control=control)
    metrics = score_articles(articles, result.predictions).as_json()
    metrics.setdefault("suite", "ftii")
    metrics.setdefault("split", str(split))
    write_json_atomic(out / "predictions.json", {a.id: result.predictions[a.id] for a in articles})
    report.write_run(out, metrics)


def load_run(run: Path) -> Callable:
    """A finished run's headline numbers and plots (matplotlib, so off the GUI thread)."""

    def job(control: JobControl, stream: StreamFn) -> dict[str, Any]:
        from mmdocsum_desktop.bench import report

        metrics = report.load_metrics(run)
        control.report(1, 3, "plots")
        return {"run": run, "headline": report.headline(metrics), "plots": report.plots(metrics),
                "suite": report.suite_of(metrics)}

    return job


def compare_runs(runs: list[Path]) -> Callable:
    def job(control: JobControl, stream: StreamFn) -> dict[str, Any]:
        from mmdocsum_desktop.bench.compare import compare

        return compare(runs)

    return job
