"""The benchmark's only contact with the summaries issue's engines and pipeline.

``BenchEngine`` builds an engine the way ``mmdocsum summarize`` does (``engines.factory``), summarises one
document through ``summarize.pipeline.summarize_document`` and returns what the suites score: the app's
answer in M-DocSum form (``summarize.render.to_mdocsum``), the model's raw answer with the mapping
from its image tags to document order (for shuffled images), the number of images shown, timings and
warnings. ``build_judge`` builds a judge from an engine request.
"""

from __future__ import annotations

import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mmdocsum_desktop.engines import factory
from mmdocsum_desktop.engines.factory import ConfiguredEngine
from mmdocsum_desktop.errors import BenchError
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.settings import EngineChoice, EngineSettings, load_settings

# What a run asks for on top of the settings: the one schema (``settings.EngineChoice``) under the name
# the suites have always used.
EngineSpec = EngineChoice


def shared_embedder() -> Any:
    """The process's MiniLM text embedder (``engines.factory.shared_models``)."""
    return factory.shared_models().embedder()


@dataclass
class BenchEngine:
    spec: EngineSpec
    run: ConfiguredEngine
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def build(cls, spec: EngineSpec, settings: EngineSettings | None = None) -> BenchEngine:
        """The engine ``mmdocsum summarize`` would build with these flags (``engines.factory``)."""
        return cls(spec=spec, run=factory.configure_engine(settings or load_settings().engines, spec))

    @property
    def engine(self) -> Any:
        return self.run.engine

    @property
    def name(self) -> str:
        return self.run.name

    @property
    def ocr(self) -> Any:
        return self.run.ocr

    @property
    def warnings(self) -> list[str]:
        return self.run.warnings

    @property
    def in_process(self) -> bool:
        """True for engines that compute on this machine (one document at a time)."""
        return self.run.in_process

    @property
    def figure_mode(self) -> str:
        return self.run.figure_mode

    def describe(self) -> dict[str, Any]:
        info = dict(self.engine.describe())
        info["figure_mode"] = self.figure_mode
        info["ocr"] = self.ocr is not None
        return info

    def model_hashes(self) -> dict[str, str]:
        """sha256 of every model file the run depends on (the embedder's and the GGUFs)."""
        from mmdocsum_desktop.models.hashing import sha256_file

        hashes: dict[str, str] = {}
        model_path = getattr(shared_embedder(), "model_path", None)
        if model_path is not None and Path(model_path).exists():
            hashes[f"embedder:{Path(model_path).name}"] = sha256_file(model_path)
        hashes.update(engine_model_hashes(self.engine, self.name))
        return hashes

    def summarize(
        self,
        path: Path,
        *,
        include_abstract: bool = True,
        shuffle_seed: int | None = None,
        control: JobControl | None = None,
    ) -> dict[str, Any]:
        """One document → its prediction record (what the mdocsum and rouge suites save per item)."""
        from mmdocsum_desktop.bench.metrics.mdocsum import count_tokens
        from mmdocsum_desktop.document.reader import export_document, read_document
        from mmdocsum_desktop.summarize import prompt as prompts
        from mmdocsum_desktop.summarize.render import to_mdocsum

        started = time.perf_counter()
        document = read_document(path, control=control)
        options = self._options(include_abstract=include_abstract, shuffle_seed=shuffle_seed, citations=False)
        with tempfile.TemporaryDirectory(prefix="mmdocsum-bench-") as assets:
            export_document(document, assets, control=control)
            summary = self._summarize(document, Path(assets), options, control)
        slots = prompts.make_slots(summary.figures, shuffle_seed)
        return {
            "answer": to_mdocsum(summary),
            "raw_answer": summary.raw_answer,
            "tag_to_index": {str(slot.tag): slot.candidate + 1 for slot in slots},
            "n_images": len(summary.figures),
            "n_tokens": count_tokens(document.body_text()),
            "abstract": document.abstract,
            "parse": summary.parse,
            "repairs": len(summary.repairs),
            "generation": _generation_totals(summary.generations),
            "seconds": round(time.perf_counter() - started, 3),
            "timings": {k: round(v, 3) for k, v in summary.timings.items()},
            "warnings": list(summary.warnings) + list(document.warnings),
        }

    def summary_record(self, path: Path, assets: Path, *, control: JobControl | None = None) -> dict[str, Any]:
        """One document → its summary in the JSON form ``mmdocsum summarize -o X.json`` writes, figure
        crops kept in ``assets`` (image paths relative to ``assets``' parent)."""
        from mmdocsum_desktop.document.reader import export_document, read_document
        from mmdocsum_desktop.summarize.render import to_json

        document = read_document(path, control=control)
        export_document(document, assets, control=control)
        options = self._options(include_abstract=True, shuffle_seed=None, citations=True)
        summary = self._summarize(document, Path(assets), options, control)
        return to_json(summary, base_dir=assets, relative_to=Path(assets).parent)

    def _summarize(self, document: Any, assets: Path, options: Any, control: JobControl | None):
        """The pipeline on one document; engines that compute here summarise one document at a time."""
        from mmdocsum_desktop.summarize.pipeline import summarize_document

        lock = self._lock if self.in_process else None
        if lock is not None:
            lock.acquire()
        try:
            return summarize_document(
                document, assets, engine=self.engine, embedder=shared_embedder(), ocr=self.ocr,
                options=options, control=control,
            )
        finally:
            if lock is not None:
                lock.release()

    def _options(self, *, include_abstract: bool, shuffle_seed: int | None, citations: bool):
        from mmdocsum_desktop.summarize.pipeline import SummaryOptions

        return SummaryOptions(**self.run.option_values(), include_abstract=include_abstract,
                              shuffle_seed=shuffle_seed, citations=citations)

    def close(self) -> None:
        self.run.close()


def _generation_totals(generations: list[dict[str, Any]]) -> dict[str, Any] | None:
    if not generations:
        return None
    return {
        "calls": len(generations),
        "prompt_tokens": sum(int(g.get("prompt_tokens") or 0) for g in generations),
        "completion_tokens": sum(int(g.get("completion_tokens") or 0) for g in generations),
    }


def document_stats(path: Path) -> dict[str, Any]:
    """Images (as the summaries pipeline numbers them: figures and tables in document order) and
    length in tokens of a document, for scoring predictions and for the breakdowns."""
    from mmdocsum_desktop.bench.metrics.mdocsum import count_tokens
    from mmdocsum_desktop.document.reader import read_document
    from mmdocsum_desktop.placement.candidates import candidates_from_document

    document = read_document(path)
    candidates = candidates_from_document(document, None, require_image=False)
    return {
        "n_images": len(candidates),
        "n_tokens": count_tokens(document.body_text()),
        "warnings": list(document.warnings),
    }


def engine_file_hashes(engine: Any) -> dict[str, str]:
    """sha256 of an engine's model files (GGUF model and projector)."""
    from mmdocsum_desktop.models.hashing import sha256_file

    hashes: dict[str, str] = {}
    config = getattr(engine, "config", None)
    for attr in ("model", "mmproj"):
        path = getattr(config, attr, None)
        if isinstance(path, Path) and path.exists():
            hashes[f"{attr}:{path.name}"] = sha256_file(path)
    return hashes


def engine_model_hashes(engine: Any, name: str) -> dict[str, str]:
    """:func:`engine_file_hashes`, and the model name for a server (whose weights are out of reach)."""
    hashes = engine_file_hashes(engine)
    if name == "openai":
        hashes["server_model"] = str(getattr(engine, "model_name", ""))
    return hashes


def build_judge_engine(spec: EngineSpec, settings: EngineSettings | None = None):
    """A language-model engine for judging; a clear BenchError for the extractive engine or none set up."""
    try:
        return factory.build_judge_engine(settings or load_settings().engines, spec)
    except factory.JudgeNotConfiguredError as error:
        raise BenchError(str(error)) from error


def build_judge(spec: EngineSpec | None):
    """A :class:`~mmdocsum_desktop.bench.judge.Judge` over a language-model engine, or None."""
    if spec is None:
        return None
    from mmdocsum_desktop.bench.judge import Judge

    return Judge(build_judge_engine(spec))
