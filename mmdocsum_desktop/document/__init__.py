"""Documents: the schema and the readers for PDF, HTML, Markdown and JATS."""

from mmdocsum_desktop.document.reader import export_document, read_document
from mmdocsum_desktop.schemas.document import Block, Document, Figure

__all__ = ["Block", "Document", "Figure", "export_document", "read_document"]
