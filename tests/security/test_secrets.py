"""The one secret scrubber (mmdocsum_desktop/secrets.py): every form a key leaks in is masked, in a
whole string, in a stream cut anywhere, in files written, in log records and on stderr."""

from __future__ import annotations

import base64
import io
import json
import logging
import random
import unicodedata
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


NON_ASCII_KEYS = [  # keys of any script: an ß inside (case-folds to "ss"), accents, Greek, Cyrillic, CJK, a dotted İ
    "sk-straße-Grüße-" + uuid.UUID(int=48).hex, "sk-ΑΒΓΔεζηθ-ключ-Ёлка-" + uuid.UUID(int=49).hex[:16],
    "sk-鍵の値-秘密-キー-" + uuid.UUID(int=50).hex[:20], "sk-İstanbul-çağrı-ñandú-" + uuid.UUID(int=51).hex[:12],
]


def _slices(value: str, n: int = 12) -> list[str]:
    return [value[i:i + n] for i in range(len(value) - n + 1)]


@pytest.mark.parametrize("value", NON_ASCII_KEYS)
def test_a_key_of_any_script_is_masked_in_every_form_and_slice(value):
    """No slice of 12 characters of the key, in the key's normal forms, cases, bytes read as Latin-1 or
    Windows-1252, JSON's ASCII escapes or HTML references, is left in the scrubbed text."""
    secrets.clear()
    secrets.register(value)
    try:
        forms = {"as is": value, "NFC": unicodedata.normalize("NFC", value),
                 "NFD": unicodedata.normalize("NFD", value), "NFKC": unicodedata.normalize("NFKC", value),
                 "upper": value.upper(), "lower": value.lower(), "casefold": value.casefold(),
                 "latin-1 bytes": value.encode().decode("latin-1"),
                 "cp1252 bytes": value.encode().decode("cp1252", "replace"),
                 "json": json.dumps(value)[1:-1], "html": value.encode("ascii", "xmlcharrefreplace").decode(),
                 "zero-width": "\u200b".join(value)}
        for name, form in forms.items():
            # 12 characters of the form; of the key itself where the form adds invisible ones between them
            pieces = ["\u200b".join(p) for p in _slices(value)] if name == "zero-width" else _slices(form)
            for piece in pieces:
                text = f"Incorrect API key provided: {piece}. The dough rose."
                scrubbed = secrets.scrub(text)
                assert piece not in scrubbed and "[API key]" in scrubbed, (name, piece, scrubbed)
                assert scrubbed.endswith(". The dough rose.")
            text = f"Your key is {form} — warm dough doubled. " * 2
            scrubber = secrets.StreamScrubber()
            streamed = "".join(scrubber.feed(text[i:i + 5]) for i in range(0, len(text), 5)) + scrubber.flush()
            assert not any(piece in streamed for piece in pieces), (name, streamed)
        assert secrets.scrub("Straße und Grüße: die Teigtemperatur stieg.") == "Straße und Grüße: die Teigtemperatur stieg."
    finally:
        secrets.clear()
