"""Sentences of a Document with where they came from (block id, page, section), shared by the
extractive summary, the evidence of the grounded writer, citations and the judge's excerpts; and the
embedder they are compared with. Splitting itself is :func:`mmdocsum_desktop.text.sentences.split_sentences`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from mmdocsum_desktop.document.sections import PROSE_TYPES
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.schemas.document import Block, Document
from mmdocsum_desktop.text.sentences import split_sentences

__all__ = ["TEXT_TYPES", "Embedder", "Sentence", "document_sentences", "split_sentences"]

TEXT_TYPES = PROSE_TYPES


class Embedder(Protocol):
    """A sentence embedder (the session's MiniLM): one unit-length row per text."""

    def embed(self, texts: Sequence[str], batch_size: int = 32, control: JobControl | None = None) -> np.ndarray: ...


@dataclass(frozen=True)
class Sentence:
    text: str
    block: str  # id of the block it comes from
    page: int | None
    section: str | None
    position: int  # order in the document (0-based over all sentences)
    block_index: int  # position of its block in document.blocks
    in_abstract: bool = False

    @property
    def words(self) -> int:
        return len(self.text.split())


def document_sentences(document: Document, *, include_abstract: bool = True) -> list[Sentence]:
    """Every sentence of the document's prose blocks (paragraphs and lists), in reading order."""
    result: list[Sentence] = []
    for index, block in enumerate(document.blocks):
        if block.type not in TEXT_TYPES:
            continue
        if block.is_abstract and not include_abstract:
            continue
        for text in split_sentences(block.text):
            result.append(_sentence(text, block, index, len(result)))
    return result


def _sentence(text: str, block: Block, index: int, position: int) -> Sentence:
    return Sentence(
        text=text,
        block=block.id,
        page=block.page,
        section=block.section,
        position=position,
        block_index=index,
        in_abstract=block.is_abstract,
    )
