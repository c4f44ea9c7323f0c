"""The benchmark's only contact with the application: the run's Session.

A benchmark run (``bench.run.run_benchmark``) hands its :class:`~mmdocsum_desktop.app.session.Session` to the
suites with :func:`using_session`; ``BenchEngine`` then reads and summarises each document with the
application's own use case (``app.summarize_file``: read with OCR, figures exported, the session's
engine), exactly as `mmdocsum summarize` does, and returns what the suites score: the app's answer in
M-DocSum form (``schemas.summary.mdocsum_answer``), the model's raw answer with the mapping from its image
tags to document order (for shuffled images), the number of images shown, timings and warnings.
:func:`source_judge` and :func:`summary_judge` hold the session's judge for a run (``app.judging``).
"""

from __future__ import annotations

import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mmdocsum_desktop.app import catalog, judging
from mmdocsum_desktop.app.output import image_tags, summary_json
from mmdocsum_desktop.app.placement import figure_candidates
from mmdocsum_desktop.app.session import ConfiguredEngine, Session
from mmdocsum_desktop.app.summary import FileSummary, SummarizeFileRequest, describe_engine, summarize_file
from mmdocsum_desktop.bench.metrics.mdocsum import count_tokens
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.schemas.engine import GenerationRecord
from mmdocsum_desktop.schemas.settings import EngineChoice, EngineSettings, Settings
from mmdocsum_desktop.schemas.summary import SummaryRequest, mdocsum_answer

# What a run asks for on top of the settings: the one schema (``settings.EngineChoice``) under the name
# the suites have always used.
EngineSpec = EngineChoice


_run_session: Session | None = None
_run_lock = threading.Lock()


@contextmanager
def using_session(session: Session) -> Iterator[Session]:
    """The suites of this run read, summarise and judge through ``session`` (the CLI's, the window's).
    One run at a time per process: a benchmark run owns the process it runs in (the window runs it in a
    child process)."""
    global _run_session
    with _run_lock:
        previous, _run_session = _run_session, session
    try:
        yield session
    finally:
        with _run_lock:
            _run_session = previous


def current_session() -> Session:
    """The running benchmark's session; a suite called directly (a test, a script) gets a new one over the
    saved settings as they are now, as a command would (never one kept from an earlier call)."""
    with _run_lock:
        session = _run_session
    return session if session is not None else Session()


@dataclass
class BenchEngine:
    spec: EngineSpec
    run: ConfiguredEngine
    _lock: threading.Lock = field(default_factory=threading.Lock)

    session: Session | None = None

    @classmethod
    def build(cls, spec: EngineSpec, settings: EngineSettings | None = None) -> BenchEngine:
        """The engine ``mmdocsum summarize`` would build with these flags: the run's session's (or one over
        ``settings``), loaded now so that a bad model is reported before any document is read."""
        session = current_session() if settings is None else Session(Settings(engines=settings))
        with session.engine(spec) as run:
            return cls(spec=spec, run=run, session=session)

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
        """What writes this run's summaries (``Summary.engine`` as `mmdocsum summarize` records it), with
        the figure mode and whether figure text is read."""
        assert self.session is not None
        info = describe_engine(self.session, self.spec).model_dump(mode="json")
        info["figure_mode"] = self.figure_mode
        info["ocr"] = self.ocr is not None
        return info

    def model_hashes(self) -> dict[str, str]:
        """sha256 of every model file the run depends on (the embedder's and the GGUFs)."""
        hashes: dict[str, str] = {}
        session = self.session or current_session()
        model_path = getattr(session.embedder(), "model_path", None)
        if model_path is not None and Path(model_path).exists():
            hashes[f"embedder:{Path(model_path).name}"] = catalog.file_sha256(model_path)
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
        started = time.perf_counter()
        options = SummaryRequest(include_abstract=include_abstract, shuffle_seed=shuffle_seed, citations=False)
        with tempfile.TemporaryDirectory(prefix="mmdocsum-bench-") as assets:
            result = self._summarize_file(path, Path(assets), options, control)
        document, summary = result.document, result.summary
        return {
            "answer": mdocsum_answer(summary),
            "raw_answer": summary.raw_answer,
            "tag_to_index": image_tags(summary, shuffle_seed),
            "n_images": len(summary.figures),
            "n_tokens": count_tokens(document.body_text()),
            "abstract": document.abstract,
            "parse": summary.parse.model_dump(mode="json") if summary.parse is not None else None,
            "repairs": len(summary.repairs),
            "generation": _generation_totals(summary.generations),
            "seconds": round(time.perf_counter() - started, 3),
            "timings": {k: round(v, 3) for k, v in summary.timings.items()},
            "warnings": list(summary.warnings) + list(document.warnings),
        }

    def summary_record(self, path: Path, assets: Path, *, control: JobControl | None = None) -> dict[str, Any]:
        """One document → its summary in the JSON form ``mmdocsum summarize -o X.json`` writes, figure
        crops kept in ``assets`` (image paths relative to ``assets``' parent)."""
        options = SummaryRequest(include_abstract=True, shuffle_seed=None, citations=True)
        summary = self._summarize_file(path, Path(assets), options, control).summary
        return summary_json(summary, base_dir=assets, relative_to=Path(assets).parent)

    def _summarize_file(self, path: Path, assets: Path, options: SummaryRequest,
                        control: JobControl | None) -> FileSummary:
        """``app.summarize_file`` with the session's engine for this spec (held while it runs: engines that
        compute here summarise one document at a time)."""
        @contextmanager
        def stage(_name: str) -> Iterator[JobControl]:
            yield control or JobControl()

        assert self.session is not None
        request = SummarizeFileRequest(path=Path(path), assets=assets, choice=self.spec, options=options)
        return summarize_file(self.session, request, stage=stage)

    def close(self) -> None:
        """Nothing to do: the engine belongs to the session, which keeps it for the next run and closes it
        with itself (the command's ``with Session()``)."""


def _generation_totals(generations: list[GenerationRecord]) -> dict[str, Any] | None:
    if not generations:
        return None
    return {
        "calls": len(generations),
        "prompt_tokens": sum(g.prompt_tokens for g in generations),
        "completion_tokens": sum(g.completion_tokens for g in generations),
    }


def document_stats(path: Path) -> dict[str, Any]:
    """Images (as the summaries pipeline numbers them: figures and tables in document order) and
    length in tokens of a document, for scoring predictions and for the breakdowns."""
    document = current_session().read(path)  # as the summaries read it: scanned pages with OCR
    candidates = figure_candidates(document, None, require_image=False)
    return {
        "n_images": len(candidates),
        "n_tokens": count_tokens(document.body_text()),
        "warnings": list(document.warnings),
    }


def engine_file_hashes(engine: Any) -> dict[str, str]:
    """sha256 of an engine's model files (GGUF model and projector)."""
    hashes: dict[str, str] = {}
    config = getattr(engine, "config", None)
    for attr in ("model", "mmproj"):
        path = getattr(config, attr, None)
        if isinstance(path, Path) and path.exists():
            hashes[f"{attr}:{path.name}"] = catalog.file_sha256(path)
    return hashes


def engine_model_hashes(engine: Any, name: str) -> dict[str, str]:
    """:func:`engine_file_hashes`, and the model name for a server (whose weights are out of reach)."""
    hashes = engine_file_hashes(engine)
    if name == "openai":
        hashes["server_model"] = str(getattr(engine, "model_name", ""))
    return hashes


@contextmanager
def source_judge(spec: EngineSpec | None) -> Iterator[Any]:
    """A judge of answers against their sources (``judge.sources.Judge``) over the run's session's judge
    engine, held for the block; None without ``spec``. The session keeps and closes the engine."""
    if spec is None:
        yield None
        return
    with judging.source_judge(current_session(), spec) as judge:
        yield judge


@contextmanager
def summary_judge(spec: EngineSpec, *, self_consistency: int = 1,
                  time_limit_s: float | None = None) -> Iterator[Any]:
    """A judge of summaries (``judge.summary.SummaryJudge``) over the run's session's judge engine, held
    for the block; the session keeps and closes the engine."""
    with judging.summary_judge(current_session(), spec, self_consistency=self_consistency,
                               time_limit_s=time_limit_s) as judge:
        yield judge
