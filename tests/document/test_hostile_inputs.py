"""Hostile documents: deep nesting, oversized markup, external entities and remote references. Each
case here was found by the fuzzing (tests/fuzzing.py) or is an attack it runs; limits are in test_limits.py."""

from __future__ import annotations

import time

import pytest

from mmdocsum_desktop.document.reader import export_document, read_document
from mmdocsum_desktop.errors import CorruptDocumentError, DocumentTooLargeError
from tests.fuzzing import ARTICLES, listener

ELIFE = ARTICLES / "elife-56337.nxml"


def _texts(document) -> list[str]:
    return [block.text for block in document.blocks]


# ---------------------------------------------------------------------------------------- nesting


def test_deep_nesting_inside_a_real_jats_article_keeps_the_rest_of_it(tmp_path):
    original = ELIFE.read_bytes()
    cut = original.find(b"</sec>", len(original) // 3)
    deep = original[:cut] + b"<p>" + b"<bold>" * 300 + b"deep words" + b"</bold>" * 300 + b"</p>" + original[cut:]
    path = tmp_path / "deep.nxml"
    path.write_bytes(deep)
    reference, document = read_document(ELIFE), read_document(path)
    # libxml2 stops at 256 levels; without flattening the recovering parser dropped everything after
    assert "deep words" in document.body_text()
    assert len(document.blocks) >= len(reference.blocks)
    assert _texts(document)[-5:] == _texts(reference)[-5:]
    assert any("nested too deeply" in warning for warning in document.warnings)


@pytest.mark.parametrize("closed", [True, False])
def test_hundred_thousand_nested_jats_sections(tmp_path, closed):
    depth = 100_000
    nested = "<sec>" * depth + "<p>deep text</p>" + ("</sec>" * depth if closed else "")
    path = tmp_path / "deep.nxml"
    path.write_text(f"<article><body><p>before</p>{nested}<p>after</p></body></article>" if closed
                    else f"<article><body><p>before</p>{nested}")
    started = time.monotonic()
    document = read_document(path)
    assert time.monotonic() - started < 20
    assert "before" in _texts(document) and "deep text" in document.body_text()
    if closed:
        assert _texts(document)[-1] == "after"


# Depths far past Python's recursion limit (1000); the lists lost the rest of the file before the fix.
@pytest.mark.parametrize("markdown", [
    "> " * 100_000 + "deep",
    "".join("  " * level + "- item\n" for level in range(12)),
    "".join("  " * level + "- item\n" for level in range(1500)),
    "- " * 50 + "x",
    "[" * 20_000 + "x",
    "*_" * 20_000 + "x",
    "<div>" * 100_000 + "\n\ntext",
])
def test_deep_markdown_is_read_without_recursion(tmp_path, markdown):
    path = tmp_path / "deep.md"
    path.write_text(f"First paragraph.\n\n{markdown}\n\nLast paragraph.\n")
    started = time.monotonic()
    document = read_document(path)
    assert time.monotonic() - started < 20
    assert _texts(document)[0] == "First paragraph." and _texts(document)[-1] == "Last paragraph."


# ----------------------------------------------------------------------------------- huge markup


def test_html_token_over_libxml2s_10_mb_limit_does_not_lose_the_page(tmp_path):
    path = tmp_path / "big.html"
    oversized = '<p class="{}">x</p>'.format("a" * 11_000_000)
    path.write_text(f"<html><body><p>before</p>{oversized}<p>after</p></body></html>")
    document = read_document(path)
    assert _texts(document)[0] == "before" and _texts(document)[-1] == "after"


def test_html_text_over_the_size_limit_is_refused_in_one_line(tmp_path):
    # 11 million characters of text in one paragraph: over the 4-million-character limit for articles
    # (issue 28: memory and time stay bounded), said in one line rather than read for minutes
    path = tmp_path / "big.html"
    path.write_text("<html><body><p>before</p><p>{}</p><p>after</p></body></html>".format("word " * 2_200_000))
    with pytest.raises(DocumentTooLargeError, match="million characters of text"):
        read_document(path)


# ------------------------------------------------------------------------------- no network, no XXE


@pytest.mark.parametrize("attack", ["entity", "parameter_entity", "external_dtd", "xinclude"])
def test_jats_never_fetches_from_the_network(tmp_path, attack):
    url = listener().url
    doctype = {
        "entity": f'<!DOCTYPE article [<!ENTITY x SYSTEM "{url}/x">]>',
        "parameter_entity": f'<!DOCTYPE article [<!ENTITY % p SYSTEM "{url}/p.dtd"> %p;]>',
        "external_dtd": f'<!DOCTYPE article SYSTEM "{url}/jats.dtd">',
        "xinclude": "",
    }[attack]
    body = "<p>&x;</p>" if attack == "entity" else (
        f'<p><xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="{url}/i" parse="text"/></p>'
        if attack == "xinclude" else "<p>text</p>"
    )
    path = tmp_path / "attack.nxml"
    path.write_text(f'<?xml version="1.0"?>{doctype}<article><body>{body}<p>after</p></body></article>')
    document = read_document(path)
    assert _texts(document)[-1] == "after"
    listener().assert_untouched()


def test_markdown_and_html_images_never_reach_the_network(tmp_path):
    url = listener().url
    (tmp_path / "page.md").write_text(f"Text.\n\n![a]({url}/a.png)\n\nFigure 1: remote\n")
    (tmp_path / "page.html").write_text(f'<html><body><p>Text.</p><img src="{url}/b.png" alt="remote"></body></html>')
    for name in ("page.md", "page.html"):
        document = read_document(tmp_path / name)
        export_document(document, tmp_path / f"out-{name}")
        assert any("remote and was not fetched" in warning for warning in document.warnings)
    listener().assert_untouched()




def test_jats_syntax_error_message_stays_on_one_line(tmp_path):
    # found by tests/fuzz_inputs.py: libxml2's message for a NUL ends in a line break
    body = b"<front><journal-meta><journal-id>X</journal-id></journal-meta></front><body>" + b"<p>Text.</p>" * 60
    path = tmp_path / "nul.nxml"
    path.write_bytes(b'<!DOCTYPE article\nPUBLIC "-//NLM//DTD JATS//EN" "x.dtd' + b"\x00" * 40 + b">" + body + b"</body>")
    with pytest.raises(CorruptDocumentError, match="not well-formed XML") as caught:
        read_document(path)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("reference", ["a%00b.png", "file:///tmp/a%00b.png"])
def test_image_reference_with_an_encoded_nul_is_not_found_not_a_crash(tmp_path, reference):
    # found by the fuzzing: %00 decodes to a NUL, and Path.resolve() raises ValueError on it
    (tmp_path / "page.html").write_text(f'<html><body><p>Text.</p><img src="{reference}" alt="a"></body></html>')
    (tmp_path / "page.md").write_text(f"Text.\n\n![a]({reference})\n\nFigure 1: a\n")
    for name in ("page.html", "page.md"):
        document = read_document(tmp_path / name)
        assert document.blocks[0].text == "Text."
        assert all(visual.source_image is None for visual in document.visuals)
    assert read_document(tmp_path / "page.html").visuals  # markdown-it refuses file: links outright


def test_an_earlier_deep_article_does_not_change_how_the_next_one_is_read(tmp_path):
    # lxml keeps every parse's errors in a per-thread log that XMLSyntaxError.error_log shows; the depth
    # check must look at the parser's own log, or one deep file makes every later broken file "too deep"
    (tmp_path / "deep.nxml").write_text("<article><body>" + "<sec>" * 300 + "x" + "</sec>" * 300 + "</body></article>")
    (tmp_path / "broken.nxml").write_text("<article><body><p>one<p>two</body></article>")
    assert any("nested too deeply" in w for w in read_document(tmp_path / "deep.nxml").warnings)
    warnings = read_document(tmp_path / "broken.nxml").warnings
    assert warnings and not any("nested too deeply" in w for w in warnings)
