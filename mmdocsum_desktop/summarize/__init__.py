"""Four-paragraph interleaved summaries.

- ``pipeline.summarize_document``: figure candidates → the strategy's text → figures → captions and
  citations, the steps every summary shares;
- ``strategies``: how the text is written — ``extractive`` (the document's own sentences), ``grounded``
  (a language model writes from extracted evidence, every sentence checked) or ``full`` (a language model
  answers over the whole document) — behind one ``SummaryStrategy`` protocol;
- ``extractive`` (the extractor), ``roles`` (which section serves which paragraph), ``evidence``,
  ``grounded`` (the writer), ``prompt`` and ``parse`` (the full-document prompt and its tolerant parser),
  ``citations``, ``sentences``;
- ``render.write_summary``: json, mdocsum, md, html, pdf.
"""
