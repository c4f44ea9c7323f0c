"""Byte-level mutations of real documents, shared by the bounded fuzz tests and the long fuzz scripts.

Each format has its own dictionary of tokens to insert: random bytes rarely form a tag or a keyword, and
the parsers' interesting paths start at those."""

from __future__ import annotations

import random
from collections.abc import Sequence

MUTATIONS = ("flip", "truncate", "splice", "zero_run", "duplicate", "insert_keyword")
PDF_KEYWORDS = [b"obj", b"endobj", b"stream", b"endstream", b"/Length 999999", b"xref", b"trailer",
                b"/Filter /FlateDecode", b"<<", b">>", b"%%EOF", b"/Type /Page", b"(", b")"]
# Bytes no text decoder likes: stray UTF-8 continuation and lead bytes, NUL, BOMs, a lone surrogate.
BAD_TEXT_BYTES = [b"\xff", b"\xfe\xff", b"\xef\xbb\xbf", b"\xff\xfe\x00\x00", b"\x80", b"\xc3", b"\x00",
                  b"\xed\xa0\x80", b"\x1b[31m", b"\r"]
HTML_KEYWORDS = [b"<div>", b"</div>", b"<p>", b"</p>", b"<span>", b"<table><tr><td>", b"</table>", b"<ul><li>",
                 b"</li>", b"<h1>", b"<h2>Abstract</h2>", b"<figure>", b"<figcaption>Figure 1: ", b"</figure>",
                 b'<img src="x.png" alt="a">', b'<img src="bomb.png">', b'<img src="leak.png">', b'<img src="a%00.png">',
                 b'<img src="file:///etc/passwd">', b'<img src="//example.com/a.png">',
                 b'<img src="data:image/png;base64,AAAA">', b"<math><mrow>", b"</math>", b"<pre>", b"<br>",
                 b"<script>", b"</script>", b"<style>", b"<!--", b"-->", b"<![CDATA[", b"]]>", b"&amp;", b"&#0;",
                 b"&#xD800;", b"&#99999999;", b"&nosuch;", b'<meta charset="utf-16">', b'<meta charset="x-nope">',
                 b"<main>", b'<div class="navbox">', b'<div hidden>', b'<div class="abstract">', b"<", b">", b'"',
                 *BAD_TEXT_BYTES]
XML_KEYWORDS = [b"<sec>", b"</sec>", b"<p>", b"</p>", b"<title>", b"</title>", b"<italic>", b"</italic>",
                b"<fig><label>Figure 1</label><caption><p>", b"</caption></fig>", b"<table-wrap>",
                b'<graphic xlink:href="../../etc/passwd"/>', b'<graphic xlink:href="f1"/>', b'<graphic xlink:href="bomb"/>',
                b'<graphic xlink:href="leak.png"/>', b"<list><list-item>",
                b"<disp-formula>", b"<mml:math>", b"<abstract>", b"<body>", b"</body>", b"<back>", b"<ref-list>",
                b"&eacute;", b"&nosuch;", b"&#0;", b"&#x110000;", b"&amp;", b"<![CDATA[", b"]]>", b"<!--", b"-->",
                b'<!DOCTYPE article [<!ENTITY e SYSTEM "file:///etc/hostname">]>', b"&e;",
                b'<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="/etc/hostname" parse="text"/>',
                b"<?xml version='1.0' encoding='utf-16'?>", b"<?pi x?>", b"<", b">", b"&", b'"',
                *BAD_TEXT_BYTES]
MARKDOWN_KEYWORDS = [b"\n\n", b"# ", b"## Abstract\n", b"> ", b"- ", b"1. ", b"    ", b"```\n", b"```math\n", b"$$",
                     b"\\[", b"![alt](x.png)", b"![b](bomb.png)", b"![l](leak.png)", b"![n](a%00.png)", b"![a](file:///etc/passwd)",
                     b"![a](<x y.png>)", b"[", b"](", b")",
                     b"*", b"**", b"_", b"|", b"| --- |", b"---\ntitle: T\n---\n", b"Figure 1: ", b"Table: ",
                     b"<div>", b"<img src=x.png>", b"<!--", b"&nosuch;", b"\\", b"`", *BAD_TEXT_BYTES]
JSON_KEYWORDS = [b"{", b"}", b"[", b"]", b",", b":", b'"', b"null", b"true", b"NaN", b"Infinity", b"-1",
                 b"1e999", b"9" * 5000, b'"\\ud800"', b'"\\u0000"', b"[" * 2000, b'"../../../etc/passwd"',
                 b'"/etc/passwd"', b'"a\\u0000b"', b"\n", *BAD_TEXT_BYTES]


def mutate(data: bytes, rng: random.Random, rounds: int = 3, keywords: Sequence[bytes] = PDF_KEYWORDS) -> bytes:
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
            out[position:position] = rng.choice(keywords)
    return bytes(out)
