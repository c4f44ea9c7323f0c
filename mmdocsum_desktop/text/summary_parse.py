"""A tolerant reader of model answers in M-DocSum's format, which records what it had to forgive.

Real model output comes in code fences, with text before or after the JSON, with single quotes or
trailing commas, cut off by the token limit, wrapped in an object, as five paragraphs or three, with
a field missing, an image index out of range or the same image twice. :func:`parse_answer` reads all
of these; it never raises on model text.

* ``raw`` — the paragraph objects as the model gave them (before any repair), for the benchmark;
* ``paragraphs`` — exactly four :class:`ParsedParagraph` after the parser's own repairs (extra
  paragraphs merged into the last, missing ones empty, broken image references marked);
* ``format_issues`` — syntax the parser forgave (fences, surrounding text, quotes, truncation);
* ``rule_breaks`` — instructions the model did not follow (count, missing field, bad or reused index);
* ``instruction_following`` — True only for an answer that needed neither.

Image references are the 1-based tags of the prompt; the pipeline maps them to figures and lets the
placement engine repair the broken ones.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from dataclasses import dataclass, field
from typing import Any

from mmdocsum_desktop.text.paragraphs import split_paragraphs

N_PARAGRAPHS = 4
ROLE_KEYS = ("background", "method", "results", "conclusion")
_ROLE_ALIASES = {
    "background": ("background", "research background", "research_background", "introduction", "motivation"),
    "method": ("method", "methods", "methodology", "approach"),
    "results": ("results", "result", "findings", "experiments"),
    "conclusion": ("conclusion", "conclusions", "discussion", "summary_conclusion"),
}
_SUMMARY_KEYS = ("summary", "text", "paragraph", "content", "para", "body")
_IMAGE_KEYS = ("image", "img", "figure")
_REF_KEYS = ("imageref", "image_ref", "ref", "index", "image_index", "id")
_CAPTION_KEYS = ("imagecaption", "image_caption", "caption")
_NONE_WORDS = {"none", "null", "", "no image", "n/a", "na", "no", "-", "nil"}
# At most nine digits: no prompt has that many images, and int() refuses strings of thousands of digits.
_REF_PATTERN = re.compile(
    r"^\s*[\[<(]?\s*(?:(?:image|img|figure|fig\.?|picture|idx)\s*[_#:\s-]?\s*)?(-?\d{1,9})\s*[\]>)]?\s*\.?\s*$", re.I
)
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_-]*)[ \t]*\n?(.*?)(?:```|\Z)", re.S)
_TRAILING_COMMA = re.compile(r",\s*([\]}])")


@dataclass
class ParsedParagraph:
    summary: str
    image: int | None = None  # a valid 1-based tag, or None
    image_status: str = "none"  # ok, none, missing, invalid, out_of_range, duplicate
    raw_ref: Any = None
    caption: str = ""

    @property
    def rule_broken(self) -> bool:
        return self.image_status in ("missing", "invalid", "out_of_range", "duplicate")


@dataclass
class ParsedAnswer:
    ok: bool
    paragraphs: list[ParsedParagraph]
    raw: list[Any] | None = None
    format_issues: list[str] = field(default_factory=list)
    rule_breaks: list[str] = field(default_factory=list)
    repairs: list[str] = field(default_factory=list)

    @property
    def instruction_following(self) -> bool:
        return self.ok and not self.format_issues and not self.rule_breaks

    def to_json(self) -> dict[str, Any]:
        return {
            "parsed": self.ok,
            "instruction_following": self.instruction_following,
            "format_issues": self.format_issues,
            "rule_breaks": self.rule_breaks,
            "parser_repairs": self.repairs,
        }


# ------------------------------------------------------------------------------------------ decoding


def _find_json_span(text: str) -> tuple[int, int, list[str]] | None:
    """(start, end, closers needed) of the first balanced JSON-ish value; end == len(text) and closers
    non-empty when it was cut off. Strings in either quote style are skipped."""
    starts = [i for i in (text.find("["), text.find("{")) if i >= 0]
    if not starts:
        return None
    start = min(starts)
    stack: list[str] = []
    quote: str | None = None
    escaped = False
    for i in range(start, len(text)):
        c = text[i]
        if quote:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == quote:
                if c == "'" and text[i - 1].isalnum() and i + 1 < len(text) and text[i + 1].isalnum():
                    continue  # an apostrophe inside a single-quoted string (it's)
                quote = None
            continue
        if c in "\"'":
            # an apostrophe inside a word is not a quote (it's, don't)
            if c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < len(text) and text[i + 1].isalnum():
                continue
            quote = c
        elif c in "[{":
            stack.append("]" if c == "[" else "}")
        elif c in "]}":
            if stack and stack[-1] == c:
                stack.pop()
                if not stack:
                    return start, i + 1, []
            else:
                return None
    closers = list(reversed(stack))
    if quote:
        closers.insert(0, quote)
    return start, len(text), closers


_PY_ESCAPE = re.compile(r"\\(?:U[0-9a-fA-F]{8}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[nrt\\'\"])")


def _unescape(escape: str) -> str:
    kind = escape[1]
    if kind in "Uux":
        code = int(escape[2:], 16)
        # A \U escape can name a code point Unicode does not have; chr() would raise on it.
        return chr(code) if code <= sys.maxunicode else "\ufffd"
    return {"n": "\n", "r": "\r", "t": "\t"}.get(kind, kind)


def _single_to_double(snippet: str) -> str:
    """Rewrite single-quoted strings as JSON strings (apostrophes inside words are left alone)."""
    out: list[str] = []
    i = 0
    n = len(snippet)
    while i < n:
        c = snippet[i]
        if c == '"':
            j = i + 1
            while j < n and snippet[j] != '"':
                j += 2 if snippet[j] == "\\" else 1
            out.append(snippet[i : j + 1])
            i = j + 1
        elif c == "'" and not (i > 0 and snippet[i - 1].isalnum()):
            j = i + 1
            buf: list[str] = []
            while j < n:
                d = snippet[j]
                if d == "\\" and j + 1 < n:
                    escape = _PY_ESCAPE.match(snippet, j)
                    if escape:
                        buf.append(_unescape(escape.group(0)))
                        j = escape.end()
                    else:
                        buf.append(snippet[j + 1])
                        j += 2
                    continue
                if d == "'" and not (j + 1 < n and snippet[j + 1].isalnum() and snippet[j - 1].isalnum()):
                    break
                buf.append(d)
                j += 1
            out.append(json.dumps("".join(buf)))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _json_value(snippet: str) -> tuple[bool, Any]:
    """(True, value) when ``snippet`` is JSON; json.loads raises RecursionError, not ValueError, on
    thousands of nested brackets, which a looping model can write."""
    try:
        return True, json.loads(snippet)
    except (ValueError, RecursionError):
        return False, None


def _loads(snippet: str) -> tuple[Any, list[str]] | None:
    """Decode JSON, else JSON with repairs, else a Python literal; with the issues forgiven."""
    decoded, value = _json_value(snippet)
    if decoded:
        return value, []
    no_commas = _TRAILING_COMMA.sub(r"\1", snippet)
    comma_issue = ["trailing commas"] if no_commas != snippet else []
    if comma_issue:
        decoded, value = _json_value(no_commas)
        if decoded:
            return value, comma_issue
    try:  # Python's own syntax: single quotes, None/True/False, its escapes, trailing commas
        return ast.literal_eval(snippet), ["single quotes" if "'" in snippet else "Python literal syntax"]
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    converted = _single_to_double(no_commas)
    literals = re.sub(
        r"(?<=[:\[,\s])(None|True|False)(?=\s*[,}\]])",
        lambda m: {"None": "null", "True": "true", "False": "false"}[m.group(1)],
        converted,
    )
    for candidate, issues in ((converted, ["single quotes"]), (literals, ["single quotes", "Python literals"])):
        decoded, value = _json_value(candidate)
        if decoded:
            return value, issues + comma_issue
    return None


def decode_json(text: str) -> tuple[Any, list[str]] | None:
    """The first JSON value in ``text`` with the format issues forgiven, or None."""
    issues: list[str] = []
    body = text.strip().lstrip("\ufeff")
    fence = _FENCE.search(body)
    if fence and ("[" in fence.group(2) or "{" in fence.group(2)):
        outside = (body[: fence.start()] + body[fence.end() :]).strip()
        issues.append("code fence")
        if outside:
            issues.append("text outside the code fence")
        body = fence.group(2)
    span = _find_json_span(body)
    if span is None:
        return None
    start, end, closers = span
    if body[:start].strip():
        issues.append("text before the JSON")
    if body[end:].strip():
        issues.append("text after the JSON")
    snippet = body[start:end]
    if closers:
        issues.append("truncated answer")
        snippet = _close_truncated(snippet, closers)
    loaded = _loads(snippet)
    if loaded is None:
        return None
    value, more = loaded
    return value, issues + more


def _close_truncated(snippet: str, closers: list[str]) -> str:
    text = snippet.rstrip()
    if closers and closers[0] in "\"'":
        text += closers[0]
        closers = closers[1:]
    text = re.sub(r"[,:]\s*$", "", text)
    # a key without a value ("imageRef") at the very end: give it an empty one
    if re.search(r"[{,]\s*\"[^\"]*\"$", text):
        text += ': ""'
    return text + "".join(closers)


# ------------------------------------------------------------------------------------------ shaping


def _lower_keys(item: dict) -> dict[str, Any]:
    return {str(k).strip().lower(): v for k, v in item.items()}


def _as_items(value: Any, issues: list[str]) -> list[Any] | None:
    if isinstance(value, list):
        if len(value) == 1 and isinstance(value[0], list):
            issues.append("nested list")
            return value[0]
        return value
    if isinstance(value, dict):
        lowered = _lower_keys(value)
        for key in ("paragraphs", "summaries", "summary", "answer", "output", "result", "results"):
            if isinstance(lowered.get(key), list):
                issues.append("answer wrapped in an object")
                return lowered[key]
        by_role = []
        for role in ROLE_KEYS:
            hit = next((lowered[a] for a in _ROLE_ALIASES[role] if a in lowered), None)
            if hit is not None:
                by_role.append(hit if isinstance(hit, dict) else {"summary": hit})
        if len(by_role) >= 2:
            issues.append("paragraphs keyed by role instead of a list")
            return by_role
        if any(k in lowered for k in _SUMMARY_KEYS):
            issues.append("a single object instead of a list")
            return [value]
    return None


def normalise_ref(ref: Any) -> tuple[int | None, str]:
    """(tag, status) for an image reference: status ok / none / invalid."""
    if isinstance(ref, dict):
        lowered = _lower_keys(ref)
        ref = next((lowered[k] for k in _REF_KEYS if k in lowered), ref)
        if isinstance(ref, dict):
            return None, "invalid"
    if ref is None:
        return None, "none"
    if isinstance(ref, bool):
        return None, "invalid"
    if isinstance(ref, int):
        return ref, "ok"
    if isinstance(ref, float):
        return (int(ref), "ok") if ref.is_integer() else (None, "invalid")
    if isinstance(ref, list):
        if len(ref) == 1:
            return normalise_ref(ref[0])
        return (None, "none") if not ref else (None, "invalid")
    if isinstance(ref, str):
        text = ref.strip().strip("\"'")
        if text.lower() in _NONE_WORDS:
            return None, "none"
        match = _REF_PATTERN.match(text)
        if match:
            return int(match.group(1)), "ok"
    return None, "invalid"


def _paragraph(item: Any, position: int, rule_breaks: list[str]) -> ParsedParagraph:
    if isinstance(item, str):
        rule_breaks.append(f"paragraph {position}: a bare string without the image field")
        return ParsedParagraph(summary=item.strip(), image_status="missing")
    if not isinstance(item, dict):
        rule_breaks.append(f"paragraph {position}: not an object")
        return ParsedParagraph(summary=str(item) if item is not None else "", image_status="missing")
    lowered = _lower_keys(item)
    summary = next((lowered[k] for k in _SUMMARY_KEYS if k in lowered and isinstance(lowered[k], str)), None)
    if summary is None:
        rule_breaks.append(f"paragraph {position}: no summary field")
        summary = ""
    image_field = next((lowered[k] for k in _IMAGE_KEYS if k in lowered), None)
    caption = ""
    ref_present = False
    ref: Any = None
    if isinstance(image_field, dict):
        inner = _lower_keys(image_field)
        hit = next((k for k in _REF_KEYS if k in inner), None)
        if hit is not None:
            ref_present, ref = True, inner[hit]
        caption = next((str(inner[k]) for k in _CAPTION_KEYS if k in inner and inner[k] is not None), "")
    elif any(k in lowered for k in _IMAGE_KEYS):
        ref_present, ref = True, image_field
    else:
        hit = next((k for k in _REF_KEYS if k in lowered), None)
        if hit is not None:
            ref_present, ref = True, lowered[hit]
            rule_breaks.append(f"paragraph {position}: imageRef outside the image object")
    if not caption:
        caption = next((str(lowered[k]) for k in _CAPTION_KEYS if k in lowered and lowered[k] is not None), "")
    if not ref_present:
        rule_breaks.append(f"paragraph {position}: no image field")
        return ParsedParagraph(summary=summary.strip(), image_status="missing", caption=caption.strip())
    tag, status = normalise_ref(ref)
    if status == "invalid":
        rule_breaks.append(f"paragraph {position}: image reference {ref!r} is neither an index nor None")
    return ParsedParagraph(summary=summary.strip(), image=tag, image_status=status, raw_ref=ref, caption=caption.strip())


def read_paragraph(item: Any, position: int = 1) -> tuple[ParsedParagraph, list[str]]:
    """One paragraph object as the model gave it, read without any repair, and the rules it breaks
    (the benchmark scores answers as given with this, so it reads fields exactly as the app does)."""
    rule_breaks: list[str] = []
    return _paragraph(item, position, rule_breaks), rule_breaks


_HEADING = re.compile(
    r"^\s*(?:#+\s*|\*\*)?\s*(?:\d+[.)]\s*)?(research background|background|introduction|methods?|methodology|"
    r"approach|results?|findings|conclusions?|discussion)\s*(?:\*\*)?\s*[:.\-–]?\s*(?:\*\*)?\s*",
    re.I,
)
_TEXT_REF = re.compile(r"\[?\s*(?:image|img)\s*[_#:]?\s*(\d+)\s*\]?", re.I)


def _plain_text_items(text: str) -> list[dict[str, Any]]:
    """Paragraphs of a non-JSON answer: split at blank lines or role headings; images from [Image k]."""
    body = _FENCE.sub(lambda m: m.group(2), text).strip()
    chunks = split_paragraphs(body)
    if len(chunks) < N_PARAGRAPHS:
        lines = [line for line in body.splitlines() if line.strip()]
        if sum(bool(_HEADING.match(line)) for line in lines) >= 2:
            chunks = []
            current: list[str] = []
            for line in lines:
                if _HEADING.match(line) and current:
                    chunks.append(" ".join(current))
                    current = []
                current.append(line.strip())
            if current:
                chunks.append(" ".join(current))
    items = []
    for chunk in chunks:
        chunk = _HEADING.sub("", chunk, count=1).strip()
        if not chunk or len(chunk.split()) < 3:
            continue
        match = _TEXT_REF.search(chunk)
        summary = _TEXT_REF.sub("", chunk).strip() if match else chunk
        items.append({"summary": " ".join(summary.split()), "image": {"imageRef": match.group(1) if match else "None", "imageCaption": ""}})
    return items


# ---------------------------------------------------------------------------------------- top level


def parse_answer(text: Any, n_images: int | None = None) -> ParsedAnswer:
    """Read a model answer (text, or an already decoded list); never raises on model output."""
    format_issues: list[str] = []
    rule_breaks: list[str] = []
    repairs: list[str] = []
    if isinstance(text, (list, dict)):
        value: Any = text
    else:
        text = "" if text is None else str(text)
        decoded = decode_json(text)
        if decoded is None:
            plain_items = _plain_text_items(text)
            if not plain_items:
                return ParsedAnswer(ok=False, paragraphs=[ParsedParagraph("", image_status="missing") for _ in range(N_PARAGRAPHS)],
                                    raw=None, format_issues=["no JSON and no paragraphs in the answer"])
            format_issues.append("not JSON: paragraphs read from plain text")
            value = plain_items
        else:
            value, format_issues = decoded[0], decoded[1]
    items = _as_items(value, format_issues)
    if items is None:
        return ParsedAnswer(ok=False, paragraphs=[ParsedParagraph("", image_status="missing") for _ in range(N_PARAGRAPHS)],
                            raw=None, format_issues=format_issues + ["the JSON is not a list of paragraphs"])
    raw = list(items)
    paragraphs = [_paragraph(item, k + 1, rule_breaks) for k, item in enumerate(items)]
    if "truncated answer" in format_issues:
        while len(paragraphs) > 1 and not paragraphs[-1].summary and paragraphs[-1].image is None:
            paragraphs.pop()  # the object the token limit cut off before it had any text
    if len(paragraphs) != N_PARAGRAPHS:
        rule_breaks.append(f"{len(paragraphs)} paragraphs instead of {N_PARAGRAPHS}")
    if len(paragraphs) > N_PARAGRAPHS:
        extra = paragraphs[N_PARAGRAPHS - 1 :]
        merged = ParsedParagraph(summary=" ".join(p.summary for p in extra if p.summary))
        keep = next((p for p in extra if p.image_status == "ok"), extra[0])
        merged.image, merged.image_status, merged.raw_ref, merged.caption = keep.image, keep.image_status, keep.raw_ref, keep.caption
        repairs.append(f"paragraphs {N_PARAGRAPHS}–{len(paragraphs)} merged into the last paragraph")
        paragraphs = paragraphs[: N_PARAGRAPHS - 1] + [merged]
    while len(paragraphs) < N_PARAGRAPHS:
        repairs.append(f"paragraph {len(paragraphs) + 1} is missing")
        paragraphs.append(ParsedParagraph(summary="", image_status="missing"))
    seen: set[int] = set()
    for position, paragraph in enumerate(paragraphs, start=1):
        if paragraph.image_status != "ok" or paragraph.image is None:
            continue
        if n_images is not None and not 1 <= paragraph.image <= n_images:
            rule_breaks.append(f"paragraph {position}: image {paragraph.image} is out of range 1..{n_images}")
            paragraph.image_status = "out_of_range"
        elif paragraph.image < 1:
            rule_breaks.append(f"paragraph {position}: image {paragraph.image} is out of range")
            paragraph.image_status = "out_of_range"
        elif paragraph.image in seen:
            rule_breaks.append(f"paragraph {position}: image {paragraph.image} is used twice")
            paragraph.image_status = "duplicate"
        else:
            seen.add(paragraph.image)
            continue
        paragraph.image = None
    for position, paragraph in enumerate(paragraphs, start=1):
        if not paragraph.summary:
            rule_breaks.append(f"paragraph {position} has no text")
    return ParsedAnswer(ok=True, paragraphs=paragraphs, raw=raw, format_issues=_unique(format_issues),
                        rule_breaks=_unique(rule_breaks), repairs=repairs)


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))
