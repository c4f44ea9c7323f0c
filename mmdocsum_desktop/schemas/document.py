"""The document model: the one schema every part of the app reads (written as document.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from mmdocsum_desktop.fileio import write_text_atomic

SCHEMA_VERSION = 1

BlockType = Literal["heading", "paragraph", "caption", "list", "equation", "footnote"]
# Where a block belongs in the article: the text to summarise is "body" (and None, from readers that do not
# tell); "front" is title, authors, affiliations, keywords; "back" is acknowledgements, contributions,
# funding, competing interests, notes; "references" the reference list; "furniture" is journal furniture
# (running titles, licence and copyright lines, "To cite:", DOIs, received/accepted dates).
SectionKind = Literal["front", "body", "back", "references", "furniture"]
DocumentKind = Literal["pdf", "html", "markdown", "jats"]
BBox = tuple[float, float, float, float]


class Block(BaseModel):
    """A unit of text in reading order. bbox is in PDF points, origin top-left (PyMuPDF's convention)."""

    id: str
    type: BlockType
    text: str
    page: int | None = None
    bbox: BBox | None = None
    section: str | None = None
    is_abstract: bool = False
    ocr: bool = False
    section_kind: SectionKind | None = None
    # glyphs the PDF gives no Unicode for (U+FFFD, private use): the text is not what the page shows, so
    # summaries and quotes should avoid this block's sentences
    unmapped_glyphs: bool = False
    # ISO 639-1 code of the block's own language where it could be told (document/language.py)
    language: str | None = None
    # text in another language than the document's: a translated abstract (SciELO prints two or three,
    # JATS <trans-abstract>), a translated <sub-article>. Never summary text; the document's own abstract
    # is the one with is_abstract.
    is_translation: bool = False

    @property
    def is_body(self) -> bool:
        """Body text: what summaries, answers and placement read (not front or back matter, not furniture,
        not a translation)."""
        return self.section_kind in (None, "body") and not self.is_translation


class Figure(BaseModel):
    """A figure or a table: a captioned (or uncaptioned) visual region and its rendered crop."""

    id: str
    kind: Literal["figure", "table"] = "figure"
    index: int
    label: str | None = None
    caption: str = ""
    caption_block: str | None = None
    page: int | None = None
    bbox: BBox | None = None
    image: str | None = None
    source_image: str | None = Field(default=None, description="original image file for articles")
    mentions: list[str] = Field(default_factory=list)
    continues: str | None = Field(default=None, description='id of the figure a "Cont." part continues')

    @property
    def number(self) -> str | None:
        """The label's number ("3", "3-10", "S2"), used to match mentions in the text."""
        if not self.label:
            return None
        return self.label.split(maxsplit=1)[-1]


class Document(BaseModel):
    schema_version: int = SCHEMA_VERSION
    source: str
    kind: DocumentKind
    title: str | None = None
    abstract: str | None = None
    language: str | None = None
    page_count: int | None = None
    page_sizes: list[tuple[float, float]] | None = None
    blocks: list[Block] = Field(default_factory=list)
    figures: list[Figure] = Field(default_factory=list)
    tables: list[Figure] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    # 1-based numbers of pages a publisher or an archive put before the article (a COVID-19 collection's
    # notice, "Full Terms & Conditions"): page numbers stay the PDF's, but these pages' text is not read
    cover_pages: list[int] = Field(default_factory=list)

    def block(self, block_id: str) -> Block:
        for block in self.blocks:
            if block.id == block_id:
                return block
        raise KeyError(block_id)

    @property
    def visuals(self) -> list[Figure]:
        return [*self.figures, *self.tables]

    def body_text(self, include_abstract: bool = True) -> str:
        return "\n\n".join(
            b.text for b in self.blocks if b.type != "caption" and (include_abstract or not b.is_abstract)
        )

    def save(self, path: str | Path) -> Path:
        return write_text_atomic(path, self.model_dump_json(indent=2) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> Document:
        return cls.model_validate(json.loads(Path(path).read_text(encoding="utf-8")))
