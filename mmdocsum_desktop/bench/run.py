"""Benchmark runs: what ``mmdocsum bench SUITE`` runs, and the desktop app's Benchmark view with it
(the same function, the same files in the output folder).

The benchmarks sit above the application layer: a run hands its :class:`~mmdocsum_desktop.app.session.Session`
to the suites (``glue.using_session``), and they read and summarise through it exactly as
`mmdocsum summarize` does (OCR included), so a number printed here describes what users get."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mmdocsum_desktop.app.placement import DEFAULT_STRATEGY, Strategy, place, read_captions_file
from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.bench import splits
from mmdocsum_desktop.bench.glue import using_session
from mmdocsum_desktop.bench.metrics.ftii import score_articles
from mmdocsum_desktop.bench.splits import load_flow_insertion
from mmdocsum_desktop.bench.suites import SUITES
from mmdocsum_desktop.bench.suites.ftii import run_flow_insertion
from mmdocsum_desktop.errors import MmdocsumError
from mmdocsum_desktop.fileio import write_json_atomic
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.schemas.placement import ImageCandidate, Placement
from mmdocsum_desktop.schemas.settings import EngineChoice, PlacementSettings

# Suites that score with a judge model when one is given (their entry points take ``judge_spec``).
_JUDGED = {"mdocsum", "mcite", "judge"}


def run_benchmark(
    session: Session,
    suite: str,
    split: str | Path,
    out: str | Path,
    /,
    *,
    choice: EngineChoice | None = None,
    judge: EngineChoice | None = None,
    control: JobControl | None = None,
    **suite_options: Any,
) -> dict[str, Any]:
    """Run ``suite`` (a name in :data:`bench.suites.SUITES`) on ``split`` into ``out``; return its metrics.

    ``split`` is what the suite reads: "demo" or a split folder; for ``pairs`` the folder of PDF + JATS
    pairs (its dev/test half is the ``split`` suite option: the first four parameters are positional only,
    so the names do not clash); for ``judge`` a list of documents.
    ``choice``: the summary engine on top of the saved settings (None: as configured); ``judge``: the
    judge's engine (None: no judge-based metrics). ``suite_options`` are the suite's own (e.g.
    ``predictions``, ``concurrency``, ``restart``; for mdocsum ``options``; for pairs ``stages``)."""
    if suite not in SUITES:
        raise MmdocsumError(f"unknown benchmark suite {suite!r} (expected one of {', '.join(SUITES)})")
    if suite == "ftii":
        return run_ftii(session, split, Path(out), control=control, **suite_options)
    if judge is not None and suite not in _JUDGED:
        raise MmdocsumError(f"the {suite} suite has no judge")
    with using_session(session):
        if suite == "pairs":
            # The pairs suite reads documents through the session (as `summarize` does); it builds no
            # summary engine unless its summary stage runs, which uses the extractive writer.
            result: dict[str, Any] = SUITES[suite].run(split, out, control=control, **suite_options)
            return result
        kwargs: dict[str, Any] = {"engine_spec": _unless_scored(choice or EngineChoice(), suite_options)}
        if suite in _JUDGED:
            kwargs["judge_spec"] = judge
        metrics: dict[str, Any] = SUITES[suite].run(split, out, control=control, **kwargs, **suite_options)
        return metrics


def _unless_scored(spec: EngineChoice, suite_options: dict[str, Any]) -> EngineChoice | None:
    """No engine when given predictions (or, for the judge suite, given summaries) are scored instead of
    generated."""
    given = suite_options.get("predictions") is not None or suite_options.get("summaries") is not None
    return None if given else spec


def run_ftii(
    session: Session,
    data: str | Path,
    out: Path,
    *,
    images_root: Path | None = None,
    captions: Path | None = None,
    strategy: Strategy = "global",
    placement: PlacementSettings | None = None,
    threshold: float | None = None,
    control: JobControl | None = None,
) -> dict[str, Any]:
    """FTII flow insertion: place the images of every article of ``data`` ("demo": the bundled split)
    and score them; writes OUT/predictions.json and OUT/metrics.json. ``warnings`` in the metrics."""
    if splits.bundled(data) is not None:  # "demo", "pmc-test": the data, images and captions it ships
        data, images_root, captions = splits.bundled_ftii(str(data))
        captions = captions if captions.is_file() else None
    data = Path(data)
    if images_root is None:
        raise MmdocsumError("--images-root is needed to place images (or give --predictions to score them)")
    articles = load_flow_insertion(data)
    engine = AppPlacer(session, placement, threshold)
    known_captions = read_captions_file(captions) if captions is not None else None
    run = run_flow_insertion(articles, engine, images_root, captions=known_captions, strategy=strategy,
                             control=control)
    predictions = {a.id: run.predictions[a.id] for a in articles}
    metrics = score_articles(articles, run.predictions).metrics()
    write_ftii_outputs(out, predictions, metrics)
    return {**metrics, "warnings": list(dict.fromkeys(run.warnings))}


@dataclass
class AppPlacer:
    """``app.place`` with the run's session, settings and threshold — what `mmdocsum place` runs — in the
    shape FTII's flow insertion takes (``place(paragraphs, candidates, strategy)`` and the last call's
    ``warnings``)."""

    session: Session
    placement: PlacementSettings | None = None
    threshold: float | None = None
    warnings: list[str] = field(default_factory=list)

    def place(self, paragraphs: Sequence[str], candidates: Sequence[ImageCandidate],
              strategy: Strategy = DEFAULT_STRATEGY, headings: bool = False) -> list[Placement]:
        # FTII's content is a JSON list, which `mmdocsum place` reads as paragraphs only (no headings)
        run = place(self.session, paragraphs, candidates, placement=self.placement, strategy=strategy,
                    threshold=self.threshold, headings=headings)
        self.warnings = run.warnings
        return run.placements


def write_ftii_outputs(out: Path, predictions: Any, metrics: dict[str, Any]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    write_json_atomic(out / "predictions.json", predictions)
    write_json_atomic(out / "metrics.json", dict(metrics))
