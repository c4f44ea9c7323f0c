"""A sentence resting on text read by OCR from a scanned page says so in its citation."""

from __future__ import annotations

from mmdocsum_desktop.schemas.document import Block, Document
from mmdocsum_desktop.schemas.summary import SummaryParagraph
from mmdocsum_desktop.summarize.citations import Citer
from mmdocsum_desktop.summarize.sentences import Sentence


def test_citations_of_ocr_text_are_marked_and_others_are_not():
    document = Document(source="mixed.pdf", kind="pdf", blocks=[
        Block(id="b1", type="paragraph", text="The treated rats lost weight over seven weeks of the diet.", page=1),
        Block(id="b2", type="paragraph", text="Serum cholesterol fell by a third in the treated rats.", page=2,
              ocr=True),
    ])
    citer = Citer(document, embedder=None)
    sources = [Sentence(b.text, b.id, b.page, None, i, i) for i, b in enumerate(document.blocks)]
    typed, scanned = citer.cite([s.text for s in sources], sources)
    assert typed.marker == "(p. 1)" and not typed.evidence[0].ocr
    assert scanned.marker == "(p. 2, OCR)" and scanned.evidence[0].ocr
    paragraph = SummaryParagraph(role="results", text=f"{typed.text} {scanned.text}", sentences=[typed, scanned])
    assert paragraph.marker() == "(pp. 1, 2, OCR)"
    # the mark survives the summary file's JSON round trip
    assert SummaryParagraph.model_validate_json(paragraph.model_dump_json()).sentences[1].evidence[0].ocr
