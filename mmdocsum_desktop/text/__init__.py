"""Plain-text knowledge shared by every layer (document, engines, placement, summarize, bench): the one
home of what the app knows about text and languages.

- ``languages``: the language tables (``resources/languages/*.toml``: caption words, section names,
  abbreviations, stop words per language) and language detection (py3langid);
- ``paragraphs``: the one paragraph splitter of the user's text (blank lines; image lines left out);
- ``sentences``: the one sentence splitter (English rules; sentencex for other languages);
- ``tokens``: stop words, tokens for lexical matching (CJK character bigrams), the ROUGE tokenizer that
  keeps accents and Hangul.

It sits below ``document/`` and imports nothing else of the package, so anything may use it without
creating a cycle.
"""
