"""The secret scrubber (mmdocsum_desktop/secrets.py) masks any run of 8 or more consecutive characters of
the key, wherever in the key it starts (issue 38, item 6: a server that echoed the key's last 12
characters or a 20-character middle slice got them past the scrubber, which knew only prefixes)."""

from __future__ import annotations

import random
import uuid

import pytest

from mmdocsum_desktop import secrets


@pytest.fixture()
def key():
    secrets.clear()
    value = f"sk-proj-{uuid.uuid4().hex}{uuid.uuid4().hex[:8]}"
    secrets.register(value)
    yield value
    secrets.clear()


def _runs_left(text: str, key: str, size: int = secrets.MIN_PREFIX) -> list[str]:
    folded = text.casefold()
    return [key[i:i + size] for i in range(len(key) - size + 1) if key[i:i + size].casefold() in folded]


def test_a_slice_from_anywhere_in_the_key_is_masked(key):
    slices = [key[-12:], key[17:37], key[9:17], key[-8:].upper(), key[20:29]]
    text = "Incorrect API key ending in " + ", then ".join(slices) + ". Check it."
    scrubbed = secrets.scrub(text)
    assert _runs_left(scrubbed, key) == [], scrubbed
    assert scrubbed.count(secrets.MASK) == len(slices)
    assert scrubbed.startswith("Incorrect API key ending in [API key]") and scrubbed.endswith(". Check it.")


def test_seven_characters_are_not_a_run_and_ordinary_text_survives(key):
    # fewer than MIN_RUN characters of a random key are kept: masking them would eat ordinary words
    assert secrets.scrub(f"code {key[20:27]} here") == f"code {key[20:27]} here"
    assert secrets.scrub("Warm dough doubled in 90 minutes.") == "Warm dough doubled in 90 minutes."


def test_slices_split_across_streamed_pieces_are_masked_like_whole_text(key):
    text = f"the server said ...{key[-12:]} and {key[11:31]} while the dough rose. " * 3
    rng = random.Random(38)
    for _ in range(40):
        cuts = sorted(rng.sample(range(1, len(text)), 15))
        pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
        scrubber = secrets.StreamScrubber()
        out = "".join(scrubber.feed(piece) for piece in pieces) + scrubber.flush()
        assert _runs_left(out, key) == [], out
        assert out == secrets.scrub(text)


def test_json_like_values_are_scrubbed_of_slices(key):
    value = {"answer": f"see {key[-12:]}", "list": [f"x{key[5:25]}y"]}
    scrubbed = secrets.scrub_value(value)
    assert scrubbed == {"answer": "see [API key]", "list": ["x[API key]y"]}
