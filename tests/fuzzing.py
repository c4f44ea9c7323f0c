"""Hostile-input fuzzing shared by the bounded tests and the long run (tests/fuzz_inputs.py).

Each target is a hypothesis strategy of inputs and a ``check_*`` function that asserts the property every
reader and loader must keep: it returns a valid object or raises the project's one-line MmdocsumError —
never another exception, never past a time bound, never leaking a local file it was not asked to read.
Inputs are mutated real files (tests/data, the bundled demo splits, MCiteBench's sample from the corpus),
generated structures, and hand-written attacks (deep nesting, entity bombs, external entities, huge
attributes and numbers).
"""

from __future__ import annotations

import contextlib
import json
import random
import signal
import socket
import struct
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from mmdocsum_desktop.document.mutate import (
    HTML_KEYWORDS,
    JSON_KEYWORDS,
    MARKDOWN_KEYWORDS,
    XML_KEYWORDS,
    mutate,
)
from mmdocsum_desktop.errors import MmdocsumError
from mmdocsum_desktop.schemas.document import Document
from tests.conftest import CORPUS

REPO_ROOT = Path(__file__).resolve().parents[1]
# MCiteBench's own sample records, from the evaluation corpus (they may not be copied into the project):
# fuzzed too where the corpus is present; the demo split's records always are
MCITE_SAMPLE = CORPUS / "mcitebench_sample" / "data_example.jsonl"
# Seeds for the article readers: committed CC BY / CC0 articles (tests/data/ATTRIBUTION.md)
ARTICLES = REPO_ROOT / "tests" / "data" / "articles"
DEMO = REPO_ROOT / "mmdocsum_desktop" / "resources" / "demo"
SECRET = "MMDOCSUM-PLANTED-SECRET-7f3a"


class TimeBoundExceeded(BaseException):
    """Raised by :func:`time_bound`; a BaseException so that no ``except Exception`` in the code under
    test can swallow it."""


@contextlib.contextmanager
def time_bound(seconds: float) -> Iterator[None]:
    """Interrupt the block after ``seconds`` (main thread only; elsewhere the block runs unbounded).
    Nested bounds compose: the inner one never outlasts the outer one, which resumes afterwards."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    outer_left, _ = signal.getitimer(signal.ITIMER_REAL)
    bound = min(seconds, outer_left) if outer_left else seconds

    def expire(signum, frame):
        raise TimeBoundExceeded(f"still running after {bound:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    started = time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, bound)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer_left:
            signal.setitimer(signal.ITIMER_REAL, max(outer_left - (time.monotonic() - started), 0.001))


def seeded(original: bytes, keywords: list[bytes]) -> st.SearchStrategy[bytes]:
    """``original`` after 1..8 random mutations (the seed shrinks poorly, but the input is reproducible)."""
    return st.builds(
        lambda seed, rounds: mutate(original, random.Random(seed), rounds, keywords),
        st.integers(0, 2**32 - 1),
        st.integers(1, 8),
    )


def truncations(original: bytes) -> st.SearchStrategy[bytes]:
    return st.integers(0, len(original)).map(lambda end: original[:end])


class NoNetwork:
    """A listening socket that must never be connected to: hostile inputs point external entities,
    DTDs and images at it, and :meth:`assert_untouched` fails if anything knocked."""

    def __init__(self) -> None:
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(8)
        self._socket.setblocking(False)
        self.url = f"http://127.0.0.1:{self._socket.getsockname()[1]}"

    def assert_untouched(self) -> None:
        try:
            connection, _ = self._socket.accept()
        except BlockingIOError:
            return
        connection.close()
        raise AssertionError(f"the reader connected to {self.url}")


_listener: NoNetwork | None = None


def listener() -> NoNetwork:
    global _listener
    if _listener is None:
        _listener = NoNetwork()
    return _listener


def secret_file() -> Path:
    """A local file that hostile inputs try to read (external entities, XInclude)."""
    path = Path(tempfile.gettempdir()) / "mmdocsum-fuzz-secret.txt"
    if not path.is_file():
        path.write_text(SECRET)
    return path


# --------------------------------------------------------------------------------------- articles


def _deep(open_tag: str, close_tag: str, depth: int, inner: str = "deep text") -> str:
    return open_tag * depth + inner + close_tag * depth


@st.composite
def hostile_html(draw) -> bytes:
    depth = draw(st.sampled_from([257, 300, 1000, 5000, 100_000]))
    size = draw(st.sampled_from([1_000, 100_000, 11_000_000]))
    kind = draw(st.sampled_from(["nest", "nest_unclosed", "attribute", "text", "images", "entities", "charset"]))
    tag = draw(st.sampled_from(["div", "span", "b", "table", "ul", "li", "p", "math", "mrow", "svg", "td", "figure"]))
    before, after = "<html><body><p>first paragraph</p>", "<p>last paragraph</p></body></html>"
    if kind == "nest":
        body = _deep(f"<{tag}>", f"</{tag}>", depth)
    elif kind == "nest_unclosed":
        body = f"<{tag}>" * depth + "deep text"
    elif kind == "attribute":
        body = f'<p class="{"a" * size}" title="{"&amp;" * (size // 5)}">x</p><img src="{"b" * size}.png">'
    elif kind == "text":
        body = "<p>" + "word " * (size // 5) + "</p>"
    elif kind == "images":
        body = "".join(
            f'<figure><img src="{src}"><figcaption>Figure {n}: c</figcaption></figure>'
            for n, src in enumerate(["x.png", listener().url + "/a.png", f"file://{secret_file()}", "/dev/zero",
                                     "data:image/png;base64,AAAA", "a\x00b.png", "../" * 400 + "x.png",
                                     "bomb.png", "broken.png", "leak.png", "a%00b.png", "file:///tmp/a%00.png"] * 3)
        )
    elif kind == "entities":
        body = "<p>" + "&#x110000;&#0;&#xD800;&nosuch;&amp" * (size // 40) + "</p>"
    else:
        before = f'<html><head><meta charset="{draw(st.sampled_from(["utf-16", "utf-32", "x-nope", "utf-7"]))}">'
        body = "<body><p>text é</p>"
    return (before + body + after).encode("utf-8", errors="surrogatepass")


_HTML_TAGS = ["div", "p", "span", "a", "b", "i", "h1", "h2", "h3", "ul", "ol", "li", "table", "tr", "td", "th",
              "caption", "figure", "figcaption", "img", "video", "math", "pre", "br", "main", "nav", "header",
              "section", "script", "style", "svg", "sup", "blockquote"]
_HTML_ATTRIBUTES = st.sampled_from([
    'class="abstract"', 'class="navbox"', 'class="mw-editsection"', 'id="toc"', 'role="main"',
    'role="presentation"', "hidden", 'aria-hidden="true"', 'src="x.png"', 'src="//host/a.png"', 'width="10"',
    'alt="Figure 2: a chart"', 'display="block"', 'data-src="y.jpg"', 'srcset="a.png 1x, b.png 2x"',
])
_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)


@st.composite
def generated_html(draw) -> bytes:
    """Random trees of article, chrome and media tags; sometimes with closing tags left out."""
    leaves = _TEXT.map(lambda text: text.replace("<", "&lt;"))

    def element(children: st.SearchStrategy[list[str]]) -> st.SearchStrategy[str]:
        return st.builds(
            lambda tag, attributes, inner, closed: (
                f"<{tag} {' '.join(attributes)}>{''.join(inner)}" + (f"</{tag}>" if closed else "")
            ),
            st.sampled_from(_HTML_TAGS),
            st.lists(_HTML_ATTRIBUTES, max_size=3),
            children,
            st.booleans(),
        )

    tree = st.recursive(leaves, lambda inner: element(st.lists(inner, max_size=5)), max_leaves=60)
    markup = "<html><body>" + "".join(draw(st.lists(tree, max_size=6))) + "</body></html>"
    encoding = draw(st.sampled_from(["utf-8", "utf-16", "cp1252", "latin-1"]))
    return markup.encode(encoding, errors="replace")


@st.composite
def hostile_markdown(draw) -> bytes:
    depth = draw(st.sampled_from([30, 300, 5000, 100_000]))
    kind = draw(st.sampled_from(["quote", "list", "brackets", "emphasis", "html", "images", "table", "fence"]))
    if kind == "quote":
        text = "> " * depth + "deep"
    elif kind == "list":
        text = "".join("  " * level + "- item\n" for level in range(min(depth, 3000)))
    elif kind == "brackets":
        text = "[" * depth + "x" + "](u)" * min(depth, 1000)
    elif kind == "emphasis":
        text = "*_" * depth + "x"
    elif kind == "html":
        text = "<div>" * depth + "\n\ntext\n"
    elif kind == "images":
        sources = ["x.png", f"file://{secret_file()}", listener().url + "/a.png", "<a b.png>", "/dev/zero",
                   "a" * 5000 + ".png", "bomb.png", "broken.png", "leak.png", "a%00b.png", "file:///tmp/a%00.png"]
        text = "\n\n".join(f"![alt]({source})\n\nFigure {n}: caption" for n, source in enumerate(sources * 3))
    elif kind == "table":
        text = "| a |" * depth + "\n" + "| --- |" * depth + "\n"
    else:
        text = "```\n" * depth
    return ("# Title\n\nFirst paragraph.\n\n" + text + "\n\nLast paragraph.\n").encode("utf-8")


_MARKDOWN_TEXT = st.text(
    st.one_of(st.sampled_from(list("#>*-_[]()!`|$\\<>:\n\n  1.")), st.characters(blacklist_categories=("Cs",))),
    max_size=400,
)


def _bomb(width: int, levels: int) -> str:
    declarations = ['<!ENTITY e0 "laugh">'] + [
        f'<!ENTITY e{level} "{f"&e{level - 1};" * width}">' for level in range(1, levels)
    ]
    return f"<!DOCTYPE article [{''.join(declarations)}]>"


@st.composite
def hostile_jats(draw) -> bytes:
    kind = draw(st.sampled_from([
        "billion_laughs", "quadratic", "xxe_file", "xxe_network", "xxe_parameter", "external_dtd", "xinclude",
        "nest", "nest_unclosed", "text",
    ]))
    depth = draw(st.sampled_from([257, 1000, 100_000]))
    tag = draw(st.sampled_from(["sec", "p", "italic", "list", "list-item", "fig", "table-wrap", "boxed-text"]))
    secret, url = secret_file(), listener().url
    doctype, body = "", "<p>body text</p>"
    if kind == "billion_laughs":
        levels = draw(st.integers(2, 12))
        doctype, body = _bomb(10, levels), f"<p>&e{levels - 1};</p>"
    elif kind == "quadratic":
        doctype = f'<!DOCTYPE article [<!ENTITY big "{"x" * 100_000}">]>'
        body = "<p>" + "&big;" * 10_000 + "</p>"
    elif kind == "xxe_file":
        doctype, body = f'<!DOCTYPE article [<!ENTITY x SYSTEM "file://{secret}">]>', "<p>&x;</p>"
    elif kind == "xxe_network":
        doctype, body = f'<!DOCTYPE article [<!ENTITY x SYSTEM "{url}/x">]>', "<p>&x;</p>"
    elif kind == "xxe_parameter":
        doctype = f'<!DOCTYPE article [<!ENTITY % p SYSTEM "{url}/p.dtd"> %p; <!ENTITY % f SYSTEM "file://{secret}">]>'
    elif kind == "external_dtd":
        doctype = f'<!DOCTYPE article SYSTEM "{url}/jats.dtd">'
    elif kind == "xinclude":
        body = (f'<p><xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="{secret}" parse="text"/>'
                f'<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="{url}/i" parse="text"/></p>')
    elif kind == "nest":
        body = _deep(f"<{tag}>", f"</{tag}>", depth)
    elif kind == "nest_unclosed":
        body = f"<{tag}>" * depth + "deep text"
    else:
        body = "<p>" + "word " * 2_400_000 + "</p>"
    return (
        f'<?xml version="1.0"?>{doctype}<article xmlns:xlink="http://www.w3.org/1999/xlink">'
        f"<front><article-meta><title-group><article-title>T</article-title></title-group></article-meta></front>"
        f"<body><p>first paragraph</p>{body}<p>last paragraph</p></body></article>"
    ).encode()


def _read(path: Path) -> bytes:
    return path.read_bytes()


def html_inputs() -> st.SearchStrategy[bytes]:
    page = _read(ARTICLES / "PMC4521097.html")
    return st.one_of(seeded(page, HTML_KEYWORDS), truncations(page), generated_html(), hostile_html(),
                     st.binary(max_size=2000))


def markdown_inputs() -> st.SearchStrategy[bytes]:
    article = _read(ARTICLES / "PMC4521097.md")
    demo = [_read(path) for path in sorted((DEMO / "docs").glob("*.md"))]
    return st.one_of(seeded(article, MARKDOWN_KEYWORDS), st.sampled_from(demo).flatmap(lambda d: seeded(d, MARKDOWN_KEYWORDS)),
                     _MARKDOWN_TEXT.map(lambda text: text.encode("utf-8")), hostile_markdown(), st.binary(max_size=2000))


def jats_inputs() -> st.SearchStrategy[bytes]:
    originals = [_read(path) for path in sorted(ARTICLES.glob("*.nxml"))]
    return st.one_of(st.sampled_from(originals).flatmap(lambda d: seeded(d, XML_KEYWORDS)),
                     st.sampled_from(originals).flatmap(truncations), hostile_jats(), st.binary(max_size=2000))


_KINDS = {".html": "html", ".md": "markdown", ".nxml": "jats"}
# Files beside every fuzzed article, for the image references the inputs make (see hostile_*).
IMAGE_NAMES = ("x.png", "bomb.png", "broken.png", "leak.png")


def _png(width: int, height: int, pixel_rows: bytes) -> bytes:
    def chunk(kind: bytes, payload: bytes) -> bytes:
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(pixel_rows)) + chunk(b"IEND", b"")


def _place_images(folder: Path) -> None:
    """A good PNG, a decompression bomb (60000 x 60000 pixels declared), a truncated PNG, and a link to
    the planted secret under an image's name."""
    good = _png(4, 4, b"\x00\x80\x80\x80\x80" * 4)
    (folder / "x.png").write_bytes(good)
    (folder / "bomb.png").write_bytes(_png(60_000, 60_000, b"\x00" * 64))
    (folder / "broken.png").write_bytes(good[:30])
    (folder / "leak.png").symlink_to(secret_file())


def check_article(data: bytes, suffix: str, *, seconds: float = 60.0) -> str:
    """Read ``data`` as a file with ``suffix`` and export it: "ok", or "refused" with a one-line error."""
    from mmdocsum_desktop.document.reader import export_document, read_document

    with tempfile.TemporaryDirectory(prefix="mmdocsum-fuzz-") as tmp:
        _place_images(Path(tmp))
        path = Path(tmp) / f"input{suffix}"
        path.write_bytes(data)
        try:
            with time_bound(seconds):
                document = read_document(path)
                saved = export_document(document, Path(tmp) / "out", dpi=50)
        except MmdocsumError as error:
            assert str(error) and "\n" not in str(error), repr(str(error))
            return "refused"
        assert document.kind == _KINDS[suffix]
        assert len({block.id for block in document.blocks}) == len(document.blocks)
        assert len({visual.id for visual in document.visuals}) == len(document.visuals)
        text = saved.read_text(encoding="utf-8")
        assert SECRET not in text, "a local file was read into the document"
        assert Document.load(saved).blocks == document.blocks
        for visual in document.visuals:
            if visual.image is not None:
                exported = Path(tmp) / "out" / visual.image
                assert exported.is_file() and SECRET.encode() not in exported.read_bytes()
    listener().assert_untouched()
    return "ok"


# ------------------------------------------------------------------------------------- model output


@st.composite
def valid_answers(draw) -> tuple[str, int]:
    n_images = draw(st.integers(0, 6))
    items = [
        {
            "summary": draw(_TEXT),
            "image": {"imageRef": draw(st.sampled_from(["None", *map(str, range(1, n_images + 1))])),
                      "imageCaption": draw(_TEXT)},
        }
        for _ in range(draw(st.integers(0, 6)))
    ]
    style = draw(st.sampled_from(["json", "indent", "python", "fenced", "prose"]))
    if style == "json":
        text = json.dumps(items, ensure_ascii=draw(st.booleans()))
    elif style == "indent":
        text = json.dumps(items, indent=2)
    elif style == "python":
        text = repr(items)
    elif style == "fenced":
        text = f"Here it is:\n```json\n{json.dumps(items)}\n```\nDone."
    else:
        text = "\n\n".join(f"{role}: {item['summary']} [Image {item['image']['imageRef']}]"
                           for role, item in zip(["Background", "Method", "Results", "Conclusion"], items))
    return text, n_images


def _mutate_text(text: str, seed: int, rounds: int) -> str:
    rng = random.Random(seed)
    pieces = list(text)
    for _ in range(rounds):
        position = rng.randrange(len(pieces) + 1)
        kind = rng.choice(["insert", "delete", "truncate", "duplicate"])
        if kind == "insert":
            pieces[position:position] = rng.choice(['"', "'", "[", "]", "{", "}", ",", ":", "\\", "\\u", "\\U0011ffff",
                                                    "```", "None", "NaN", "9" * 5000, "\n\n", "[Image 99999999999]"])
        elif kind == "delete":
            del pieces[position : position + rng.randint(1, 20)]
        elif kind == "truncate":
            del pieces[position:]
        else:
            pieces[position:position] = pieces[position : position + rng.randint(1, 200)]
    return "".join(pieces)


_JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), _TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(
        st.one_of(st.sampled_from(["summary", "image", "imageRef", "imageCaption", "paragraphs", "text", "ref",
                                   "background", "method", "results", "conclusion"]), _TEXT), inner, max_size=5)),
    max_leaves=30,
)


@st.composite
def hostile_answers(draw) -> tuple[str, int]:
    size = draw(st.sampled_from([1_000, 100_000, 1_000_000]))
    kind = draw(st.sampled_from(["deep_list", "deep_object", "deep_python", "long_string", "many_items", "quotes",
                                 "fences", "huge_ref", "escapes", "blank_lines"]))
    if kind == "deep_list":
        text = "[" * size + "]" * draw(st.sampled_from([0, size]))
    elif kind == "deep_object":
        text = '{"a":' * (size // 5) + "1" + "}" * (size // 5)
    elif kind == "deep_python":
        text = "[" + "(" * size + ")" * size + "]"
    elif kind == "long_string":
        text = '[{"summary": "' + "word " * (size // 5) + '", "image": {"imageRef": "1"}}]'
    elif kind == "many_items":
        text = json.dumps([{"summary": "s", "image": {"imageRef": str(n)}} for n in range(size // 40)])
    elif kind == "quotes":
        text = "[" + "'a'," * (size // 4)
    elif kind == "fences":
        text = "```json\n" * (size // 8)
    elif kind == "huge_ref":
        text = f'[{{"summary": "a b c", "image": {{"imageRef": "{"9" * 5000}"}}}}]\n\nBackground: x y z [Image {"9" * 5000}]'
    elif kind == "escapes":
        text = "[{'summary': '" + "\\U99999999\\x\\u12" * (size // 20) + "'}]"
    else:
        text = ("\n" + " " * 50) * (size // 51) + "text"
    return text, draw(st.integers(0, 6))


def answer_inputs() -> st.SearchStrategy[tuple[str, int]]:
    return st.one_of(
        st.tuples(st.text(max_size=2000), st.integers(0, 8)),
        valid_answers(),
        st.tuples(valid_answers(), st.integers(0, 2**32 - 1), st.integers(1, 6)).map(
            lambda case: (_mutate_text(case[0][0], case[1], case[2]), case[0][1])),
        st.tuples(_JSON_VALUES.map(lambda value: json.dumps(value)), st.integers(0, 8)),
        st.tuples(_JSON_VALUES.map(repr), st.integers(0, 8)),
        hostile_answers(),
    )


def check_answer(text: str, n_images: int, *, seconds: float = 30.0) -> str:
    """The summaries parser and the benchmark's scorer read any text; the parser's answer is well-formed."""
    from mmdocsum_desktop.bench.metrics.mdocsum import parse_answer as score_parse
    from mmdocsum_desktop.text.summary_parse import parse_answer

    with time_bound(seconds):
        parsed = parse_answer(text, n_images)
        scored = score_parse(text, n_images)
    assert len(parsed.paragraphs) == 4
    for paragraph in parsed.paragraphs:
        assert isinstance(paragraph.summary, str) and isinstance(paragraph.caption, str)
        if paragraph.image is not None:
            assert paragraph.image_status == "ok" and 1 <= paragraph.image <= n_images
    assert isinstance(parsed.instruction_following, bool)
    json.dumps(parsed.to_json())
    assert isinstance(scored.parsed, bool)
    return "ok" if parsed.ok else "unparsed"


# ------------------------------------------------------------------------------------ split loaders


@dataclass(frozen=True)
class SplitFile:
    """One loader input: a split file's bytes, which loader reads it, and the file's name."""

    loader: str  # mdocsum, mcite, rouge, ftii, ftii_predictions, single_choice
    name: str
    data: bytes


_RECORD_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(), _TEXT,
    st.sampled_from(["../../../etc/passwd", "/etc/passwd", "a\x00b", "x" * 5000, "images/a.png", "docs/bread.md"]),
    st.lists(_TEXT, max_size=4), st.dictionaries(_TEXT, _TEXT, max_size=3),
)
_RAW_JSON_VALUES = ["NaN", "Infinity", "-Infinity", "9" * 5000, "1e999", "[" * 3000 + "]" * 3000, '"\\ud800"']
_KEYS = {
    "mdocsum": ["id", "paper_id", "document", "pdf", "gold", "summary", "key_points", "n_images", "n_tokens"],
    "mcite": ["question_id", "pdf_id", "question", "answer", "question_type", "idx_2_text", "text_2_idx",
              "image_2_idx", "table_2_idx", "evidence_keys", "evidence_contents", "distractor_contents",
              "evidence_count", "evidence_modal"],
    "rouge": ["id", "article_id", "abstract", "reference", "document", "article_words", "text"],
}


@st.composite
def _record_line(draw, loader: str) -> str:
    keys = draw(st.lists(st.sampled_from(_KEYS[loader]), max_size=len(_KEYS[loader]), unique=True))
    fields = []
    for key in keys:
        if draw(st.integers(0, 9)) == 0:
            value = draw(st.sampled_from(_RAW_JSON_VALUES))
        else:
            value = json.dumps(draw(_RECORD_VALUES))
        fields.append(f"{json.dumps(key)}: {value}")
    return "{" + ", ".join(fields) + "}"


def _demo_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@st.composite
def _mutated_record(draw, records: list[dict[str, Any]]) -> str:
    """A real record with one field given a wrong type, a hostile value, or removed."""
    record = dict(draw(st.sampled_from(records)))
    key = draw(st.sampled_from(sorted(record)))
    if draw(st.booleans()):
        del record[key]
        return json.dumps(record)
    record[key] = "__VALUE__"
    raw = draw(st.sampled_from(_RAW_JSON_VALUES)) if draw(st.booleans()) else json.dumps(draw(_RECORD_VALUES))
    return json.dumps(record).replace('"__VALUE__"', raw)


def _jsonl(lines: list[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode("utf-8", errors="surrogatepass")


def _split_files(loader: str, originals: list[Path], suffixes: tuple[str, ...]) -> st.SearchStrategy[SplitFile]:
    datas = [path.read_bytes() for path in originals]
    records = [record for path in originals if path.suffix == ".jsonl" for record in _demo_lines(path)]
    strategies = [st.sampled_from(datas).flatmap(lambda d: seeded(d, JSON_KEYWORDS)),
                  st.sampled_from(datas).flatmap(truncations), st.binary(max_size=500)]
    if loader in _KEYS:
        strategies.append(st.lists(_record_line(loader), max_size=5).map(_jsonl))
    if records:
        strategies.append(st.lists(_mutated_record(records), min_size=1, max_size=4).map(_jsonl))
    return st.builds(lambda data, suffix: SplitFile(loader, f"split{suffix}", data),
                     st.one_of(strategies), st.sampled_from(suffixes))


@st.composite
def _flow_insertion(draw) -> SplitFile:
    group = {
        "imagedatabase": draw(st.one_of(_RECORD_VALUES, st.lists(st.lists(_RECORD_VALUES, max_size=3), max_size=3))),
        "news_text": draw(st.one_of(_RECORD_VALUES, st.lists(st.fixed_dictionaries(
            {}, optional={"id": _RECORD_VALUES, "content": st.one_of(_RECORD_VALUES, st.lists(_RECORD_VALUES, max_size=3)),
                          "groundtruth": st.one_of(_RECORD_VALUES, st.lists(_RECORD_VALUES, max_size=3))}), max_size=3))),
    }
    return SplitFile("ftii", "flow_insertion.json", json.dumps(draw(st.sampled_from([[group], group]))).encode())


@st.composite
def _mutated_flow_insertion(draw) -> SplitFile:
    """The bundled FTII split with one field of one group or article given a hostile value or removed."""
    groups = json.loads((DEMO / "ftii" / "flow_insertion.json").read_text(encoding="utf-8"))
    group = draw(st.sampled_from(groups))
    target = draw(st.sampled_from(group["news_text"])) if draw(st.booleans()) else group
    key = draw(st.sampled_from(sorted(target)))
    if draw(st.booleans()):
        del target[key]
    elif isinstance(target[key], list) and target[key] and draw(st.booleans()):
        target[key][draw(st.integers(0, len(target[key]) - 1))] = draw(_RECORD_VALUES)
    else:
        target[key] = draw(_RECORD_VALUES)
    return SplitFile("ftii", "flow_insertion.json", json.dumps(groups).encode())


@st.composite
def _predictions(draw) -> SplitFile:
    """Predictions for the bundled FTII split's articles, some of them of the wrong shape."""
    groups = json.loads((DEMO / "ftii" / "flow_insertion.json").read_text(encoding="utf-8"))
    ids = [article["id"] for group in groups for article in group["news_text"]]
    value = {ident: draw(st.one_of(st.lists(_RECORD_VALUES, max_size=6), _RECORD_VALUES)) for ident in ids}
    return SplitFile("ftii_predictions", "predictions.json", json.dumps(value).encode())


@st.composite
def _single_choice(draw) -> SplitFile:
    # Mostly the published columns in any order, sometimes one missing or an odd one added.
    columns = draw(st.permutations(["above_content", "below_content", "img1", "img_2", "IMG3", "Answer"]))
    if draw(st.booleans()):
        columns = columns[: draw(st.integers(0, len(columns)))] + draw(st.lists(st.sampled_from(["img١", "other", ""]),
                                                                                  max_size=2))
    rows = draw(st.lists(st.lists(st.one_of(_TEXT, st.sampled_from(["A", "2", "²", "9" * 5000, "img1", "\x00"])),
                                  min_size=len(columns), max_size=len(columns)), max_size=4))
    table = "\n".join("\t".join(cell.replace("\t", " ").replace("\n", " ") for cell in row)
                      for row in [columns, *rows])
    encoded = table.encode(draw(st.sampled_from(["utf-8", "utf-16", "latin-1"])), errors="replace")
    return SplitFile("single_choice", "single_choice.tsv", encoded)


def loader_inputs(loader: str) -> st.SearchStrategy[SplitFile]:
    # A split loader reads JSONL, or a JSON list of the same records.
    if loader == "mdocsum":
        return _split_files("mdocsum", [DEMO / "mdocsum.jsonl"], (".jsonl", ".json"))
    if loader == "mcite":
        originals = [DEMO / "mcite" / "data.jsonl", *([MCITE_SAMPLE] if MCITE_SAMPLE.is_file() else [])]
        return _split_files("mcite", originals, (".jsonl", ".json"))
    if loader == "rouge":
        return _split_files("rouge", [DEMO / "rouge.jsonl"], (".jsonl", ".json"))
    if loader == "ftii":
        return st.one_of(_split_files("ftii", [DEMO / "ftii" / "flow_insertion.json"], (".json",)), _flow_insertion(),
                         _mutated_flow_insertion())
    if loader == "ftii_predictions":
        return st.one_of(
            _split_files("ftii_predictions", [DEMO / "ftii" / "flow_insertion.json"], (".json",)),
            st.dictionaries(_TEXT, _RECORD_VALUES, max_size=4).map(
                lambda value: SplitFile("ftii_predictions", "predictions.json", json.dumps(value).encode())),
            _predictions(),
        )
    return _single_choice()


LOADERS = ("mdocsum", "mcite", "rouge", "ftii", "ftii_predictions", "single_choice")


def _call_loader(split: SplitFile, path: Path) -> Any:
    from mmdocsum_desktop.bench import splits

    calls: dict[str, Callable[[Path], Any]] = {
        "mdocsum": splits.load_mdocsum,
        "mcite": splits.load_mcite,
        "rouge": splits.load_rouge,
        "ftii": splits.load_flow_insertion,
        "ftii_predictions": splits.load_ftii_predictions,
        "single_choice": splits.load_single_choice,
    }
    return calls[split.loader](path)


def check_loader(split: SplitFile, *, seconds: float = 30.0) -> str:
    """Load ``split`` from a folder laid out as published (with an images folder for MCiteBench)."""
    from mmdocsum_desktop.bench.splits import Split
    from mmdocsum_desktop.schemas.bench import FtiiArticle, SingleChoiceItem

    with tempfile.TemporaryDirectory(prefix="mmdocsum-fuzz-") as tmp:
        folder = Path(tmp)
        images = folder / "visual_resources" / "bread" / "images"
        images.mkdir(parents=True)
        (images / "a.png").write_bytes(b"\x89PNG\r\n\x1a\n")
        path = folder / split.name
        path.write_bytes(split.data)
        try:
            with time_bound(seconds):
                result = _call_loader(split, path)
        except MmdocsumError as error:
            assert str(error) and "\n" not in str(error), repr(str(error))
            return "refused"
        if isinstance(result, Split):
            json.dumps([skipped.to_json() for skipped in result.skipped])
            for item in result.items:
                _check_split_item(item, folder)
            return "ok" if result.items else "all skipped"
        if split.loader == "ftii":
            assert all(isinstance(a, FtiiArticle) and len(a.content) == len(a.groundtruth) for a in result)
        elif split.loader == "ftii_predictions":
            assert all(isinstance(k, str) and all(isinstance(p, str) for p in v) for k, v in result.items())
        else:
            assert all(isinstance(item, SingleChoiceItem) and 0 <= item.answer < len(item.options) for item in result)
        return "ok"


def _check_split_item(item: Any, folder: Path) -> None:
    from mmdocsum_desktop.schemas.bench import MCiteRecord, MDocSumItem, RougeItem

    if isinstance(item, MDocSumItem):
        assert len(item.gold) == 4 and all(p.image is None or p.image >= 1 for p in item.gold)
        assert item.n_images is None or item.n_images >= 0
    elif isinstance(item, MCiteRecord):
        assert isinstance(item.id, str) and item.id and isinstance(item.evidence_count, int)
        root = folder / "visual_resources"
        for source in item.sources.values():
            if source.image is not None:
                assert source.image.is_relative_to(root), f"{source.image} is outside the images folder"
    else:
        assert isinstance(item, RougeItem) and isinstance(item.reference, str)


# ------------------------------------------------------------------------------------------ targets


@dataclass(frozen=True)
class Target:
    """A fuzz target: its inputs and the check that must hold for each (returns an outcome label)."""

    name: str
    inputs: Callable[[], st.SearchStrategy[Any]]
    check: Callable[[Any], str]


TARGETS: dict[str, Target] = {
    "html": Target("html", html_inputs, lambda data: check_article(data, ".html")),
    "markdown": Target("markdown", markdown_inputs, lambda data: check_article(data, ".md")),
    "jats": Target("jats", jats_inputs, lambda data: check_article(data, ".nxml")),
    "answer_parser": Target("answer_parser", answer_inputs, lambda case: check_answer(*case)),
    **{
        f"loader_{name}": Target(f"loader_{name}", lambda name=name: loader_inputs(name), check_loader)
        for name in LOADERS
    },
}


def timed(check: Callable[[Any], str], value: Any) -> tuple[str, float]:
    started = time.perf_counter()
    return check(value), time.perf_counter() - started
