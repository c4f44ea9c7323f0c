"""Documents: the readers for PDF (scanned pages included), HTML, Markdown and JATS, and what they share.

Import what you need from the module that defines it (``document.reader.read_document``,
``schemas.document.Document``): this package re-exports nothing, so that importing one light module of it
(``document.sections``, say) does not load PyMuPDF, its layout model and onnxruntime, which the PDF
reader needs.
"""
