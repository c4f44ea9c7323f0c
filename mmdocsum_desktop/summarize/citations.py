"""Where each summary sentence comes from: pages, "Figure N", "Table N" and block ids, in the citation
forms MCiteBench evaluates (text passages, figures, tables).

Three kinds of evidence, strongest first:

* ``extracted`` — the sentence was copied from the document (extractive engine): its block, exactly;
* ``mention`` — the sentence names a figure or table ("Fig. 3", "Table 2", or a prompt tag such as
  "[Image 2]") that the document has;
* ``similarity`` — the document sentences closest to it in MiniLM embedding space (cosine ≥
  ``threshold``, at most ``top_k``), giving their blocks and pages; a caption block cites its figure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from mmdocsum_desktop.document.labels import find_mentions
from mmdocsum_desktop.schemas.document import Document, Figure
from mmdocsum_desktop.schemas.summary import Evidence, SentenceCitation
from mmdocsum_desktop.summarize.sentences import Embedder, Sentence, split_sentences

_TAG = re.compile(r"\[\s*image\s*(\d+)\s*\]", re.I)


class Citer:
    """Built once per document (embeds its sentences), then ``cite()`` any number of summary sentences."""

    def __init__(
        self,
        document: Document,
        embedder: Embedder | None,
        *,
        include_abstract: bool = True,
        threshold: float = 0.6,
        top_k: int = 2,
        tag_labels: dict[int, str] | None = None,
    ) -> None:
        self.document = document
        self.embedder = embedder
        self.threshold = threshold
        self.top_k = top_k
        self.tag_labels = tag_labels or {}
        self.blocks = {b.id: b for b in document.blocks}
        self.labels: dict[tuple[str, str], Figure] = {(v.kind, v.label.lower()): v for v in document.visuals if v.label}
        self.caption_of = {v.caption_block: v for v in document.visuals if v.caption_block}
        self.units: list[tuple[str, str, int | None]] = []  # (text, block id, page)
        for block in document.blocks:
            if block.type not in ("paragraph", "list", "caption"):
                continue
            if block.is_abstract and not include_abstract:
                continue
            for text in split_sentences(block.text):
                if len(text.split()) >= 4:
                    self.units.append((text, block.id, block.page))
        self._vectors: np.ndarray | None = None

    @property
    def vectors(self) -> np.ndarray | None:
        """Embeddings of the document's sentences, computed on first need (extracted text needs none)."""
        if self._vectors is None and self.embedder is not None and self.units:
            self._vectors = np.asarray(self.embedder.embed([u[0] for u in self.units]), dtype=np.float32)
        return self._vectors

    def cite(self, sentences: Sequence[str], sources: Sequence[Sentence | None] | None = None) -> list[SentenceCitation]:
        """One SentenceCitation per sentence; ``sources[i]`` is the document sentence it was copied from."""
        results = [SentenceCitation(text=s) for s in sentences]
        need = [i for i, s in enumerate(sentences) if not (sources and sources[i] is not None)]
        similar: dict[int, list[tuple[int, float]]] = {}
        if need and self.embedder is not None and self.vectors is not None:
            queries = np.asarray(self.embedder.embed([sentences[i] for i in need]), dtype=np.float32)
            scores = queries @ self.vectors.T
            for row, i in enumerate(need):
                order = np.argsort(-scores[row])[: self.top_k]
                similar[i] = [(int(j), float(scores[row, j])) for j in order if scores[row, j] >= self.threshold]
        for i, result in enumerate(results):
            source = sources[i] if sources else None
            if source is not None:
                self._add(result, Evidence(block=source.block, page=source.page, score=1.0, how="extracted"))
            for unit, score in similar.get(i, []):
                _, block_id, page = self.units[unit]
                self._add(result, Evidence(block=block_id, page=page, score=score, how="similarity"))
            self._mentions(result)
        return results

    def _add(self, result: SentenceCitation, evidence: Evidence) -> None:
        if any(e.block == evidence.block for e in result.evidence):
            return
        block = self.blocks.get(evidence.block)
        evidence.ocr = bool(block is not None and block.ocr)  # text of a scanned page: the citation says so
        result.evidence.append(evidence)
        if evidence.block not in result.blocks:
            result.blocks.append(evidence.block)
        if evidence.page is not None and evidence.page not in result.pages:
            result.pages.append(evidence.page)
        visual = self.caption_of.get(evidence.block)
        if visual is not None and visual.label:
            self._add_visual(result, visual.kind, visual.label)

    def _mentions(self, result: SentenceCitation) -> None:
        text = result.text
        for match in _TAG.finditer(text):
            label = self.tag_labels.get(int(match.group(1)))
            if label:
                kind = "table" if label.lower().startswith("table") else "figure"
                self._add_visual(result, kind, label, mention=True)
        for kind, label in find_mentions(text):
            visual = self.labels.get((kind, label.lower()))
            if visual is not None:
                self._add_visual(result, kind, visual.label or label, mention=True)

    def _add_visual(self, result: SentenceCitation, kind: str, label: str, *, mention: bool = False) -> None:
        target = result.tables if kind == "table" else result.figures
        if label not in target:
            target.append(label)
        if mention:
            visual = self.labels.get((kind, label.lower()))
            if visual is not None:
                if visual.page is not None and visual.page not in result.pages:
                    result.pages.append(visual.page)
                if visual.caption_block and not any(e.block == visual.caption_block for e in result.evidence):
                    result.evidence.append(Evidence(block=visual.caption_block, page=visual.page, score=1.0, how="mention"))
                    result.blocks.append(visual.caption_block)
