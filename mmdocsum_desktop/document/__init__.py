"""Documents: the schema and the readers for PDF, HTML, Markdown and JATS."""

from mmdocsum_desktop.document.model import Block, Document, Figure
from mmdocsum_desktop.document.reader import export_document, read_document

__all__ = ["Block", "Document", "Figure", "export_document", "read_document"]
