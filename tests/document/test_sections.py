"""The one definition of body text: what the reader marked as body, in a paragraph or a list."""

from __future__ import annotations

from mmdocsum_desktop.document.sections import is_body_prose, mark_section_kinds
from mmdocsum_desktop.schemas.document import Block, Document


def _document() -> Document:
    blocks = [
        Block(id="b0", type="heading", text="1. Introduction", page=1),
        Block(id="b1", type="paragraph", text="Low flows matter for rivers in dry summers.", page=1),
        Block(id="b2", type="list", text="one item; another item", page=1),
        Block(id="b3", type="caption", text="Figure 1. A river.", page=1),
        Block(id="b4", type="heading", text="Acknowledgements", page=1),
        Block(id="b5", type="paragraph", text="We thank the field team for their help.", page=1),
    ]
    return Document(source="x.pdf", kind="pdf", blocks=blocks)


def test_body_prose_is_a_paragraph_or_list_the_reader_marked_as_body():
    document = _document()
    mark_section_kinds(document)
    kinds = {b.id: b.section_kind for b in document.blocks}
    assert kinds["b5"] == "back"  # the reader decides: acknowledgements are back matter
    assert [b.id for b in document.blocks if is_body_prose(b)] == ["b1", "b2"]


def test_a_translation_is_never_body_prose():
    block = Block(id="t", type="paragraph", text="Os fluxos baixos importam.", is_translation=True)
    assert not is_body_prose(block)
    assert is_body_prose(block.model_copy(update={"is_translation": False}))
