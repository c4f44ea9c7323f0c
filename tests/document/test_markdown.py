"""The Markdown reader on a committed article (PMC4521097 as Markdown, its figures beside it) and on small
files built for each behaviour."""

from __future__ import annotations

import random
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from mmdocsum_desktop.document.limits import DEFAULT_LIMITS
from mmdocsum_desktop.document.markdown import read_markdown
from mmdocsum_desktop.document.reader import export_document, read_document
from mmdocsum_desktop.errors import CorruptDocumentError
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.schemas.document import Document
from tests.conftest import DATA

ARTICLE_MD = DATA / "articles" / "PMC4521097.md"  # Behav Ecol Sociobiol (CC BY), four figures, four HTML tables


def read_text(folder: Path, text: str, name: str = "doc.md") -> Document:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return read_document(path)


def test_article_structure_matches_the_file() -> None:
    chunks = [c.strip() for c in re.split(r"\n\s*\n", ARTICLE_MD.read_text(encoding="utf-8")) if c.strip()]
    heading_lines = [c.lstrip("#").strip() for c in chunks if c.startswith("#")]
    # paragraphs written without any markup (emphasis, links, escapes, rules, lists) are read as they are
    # (whitespace aside), in order
    plain = [" ".join(c.split()) for c in chunks if not re.search(r"^[#!<\d-]|[*_`<>\[\]\\]", c)]
    document = read_document(ARTICLE_MD)

    assert document.kind == "markdown"
    title = "Conspecific recognition and aggression reduction to familiars in newly weaned, socially plastic mammals"
    assert document.title == title
    assert document.language == "en"  # not declared; guessed from the text
    assert document.warnings == []
    assert [b.text for b in document.blocks if b.type == "heading"] == heading_lines
    paragraphs = [b for b in document.blocks if b.type == "paragraph"]
    assert len(plain) >= 20
    read = iter(b.text for b in paragraphs)
    assert all(any(text == expected for text in read) for expected in plain)  # each found, in the file's order
    assert [b.id for b in document.blocks] == [f"b{n}" for n in range(1, len(document.blocks) + 1)]
    site = next(b for b in paragraphs if b.text.startswith("This study took place on the Isle of May"))
    assert site.section == "Study site"
    assert paragraphs[0].section == title  # the authors' line, under the title
    # "![Fig. 1](PMC4521097_files/fig1.png)" and its caption in the italic line below it
    assert [f.label for f in document.figures] == ["Figure 1", "Figure 2", "Figure 3", "Figure 4"]
    for figure in document.figures:
        assert figure.source_image == str(ARTICLE_MD.parent / "PMC4521097_files" / f"{figure.id}.png")
        assert figure.caption.startswith(f"Fig. {figure.index} ") and document.block(figure.caption_block).type == "caption"
    assert [t.label for t in document.tables] == ["Table 1", "Table 2", "Table 3", "Table 4"]  # <table><caption>


def test_image_captions_from_the_following_line_or_paragraph(tmp_path: Path) -> None:
    document = read_text(
        tmp_path,
        """# Ducks

As Figure 1 shows, and Figure 3 confirms, ducks float.

![A duck](duck.png "Duck title")

Figure 1: A duck on a pond.

![A goose](goose.png)
*A goose in italics, directly under its image.*

![Swan](swan.png)
*Figure 3.* A swan with an emphasised label.

![Alt text only](heron.png)

Figure 2 shows that this sentence is prose, not a caption.
""",
    )
    assert [(f.id, f.index, f.label, f.caption) for f in document.figures] == [
        ("fig1", 1, "Figure 1", "Figure 1: A duck on a pond."),
        ("fig2", 2, None, "A goose in italics, directly under its image."),
        ("fig3", 3, "Figure 3", "Figure 3. A swan with an emphasised label."),
        ("fig4", 4, None, "Alt text only"),
    ]
    captions = [b for b in document.blocks if b.type == "caption"]
    assert [document.block(f.caption_block).text for f in document.figures[:3]] == [b.text for b in captions]
    assert document.figures[3].caption_block is None
    assert document.blocks[-1].type == "paragraph"
    assert document.blocks[-1].text.startswith("Figure 2 shows")
    assert document.figures[0].mentions == ["b2"]
    assert document.figures[2].mentions == ["b2"]
    assert "fig1: image duck.png not found" in document.warnings
    assert all(f.source_image is None for f in document.figures)


def test_equations_code_and_lists(tmp_path: Path) -> None:
    document = read_text(
        tmp_path,
        """Energy:

$$
E = mc^2
$$

```math
a^2 + b^2 = c^2
```

```python
print("quack")
```

- one *item*
  - nested
- two

1. first
2. second
""",
    )
    assert [(b.type, b.text) for b in document.blocks] == [
        ("paragraph", "Energy:"),
        ("equation", "E = mc^2"),
        ("equation", "a^2 + b^2 = c^2"),
        ("paragraph", 'print("quack")'),
        ("list", "one item\n  nested\ntwo"),
        ("list", "first\nsecond"),
    ]


def test_tables_with_captions_before_or_after(tmp_path: Path) -> None:
    document = read_text(
        tmp_path,
        """See Table 1 and Table 2.

Table 1: Duck counts

| kind | n |
|------|---|
| mallard | 3 |

| a | b |
|---|---|
| 1 | 2 |

Table: Pandoc style caption

| x |
|---|
| y |
""",
    )
    assert [(t.id, t.kind, t.label, t.caption) for t in document.tables] == [
        ("tab1", "table", "Table 1", "Table 1: Duck counts"),
        ("tab2", "table", None, "Pandoc style caption"),
        ("tab3", "table", None, ""),
    ]
    assert document.block(document.tables[0].caption_block).type == "caption"
    assert document.tables[0].mentions == ["b1"]
    assert "mallard" not in document.body_text()


def test_front_matter_abstract_and_sections(tmp_path: Path) -> None:
    document = read_text(
        tmp_path,
        """---
title: "Front Matter Title"
lang: de
---
# Heading Title

## Abstract

We summarise ducks.

Briefly.

## Methods

### Counting

We counted.
""",
    )
    assert document.title == "Front Matter Title"
    assert document.language == "de"
    assert document.abstract == "We summarise ducks.\n\nBriefly."
    assert [(b.text, b.is_abstract, b.section) for b in document.blocks] == [
        ("Heading Title", False, "Heading Title"),
        ("Abstract", True, "Abstract"),
        ("We summarise ducks.", True, "Abstract"),
        ("Briefly.", True, "Abstract"),
        ("Methods", False, "Methods"),
        ("Counting", False, "Counting"),
        ("We counted.", False, "Counting"),
    ]


def test_raw_html_inside_markdown_is_read_but_scripts_are_not(tmp_path: Path) -> None:
    document = read_text(
        tmp_path,
        """Text before.

<figure><img src="x.png"><figcaption>Figure 1: From HTML</figcaption></figure>

<script>alert("SCRIPT")</script>

Text after.
""",
    )
    assert [f.label for f in document.figures] == ["Figure 1"]
    assert "SCRIPT" not in "\n".join(b.text for b in document.blocks)
    assert [b.text for b in document.blocks] == ["Text before.", "Figure 1: From HTML", "Text after."]


def test_local_image_is_exported_as_png(tmp_path: Path) -> None:
    Image.new("RGB", (30, 20), "green").save(tmp_path / "pond.jpg")
    document = read_text(tmp_path, "![Pond](pond.jpg)\n\nFigure 1: A pond.\n")
    assert document.figures[0].source_image == str((tmp_path / "pond.jpg").resolve())
    export_document(document, tmp_path / "out")
    with Image.open(tmp_path / "out" / "figures" / "fig1.png") as image:
        assert image.format == "PNG"
    assert document.figures[0].image == "figures/fig1.png"


def test_binary_garbage_is_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "garbage.md"
    path.write_bytes(random.Random(3).randbytes(2048))
    with pytest.raises(CorruptDocumentError, match="garbage.md"):
        read_document(path)


def test_empty_file_is_a_document_with_a_warning(tmp_path: Path) -> None:
    document = read_text(tmp_path, "\n\n   \n")
    assert document.blocks == []
    assert document.warnings == ["doc.md: no text found"]


def test_utf8_bom_is_honoured(tmp_path: Path) -> None:
    path = tmp_path / "bom.md"
    path.write_bytes("# Grüße\n\nText".encode("utf-8-sig"))
    assert read_document(path).title == "Grüße"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=400), st.text(alphabet="#*_`[]()!<>|-$ \nabc:1", max_size=400)))
def test_arbitrary_text_never_raises_anything_but_corrupt(content: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.md"
        path.write_text(content, encoding="utf-8")
        try:
            document = read_markdown(path, limits=DEFAULT_LIMITS, control=JobControl())
        except CorruptDocumentError:
            return
        assert document.kind == "markdown"
