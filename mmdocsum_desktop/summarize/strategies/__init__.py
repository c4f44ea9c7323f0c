"""Summary strategies: how the four paragraphs of a summary are written, behind one protocol
(``base.SummaryStrategy``).

- ``extractive`` (:class:`ExtractiveStrategy`): the document's own sentences, no language model; what the
  setting ``engine: extractive`` (and a fresh install's ``auto``) gives;
- ``grounded`` (:class:`GroundedStrategy`): a language model writes each paragraph from the extracted
  evidence, every sentence checked and cited (``llm_mode: grounded``, the default for a model);
- ``full`` (:class:`FullDocumentStrategy`): a language model answers the summary prompt over the whole
  document, in parts when it is longer than the context (``llm_mode: full``).

``choice.choose_strategy`` is the one place that decides which, from the text engine the settings gave
(None: no language model) and the options.

This package re-exports nothing: import each name from the module that defines it (``base`` holds the
protocol and the records the strategies share).
"""
