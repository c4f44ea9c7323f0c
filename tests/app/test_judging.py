"""Judging a summary with a language model (SmolLM2): the GUI's "Judge this summary"."""

from __future__ import annotations

import pytest

from mmdocsum_desktop.app.judging import UnfitJudgeError, judge
from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.app.summary import summarize
from mmdocsum_desktop.engines.factory import JudgeNotConfiguredError
from mmdocsum_desktop.schemas.summary import Summary
from tests.app.conftest import llama_settings

# runs a real language model (SmolLM2 or a tiny random GGUF): left out of `pytest -m "not slow"`
pytestmark = pytest.mark.slow

PAPER = "PMC2803133.pdf"  # 3 captioned figures and 4 tables


def test_judge_scores_a_summary_with_the_configured_model(smollm, extractive_session, exported):
    document, folder = exported(PAPER)
    summary = summarize(extractive_session, document, folder)
    with Session(llama_settings(smollm)) as session:
        # SmolLM2 is labelled unfit to judge: it is refused, before it loads, unless the caller insists
        with pytest.raises(UnfitJudgeError, match="too small to judge"):
            judge(session, document, summary, base_dir=folder)
        result = judge(session, document, summary, base_dir=folder, insist=True)
    assert result.aspects and set(result.aspects) <= set(result.aspect_titles)
    assert result.judge.startswith("llama") and result.calls >= 1 and result.prompt_tokens > 0
    for aspect in result.aspects.values():  # a small model may fail an aspect: it says so
        assert aspect.score is not None or aspect.status != "ok"


def test_judge_without_a_language_model_says_what_to_set_up(extractive_session, exported):
    document, folder = exported(PAPER)
    with pytest.raises(JudgeNotConfiguredError, match="Settings"):
        judge(extractive_session, document, Summary(), base_dir=folder)
