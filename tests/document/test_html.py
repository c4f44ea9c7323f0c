"""The HTML reader on a saved journal article (committed), a saved Wikipedia page (the evaluation corpus) and
on small pages built for each behaviour."""

from __future__ import annotations

import random
import re
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from mmdocsum_desktop.document.html import read_html
from mmdocsum_desktop.document.limits import DEFAULT_LIMITS, ReadLimits
from mmdocsum_desktop.document.reader import export_document, read_document
from mmdocsum_desktop.errors import CorruptDocumentError, JobCancelled
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.schemas.document import Document
from tests.conftest import CORPUS, DATA

# PMC4521097 (Behav Ecol Sociobiol, CC BY) saved as a web page, its four figures as PNGs beside it
ARTICLE = DATA / "articles" / "PMC4521097.html"
DUCK = CORPUS / "articles" / "wiki_duck.html"


@pytest.fixture(scope="module")
def article() -> Document:
    return read_document(ARTICLE)


@pytest.fixture(scope="module")
def duck() -> Document:
    return read_document(DUCK)


def write_page(folder: Path, body: str, head: str = "", name: str = "page.html") -> Path:
    path = folder / name
    path.write_text(f"<!DOCTYPE html><html><head>{head}</head><body>{body}</body></html>", encoding="utf-8")
    return path


def read_page(folder: Path, body: str, head: str = "") -> Document:
    return read_document(write_page(folder, body, head))


# The saved article ------------------------------------------------------------------------------------


def test_article_reads_title_language_and_sections(article: Document) -> None:
    assert article.kind == "html"
    # the <h1>, not the <title> ("... | Behavioral Ecology and Sociobiology")
    assert article.title == "Conspecific recognition and aggression reduction to familiars in newly weaned, socially plastic mammals"
    assert article.language == "en"
    headings = [b.text for b in article.blocks if b.type == "heading"]
    assert headings[:6] == [article.title, "Abstract", "Introduction", "Materials and methods", "Study site", "Study animals"]
    assert headings[-1] == "References"
    site = next(b for b in article.blocks if b.text.startswith("This study took place on the Isle of May"))
    assert site.type == "paragraph" and site.section == "Study site"
    assert [b.id for b in article.blocks] == [f"b{n}" for n in range(1, len(article.blocks) + 1)]
    assert all(b.page is None and b.bbox is None for b in article.blocks)


def test_article_finds_every_figure_with_its_caption_and_local_image(article: Document) -> None:
    raw = ARTICLE.read_text(encoding="utf-8")
    figure_count = len(re.findall(r"<figure\b", raw))
    assert figure_count == len(re.findall(r"<figcaption\b", raw)) == 4
    assert [f.id for f in article.figures] == ["fig1", "fig2", "fig3", "fig4"]
    assert [f.index for f in article.figures] == [1, 2, 3, 4]
    assert [f.label for f in article.figures] == ["Figure 1", "Figure 2", "Figure 3", "Figure 4"]  # "Fig. 1"
    assert article.figures[1].caption == (
        "Fig. 2 The frequency of checks across the two trial types, familiar (n = 48) and stranger (n = 48) "
        "with standard error bars"
    )
    for figure in article.figures:
        block = article.block(figure.caption_block)
        assert block.type == "caption" and block.text == figure.caption
        assert figure.source_image == str(ARTICLE.parent / "PMC4521097_files" / f"{figure.id}.png")
    assert article.block(article.figures[0].caption_block).section == "Stranger/familiar trial protocol"
    assert article.warnings == []  # every image is found beside the page


def test_article_tables_keep_their_captions(article: Document) -> None:
    raw = ARTICLE.read_text(encoding="utf-8")
    assert len(re.findall(r"<table\b", raw)) == len(re.findall(r"<caption\b", raw)) == 4
    assert [(t.id, t.label, t.kind) for t in article.tables] == [(f"tab{n}", f"Table {n}", "table") for n in range(1, 5)]
    assert article.tables[0].caption.startswith("Table 1 Behavioural categories and the specific behaviours")


def test_article_abstract_and_no_navigation_or_footer(article: Document) -> None:
    assert article.abstract.startswith("Recognising conspecifics and behaving appropriately towards them")
    assert article.abstract.endswith("that benefit them during times when they must aggregate.")
    text = "\n".join(b.text for b in article.blocks)
    assert "Journal home" not in text  # <nav>
    assert "Saved page; the figures are in the folder beside it." not in text  # the page's <footer>


# The Wikipedia page (the evaluation corpus: remote images, infobox, navboxes, scripts and page chrome) ----


@pytest.mark.corpus
def test_duck_reads_title_language_and_sections(duck: Document) -> None:
    assert duck.kind == "html"
    assert duck.title == "Duck"  # the <h1>, not "Duck - Wikipedia"
    assert duck.language == "en"
    headings = [b.text for b in duck.blocks if b.type == "heading"]
    assert headings[:4] == ["Duck", "Etymology", "Taxonomy", "Morphology"]
    assert "Contents" not in headings  # the table of contents is navigation
    feeding = next(b for b in duck.blocks if b.text.startswith("Ducks eat food sources such as grasses"))
    assert feeding.type == "paragraph"
    assert feeding.section == "Feeding"
    assert [b.id for b in duck.blocks] == [f"b{n}" for n in range(1, len(duck.blocks) + 1)]
    assert all(b.page is None and b.bbox is None for b in duck.blocks)


@pytest.mark.corpus
def test_duck_finds_every_figure_with_its_caption(duck: Document) -> None:
    raw = DUCK.read_text(encoding="utf-8")
    figure_count = len(re.findall(r"<figure\b", raw))
    assert figure_count == len(re.findall(r"<figcaption\b", raw)) == 13
    captioned = [f for f in duck.figures if f.caption_block]
    assert len(captioned) == figure_count
    # Plus the one content image outside a <figure>: the infobox photograph (icons are left out).
    assert len(duck.figures) == figure_count + 1
    assert [f.id for f in duck.figures] == [f"fig{n}" for n in range(1, 15)]
    assert [f.index for f in duck.figures] == list(range(1, 15))

    captions = [f.caption for f in captioned]
    assert captions[:3] == [
        'Pacific black duck displaying the characteristic upending "duck"',
        "Male mallard.",
        "Wood ducks.",
    ]
    assert "Mallard duckling preening" in captions  # a <video> figure
    # The "[49]" reference marker inside the caption is not caption text.
    assert captions[-1] == "Three black-colored ducks in the coat of arms of Maaninka"
    for figure in captioned:
        block = duck.block(figure.caption_block)
        assert block.type == "caption"
        assert block.text == figure.caption
        assert figure.label is None  # Wikipedia captions carry no "Figure N" labels
    pecten = next(f for f in captioned if f.caption == "Pecten along the bill")
    assert duck.block(pecten.caption_block).section == "Feeding"


@pytest.mark.corpus
def test_duck_remote_images_are_warnings_not_downloads(duck: Document) -> None:
    assert all(figure.source_image is None for figure in duck.figures)
    for figure in duck.figures:
        assert any(w.startswith(f"{figure.id}: image //upload.wikimedia.org/") for w in duck.warnings)


@pytest.mark.corpus
def test_duck_infobox_is_a_table_and_navboxes_are_skipped(duck: Document) -> None:
    raw = DUCK.read_text(encoding="utf-8")
    assert len(re.findall(r"<table\b", raw)) == 2  # the infobox and a navbox
    assert [t.id for t in duck.tables] == ["tab1"]
    assert duck.tables[0].kind == "table"


@pytest.mark.corpus
def test_duck_leaves_out_scripts_and_page_chrome(duck: Document) -> None:
    text = "\n".join(b.text for b in duck.blocks)
    assert "RLCONF" not in text and "wgPageName" not in text  # inline <script>
    assert "From Wikipedia, the free encyclopedia" not in text
    assert "[edit]" not in text
    assert not re.search(r"\[\d+\]", text)  # reference superscripts
    assert "Jump to content" not in text
    assert "Privacy policy" not in text  # footer
    assert duck.abstract is None


# Structure ---------------------------------------------------------------------------------------------


def test_headings_paragraphs_and_lists_in_order(tmp_path: Path) -> None:
    document = read_page(
        tmp_path,
        """<h1>Ducks</h1><p>Intro <b>text</b>.</p>
        <h2>Kinds</h2><ul><li>Mallard <ul><li>Drake</li></ul></li><li>Teal</li></ul>
        <ol><li>first</li><li>second</li></ol><h3>Notes</h3><p>Last.</p>""",
    )
    assert [(b.type, b.text, b.section) for b in document.blocks] == [
        ("heading", "Ducks", "Ducks"),
        ("paragraph", "Intro text.", "Ducks"),
        ("heading", "Kinds", "Kinds"),
        ("list", "Mallard\n  Drake\nTeal", "Kinds"),
        ("list", "first\nsecond", "Kinds"),
        ("heading", "Notes", "Notes"),
        ("paragraph", "Last.", "Notes"),
    ]
    assert document.title == "Ducks"


def test_title_prefers_title_element_when_h1_differs(tmp_path: Path) -> None:
    document = read_page(tmp_path, "<h1>Chapter one</h1><p>x</p>", head="<title>A Book</title>")
    assert document.title == "A Book"


def test_scripts_styles_and_embedded_documents_are_ignored(tmp_path: Path) -> None:
    document = read_page(
        tmp_path,
        """<p>Visible</p><script>var secret = "SCRIPT";</script><style>.x{content:"STYLE"}</style>
        <noscript>NOSCRIPT</noscript><template><p>TEMPLATE</p></template>
        <iframe src="https://example.com/">IFRAME</iframe><nav>NAV</nav><footer>FOOTER</footer>
        <div role="navigation">ROLE</div><p>Also <span class="mw-editsection">[edit]</span>visible</p>""",
        head="<style>p { color: red }</style><script>HEADSCRIPT</script>",
    )
    assert [b.text for b in document.blocks] == ["Visible", "Also visible"]


def test_abstract_from_a_class(tmp_path: Path) -> None:
    document = read_page(
        tmp_path,
        """<h1>Paper</h1><section class="article-abstract"><p>We show ducks quack.</p>
        <p>Twice.</p></section><h2>Introduction</h2><p>Body text.</p>""",
    )
    flagged = [b.text for b in document.blocks if b.is_abstract]
    assert flagged == ["We show ducks quack.", "Twice."]
    assert document.abstract == "We show ducks quack.\n\nTwice."


def test_abstract_container_with_its_own_heading_ends_with_the_container(tmp_path: Path) -> None:
    document = read_page(
        tmp_path,
        """<div id="abstract"><h2>Abstract</h2><p>Summary.</p></div><p>Unheaded introduction.</p>""",
    )
    assert [(b.text, b.is_abstract) for b in document.blocks] == [
        ("Abstract", True),
        ("Summary.", True),
        ("Unheaded introduction.", False),
    ]


def test_a_page_wrapper_named_abstract_is_not_an_abstract(tmp_path: Path) -> None:
    sections = "".join(f"<h2>Part {n}</h2><p>Text {n}.</p>" for n in range(5))
    document = read_page(tmp_path, f'<div class="abstract-theme">{sections}</div>')
    assert not any(b.is_abstract for b in document.blocks)
    assert document.abstract is None


def test_abstract_from_a_heading_ends_at_the_next_heading(tmp_path: Path) -> None:
    document = read_page(
        tmp_path, "<h1>Paper</h1><h2>Abstract</h2><p>Short summary.</p><h2>Methods</h2><p>Body.</p>"
    )
    assert [(b.text, b.is_abstract) for b in document.blocks] == [
        ("Paper", False),
        ("Abstract", True),
        ("Short summary.", True),
        ("Methods", False),
        ("Body.", False),
    ]
    assert document.abstract == "Short summary."


def test_math_becomes_an_equation_or_inline_tex(tmp_path: Path) -> None:
    document = read_page(
        tmp_path,
        """<p>Energy <math><semantics><mi>E</mi><annotation encoding="application/x-tex">E_0</annotation>
        </semantics></math> is small.</p><math display="block" alttext="{\\displaystyle E=mc^{2}}"><mi>E</mi></math>""",
    )
    assert [(b.type, b.text) for b in document.blocks] == [
        ("paragraph", "Energy E_0 is small."),
        ("equation", "E=mc^{2}"),
    ]


def test_broken_and_truncated_html_is_read_as_far_as_it_goes(tmp_path: Path) -> None:
    path = tmp_path / "broken.html"
    path.write_text("<html><body><h1>Title<p>First para<p>Second <b>bold <i>unclosed</div></span>")
    document = read_document(path)
    assert [(b.type, b.text) for b in document.blocks] == [
        ("heading", "Title"),
        ("paragraph", "First para"),
        ("paragraph", "Second bold unclosed"),
    ]


def test_encoding_comes_from_the_meta_charset(tmp_path: Path) -> None:
    path = tmp_path / "latin.html"
    path.write_bytes(
        '<html><head><meta charset="iso-8859-1"></head><body><p>Café crème</p></body></html>'.encode(
            "latin-1"
        )
    )
    assert read_document(path).blocks[0].text == "Café crème"


def test_undecodable_bytes_fall_back_to_utf8_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "mixed.html"
    path.write_bytes(b"<p>" + "Caf\u00e9 ".encode() * 40 + b"na\xefve</p>")
    document = read_document(path)
    assert document.blocks[0].text.endswith("na\ufffdve")
    assert any("replaced" in warning for warning in document.warnings)


FRENCH = ("La température moyenne était de 26 degrés, et les boulangères ont mesuré la pâte chaque heure. "
          "À 18 degrés, elle a doublé en neuf heures; à 26 degrés, en quatre.")


def test_an_undeclared_latin1_page_is_read_as_windows_1252_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "latin.html"
    path.write_bytes(f"<html><body><p>{FRENCH}</p></body></html>".encode("cp1252"))
    document = read_document(path)
    assert document.blocks[0].text == FRENCH
    assert any("not valid UTF-8; read as Windows-1252" in warning for warning in document.warnings)


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf16_without_a_bom_is_recognised(tmp_path: Path, encoding: str) -> None:
    path = tmp_path / "wide.html"
    path.write_bytes(f"<html><body><p>{FRENCH}</p></body></html>".encode(encoding))
    document = read_document(path)
    assert document.blocks[0].text == FRENCH
    assert document.warnings == []


def test_utf8_text_is_never_second_guessed(tmp_path: Path) -> None:
    # valid UTF-8 stays UTF-8 however odd its characters (these would read as Windows-1252 mojibake)
    text = "éééé ∑ ≤ ∫ ┌──┐ Grüße 日本語"
    path = tmp_path / "odd.html"
    path.write_bytes(f"<p>{text}</p>".encode())
    document = read_document(path)
    assert document.blocks[0].text == text and document.warnings == []


# Figures and tables ---------------------------------------------------------------------------------------


def test_figures_tables_labels_and_mentions(tmp_path: Path) -> None:
    document = read_page(
        tmp_path,
        """<h1>Paper</h1><p>As Figure 1 shows, and Table 1 lists, ducks float.</p>
        <figure><img src="a.png" alt="a duck"><figcaption>Figure 1: A duck.</figcaption></figure>
        <figure><img src="b.png"><figcaption>A goose without a label.</figcaption></figure>
        <table><caption>Table 1. Counts</caption><tr><td>3</td></tr></table>
        <figure><table><tr><td>1</td></tr></table><figcaption>Table 2: Inside a figure</figcaption></figure>""",
    )
    assert [(f.id, f.index, f.label) for f in document.figures] == [
        ("fig1", 1, "Figure 1"),
        ("fig2", 2, None),
    ]
    assert [(t.id, t.index, t.kind, t.label) for t in document.tables] == [
        ("tab1", 1, "table", "Table 1"),
        ("tab2", 2, "table", "Table 2"),
    ]
    mentioning = document.blocks[1].id
    assert document.figures[0].mentions == [mentioning]
    assert document.tables[0].mentions == [mentioning]
    assert document.figures[1].mentions == []
    assert document.block(document.tables[0].caption_block).text == "Table 1. Counts"


def test_missing_image_is_a_warning(tmp_path: Path) -> None:
    document = read_page(
        tmp_path, '<p>Text.</p><figure><img src="images/duck.jpg"><figcaption>Duck</figcaption></figure>'
    )
    assert document.figures[0].source_image is None
    assert "fig1: image images/duck.jpg not found" in document.warnings


def test_image_outside_a_figure_takes_its_alt_text(tmp_path: Path) -> None:
    Image.new("RGB", (60, 40), "blue").save(tmp_path / "pond.png")
    document = read_page(
        tmp_path,
        """<p>Intro</p><img src="pond.png" alt="A pond at dawn"><img src="pond.png" title="Titled">
        <img src="icon.png" width="16" height="16" alt="tiny icon">""",
    )
    assert [(f.caption, f.caption_block) for f in document.figures] == [
        ("A pond at dawn", None),
        ("Titled", None),
    ]
    assert document.figures[0].source_image == str((tmp_path / "pond.png").resolve())


def test_data_and_remote_images_are_never_fetched(tmp_path: Path) -> None:
    document = read_page(
        tmp_path,
        """<figure><img src="data:image/png;base64,iVBORw0KGgo="><figcaption>Inline</figcaption></figure>
        <figure><img src="https://example.invalid/duck.png"><figcaption>Remote</figcaption></figure>""",
    )
    assert [f.source_image for f in document.figures] == [None, None]
    assert document.warnings == [
        "fig1: embedded data: image was skipped",
        "fig2: image https://example.invalid/duck.png is remote and was not fetched",
    ]


@pytest.mark.parametrize("suffix", [".png", ".jpg"])
def test_local_image_is_exported_as_png(tmp_path: Path, suffix: str) -> None:
    (tmp_path / "img").mkdir()
    Image.new("RGB", (32, 24), (200, 120, 10)).save(tmp_path / "img" / f"duck{suffix}")
    document = read_page(
        tmp_path,
        f'<p>See Figure 1.</p><figure><img src="img/duck{suffix}"><figcaption>Figure 1: Duck</figcaption></figure>',
    )
    assert document.warnings == []
    export_document(document, tmp_path / "out")
    exported = tmp_path / "out" / "figures" / "fig1.png"
    assert document.figures[0].image == "figures/fig1.png"
    with Image.open(exported) as image:
        assert image.format == "PNG"
        assert image.size == (32, 24)
    assert Document.load(tmp_path / "out" / "document.json").figures[0].mentions == ["b1"]


# Hostile input ----------------------------------------------------------------------------------------


def test_hundred_thousand_nested_divs_parse_quickly(tmp_path: Path) -> None:
    depth = 100_000
    path = write_page(
        tmp_path, "<p>before</p>" + "<div>" * depth + "deep text" + "</div>" * depth + "<p>after</p>"
    )
    started = time.monotonic()
    document = read_document(path)
    assert time.monotonic() - started < 15
    assert [b.text for b in document.blocks] == ["before", "deep text", "after"]


def test_content_deeper_than_the_limit_is_flattened(tmp_path: Path) -> None:
    path = write_page(
        tmp_path, "<div>" * 10 + "<h2>Deep</h2><p>one</p><p>two</p>" + "</div>" * 10 + "<p>after</p>"
    )
    document = read_html(path, limits=ReadLimits(max_html_depth=6), control=JobControl())
    assert [(b.type, b.text) for b in document.blocks] == [
        ("paragraph", "Deep one two"),
        ("paragraph", "after"),
    ]


def test_binary_garbage_is_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "garbage.html"
    path.write_bytes(random.Random(7).randbytes(4096))
    with pytest.raises(CorruptDocumentError, match="garbage.html"):
        read_document(path)


def test_empty_page_is_a_document_with_a_warning(tmp_path: Path) -> None:
    path = write_page(tmp_path, "<div>   </div><script>only code</script>")
    document = read_document(path)
    assert document.blocks == []
    assert document.warnings == ["page.html: no text found"]


def test_progress_is_reported_and_cancellation_stops_reading() -> None:
    reports: list[tuple[int, int, str]] = []
    read_html(ARTICLE, limits=DEFAULT_LIMITS, control=JobControl(on_progress=lambda *r: reports.append(r)))
    assert len(reports) >= 3
    assert {what for _, _, what in reports} == {"blocks"}
    done = [d for d, _, _ in reports]
    assert done == sorted(done) and done[-1] == reports[-1][1]
    control = JobControl()
    control.cancel()
    with pytest.raises(JobCancelled):
        read_html(ARTICLE, limits=DEFAULT_LIMITS, control=control)


_MARKUP = st.text(alphabet="<>/!-=\"' &;#abdfgilmnoprstuvx\n\x00", max_size=400)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=400), _MARKUP, st.binary(max_size=400)))
def test_arbitrary_input_never_raises_anything_but_corrupt(content: str | bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.html"
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
        try:
            document = read_html(path, limits=DEFAULT_LIMITS, control=JobControl())
        except CorruptDocumentError:
            return
        assert document.kind == "html"
