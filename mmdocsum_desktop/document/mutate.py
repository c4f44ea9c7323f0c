"""Byte-level mutations of real documents, shared by the bounded fuzz test and the long fuzz script."""

from __future__ import annotations

import random

MUTATIONS = ("flip", "truncate", "splice", "zero_run", "duplicate", "insert_keyword")
_PDF_KEYWORDS = [b"obj", b"endobj", b"stream", b"endstream", b"/Length 999999", b"xref", b"trailer",
                 b"/Filter /FlateDecode", b"<<", b">>", b"%%EOF", b"/Type /Page", b"(", b")"]


def mutate(data: bytes, rng: random.Random, rounds: int = 3) -> bytes:
    out = bytearray(data)
    for _ in range(rounds):
        if not out:
            break
        kind = rng.choice(MUTATIONS)
        position = rng.randrange(len(out))
        if kind == "flip":
            for offset in range(rng.randint(1, 16)):
                if position + offset < len(out):
                    out[position + offset] ^= 1 << rng.randrange(8)
        elif kind == "truncate":
            del out[position:]
        elif kind == "splice":
            start = rng.randrange(len(out))
            chunk = out[start : start + rng.randint(1, 4096)]
            out[position:position] = chunk
        elif kind == "zero_run":
            out[position : position + rng.randint(1, 512)] = bytes(rng.randint(1, 512))
        elif kind == "duplicate":
            out += out[position : position + rng.randint(1, 8192)]
        else:
            out[position:position] = rng.choice(_PDF_KEYWORDS)
    return bytes(out)
