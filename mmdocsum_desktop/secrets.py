"""The one secret scrubber: API keys never leave the process in any string the app writes or prints.

A key is registered once, where it is put to use (``engines.openai`` when it builds an engine). From then
on :func:`scrub` replaces it in every string that leaves the process: text files (``fileio``), what the
command line prints (stdout, stderr, tracebacks with ``--debug``), log records (a record factory, so every
logger and handler is covered), notices, and the text an OpenAI-compatible server sends back (a server or
proxy that echoes the key into its reply or its error message).

A key leaks in more forms than one: as typed, in upper or lower case, as any run of 8 or more of its
consecutive characters (a server that shortens the key it refuses to its first, middle or last
characters: "Incorrect API key provided: sk-proj-abc1…", "…c1d2e3f4a5b6"), base64-encoded at any alignment
(``Basic`` headers, data URIs), hex or percent-encoded. Each form is recognised; what matches becomes
``[API key]``.

Keys of any script: the text and the key are compared folded, character by character (NFKD, case folded,
format characters such as zero-width spaces dropped), with each folded character mapped back to the one it
came from, so a key with ``ß`` (which case-folds to ``ss``) or an accent (composed in the key, decomposed
in the text) is found by its runs as an ASCII key is. The key's bytes read in another encoding (UTF-8 shown
as Latin-1 or Windows-1252), JSON's ``\\u`` escapes, HTML's numeric references and percent-encoding are
keys of their own, their runs matched the same way.
"""

from __future__ import annotations

import base64
import html
import io
import json
import logging
import sys
import threading
import unicodedata
import urllib.parse
from typing import Any, TextIO

MASK = "[API key]"
# Any run of at least this many consecutive characters of a key is a leak, wherever in the key it starts
# ("sk-proj-…" or "…last12chars" printed by a server that shortens the key it refuses): 8 characters of a
# random key are 40+ bits, enough to narrow a guess. Shorter keys are only matched whole.
MIN_RUN = 8
MIN_PREFIX = MIN_RUN  # the name earlier code and tests use

_lock = threading.Lock()
_keys: list[str] = []
_forms: list[str] = []  # exact (case-sensitive) forms: base64 at each alignment, hex, percent-encoded
_windows: set[str] = set()  # every MIN_RUN-character window of every folded key form (or a short form whole)
_longest = 0


def register(secret: str | None) -> None:
    """Scrub ``secret`` (and its forms) from every string that leaves the process from now on."""
    global _longest
    if not secret or len(secret) < 4:
        return
    with _lock:
        if secret in _keys:
            return
        _keys.append(secret)
        _forms.extend(f for f in _encoded_forms(secret) if len(f) >= MIN_PREFIX and f not in _forms)
        _forms.sort(key=len, reverse=True)
        for form in _run_forms(secret):
            folded = fold(form)
            if len(folded) < MIN_RUN:
                _windows.add(folded)
            else:
                _windows.update(folded[i:i + MIN_RUN] for i in range(len(folded) - MIN_RUN + 1))
            # a run in the text may be longer than in the folded key (decomposed accents, dropped format
            # characters): the stream scrubber holds back twice as much
            _longest = max(_longest, 2 * len(form) + MIN_RUN)
        _longest = max([_longest, len(secret), *(len(f) for f in _forms)])


def _run_forms(secret: str) -> list[str]:
    """The key and the forms of it whose runs are leaks too: its UTF-8 bytes shown as Latin-1 or
    Windows-1252, JSON's ASCII escapes, HTML's numeric references, percent-encoding."""
    raw = secret.encode("utf-8")
    forms = [secret, raw.decode("latin-1"), raw.decode("cp1252", "replace"), json.dumps(secret)[1:-1],
             secret.encode("ascii", "xmlcharrefreplace").decode("ascii"), html.escape(secret),
             urllib.parse.quote(secret, safe="")]
    return list(dict.fromkeys(forms))


_FOLDED: dict[str, str] = {}


def _fold_char(ch: str) -> str:
    folded = _FOLDED.get(ch)
    if folded is None:
        if unicodedata.category(ch) == "Cf":
            folded = ""  # zero-width and other format characters: invisible, so never part of a match
        else:
            folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", ch).casefold())
        if len(_FOLDED) < 100_000:
            _FOLDED[ch] = folded
    return folded


def fold(text: str) -> str:
    """``text`` as the scrubber compares it: NFKD, case folded, format characters dropped."""
    if text.isascii():
        return text.lower()
    return "".join(_fold_char(ch) for ch in text)


_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def _folded_with_origin(text: str) -> tuple[str, bool]:
    """The folded text, and whether its characters' places differ from the text's (some character folds
    to none or to several: then :func:`_origin` maps them back)."""
    if text.isascii():
        return text.lower(), False
    table: dict[int, str | int] = dict(_ASCII_LOWER)
    table.update((ord(ch), _fold_char(ch)) for ch in set(text) if ord(ch) > 127)
    folded = text.translate(table)
    return folded, not all(len(v) == 1 for v in table.values() if isinstance(v, str))


def _origin(text: str) -> list[int]:
    """For each character of the folded text, the index in ``text`` it came from."""
    origin: list[int] = []
    for index, ch in enumerate(text):
        width = 1 if ord(ch) < 128 else len(_fold_char(ch))
        origin.extend([index] * width)
    return origin


def registered() -> bool:
    return bool(_keys)


def clear() -> None:
    """Forget every key (tests)."""
    global _longest
    with _lock:
        _keys.clear()
        _forms.clear()
        _windows.clear()
        _longest = 0


def _encoded_forms(secret: str) -> list[str]:
    raw = secret.encode("utf-8")
    forms = [raw.hex(), raw.hex().upper(), urllib.parse.quote(secret, safe=""), urllib.parse.quote_plus(secret)]
    for shift in range(3):
        # the key inside a longer base64 text: only the characters that depend on the key alone
        padded = b"\0" * shift + raw
        start = {0: 0, 1: 2, 2: 3}[shift]
        usable = (len(padded) // 3) * 4 - 4
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            core = encode(padded).decode("ascii")[start:usable]
            forms.append(core)
    forms.append(base64.b64encode(raw).decode("ascii"))  # the whole key encoded alone, with its padding
    return [f for f in forms if f and f != secret]


def scrub(text: str) -> str:
    """``text`` with every registered key, in any of its forms, replaced by ``[API key]``."""
    if not _keys or not text:
        return text
    return _mask(text, _spans(text))


def _spans(text: str) -> list[tuple[int, int]]:
    """Where keys and their forms are in ``text``: sorted, overlapping ones merged."""
    with _lock:
        forms, windows = list(_forms), list(_windows)
    found: list[tuple[int, int]] = []
    for form in forms:
        start = text.find(form)
        while start != -1:
            found.append((start, start + len(form)))
            start = text.find(form, start + 1)
    folded, shifted = _folded_with_origin(text)
    runs: list[tuple[int, int]] = []
    for window in windows:
        # every window of a folded key form: windows that overlap or touch merge below into the whole run
        at = folded.find(window)
        while at != -1:
            runs.append((at, at + len(window)))
            at = folded.find(window, at + 1)
    if runs and shifted:  # rare (a key was found): only then is each character's place worked out
        origin = _origin(text)
        runs = [(origin[a], origin[b - 1] + 1) for a, b in runs]
    found.extend(runs)
    found.sort()
    merged: list[tuple[int, int]] = []
    for start, end in found:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _mask(text: str, spans: list[tuple[int, int]]) -> str:
    if not spans:
        return text
    pieces, position = [], 0
    for start, end in spans:
        pieces += [text[position:start], MASK]
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


def scrub_value(value: Any) -> Any:
    """``value`` (JSON-like: dicts, lists, strings) with every string scrubbed."""
    if not _keys:
        return value
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {scrub_value(k): scrub_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(scrub_value(v) for v in value)
    return value


class StreamScrubber:
    """Scrubs text that arrives in pieces (a model's streamed reply): a key split over two pieces is
    still caught, because the end of the text that could start a key is held back until the next piece
    shows what it is. ``feed`` returns what is safe to pass on; ``flush`` the rest at the end."""

    def __init__(self) -> None:
        self._pending = ""

    def feed(self, piece: str) -> str:
        raw = self._pending + piece
        if not _keys:
            self._pending = ""
            return raw
        hold = max(_longest - 1, 0)
        if len(raw) <= hold:
            self._pending = raw
            return ""
        cut = len(raw) - hold
        spans = _spans(raw)
        for start, end in spans:
            if start < cut < end:
                # a key across the cut: whole and passed on if it ends before the text does, else it may
                # go on in the next piece and waits with it
                cut = end if end < len(raw) else start
                break
        self._pending = raw[cut:]
        return _mask(raw[:cut], [(s, e) for s, e in spans if e <= cut])

    def flush(self) -> str:
        text, self._pending = scrub(self._pending), ""
        return text


class ScrubbingStream(io.TextIOBase):
    """A text stream (stdout, stderr) that scrubs what is written through it."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(scrub(text))
        return len(text)

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._stream, "encoding", "utf-8")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


_installed = False


def install_process_guards() -> None:
    """Scrub stdout, stderr, every log record and uncaught tracebacks of this process (the command line
    and the desktop app call it once at start-up; cheap while no key is registered)."""
    global _installed
    if _installed:
        return
    _installed = True
    if not isinstance(sys.stdout, ScrubbingStream) and sys.stdout is not None:
        sys.stdout = ScrubbingStream(sys.stdout)
    if not isinstance(sys.stderr, ScrubbingStream) and sys.stderr is not None:
        sys.stderr = ScrubbingStream(sys.stderr)
    previous_factory = logging.getLogRecordFactory()

    def scrubbed_record(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous_factory(*args, **kwargs)
        if _keys:
            try:
                record.msg, record.args = scrub(record.getMessage()), None
            except Exception:  # noqa: BLE001 — a badly formatted record is logging's to report, unscrubbed args dropped
                record.msg, record.args = scrub(str(record.msg)), None
        return record

    logging.setLogRecordFactory(scrubbed_record)
    # uncaught tracebacks (--debug) and faulthandler go to stderr: scrubbed by the wrapper above, or
    # (faulthandler, straight to the file descriptor) frames only, never values
