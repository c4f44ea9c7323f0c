"""A language model's judgement of one summary: what ``app.judging.judge`` returns to the window and what
``mmdocsum bench judge`` writes per document (the JSON form is ``Judgement.model_dump(mode="json")``,
the same keys as ``judge.summary.SummaryJudgement.to_json`` plus the aspects' titles)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

AspectStatus = Literal["ok", "rule", "missing", "not_applicable"]


class JudgeSample(BaseModel):
    """One call of the judge for one aspect (several with self-consistency)."""

    model_config = ConfigDict(extra="forbid")

    score: float | None = None
    explanation: str = ""
    problem: str | None = None  # why the answer gave no score (unreadable, timed out, the judge failed)
    raw: str = ""  # the judge's answer as written (at most 2,000 characters)
    seconds: float = 0.0
    prompt_tokens: int | None = None
    retried_after: str | None = None  # the first answer's problem, when this is the retry


class AspectJudgement(BaseModel):
    """The score (1..5, None when there is none) of one aspect and why."""

    model_config = ConfigDict(extra="forbid")

    score: float | None = None
    explanation: str = ""
    status: AspectStatus = "ok"  # rule: decided by a rule, not the model; not_applicable: no figures to judge
    error: str | None = None
    samples: list[JudgeSample] = Field(default_factory=list)


class Judgement(BaseModel):
    """Every aspect of one summary, the overall score (their mean) and what the judging cost."""

    model_config = ConfigDict(extra="forbid")

    overall: float | None = None
    aspects: dict[str, AspectJudgement] = Field(default_factory=dict)
    missing: list[str] = Field(default_factory=list)  # aspects the judge gave no score
    judge: str = ""  # the judge engine as a person reads it: "llama (SmolLM2-360M.gguf)"
    figures_as_text: bool = True  # the judge read the figures' captions, not their images
    calls: int = 0
    seconds: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    aspect_titles: dict[str, str] = Field(default_factory=dict)  # name → the title a person reads


__all__ = ["AspectJudgement", "AspectStatus", "JudgeSample", "Judgement"]
