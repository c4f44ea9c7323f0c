"""The one secret scrubber (mmdocsum_desktop/secrets.py): every form a key leaks in is masked, in a
whole string, in a stream cut anywhere, in files written, in log records and on stderr."""

from __future__ import annotations

import base64
import io
import logging
import random
import uuid

import pytest

from mmdocsum_desktop import secrets
from tests.security.conftest import encodings


@pytest.fixture()
def key():
    secrets.clear()
    value = f"sk-proj-{uuid.uuid4().hex}{uuid.uuid4().hex[:8]}"
    secrets.register(value)
    yield value
    secrets.clear()


def _leaks(text: str, value: str) -> list[str]:
    data = text.encode("utf-8")
    found = [name for name, form in encodings(value).items() if form and form in data]
    found += [f"prefix {n}" for n in range(secrets.MIN_PREFIX, len(value) + 1) if value[:n].lower() in text.lower()]
    return found


def test_every_form_of_the_key_is_masked(key):
    forms = [key, key.upper(), key.lower(), key[:20], key[: secrets.MIN_PREFIX], base64.b64encode(key.encode()).decode(),
             base64.b64encode(f"user:{key}".encode()).decode(), key.encode().hex(), f"Bearer%20{key}"]
    text = "Incorrect API key provided: " + " / ".join(forms) + ". Check it."
    scrubbed = secrets.scrub(text)
    assert _leaks(scrubbed, key) == [], scrubbed
    assert scrubbed.startswith("Incorrect API key provided: [API key]") and scrubbed.endswith(". Check it.")
    assert secrets.scrub("Dough rose faster in warm kitchens.") == "Dough rose faster in warm kitchens."


def test_a_key_split_across_streamed_pieces_is_caught(key):
    text = f"The dough rose. Your key is {key} and {key.upper()[:24]}; warm dough doubled. " * 3
    rng = random.Random(28)
    for _ in range(40):
        cuts = sorted(rng.sample(range(1, len(text)), 12))
        pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
        scrubber = secrets.StreamScrubber()
        out = "".join(scrubber.feed(piece) for piece in pieces) + scrubber.flush()
        assert _leaks(out, key) == [], out
        assert out == secrets.scrub(text)  # the same text as scrubbing it whole


def test_files_logs_and_stderr_are_scrubbed(key, tmp_path, monkeypatch):
    from mmdocsum_desktop.fileio import write_json_atomic

    write_json_atomic(tmp_path / "out.json", {"repairs": [f"model said: {key}"]})
    assert _leaks((tmp_path / "out.json").read_text(), key) == []

    stream = io.StringIO()
    monkeypatch.setattr("sys.stderr", stream)
    monkeypatch.setattr("sys.stdout", io.StringIO())
    monkeypatch.setattr(secrets, "_installed", False)
    factory = logging.getLogRecordFactory()
    try:
        secrets.install_process_guards()
        import sys

        print(f"mmdocsum: error: the server said {key}", file=sys.stderr)
        handler = logging.StreamHandler(log := io.StringIO())
        logger = logging.getLogger("tests.secrets")
        logger.addHandler(handler)
        logger.warning("request with %s failed", f"Bearer {key}")
        logger.removeHandler(handler)
    finally:
        logging.setLogRecordFactory(factory)
    assert "[API key]" in stream.getvalue() and _leaks(stream.getvalue(), key) == []
    assert "request with Bearer [API key] failed" in log.getvalue()
