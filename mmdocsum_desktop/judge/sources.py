"""The judge: a language model (any TextEngine from ``engines/``) that scores what rules cannot.

It answers five kinds of question, each with a prompt written for this project and a tolerant reader
of the answer:

- ``coverage``: which of a paragraph's gold key points does a summary paragraph state? (Com)
- ``sentence_accuracy``: which sentences of a summary paragraph are correct against the gold paragraph
  and its key points, not repeated and not distorted? (Acc)
- ``support``: do the cited sources, together, support a statement? 0 / 1 / 2 (MCiteBench recall)
- ``relevance``: is one cited source relevant to a statement? 0 / 1 (MCiteBench precision)
- ``answer_rating``: is an answer right against the reference answer? 0 / 1 / 2 (answer accuracy)

A judge that answers garbage (no number, the wrong number of flags, a refusal) gives a
:class:`Verdict` with ``value=None`` and the reason and raw answer, so the caller records it for that
item and goes on; nothing is guessed. Prompts ask for tiny JSON answers at temperature 0, and pass a
JSON schema that engines with grammars (llama.cpp) or JSON mode (servers) can enforce.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mmdocsum_desktop.engines.base import GenerationOptions, ImagePart, Message
from mmdocsum_desktop.errors import JobCancelled, MmdocsumError

JUDGE_PROMPT_VERSION = "1"

_SYSTEM = (
    "You are a careful, strict evaluator of scientific summaries and answers. "
    "You only use the material you are given, never outside knowledge. "
    "You answer with the JSON requested and nothing else."
)


@dataclass
class Verdict:
    value: Any | None
    raw: str = ""
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.value is not None


@dataclass
class SourceForJudge:
    """A cited source: text, or an image (shown only to judges that see images)."""

    id: str
    text: str | None = None
    image: Path | None = None


def engine_label(engine: Any) -> str:
    """"llama:SmolLM2-135M-Instruct", "openai:gpt-x": how reports name a judge."""
    name = getattr(engine, "name", type(engine).__name__)
    model = getattr(engine, "model_name", "")
    return f"{name}:{model}" if model else str(name)


@dataclass
class Judge:
    """Wraps a TextEngine. ``ask`` is the single place where the engine is called."""

    engine: Any
    max_chars: int = 6000  # reference material is cut to this many characters per prompt
    log: list[dict[str, Any]] = field(default_factory=list)

    # ----------------------------------------------------------------------------------------- facts

    @property
    def name(self) -> str:
        return engine_label(self.engine)

    @property
    def sees_images(self) -> bool:
        return bool(getattr(self.engine, "supports_images", False))

    def fingerprint(self) -> str:
        describe = getattr(self.engine, "describe", None)
        details: Any = {}
        if callable(describe):
            try:
                # the description as a plain dict, as the cache key was computed before engines typed it
                described = describe()
                details = described.model_dump(mode="json") if hasattr(described, "model_dump") else described
            except Exception:  # noqa: BLE001 — a description is informative only
                details = {}
        digest = hashlib.sha256(
            json.dumps(
                {"judge": self.name, "details": details, "prompts": JUDGE_PROMPT_VERSION},
                sort_keys=True,
                default=str,
            ).encode()
        ).hexdigest()
        return digest[:16]

    # ------------------------------------------------------------------------------------- questions

    def coverage(self, key_points: Sequence[str], paragraph: str, *, control=None) -> Verdict:
        if not key_points:
            return Verdict(value=[], raw="")
        points = "\n".join(f"{i}. {point}" for i, point in enumerate(key_points, start=1))
        prompt = (
            "Below is one paragraph of a summary and a numbered list of key points.\n"
            "For each key point, write 1 if the paragraph clearly states it (in any words), or 0 if it "
            "does not or states something different.\n\n"
            f"Paragraph:\n{self._cut(paragraph)}\n\nKey points:\n{points}\n\n"
            f"Answer with a JSON list of exactly {len(key_points)} numbers (0 or 1), one per key point, "
            f"in order, for example {json.dumps([1, 0][: len(key_points)] + [1] * max(0, len(key_points) - 2))}."
        )
        return self._flags(prompt, len(key_points), control)

    def sentence_accuracy(
        self, sentences: Sequence[str], reference: str, key_points: Sequence[str] = (), *, control=None
    ) -> Verdict:
        if not sentences:
            return Verdict(value=[], raw="")
        numbered = "\n".join(f"{i}. {s}" for i, s in enumerate(sentences, start=1))
        points = "\n".join(f"- {p}" for p in key_points)
        prompt = (
            "Below is a reference paragraph written from a scientific document, its key points, and the "
            "numbered sentences of a candidate paragraph about the same part of the document.\n"
            "For each candidate sentence write 1 if it is correct: consistent with the reference, not a "
            "hallucinated detail, not a distortion of a number or claim, and not a repetition of an "
            "earlier sentence. Otherwise write 0.\n\n"
            f"Reference paragraph:\n{self._cut(reference)}\n\n"
            + (f"Key points:\n{points}\n\n" if points else "")
            + f"Candidate sentences:\n{numbered}\n\n"
            f"Answer with a JSON list of exactly {len(sentences)} numbers (0 or 1), one per sentence, in order."
        )
        return self._flags(prompt, len(sentences), control)

    def support(self, statement: str, sources: Sequence[SourceForJudge], *, control=None) -> Verdict:
        parts = self._source_parts(sources)
        if isinstance(parts, Verdict):
            return parts
        prompt_head = (
            "Below are parts of a paper (text, figures or tables) and one statement from an answer that "
            "cites them. Rate how well these parts, taken together, support the statement:\n"
            "0 = not supported (unrelated, or most of it is not in the parts),\n"
            "1 = partly supported (more than half is supported, some is missing or contradicted),\n"
            "2 = fully supported (almost everything in it is in the parts).\n"
            "Use only the parts given.\n\n"
        )
        tail = f'\n\nStatement: {statement}\n\nAnswer with JSON only, for example {{"rating": 1}}.'
        return self._rating(prompt_head, parts, tail, (0, 1, 2), control)

    def relevance(self, statement: str, source: SourceForJudge, *, control=None) -> Verdict:
        parts = self._source_parts([source])
        if isinstance(parts, Verdict):
            return parts
        prompt_head = (
            "Below is one part of a paper (a text passage, a figure or a table) and one statement from an "
            "answer that cites it. Write 1 if the part contains at least some key information of the "
            "statement, or 0 if it is irrelevant to it or contradicts all of it. Use only the part given.\n\n"
        )
        tail = f'\n\nStatement: {statement}\n\nAnswer with JSON only, for example {{"rating": 0}}.'
        return self._rating(prompt_head, parts, tail, (0, 1), control)

    def answer_rating(self, question: str, reference: str, answer: str, *, control=None) -> Verdict:
        prompt = (
            "Compare an assistant's answer to a question about a paper with the reference answer. Judge "
            "correctness first, then whether it covers the reference's points.\n"
            "0 = wrong or irrelevant, 1 = partly correct, 2 = correct and complete.\n\n"
            f"Question: {question}\n\nReference answer: {self._cut(reference)}\n\n"
            f"Assistant's answer: {self._cut(answer)}\n\n"
            'Answer with JSON only, for example {"rating": 2}.'
        )
        return self._rating("", [prompt], "", (0, 1, 2), control)

    # ------------------------------------------------------------------------------------- machinery

    def _cut(self, text: str) -> str:
        text = text or ""
        return text if len(text) <= self.max_chars else text[: self.max_chars] + " […]"

    def _source_parts(self, sources: Sequence[SourceForJudge]) -> list[Any] | Verdict:
        parts: list[Any] = []
        for source in sources:
            if source.text is not None:
                parts.append(f"[{source.id}] {self._cut(source.text)}\n")
            elif source.image is not None:
                if not self.sees_images:
                    return Verdict(None, error=f"the judge cannot see images ({source.id} is an image)")
                if not Path(source.image).exists():
                    return Verdict(None, error=f"{source.id}: image file missing ({source.image})")
                parts.append(f"{source.id}:\n")
                parts.append(ImagePart(Path(source.image), label=source.id))
                parts.append("\n")
            else:
                return Verdict(None, error=f"{source.id}: no content to show the judge")
        return parts

    def _flags(self, prompt: str, n: int, control) -> Verdict:
        schema = {"type": "array", "items": {"type": "integer", "enum": [0, 1]}, "minItems": n, "maxItems": n}
        raw, error = self.ask([prompt], schema=schema, max_tokens=8 + 4 * n, control=control)
        if error:
            return Verdict(None, raw=raw, error=error)
        flags = parse_flags(raw, n)
        if flags is None:
            return Verdict(None, raw=raw, error=f"expected {n} flags (0/1), could not read them")
        return Verdict(flags, raw=raw)

    def _rating(self, head: str, parts: list[Any], tail: str, allowed: tuple[int, ...], control) -> Verdict:
        schema = {
            "type": "object",
            "properties": {"rating": {"type": "integer", "enum": list(allowed)}},
            "required": ["rating"],
        }
        raw, error = self.ask([head, *parts, tail], schema=schema, max_tokens=16, control=control)
        if error:
            return Verdict(None, raw=raw, error=error)
        value = parse_rating(raw, allowed)
        if value is None:
            return Verdict(None, raw=raw, error=f"expected one rating in {list(allowed)}, could not read it")
        return Verdict(value, raw=raw)

    def ask(
        self, content: list[Any], *, schema: dict | None, max_tokens: int, control=None
    ) -> tuple[str, str | None]:
        """ADAPTER over the engines' protocol (``engines/base.py``): one system and one user message,
        temperature 0. Returns (raw text, error); engine failures become errors, never exceptions,
        except cancellation."""
        merged: list[Any] = []
        for part in content:
            if isinstance(part, str) and merged and isinstance(merged[-1], str):
                merged[-1] += part
            elif part != "":
                merged.append(part)
        user: Any = merged[0] if len(merged) == 1 and isinstance(merged[0], str) else merged
        messages = [Message("system", _SYSTEM), Message("user", user)]
        options = GenerationOptions(max_tokens=max_tokens, temperature=0.0, seed=0, json_schema=schema)
        try:
            generation = self.engine.generate(messages, options, control=control)
        except JobCancelled:
            raise
        except MmdocsumError as error:
            return "", f"judge engine error: {error}"
        except Exception as error:  # noqa: BLE001 — a broken judge is reported per item, the run goes on
            return "", f"judge engine error: {type(error).__name__}: {error}"
        text = getattr(generation, "text", generation)
        return (text if isinstance(text, str) else str(text)), None


# ------------------------------------------------------------------------------------------ parsing

_WORD_VALUES = {
    "yes": 1,
    "true": 1,
    "covered": 1,
    "correct": 1,
    "no": 0,
    "false": 0,
    "not": 0,
    "incorrect": 0,
}


def _json_candidates(text: str) -> list[Any]:
    """Every JSON value that parses from a fenced block, the whole text, or a bracketed span."""
    found: list[Any] = []
    spans = [m.group(1) for m in re.finditer(r"```(?:json)?\s*(.*?)```", text, re.DOTALL)]
    spans.append(text)
    for span in spans:
        span = span.strip()
        for candidate in (span, *re.findall(r"\[[^\[\]]*\]|\{[^{}]*\}", span)):
            try:
                found.append(json.loads(candidate))
            except (json.JSONDecodeError, ValueError):
                continue
    return found


def _flag(value: Any) -> int | None:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int) and value in (0, 1):
        return value
    if isinstance(value, float) and value in (0.0, 1.0):
        return int(value)
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in ("0", "1"):
            return int(lowered)
        return _WORD_VALUES.get(lowered)
    return None


def parse_flags(text: str, n: int) -> list[int] | None:
    """Exactly ``n`` 0/1 flags from a judge's answer, or None when they cannot be read unambiguously."""
    if not isinstance(text, str) or not text.strip():
        return None
    for value in _json_candidates(text):
        if isinstance(value, dict):
            lists = [v for v in value.values() if isinstance(v, list)]
            value = lists[0] if len(lists) == 1 else None
        if isinstance(value, list) and len(value) == n:
            flags = [_flag(v) for v in value]
            if all(f is not None for f in flags):
                return flags  # type: ignore[return-value]
    # "1. yes\n2. no" or "1: 1\n2: 0"
    numbered = re.findall(
        r"^\s*(\d+)\s*[.:)\-]\s*(yes|no|true|false|1|0)\b", text, re.IGNORECASE | re.MULTILINE
    )
    if len(numbered) == n and [int(i) for i, _ in numbered] == list(range(1, n + 1)):
        return [_flag(v) for _, v in numbered]  # type: ignore[misc]
    return None


def parse_rating(text: str, allowed: Sequence[int]) -> int | None:
    """One rating in ``allowed`` from a judge's answer, or None (garbage, refusal, ambiguous)."""
    if not isinstance(text, str) or not text.strip():
        return None
    for value in _json_candidates(text):
        if isinstance(value, dict):
            for key in ("rating", "score", "answer_rating", "support", "relevance", "value"):
                if key in value:
                    value = value[key]
                    break
            else:
                numbers = [
                    v for v in value.values() if isinstance(v, int | float) and not isinstance(v, bool)
                ]
                value = numbers[0] if len(numbers) == 1 else None
        if isinstance(value, list) and len(value) == 1:
            value = value[0]
        if isinstance(value, bool):
            continue
        if isinstance(value, int | float) and float(value).is_integer() and int(value) in allowed:
            return int(value)
        if isinstance(value, str) and value.strip().isdigit() and int(value) in allowed:
            return int(value)
    in_text = {int(n) for n in re.findall(r"(?<!\d)(?<!\d\.)(\d+)(?!\d|\.\d)", text)}
    if len(in_text) == 1 and len(text) <= 200:
        (number,) = in_text
        return number if number in allowed else None
    return None
