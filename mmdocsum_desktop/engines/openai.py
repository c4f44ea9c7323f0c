"""Any OpenAI-compatible chat endpoint: llama.cpp's server, llama-cpp-python's server, vLLM, Ollama,
LM Studio, hosted APIs. Standard library HTTP only (``http.client``), streamed with server-sent events.

* the API key comes from the system keyring (``settings.get_api_key``), never from a file;
* images are sent as base64 ``image_url`` parts (PNG, resized) when the endpoint is marked ``vision``;
* one deadline for the whole call — connecting, retries with their back-off, waiting for the first
  byte and streaming — the request's time limit, else ``total_timeout_s``: a watchdog thread shuts the
  socket down when it passes (or when the job is cancelled), so a server that never answers, drips a
  byte every few seconds or streams forever is cut off on time; a connect timeout and a read timeout
  (silence) inside it; requests that fail before any text arrived (connection refused, timeouts,
  HTTP 429 and 5xx) are retried with exponential back-off while the deadline allows; 4xx errors are not;
* the API key is registered with the secret scrubber (``mmdocsum_desktop.secrets``): a server that
  echoes it into its reply or its error messages has it replaced before the text goes anywhere;
* a key (or a password in the URL) travels only over https or to this computer (a loopback address):
  plain http to another host is refused before any connection, unless ``allow_insecure_key`` says the
  network is trusted (then with a warning); URLs in messages never carry ``user:password@``;
* a server that answers something that is not an OpenAI chat response gets a clear EndpointError that
  quotes the start of what it said.
"""

from __future__ import annotations

import base64
import http.client
import ipaddress
import json
import socket
import ssl
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from mmdocsum_desktop.deadline import time_left
from mmdocsum_desktop.engines.base import (
    Generation,
    GenerationOptions,
    GenerationStream,
    Message,
    TokenProgress,
    estimate_tokens,
    run_stream,
)
from mmdocsum_desktop.engines.messages import openai_chat_messages
from mmdocsum_desktop.errors import EndpointError, MmdocsumError
from mmdocsum_desktop.fileio import loads_bounded
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.messages import notify
from mmdocsum_desktop.schemas.engine import EngineInfo
from mmdocsum_desktop.secrets import StreamScrubber, register, scrub

_RETRY_STATUS = {408, 429, 500, 502, 503, 504}
USER_AGENT = "mmdocsum-desktop"
# A reply that is one JSON body (a server that ignores "stream"), or one server-sent event, larger than
# this is not a chat answer: refused instead of held in memory.
MAX_BODY_BYTES = 16 * 1024**2
# A server that ignores max_tokens and streams on: cut after this many pieces over max_tokens.
EXTRA_PIECES = 256


@dataclass(frozen=True)
class OpenAIConfig:
    base_url: str
    model: str | None = None
    # resolved from the keyring by the caller (auto.py); never saved, never in a repr (logs, tracebacks)
    api_key: str | None = field(default=None, repr=False)
    context_length: int = 8192
    timeout_s: float = 120.0  # silence: no byte for this long fails the attempt
    connect_timeout_s: float = 10.0
    # the whole call (connect, retries, waiting, streaming) when the request has no time limit of its own:
    # a slow CPU server reads an 8k-token prompt and writes 1024 tokens well within it
    total_timeout_s: float = 600.0
    # listing the server's models (when no model is named) is a small request: this long in all
    listing_timeout_s: float = 30.0
    retries: int = 2
    backoff_s: float = 0.5
    vision: bool = False
    json_mode: bool = True
    image_max_side: int = 768
    # send the key over plain http to a host that is not this computer (a trusted private network): off,
    # because anyone on the path reads a key sent in clear text
    allow_insecure_key: bool = False


def public_url(url: str) -> str:
    """``url`` without its ``user:password@`` part: the form every message and record shows."""
    try:
        parsed = urllib.parse.urlsplit(url)
    except ValueError:
        return "(an unreadable URL)"
    if "@" not in parsed.netloc:
        return url
    host = parsed.netloc.rpartition("@")[2]
    return urllib.parse.urlunsplit((parsed.scheme, host, parsed.path, parsed.query, parsed.fragment))


def is_loopback_host(host: str) -> bool:
    """This computer, by name or address, decided without a DNS lookup (which would itself be network):
    ``localhost`` and ``*.localhost`` (RFC 6761 keeps them local), 127.0.0.0/8, ::1."""
    host = host.strip("[]").rstrip(".").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class OpenAIEngine:
    name = "openai"

    def __init__(self, config: OpenAIConfig) -> None:
        shown = public_url(config.base_url.rstrip("/"))
        try:
            parsed = urllib.parse.urlsplit(config.base_url.rstrip("/"))
            port = parsed.port  # a port out of 0-65535 raises here, not at the first request
        except ValueError as error:
            raise EndpointError(f"not a valid URL: {shown!r} ({error})") from error
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise EndpointError(f"not an http(s) URL: {shown!r} (expected e.g. http://127.0.0.1:8080/v1)")
        self.config = config
        register(config.api_key)  # from now on the key is scrubbed from every string that leaves the process
        # credentials in the URL (http://user:password@host/v1) are a secret like the key: scrubbed, sent
        # as HTTP Basic authentication when there is no key, never shown
        self._basic: str | None = None
        if parsed.username is not None or parsed.password is not None:
            user = urllib.parse.unquote(parsed.username or "")
            password = urllib.parse.unquote(parsed.password or "")
            register(password)
            self._basic = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
            register(self._basic)
        self._scheme = parsed.scheme
        self._host = parsed.hostname
        self._port = port or (443 if parsed.scheme == "https" else 80)
        self._prefix = parsed.path.rstrip("/")
        self.base_url = shown
        self.context_length = config.context_length
        self.supports_images = config.vision
        self.warnings: list[str] = []
        self._check_transport(config)  # before the first request: listing the models sends the key too
        self.model_name = config.model or self._first_model()

    def _check_transport(self, config: OpenAIConfig) -> None:
        """A secret goes over https or to this computer; plain http elsewhere only when allowed."""
        secret = "the API key" if config.api_key else "the password in the URL" if self._basic else None
        if secret is None or self._scheme == "https" or is_loopback_host(self._host):
            return
        if not config.allow_insecure_key:
            raise EndpointError(
                f"refusing to send {secret} over plain http to {self._host}, which is not this computer: "
                "anyone on the network could read it; use https, or --allow-insecure-key "
                "(openai.allow_insecure_key) for a trusted network")
        warning = (f"{secret} is sent over plain http to {self._host} (--allow-insecure-key): "
                   "anyone on the network can read it")
        self.warnings.append(warning)
        notify(warning)

    # ------------------------------------------------------------------------------------------- http

    def _connection(self) -> http.client.HTTPConnection:
        if self._scheme == "https":
            return http.client.HTTPSConnection(
                self._host, self._port, timeout=self.config.connect_timeout_s, context=ssl.create_default_context()
            )
        return http.client.HTTPConnection(self._host, self._port, timeout=self.config.connect_timeout_s)

    def _headers(self, body: bool) -> dict[str, str]:
        headers = {"User-Agent": USER_AGENT, "Accept": "application/json, text/event-stream"}
        if body:
            headers["Content-Type"] = "application/json"
        if self.config.api_key:
            headers["Authorization"] = f"Bearer {self.config.api_key}"
        elif self._basic:
            headers["Authorization"] = f"Basic {self._basic}"
        return headers

    def _open(self, method: str, path: str, payload: dict[str, Any] | None, control: JobControl | None,
              deadline: _Deadline) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        """Send a request, retrying what can be retried while ``deadline`` allows; return (connection,
        response) with status 200, the connection watched by the deadline."""
        body = json.dumps(payload).encode("utf-8") if payload is not None else None
        url = f"{self.base_url}{path}"
        attempt = 0
        while True:
            if control is not None:
                control.check()
            if deadline.remaining() <= 0:
                raise deadline.error(url)
            connection = self._connection()
            connection.timeout = min(self.config.connect_timeout_s, deadline.remaining())
            try:
                connection.connect()
                if connection.sock is not None:
                    # the socket itself: the response keeps reading it after the connection lets go of it
                    deadline.watch(connection.sock)
                    connection.sock.settimeout(min(self.config.timeout_s, max(deadline.remaining(), 0.001)))
                connection.request(method, self._prefix + path, body=body, headers=self._headers(body is not None))
                response = connection.getresponse()
            except (ConnectionRefusedError, socket.gaierror) as error:
                connection.close()
                failure = EndpointError(_refused_message(url, error))
            except TimeoutError as error:
                connection.close()
                if deadline.due():
                    raise deadline.error(url) from error
                failure = EndpointError(f"{url} did not answer within {self.config.timeout_s:g} s ({error or 'timeout'})")
            except (OSError, http.client.HTTPException) as error:
                connection.close()
                if control is not None:
                    control.check()  # the watchdog shut the socket because the job was cancelled
                if deadline.due():
                    raise deadline.error(url) from error
                failure = EndpointError(f"the connection to {url} failed: {type(error).__name__}: {scrub(str(error))}")
            else:
                if response.status == 200:
                    return connection, response
                detail = scrub(_read_error(response))
                connection.close()
                if deadline.due():
                    raise deadline.error(url)
                failure = EndpointError(_status_message(url, response.status, detail))
                if response.status not in _RETRY_STATUS:
                    raise failure
            pause = self.config.backoff_s * (2**attempt)
            if attempt >= self.config.retries or pause >= deadline.remaining():
                if attempt:
                    raise EndpointError(f"{failure} (after {attempt + 1} attempts)")
                raise failure
            deadline.sleep(pause)
            attempt += 1

    def _get_json(self, path: str) -> Any:
        url = f"{self.base_url}{path}"
        with _Deadline(self.config.listing_timeout_s, None, "in all") as deadline:
            connection, response = self._open("GET", path, None, None, deadline)
            try:
                raw = response.read(MAX_BODY_BYTES + 1)
            except (OSError, http.client.HTTPException) as error:
                if deadline.due():
                    raise deadline.error(url) from error
                raise EndpointError(f"the connection to {url} broke: {type(error).__name__}: {error}") from error
            finally:
                connection.close()
            if deadline.due():
                raise deadline.error(url)
        return _decode_json(raw, url)

    def _deadline(self, time_limit_s: float | None, control: JobControl | None) -> _Deadline:
        """The request's own time limit, else the engine's total deadline: whichever ends first."""
        if time_limit_s is not None and time_limit_s <= self.config.total_timeout_s:
            return _Deadline(time_limit_s, control, "(the time limit)")
        return _Deadline(self.config.total_timeout_s, control, "in all (openai total deadline)")

    def _first_model(self) -> str:
        listing = self._get_json("/models")
        data = listing.get("data") if isinstance(listing, dict) else None
        if not isinstance(data, list) or not data or not isinstance(data[0], dict) or "id" not in data[0]:
            raise EndpointError(
                f"{self.base_url}/models did not list any model; name one in the settings (openai.model)"
            )
        return str(data[0]["id"])

    # ------------------------------------------------------------------------------------- generation

    def describe(self) -> EngineInfo:
        return EngineInfo(
            engine=self.name,
            model=self.model_name,
            base_url=self.base_url,
            api_key="from keyring" if self.config.api_key else None,
            context_length=self.context_length,
            vision=self.supports_images,
            timeout_s=self.config.timeout_s,
            retries=self.config.retries,
        )

    def count_tokens(self, text: str) -> int:
        return estimate_tokens(text)

    def request_messages(self, messages: list[Message]) -> list[dict[str, Any]]:
        """Messages in the OpenAI chat form the server reads."""
        return openai_chat_messages(messages, with_images=self.supports_images, image_max_side=self.config.image_max_side)

    def stream(
        self, messages: list[Message], options: GenerationOptions, *, control: JobControl | None = None
    ) -> GenerationStream:
        payload: dict[str, Any] = {
            "model": self.model_name,
            "messages": self.request_messages(messages),
            "max_tokens": options.max_tokens,
            "temperature": options.temperature,
            "top_p": options.top_p,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if options.seed is not None:
            payload["seed"] = options.seed
        if options.stop:
            payload["stop"] = list(options.stop)
        if options.json_schema is not None and self.config.json_mode:
            payload["response_format"] = {"type": "json_object", "schema": options.json_schema}
        state: dict[str, Any] = {"finish": "stop", "usage": None}
        url = f"{self.base_url}/chat/completions"
        prompt_estimate = sum(estimate_tokens(m.text) for m in messages)
        # A server says nothing while it reads the prompt: the bar shows the prompt's (estimated) size
        # before the request and full once the first token arrives; each streamed delta is one token.
        progress = TokenProgress(control, options.max_tokens)

        def pieces() -> Iterator[str]:
            if options.time_limit_s is not None and options.time_limit_s <= 0:
                state["finish"] = "timeout"  # the caller's time was up before the call: nothing is sent
                return
            scrubber = StreamScrubber()  # a key the server echoes never reaches the text, even split in two
            progress.prompt(0, prompt_estimate)
            with self._deadline(options.time_limit_s, control) as deadline:
                connection, response = self._open("POST", "/chat/completions", payload, control, deadline)
                try:
                    for text in self._read_reply(response, url, state, progress, prompt_estimate, options):
                        safe = scrubber.feed(text)
                        if safe:
                            yield safe
                except (EndpointError, OSError, http.client.HTTPException) as error:
                    if control is not None:
                        control.check()  # the watchdog shut the socket because the job was cancelled
                    if not deadline.due():
                        if isinstance(error, EndpointError):
                            raise EndpointError(scrub(str(error))) from error
                        if isinstance(error, TimeoutError):
                            raise EndpointError(f"{url} stopped sending for {self.config.timeout_s:g} s") from error
                        raise EndpointError(
                            f"the connection to {url} broke: {type(error).__name__}: {scrub(str(error))}") from error
                    if progress.generated == 0:
                        raise deadline.error(url) from error
                    state["finish"] = "timeout"  # what it wrote before the deadline is kept
                finally:
                    connection.close()
                if deadline.due() and state["finish"] != "timeout":
                    if progress.generated == 0:
                        raise deadline.error(url)
                    state["finish"] = "timeout"
            tail = scrubber.flush()
            if tail:
                yield tail

        def finish(text: str, prompt_s: float, gen_s: float, cancelled: bool) -> Generation:
            usage = state["usage"] if isinstance(state["usage"], dict) else None
            if usage and "prompt_tokens" in usage and "completion_tokens" in usage:
                prompt_tokens, completion_tokens, counted = int(usage["prompt_tokens"]), int(usage["completion_tokens"]), "engine"
            else:
                prompt_tokens, completion_tokens, counted = prompt_estimate, estimate_tokens(text), "estimate"
            return Generation(
                text=text,
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                finish_reason="cancelled" if cancelled else str(state["finish"]),
                prompt_seconds=prompt_s,
                generation_seconds=gen_s,
                model=self.model_name,
                engine=self.name,
                counted=counted,
            )

        return GenerationStream(pieces(), finish, control, time_limit_s=options.time_limit_s)

    def _read_reply(self, response: http.client.HTTPResponse, url: str, state: dict[str, Any],
                    progress: TokenProgress, prompt_estimate: int, options: GenerationOptions) -> Iterator[str]:
        """The text pieces of a 200 reply: server-sent events, or one JSON body from a server that
        ignores "stream"."""
        content_type = response.getheader("Content-Type", "")
        if "text/event-stream" not in content_type:
            raw = response.read(MAX_BODY_BYTES + 1)
            if len(raw) > MAX_BODY_BYTES:
                raise EndpointError(f"{url} answered more than {MAX_BODY_BYTES // 1024**2} MB: not a chat reply")
            data = _decode_json(raw, url)
            text, finish, usage = _parse_full_response(data, url)
            state["finish"], state["usage"] = finish, usage
            progress.prompt(prompt_estimate, prompt_estimate)
            progress.tokens(int((usage or {}).get("completion_tokens") or estimate_tokens(text)))
            if text:
                yield text
            return
        most = options.max_tokens + EXTRA_PIECES
        pieces = 0
        for event in _sse_events(response, url):
            if event == "[DONE]":
                break
            data = _decode_json(event.encode("utf-8"), url)
            if isinstance(data, dict) and "error" in data:
                raise EndpointError(f"{url} reported an error: {_error_text(data['error'])}")
            if not isinstance(data, dict):
                raise EndpointError(_garbage_message(url, event))
            usage = _valid_usage(data.get("usage"))
            if usage is not None:
                state["usage"] = usage
            choices = data.get("choices")
            if not isinstance(choices, list):
                if usage is not None and choices is None:
                    continue  # the usage-only last event of stream_options.include_usage
                raise EndpointError(_garbage_message(url, event))
            if not choices:
                continue
            delta, finish_reason = _streamed_choice(choices[0], url, event)
            if finish_reason:
                state["finish"] = finish_reason
            if delta:
                if progress.generated == 0:
                    progress.prompt(prompt_estimate, prompt_estimate)
                progress.tokens(progress.generated + 1)
                pieces += 1
                yield str(delta)
                if pieces >= most:
                    # a server that ignores max_tokens and streams on would never end by itself
                    state["finish"] = "length"
                    self.warnings.append(f"{url} sent more than {most} pieces for max_tokens={options.max_tokens}; cut off")
                    return

    def generate(
        self,
        messages: list[Message],
        options: GenerationOptions,
        *,
        control: JobControl | None = None,
        on_text: Callable[[str], None] | None = None,
    ) -> Generation:
        return run_stream(self.stream(messages, options, control=control), on_text)

    def close(self) -> None:
        pass


# ----------------------------------------------------------------------------------------- helpers


def _sse_events(response: http.client.HTTPResponse, url: str) -> Iterator[str]:
    """The ``data:`` payloads of a server-sent event stream (multi-line data joined with newlines)."""
    lines: list[str] = []
    size = 0
    seen_any = False
    while True:
        raw = response.readline(1 << 20)
        if not raw:
            break
        line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        if not line:
            if lines:
                yield "\n".join(lines)
                lines, size = [], 0
            continue
        if line.startswith(":"):
            continue  # a comment / keep-alive
        field, _, value = line.partition(":")
        if field == "data":
            seen_any = True
            lines.append(value[1:] if value.startswith(" ") else value)
            size += len(lines[-1])
            if size > MAX_BODY_BYTES:
                raise EndpointError(f"{url} sent one event of more than {MAX_BODY_BYTES // 1024**2} MB: not a chat reply")
        elif field not in ("event", "id", "retry"):
            raise EndpointError(_garbage_message(url, line))
    if lines:
        yield "\n".join(lines)
    if not seen_any:
        raise EndpointError(f"{url} closed the stream without sending any data")


def _decode_json(raw: bytes, url: str) -> Any:
    """A server's JSON: UTF-8, nested no deeper than a chat reply needs (fileio.MAX_JSON_DEPTH), no NaN or
    Infinity; anything else is one line, never a RecursionError."""
    try:
        return loads_bounded(raw, what=url)
    except MmdocsumError as error:
        raise EndpointError(_garbage_message(url, raw.decode("utf-8", errors="replace"))) from error


# The parts of a server's answer the app uses, checked for their types before use: a reply that is not
# this shape is an EndpointError naming what is wrong, never a TypeError or ValueError further on.
_MAX_COUNT = 10**9


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= _MAX_COUNT else None


def _valid_usage(value: Any) -> dict[str, int] | None:
    """``usage`` when it gives both token counts as whole numbers; else None (the counts are estimated)."""
    if not isinstance(value, dict):
        return None
    prompt, completion = _count(value.get("prompt_tokens")), _count(value.get("completion_tokens"))
    if prompt is None or completion is None:
        return None
    return {"prompt_tokens": prompt, "completion_tokens": completion}


def _text_or_none(value: Any, what: str, url: str, shown: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise EndpointError(f"{_garbage_message(url, shown)} ({what} is {type(value).__name__}, not text)")


def _streamed_choice(choice: Any, url: str, event: str) -> tuple[str | None, str | None]:
    """(the delta's text, the finish reason) of one streamed choice, both checked to be text."""
    if not isinstance(choice, dict):
        raise EndpointError(_garbage_message(url, event))
    delta = choice.get("delta")
    if delta is not None and not isinstance(delta, dict):
        raise EndpointError(f"{_garbage_message(url, event)} (delta is {type(delta).__name__}, not an object)")
    content = _text_or_none((delta or {}).get("content"), "delta.content", url, event)
    return content, _text_or_none(choice.get("finish_reason"), "finish_reason", url, event)


def _parse_full_response(data: Any, url: str) -> tuple[str, str, dict[str, Any] | None]:
    shown = json.dumps(data)[:200]
    choices = data.get("choices") if isinstance(data, dict) else None
    choice = choices[0] if isinstance(choices, list) and choices else None
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise EndpointError(_garbage_message(url, shown))
    text = _text_or_none(message.get("content"), "message.content", url, shown) or ""
    finish = _text_or_none(choice.get("finish_reason"), "finish_reason", url, shown) or "stop"  # type: ignore[union-attr]
    return text, finish, _valid_usage(data.get("usage"))


def _garbage_message(url: str, text: str) -> str:
    snippet = scrub(" ".join(str(text).split())[:120])
    return f"{url} answered something that is not an OpenAI-compatible chat response: {snippet!r}"


def _refused_message(url: str, error: Exception) -> str:
    if isinstance(error, socket.gaierror):
        return f"cannot resolve the host of {url} ({error}); check the base URL"
    return f"cannot connect to {url}: connection refused — is the server running?"


def _read_error(response: http.client.HTTPResponse) -> str:
    try:
        raw = response.read(4096)
    except (OSError, http.client.HTTPException):
        return ""
    try:
        data = loads_bounded(raw)
        if isinstance(data, dict) and "error" in data:
            return _error_text(data["error"])
        if isinstance(data, dict) and "detail" in data:
            return str(data["detail"])[:200]
    except MmdocsumError:
        pass
    return " ".join(raw.decode("utf-8", errors="replace").split())[:200]


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        return str(error.get("message") or error)
    return str(error)


def _status_message(url: str, status: int, detail: str) -> str:
    hint = {
        401: "the server refused the API key (store the right one in the keyring)",
        403: "the server refused access with this API key",
        404: "no such endpoint or model (does the base URL end in /v1? is the model name right?)",
        413: "the request is too large for the server",
        429: "the server is rate-limiting requests",
    }.get(status, "")
    parts = [f"{url} answered HTTP {status}"]
    if hint:
        parts.append(hint)
    if detail:
        parts.append(detail)
    return ": ".join(parts[:1]) + (" — " + "; ".join(parts[1:]) if len(parts) > 1 else "")


class _Deadline:
    """The one deadline of a request: connecting, retries, their back-off, waiting and streaming all end
    by it. A watchdog thread shuts the watched socket down when the deadline passes or the job is
    cancelled, which wakes a read blocked on a silent or dripping server at once (a socket timeout only
    bounds each single read, and a server that sends a byte every few seconds never trips it)."""

    POLL_S = 0.1

    def __init__(self, seconds: float, control: JobControl | None, what: str) -> None:
        left = time_left()  # the command's --time-limit (deadline.py) ends every request, the listing too
        if left is not None and left < seconds:
            seconds, what = left, "(the command's time limit)"
        self.seconds = max(float(seconds), 0.0)
        self.what = what
        self._at = time.monotonic() + self.seconds
        self._control = control
        self._lock = threading.Lock()
        self._socket: socket.socket | None = None
        self._done = threading.Event()
        self.expired = False
        self._thread = threading.Thread(target=self._watch, name="openai-deadline", daemon=True)
        self._thread.start()

    def __enter__(self) -> _Deadline:
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join(timeout=1.0)

    def remaining(self) -> float:
        return max(self._at - time.monotonic(), 0.0)

    def due(self) -> bool:
        """The deadline has passed, or is so near that a socket timeout set to it (rather than the
        watchdog, which polls) is what just fired."""
        return self.expired or self.remaining() <= 2 * self.POLL_S

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._socket = sock

    def sleep(self, seconds: float) -> None:
        """Back-off that ends early at the deadline."""
        self._done.wait(min(seconds, self.remaining()))

    def error(self, url: str) -> EndpointError:
        return EndpointError(f"{url} did not finish within {self.seconds:g} s {self.what}; "
                             "the server stalled, dripped or streamed on, and was cut off")

    def _watch(self) -> None:
        while not self._done.wait(min(self.POLL_S, max(self.remaining(), 0.001))):
            cancelled = self._control is not None and self._control.cancelled
            if self.remaining() <= 0 or cancelled:
                with self._lock:
                    self.expired = self.remaining() <= 0
                    sock = self._socket
                if sock is not None:
                    try:
                        sock.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                if self.expired or cancelled:
                    return
