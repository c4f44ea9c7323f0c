"""The summary never quotes a sentence addressed to a model, even from a document that did not pass
through the reader's quarantine (a document.json written elsewhere, an older project): the sentence picker
refuses them itself (issue 38, point 8)."""

from __future__ import annotations

from mmdocsum_desktop.schemas.document import Block, Document
from mmdocsum_desktop.summarize.extractive import junk_reason
from mmdocsum_desktop.summarize.pipeline import summarize_document
from mmdocsum_desktop.summarize.render import to_markdown
from mmdocsum_desktop.summarize.strategies.extractive import ExtractiveStrategy
from tests.security.hostile_documents import INJECTIONS, MARKERS

SECTIONS = {
    "1. Introduction": "Sourdough bakers plan their day around how fast the dough rises in their kitchens.",
    "2. Methods": "We kept twelve loaves at 18, 22 and 26 degrees and measured their height every hour.",
    "3. Results": "Dough at 26 degrees doubled in four hours, while dough at 18 degrees took nine hours.",
    "4. Conclusion": "A warm kitchen halves the rising time of sourdough, so bakers can start later in the day.",
}


def _document() -> Document:
    """Each section's paragraph: its own finding between instructions (no reader ran over it)."""
    blocks: list[Block] = []
    hostile = [sentence for _, sentence in INJECTIONS]
    for k, (section, finding) in enumerate(SECTIONS.items()):
        blocks.append(Block(id=f"h{k}", type="heading", text=section, section=section, page=1))
        mine = hostile[k::len(SECTIONS)]
        text = " ".join([*mine[: len(mine) // 2], finding, *mine[len(mine) // 2:]])
        blocks.append(Block(id=f"b{k}", type="paragraph", text=text, section=section, page=1))
    return Document(source="/tmp/sourdough.md", kind="markdown", title="Sourdough", blocks=blocks)


def test_the_sentence_picker_refuses_instructions():
    for name, sentence in INJECTIONS:
        assert junk_reason(sentence) == "addressed to a language model", name


def test_an_extractive_summary_of_an_unquarantined_document_quotes_the_paper_only(embedder, tmp_path):
    summary = summarize_document(_document(), tmp_path, strategy=ExtractiveStrategy(embedder), embedder=embedder)
    text = to_markdown(summary)
    assert not [marker for marker in MARKERS if marker in text], text
    assert "four hours" in text or "halves the rising time" in text  # the paper's findings are what it says
