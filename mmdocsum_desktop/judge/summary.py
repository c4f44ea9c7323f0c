"""Reference-free judging of one interleaved summary against its source document.

The aspects (``resources/prompts/judge_aspects.toml``) follow InterleavedEval's — text quality,
text–image coherence, image coherence (here: image choice), helpfulness — plus faithfulness to the
source. Each aspect is one judge call that returns a 0–5 score and a short explanation.

What the judge sees, in this order (so that a llama.cpp judge evaluates the long shared part once and
only the question for each further aspect): excerpts of the source chosen for the summary being judged
(the title, the abstract's opening, and for every summary sentence the document sentences that share
the most rare words with it, each with its page), the document's figures and tables as label, caption
and text found in them, the summary with the image each paragraph shows (as a picture too, to a judge
that sees images), and last the aspect's question and scale.

Robustness: answers are read from JSON or free text ("Score: 4/5"); an answer that cannot be read, is
out of range, or does not come (engine error, time limit) is asked again once with a reminder, and then
recorded as missing — never as 0. Zero is given by rule only where the aspect defines it (no text; no
image although the document has figures). Image aspects of a document without figures are "not
applicable". Temperature 0 for one sample; ``self_consistency`` > 1 averages that many samples drawn
at ``sample_temperature`` with different seeds.
"""

from __future__ import annotations

import math
import re
import time
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mmdocsum_desktop.engines.base import MODEL_CALL_PHASES, GenerationOptions, ImagePart, Message
from mmdocsum_desktop.errors import BenchError, JobCancelled, MmdocsumError
from mmdocsum_desktop.jobs import JobControl, ensure_control, nested_control
from mmdocsum_desktop.judge.sources import _json_candidates, engine_label
from mmdocsum_desktop.summarize.prompt import prompt_dir
from mmdocsum_desktop.summarize.sentences import document_sentences
from mmdocsum_desktop.text.sentences import split_sentences
from mmdocsum_desktop.text.tokens import excerpt_terms

ASPECTS = ("text_quality", "text_image_coherence", "image_choice", "faithfulness", "helpfulness")
SCORE_RANGE = (0, 5)
PROMPT_VERSION = "1"
CAPTION_CHARS = 220
OCR_CHARS = 160
MAX_FIGURES_LISTED = 24
EXPLANATION_CHARS = 320

_SYSTEM = (
    "You are a strict, fair reviewer of illustrated summaries of scientific documents. You judge only "
    "from the material you are given, never from outside knowledge, and you reply with the JSON asked "
    "for and nothing else."
)
_REPLY = (
    'Reply with JSON only, in this form: {"score": <an integer from 0 to 5>, "explanation": "<one short '
    'sentence>"}'
)
_RETRY = (
    "\n\nYour previous reply could not be used ({problem}). Reply again, with JSON only: "
    '{{"score": <integer 0-5>, "explanation": "..."}}'
)


@dataclass(frozen=True)
class Aspect:
    name: str
    title: str
    needs: str  # "text" or "image": what a summary must have for the aspect to score above 0
    question: str
    scale: str


def load_aspects() -> dict[str, Aspect]:
    path = prompt_dir() / "judge_aspects.toml"
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise MmdocsumError(f"the judge's aspect file {path} is missing or broken ({error})") from error
    aspects = {}
    for name in ASPECTS:
        entry = table.get(name)
        if not isinstance(entry, dict):
            raise MmdocsumError(f"{path} does not define the aspect {name!r}")
        aspects[name] = Aspect(name, entry["title"], entry["needs"], entry["question"].strip(), entry["scale"].strip())
    return aspects


def check_aspects(names: Sequence[str] | None) -> tuple[str, ...]:
    if not names:
        return ASPECTS
    unknown = [n for n in names if n not in ASPECTS]
    if unknown:
        raise BenchError(f"unknown aspect(s) {', '.join(unknown)} (expected some of {', '.join(ASPECTS)})")
    return tuple(n for n in ASPECTS if n in names)


# ------------------------------------------------------------------------------------------ answers


def parse_score(text: str) -> tuple[int | None, str, str | None]:
    """(score, explanation, problem) from a judge's reply. ``problem`` says why the score is None."""
    if not isinstance(text, str) or not text.strip():
        return None, "", "empty reply"
    explanation = ""
    value: Any = None
    for candidate in _json_candidates(text):
        if not isinstance(candidate, dict):
            continue
        for key in ("score", "rating", "Score", "grade"):
            if key in candidate:
                value = candidate[key]
                break
        for key in ("explanation", "reason", "rationale", "justification"):
            if isinstance(candidate.get(key), str):
                explanation = candidate[key]
                break
        if value is not None:
            break
    if value is None:
        match = re.search(r"(?:score|rating)[\"']?\s*(?:is|of)?\s*[:=]?\s*(-?\d+(?:\.\d+)?)", text, re.IGNORECASE) or re.search(
            r"(?<![\d.])(-?\d+(?:\.\d+)?)\s*(?:/|out of)\s*5\b", text, re.IGNORECASE
        )
        if match is None:
            return None, text.strip()[:EXPLANATION_CHARS], "no score in the reply"
        value = match.group(1)
        cut_short = re.search(r"[\"']explanation[\"']\s*:\s*[\"']([^\"']*)", text)  # JSON cut at max_tokens
        rest = cut_short.group(1) if cut_short else text.replace(match.group(0), "")
        explanation = explanation or re.sub(r"\s+", " ", rest).strip(" .:-\n{}\"',")
    if isinstance(value, bool):
        return None, explanation, f"score {value!r} is not a number"
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None, explanation, f"score {value!r} is not a number"
    if not isinstance(value, int | float) or not math.isfinite(value) or float(value) != int(value):
        return None, explanation, f"score {value!r} is not a whole number"
    score = int(value)
    if not SCORE_RANGE[0] <= score <= SCORE_RANGE[1]:
        return None, explanation, f"score {score} is outside 0-5"
    return score, explanation.strip()[:EXPLANATION_CHARS], None


# ---------------------------------------------------------------------------------------- the input


def summary_paragraphs(record: Any) -> list[dict[str, Any]]:
    """The paragraphs of a summary record (``render.to_json``), checked; a clear error otherwise."""
    if not isinstance(record, dict) or not isinstance(record.get("paragraphs"), list):
        raise BenchError("not a summary: expected the JSON that `mmdocsum summarize -o X.json` writes")
    paragraphs = []
    for k, paragraph in enumerate(record["paragraphs"], start=1):
        if not isinstance(paragraph, dict) or not isinstance(paragraph.get("text", ""), str):
            raise BenchError(f"summary paragraph {k} is malformed")
        figure = paragraph.get("figure")
        if figure is not None and not isinstance(figure, dict):
            raise BenchError(f"summary paragraph {k}: its figure is malformed")
        paragraphs.append(paragraph)
    return paragraphs


def source_excerpt(document: Any, records: dict[str, Any] | Sequence[dict[str, Any]], max_chars: int = 4000) -> str:
    """Title, abstract opening and the document sentences closest to each sentence of the summary (or
    of several summaries, which then share one excerpt), by shared rare words, in reading order with
    their pages, within ``max_chars``."""
    sentences = document_sentences(document)
    head = []
    if document.title:
        head.append(f"Title: {document.title}")
    if document.abstract:
        head.append(f"Abstract (opening): {document.abstract[:600]}")
    if not sentences:
        return "\n".join(head) or "(the document has no text)"
    counts: dict[str, int] = {}
    term_sets = []
    for sentence in sentences:
        terms = set(excerpt_terms(sentence.text))
        term_sets.append(terms)
        for term in terms:
            counts[term] = counts.get(term, 0) + 1
    n = len(sentences)
    idf = {term: math.log((n + 1) / (c + 0.5)) for term, c in counts.items()}
    picked: dict[int, float] = {}  # sentence position -> best score
    for paragraph in (p for record in ([records] if isinstance(records, dict) else records) for p in summary_paragraphs(record)):
        for claim in split_sentences(paragraph.get("text") or ""):
            wanted = set(excerpt_terms(claim))
            if not wanted:
                continue
            scored = sorted(
                ((sum(idf.get(t, 0.0) for t in wanted & terms), i) for i, terms in enumerate(term_sets)),
                reverse=True,
            )[:2]
            for rank, (score, i) in enumerate(scored):
                if score > 0:
                    # the best match of every claim comes before any second-best match
                    picked[i] = max(picked.get(i, 0.0), score + (1e6 if rank == 0 else 0.0))
    budget = max_chars - sum(len(h) + 1 for h in head)
    chosen: list[int] = []
    for i in sorted(picked, key=lambda i: -picked[i]):
        cost = len(sentences[i].text) + 10
        if cost <= budget:
            chosen.append(i)
            budget -= cost
    lines = []
    for i in sorted(chosen):
        page = sentences[i].page
        lines.append(f"[p. {page}] {sentences[i].text}" if page else f"- {sentences[i].text}")
    return "\n".join([*head, "Excerpts:", *lines]) if lines else "\n".join(head)


def _figure_line(figure: dict[str, Any]) -> str:
    name = figure.get("label") or f"{(figure.get('kind') or 'figure').capitalize()} (no label)"
    caption = " ".join(str(figure.get("caption") or "").split())
    if len(caption) > CAPTION_CHARS:
        caption = caption[:CAPTION_CHARS] + "…"
    line = f"[Image {figure.get('index')}] {name}: {caption or '(no caption)'}"
    ocr = " ".join(str(figure.get("ocr_text") or "").split())
    if ocr:
        line += f" | text in the image: {ocr[:OCR_CHARS]}"
    return line


def document_figures(record: dict[str, Any], document: Any = None) -> list[dict[str, Any]]:
    """The document's figures and tables as the summary numbers them (its ``figures``), or from the
    document when the record does not list them."""
    figures = record.get("figures")
    if isinstance(figures, list) and all(isinstance(f, dict) for f in figures):
        return figures
    if document is None:
        return []
    visuals = sorted(document.visuals, key=lambda v: (v.page or 0, v.index))
    return [
        {"index": k, "label": v.label, "kind": v.kind, "caption": v.caption, "image": v.image}
        for k, v in enumerate(visuals, start=1)
    ]


def _image_path(figure: dict[str, Any], base_dir: Path | None) -> Path | None:
    image = figure.get("image")
    if not image:
        return None
    path = Path(image)
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    return path if path.is_file() else None


def prompt_parts(
    aspect: Aspect,
    excerpt: str,
    record: dict[str, Any],
    figures: list[dict[str, Any]],
    *,
    sees_images: bool,
    base_dir: Path | None,
) -> list[Any]:
    """The user message: source, figures, summary (with pictures for judges that see them), question."""
    listed = figures[:MAX_FIGURES_LISTED]
    figure_text = "\n".join(_figure_line(f) for f in listed) or "(the document has no figures or tables)"
    if len(figures) > len(listed):
        figure_text += f"\n… and {len(figures) - len(listed)} more"
    parts: list[Any] = [
        "You will judge an illustrated summary of a document.\n\nSOURCE DOCUMENT\n"
        f"{excerpt}\n\nFIGURES AND TABLES OF THE DOCUMENT\n{figure_text}\n\nTHE SUMMARY\n"
    ]
    for k, paragraph in enumerate(summary_paragraphs(record), start=1):
        title = paragraph.get("title") or str(paragraph.get("role") or "").capitalize()
        text = (paragraph.get("text") or "").strip() or "(empty)"
        figure = paragraph.get("figure")
        parts.append(f"Paragraph {k} ({title}): {text}\n")
        if figure:
            parts.append(f"Image shown with paragraph {k}: {_figure_line(figure)}\n")
            path = _image_path(figure, base_dir) if sees_images else None
            if path is not None:
                parts.append(ImagePart(path, label=f"Image {figure.get('index')}"))
                parts.append("\n")
        else:
            parts.append(f"Image shown with paragraph {k}: none\n")
    parts.append(f"\nQUESTION: {aspect.title}\n{aspect.question}\nScale:\n{aspect.scale}\n\n{_REPLY}")
    return parts


# --------------------------------------------------------------------------------------- judgements


@dataclass
class AspectScore:
    aspect: str
    score: float | None
    explanation: str = ""
    status: str = "ok"  # ok, rule, missing, not_applicable
    samples: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "score": None if self.score is None else round(self.score, 3),
            "explanation": self.explanation,
            "status": self.status,
            "error": self.error,
            "samples": self.samples,
        }


@dataclass
class SummaryJudgement:
    aspects: dict[str, AspectScore]
    judge: str
    figures_as_text: bool
    calls: int = 0
    seconds: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def overall(self) -> float | None:
        scores = [a.score for a in self.aspects.values() if a.score is not None]
        return sum(scores) / len(scores) if scores else None

    @property
    def missing(self) -> list[str]:
        return [name for name, a in self.aspects.items() if a.status == "missing"]

    def to_json(self) -> dict[str, Any]:
        overall = self.overall
        return {
            "overall": None if overall is None else round(overall, 3),
            "aspects": {name: a.to_json() for name, a in self.aspects.items()},
            "missing": self.missing,
            "judge": self.judge,
            "figures_as_text": self.figures_as_text,
            "calls": self.calls,
            "seconds": round(self.seconds, 3),
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
        }


@dataclass
class SummaryJudge:
    """Judges summaries with any engine of ``engines/`` (llama, openai; vision or text)."""

    engine: Any
    self_consistency: int = 1
    sample_temperature: float = 0.7
    time_limit_s: float | None = None
    max_source_chars: int = 4000
    max_tokens: int = 96  # a score and a sentence; longer explanations are cut, the score is kept

    def __post_init__(self) -> None:
        if self.self_consistency < 1:
            raise BenchError("--self-consistency must be 1 or more")
        self.aspects = load_aspects()

    @property
    def name(self) -> str:
        return engine_label(self.engine)

    @property
    def sees_images(self) -> bool:
        return bool(getattr(self.engine, "supports_images", False))

    @property
    def temperature(self) -> float:
        return 0.0 if self.self_consistency == 1 else self.sample_temperature

    def describe(self) -> dict[str, Any]:
        describe = getattr(self.engine, "describe", None)
        return {
            "judge": self.name,
            "engine": _as_json(describe()) if callable(describe) else {},
            "sees_images": self.sees_images,
            "figures_as_text": not self.sees_images,
            "self_consistency": self.self_consistency,
            "temperature": self.temperature,
            "time_limit_s": self.time_limit_s,
            "prompt_version": PROMPT_VERSION,
        }

    def judge(
        self,
        document: Any,
        record: dict[str, Any],
        *,
        base_dir: str | Path | None = None,
        aspects: Sequence[str] | None = None,
        evidence_from: Sequence[dict[str, Any]] | None = None,
        control: JobControl | None = None,
    ) -> SummaryJudgement:
        """Every aspect of one summary; cancellation stops between calls (JobCancelled).

        ``evidence_from``: summaries whose sentences choose the source excerpts (default: this one), so
        that several versions of a summary can be judged against the same excerpts."""
        control = ensure_control(control)
        names = check_aspects(aspects)
        paragraphs = summary_paragraphs(record)
        figures = document_figures(record, document)
        base = Path(base_dir) if base_dir is not None else None
        result = SummaryJudgement({}, judge=self.name, figures_as_text=not self.sees_images)
        started = time.perf_counter()
        has_text = any((p.get("text") or "").strip() for p in paragraphs)
        shows_image = any(p.get("figure") for p in paragraphs)
        excerpt = source_excerpt(document, evidence_from or record, self.max_source_chars)
        excerpt = self._fit(excerpt, record, figures, base)
        for done, name in enumerate(names):
            control.report(done, len(names), self.aspects[name].title)
            aspect = self.aspects[name]
            if aspect.needs == "text" and not has_text:
                result.aspects[name] = AspectScore(name, 0.0, "the summary has no text", status="rule")
            elif aspect.needs == "image" and not figures:
                result.aspects[name] = AspectScore(
                    name, None, "the document has no figures or tables", status="not_applicable"
                )
            elif aspect.needs == "image" and not shows_image:
                result.aspects[name] = AspectScore(
                    name, 0.0, "no paragraph shows an image although the document has figures", status="rule"
                )
            else:
                parts = prompt_parts(aspect, excerpt, record, figures, sees_images=self.sees_images, base_dir=base)
                # each model call's token progress fills this aspect's step of the bar
                aspect_control = nested_control(control, done, len(names), aspect.title, phases=MODEL_CALL_PHASES)
                result.aspects[name] = self._score(name, parts, result, aspect_control)
        control.report(len(names), len(names), "judged")
        result.seconds = time.perf_counter() - started
        return result

    # ---------------------------------------------------------------------------------- machinery

    def _fit(self, excerpt: str, record: dict[str, Any], figures: list[dict[str, Any]], base: Path | None) -> str:
        """Shorten the excerpt until the longest question fits the judge's context (when it has one)."""
        context = getattr(self.engine, "context_length", None)
        count = getattr(self.engine, "count_tokens", None)
        if not context or not callable(count):
            return excerpt
        longest = max(self.aspects.values(), key=lambda a: len(a.question) + len(a.scale))
        image_tokens = 300 * sum(1 for p in summary_paragraphs(record) if p.get("figure")) if self.sees_images else 0
        while True:
            parts = prompt_parts(longest, excerpt, record, figures, sees_images=False, base_dir=base)
            tokens = count(_SYSTEM + "".join(p for p in parts if isinstance(p, str))) + image_tokens + 64
            if tokens + self.max_tokens <= context or len(excerpt) < 400:
                return excerpt
            excerpt = excerpt[: int(len(excerpt) * 0.75)].rsplit("\n", 1)[0]

    def _score(self, name: str, parts: list[Any], result: SummaryJudgement, control: JobControl) -> AspectScore:
        samples: list[dict[str, Any]] = []
        for sample in range(self.self_consistency):
            attempt = self._attempt(parts, sample, None, result, control)
            if attempt["score"] is None:
                first_problem = attempt["problem"]
                attempt = self._attempt(parts, sample, first_problem, result, control)
                attempt["retried_after"] = first_problem
            samples.append(attempt)
        valid = [s for s in samples if s["score"] is not None]
        if not valid:
            problems = "; ".join(
                dict.fromkeys(f"{s['retried_after']}, then on retry: {s['problem']}" for s in samples)
            )
            return AspectScore(name, None, samples[-1]["explanation"], "missing", samples, error=problems)
        mean = sum(s["score"] for s in valid) / len(valid)
        closest = min(valid, key=lambda s: abs(s["score"] - mean))
        return AspectScore(name, mean, closest["explanation"], "ok", samples)

    def _attempt(
        self, parts: list[Any], sample: int, problem: str | None, result: SummaryJudgement, control: JobControl
    ) -> dict[str, Any]:
        content = list(parts)
        if problem is not None:
            content.append(_RETRY.format(problem=problem))
        merged: list[Any] = []
        for part in content:
            if isinstance(part, str) and merged and isinstance(merged[-1], str):
                merged[-1] += part
            else:
                merged.append(part)
        user: Any = merged[0] if len(merged) == 1 else merged
        schema = {
            "type": "object",
            # the score first: an answer cut short at max_tokens still carries it
            "properties": {
                "score": {"type": "integer", "enum": list(range(SCORE_RANGE[0], SCORE_RANGE[1] + 1))},
                "explanation": {"type": "string"},
            },
            "required": ["score", "explanation"],
        }
        options = GenerationOptions(
            max_tokens=self.max_tokens,
            temperature=self.temperature,
            seed=sample + (1000 if problem else 0),
            json_schema=schema,
            reuse_prompt_prefix=True,
            time_limit_s=self.time_limit_s,
        )
        result.calls += 1
        started = time.perf_counter()
        try:
            generation = self.engine.generate([Message("system", _SYSTEM), Message("user", user)], options, control=control)
        except JobCancelled:
            raise
        except Exception as error:  # noqa: BLE001 — a failing judge is recorded per aspect, the run goes on
            return {"score": None, "explanation": "", "problem": f"judge error: {error}", "raw": "",
                    "seconds": round(time.perf_counter() - started, 3)}
        control.check()
        result.prompt_tokens += int(getattr(generation, "prompt_tokens", 0) or 0)
        result.completion_tokens += int(getattr(generation, "completion_tokens", 0) or 0)
        raw = getattr(generation, "text", "")
        finish = getattr(generation, "finish_reason", "stop")
        score, explanation, problem_now = parse_score(raw)
        if finish == "timeout":
            score, problem_now = None, f"no answer within the time limit of {self.time_limit_s} s"
        return {
            "score": score,
            "explanation": explanation,
            "problem": problem_now,
            "raw": raw[:2000],
            "seconds": round(time.perf_counter() - started, 3),
            "prompt_tokens": int(getattr(generation, "prompt_tokens", 0) or 0),
        }


def _as_json(described: Any) -> Any:
    """An engine's description for a JSON file: engines describe themselves as an EngineInfo."""
    return described.model_dump(mode="json") if hasattr(described, "model_dump") else described


def judge_document(
    document: Any,
    record: dict[str, Any],
    judge_engine: Any,
    *,
    base_dir: str | Path | None = None,
    self_consistency: int = 1,
    time_limit_s: float | None = None,
    control: JobControl | None = None,
) -> dict[str, Any]:
    """One summary of one document (the GUI's "Judge this summary"): the judgement as JSON."""
    judge = SummaryJudge(judge_engine, self_consistency=self_consistency, time_limit_s=time_limit_s)
    return judge.judge(document, record, base_dir=base_dir, control=control).to_json()
