"""Language-model judges, below the application layer so that the window's "Judge this summary", the
`mmdocsum bench judge` suite and MCiteBench's answer scoring share them without the benchmarks:

* :mod:`~mmdocsum_desktop.judge.summary` — reference-free judging of a summary on named aspects
  (text quality, text–image coherence, image choice, faithfulness, helpfulness), with ``judge_document``;
* :mod:`~mmdocsum_desktop.judge.sources` — does a cited source support an answer (MCiteBench), ratings
  and flags parsed from a model's free text.

A judge gets a ``TextEngine`` from its caller (the Session builds it from the settings): it never picks
a model itself.
"""
