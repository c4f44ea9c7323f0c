"""The protocol every text-generating engine follows: chat messages in, streamed text out, with
cancellation through :class:`~mmdocsum_desktop.jobs.JobControl` and token counts.

Engines know nothing of PDFs or of the summary's format: they get messages (text and images) and
return text. ``stream()`` yields text pieces as the model writes them; once it is exhausted its
``result`` holds a :class:`Generation` (token counts, timings, why it stopped). ``generate()`` runs a
stream to the end. Cancelling raises :class:`~mmdocsum_desktop.errors.SummaryCancelled` whose
``partial`` carries the text written so far.
"""

from __future__ import annotations

import base64
import io
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from mmdocsum_desktop.errors import CorruptImageError, ImageTooLargeError, SummaryCancelled
from mmdocsum_desktop.jobs import JobControl, ensure_control
from mmdocsum_desktop.schemas.engine import EngineInfo, GenerationRecord


@dataclass(frozen=True)
class ImagePart:
    """An image in a message: a PNG/JPEG file, shown to vision models (resized) and described to others."""

    path: Path
    label: str = ""


@dataclass
class Message:
    role: str  # "system", "user" or "assistant"
    content: str | list[str | ImagePart]

    @property
    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        return "".join(p for p in self.content if isinstance(p, str))

    @property
    def images(self) -> list[ImagePart]:
        if isinstance(self.content, str):
            return []
        return [p for p in self.content if isinstance(p, ImagePart)]


@dataclass(frozen=True)
class GenerationOptions:
    max_tokens: int = 1024
    temperature: float = 0.2
    top_p: float = 0.95
    seed: int | None = 0
    stop: tuple[str, ...] = ()
    repeat_penalty: float = 1.0  # llama.cpp only; > 1 discourages the loops small models fall into
    json_schema: dict[str, Any] | None = None  # ask for JSON of this shape (grammar or json mode)
    # Seconds after which the generation is stopped with finish_reason "timeout" and the text so far;
    # checked as each piece arrives, so a prompt slower to read than this ends at the first piece.
    time_limit_s: float | None = None
    # llama.cpp: keep the evaluated prompt of the previous call and evaluate only what differs (a judge
    # asks several questions about one long summary); off by default so token counts and timings of
    # separate calls stay comparable
    reuse_prompt_prefix: bool = False


@dataclass
class Generation:
    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str  # "stop", "length", "timeout" (GenerationOptions.time_limit_s) or "cancelled"
    prompt_seconds: float = 0.0  # until the first piece of text
    generation_seconds: float = 0.0  # from the first piece to the end
    model: str = ""
    engine: str = ""
    counted: str = "engine"  # "engine": counts from the runtime/server; "estimate": our estimate

    @property
    def prompt_tokens_per_s(self) -> float | None:
        return self.prompt_tokens / self.prompt_seconds if self.prompt_seconds > 0 else None

    @property
    def generation_tokens_per_s(self) -> float | None:
        if self.generation_seconds <= 0 or self.completion_tokens <= 1:
            return None
        return (self.completion_tokens - 1) / self.generation_seconds

    def record(self, stage: str | None = None) -> GenerationRecord:
        """The call's counts and timings as a summary or an answer keeps them (seconds to the ms, rates to
        two decimals), named ``stage`` when given."""
        record = GenerationRecord(
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            finish_reason=self.finish_reason,
            prompt_seconds=round(self.prompt_seconds, 3),
            generation_seconds=round(self.generation_seconds, 3),
            prompt_tokens_per_s=_round(self.prompt_tokens_per_s),
            generation_tokens_per_s=_round(self.generation_tokens_per_s),
            counted=self.counted,
        )
        if stage is not None:
            record.stage = stage
        return record

    def to_json(self) -> dict[str, Any]:
        """The record as a dict (what the summary pipeline merges with its stage names)."""
        return self.record().model_dump(mode="json")


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


@runtime_checkable
class TextEngine(Protocol):
    """What the summary pipeline needs from a model runtime."""

    name: str  # "llama" or "openai"
    model_name: str
    context_length: int  # tokens the model can attend to (prompt + answer)
    supports_images: bool  # figures can be passed as images

    def count_tokens(self, text: str) -> int: ...

    def stream(
        self, messages: list[Message], options: GenerationOptions, *, control: JobControl | None = None
    ) -> GenerationStream: ...

    def generate(
        self,
        messages: list[Message],
        options: GenerationOptions,
        *,
        control: JobControl | None = None,
        on_text: Callable[[str], None] | None = None,
    ) -> Generation: ...

    def describe(self) -> EngineInfo: ...

    def close(self) -> None: ...


class GenerationStream:
    """Iterate for text pieces; ``result`` is set once the iteration is over.

    ``pieces`` is the engine's raw iterator of ``(text, done_info)``; ``finish`` turns the collected
    text and the last ``done_info`` into a Generation. Cancellation is checked before every piece, and
    past ``time_limit_s`` the engine's iterator is closed and the Generation ends with "timeout".
    """

    def __init__(
        self,
        pieces: Iterator[str],
        finish: Callable[[str, float, float, bool], Generation],
        control: JobControl | None,
        *,
        time_limit_s: float | None = None,
    ) -> None:
        self._pieces = pieces
        self._finish = finish
        self._control = ensure_control(control)
        self._time_limit_s = time_limit_s
        self.result: Generation | None = None
        self.text = ""
        self._stop_requested = False

    def stop(self) -> None:
        """End the generation after the current piece, as a stop sequence would (finish_reason "stop"):
        a caller that has what it asked for (say, enough whole sentences) need not wait for the rest."""
        self._stop_requested = True

    def __iter__(self) -> Iterator[str]:
        started = time.perf_counter()
        deadline = None if self._time_limit_s is None else started + self._time_limit_s
        timed_out = False
        first: float | None = None
        chunks: list[str] = []
        try:
            self._control.check()
            for piece in self._pieces:
                if first is None:
                    first = time.perf_counter()
                if piece:
                    chunks.append(piece)
                    self.text = "".join(chunks)
                    yield piece
                if self._control.cancelled:
                    raise SummaryCancelled("cancelled during generation", partial={"text": "".join(chunks)})
                if deadline is not None and time.perf_counter() >= deadline:
                    timed_out = True
                    break
                if self._stop_requested:
                    break
        except SummaryCancelled:
            self._close_pieces()
            raise
        except GeneratorExit:
            self._close_pieces()
            raise
        if timed_out or self._stop_requested:
            self._close_pieces()  # stops the model; the engine's clean-up records its token counts
        ended = time.perf_counter()
        first = first if first is not None else ended
        self.text = "".join(chunks)
        self.result = self._finish(self.text, first - started, ended - first, False)
        if timed_out:
            self.result.finish_reason = "timeout"

    def _close_pieces(self) -> None:
        close = getattr(self._pieces, "close", None)
        if callable(close):
            try:
                close()
            except Exception:  # noqa: BLE001 — closing a broken stream must not hide the cancellation
                pass


def run_stream(stream: GenerationStream, on_text: Callable[[str], None] | None = None) -> Generation:
    for piece in stream:
        if on_text is not None:
            on_text(piece)
    assert stream.result is not None
    return stream.result


def estimate_tokens(text: str) -> int:
    """A conservative token estimate for engines without a tokenizer (about 3.5 characters a token)."""
    return max(1, int(len(text) / 3.5) + 1) if text else 0


def encode_image(path: Path, max_side: int) -> tuple[bytes, str]:
    """The image at ``path`` as PNG bytes with its longer side at most ``max_side`` pixels."""
    from PIL import Image, UnidentifiedImageError  # Pillow's decoders load only when an image is sent

    try:
        with Image.open(path) as image:
            image.load()
            converted = image.convert("RGB")
    except Image.DecompressionBombError as error:  # over Pillow's pixel limit: refused before decoding
        raise ImageTooLargeError(f"{path.name}: the image is too large to decode safely ({error})") from error
    except (OSError, UnidentifiedImageError, ValueError) as error:
        raise CorruptImageError(f"{path.name}: cannot read the image ({error})") from error
    scale = max_side / max(converted.width, converted.height)
    if scale < 1:
        size = (max(1, round(converted.width * scale)), max(1, round(converted.height * scale)))
        converted = converted.resize(size, Image.Resampling.LANCZOS)
    buffer = io.BytesIO()
    converted.save(buffer, format="PNG", optimize=False)
    return buffer.getvalue(), "image/png"


def image_data_url(path: Path, max_side: int) -> str:
    data, mime = encode_image(path, max_side)
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


# A model call reports two phases, the prompt read then the tokens generated, each counted from zero.
# Where one call fills a step of a larger job's bar (``jobs.nested_control(..., phases=...)``), the
# prompt gets the smaller share: llama.cpp reads it in batches, many tokens per pass.
MODEL_CALL_PHASES = (0.25, 0.75)


class TokenProgress:
    """Progress of one model call in tokens: the prompt read (of its length), then tokens generated (of max).

    It only reports and never raises: cancellation stays with the engine (llama.cpp's abort callback)
    and with :class:`GenerationStream`, which raise ``SummaryCancelled`` with the partial text.
    """

    def __init__(self, control: JobControl | None, max_tokens: int) -> None:
        self._control = control
        self.max_tokens = max(1, int(max_tokens))
        self.prompt_total = 0
        self.prompt_read = 0
        self.generated = 0

    def _send(self, done: int, total: int, what: str) -> None:
        if self._control is not None and self._control.on_progress is not None:
            self._control.on_progress(done, total, what)

    def prompt(self, read: int, total: int) -> None:
        self.prompt_total = max(total, 1)
        self.prompt_read = max(self.prompt_read, min(read, self.prompt_total))  # never backwards
        self._send(self.prompt_read, self.prompt_total, f"reading the prompt ({self.prompt_read}/{total} tokens)")

    def tokens(self, generated: int) -> None:
        self.generated = max(self.generated, min(generated, self.max_tokens))
        self._send(self.generated, self.max_tokens, f"generating ({self.generated}/{self.max_tokens} tokens)")
