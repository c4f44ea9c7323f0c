"""Judging one summary against its document with a language model (the GUI's "Judge this summary",
what ``mmdocsum bench judge`` does for each document)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.judge.summary import judge_document, load_aspects
from mmdocsum_desktop.schemas.document import Document
from mmdocsum_desktop.schemas.settings import EngineChoice
from mmdocsum_desktop.summarize.render import to_json


def judge(
    session: Session,
    document: Document,
    summary: Any,
    *,
    base_dir: Path | None = None,
    choice: EngineChoice | None = None,
    control: JobControl | None = None,
) -> dict[str, Any]:
    """The judgement as JSON (``judge.summary.judge_document``) with ``aspect_titles`` {name: title}.

    ``summary``: a Summary, or its JSON form (``mmdocsum summarize --format json``); image paths
    relative to ``base_dir``. JudgeNotConfiguredError when no language model is set up."""
    record = summary if isinstance(summary, dict) else to_json(summary)
    with session.judge_engine(choice) as engine:
        result = judge_document(document, record, engine, base_dir=base_dir, control=control)
    result["aspect_titles"] = {name: aspect.title for name, aspect in load_aspects().items()}
    return result
