"""Judging one summary against its document with a language model (the GUI's "Judge this summary",
what ``mmdocsum bench judge`` does for each document), and the judges the benchmarks hold for a run: one
of summaries (:func:`summary_judge`) and one of answers against their sources (:func:`source_judge`),
both over the session's judge engine."""


from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.judge.gate import INSIST_FLAG, UnfitJudgeError, check_judge, refusal_text, refuses
from mmdocsum_desktop.judge.sources import Judge
from mmdocsum_desktop.judge.summary import (
    ASPECTS,
    SummaryJudge,
    check_aspects,
    judge_document,
    load_aspects,
    summary_paragraphs,
)
from mmdocsum_desktop.models.fitness import Fitness, for_model
from mmdocsum_desktop.schemas.document import Document
from mmdocsum_desktop.schemas.judgement import Judgement
from mmdocsum_desktop.schemas.settings import EngineChoice
from mmdocsum_desktop.schemas.summary import Summary
from mmdocsum_desktop.summarize.render import to_json

__all__ = ["ASPECTS", "INSIST_FLAG", "UnfitJudgeError", "check_aspects", "judge", "judge_fitness", "refusal_text",
           "refuses", "source_judge", "summary_judge", "summary_paragraphs"]


def judge_fitness(session: Session, choice: EngineChoice | None = None) -> Fitness | None:
    """How fit the judge these settings (and ``choice``) give is to judge: None for a server's model
    (its size is unknown here). JudgeNotConfiguredError when no language model is set up."""
    if session.judge_name(choice) != "llama":
        return None
    model = (choice.model if choice is not None else None) or session.settings.engines.llama.model
    return for_model(model, "judge")


def judge(
    session: Session,
    document: Document,
    summary: Summary,
    *,
    base_dir: Path | None = None,
    choice: EngineChoice | None = None,
    control: JobControl | None = None,
    insist: bool = False,
) -> Judgement:
    """The judgement of ``summary`` (``judge.summary.judge_document``) as a typed record, with the
    aspects' titles. Image paths are relative to ``base_dir``. JudgeNotConfiguredError when no language
    model is set up; UnfitJudgeError, before any model loads, when the judge's model is labelled unfit
    and the user did not ``insist`` (judge.gate says why)."""
    check_judge(judge_fitness(session, choice), insist=insist)
    record = to_json(summary)
    with session.judge_engine(choice) as engine:
        result = judge_document(document, record, engine, base_dir=base_dir, control=control)
    titles = {name: aspect.title for name, aspect in load_aspects().items()}
    return Judgement.model_validate({**result, "aspect_titles": titles})


@contextmanager
def summary_judge(session: Session, choice: EngineChoice | None = None, *, self_consistency: int = 1,
                  time_limit_s: float | None = None) -> Iterator[SummaryJudge]:
    """A judge of summaries over the session's judge engine, held for the block (a benchmark's run)."""
    with session.judge_engine(choice) as engine:
        yield SummaryJudge(engine, self_consistency=self_consistency, time_limit_s=time_limit_s)


@contextmanager
def source_judge(session: Session, choice: EngineChoice | None = None) -> Iterator[Judge]:
    """A judge of answers against their sources (MCiteBench's) over the session's judge engine."""
    with session.judge_engine(choice) as engine:
        yield Judge(engine)
