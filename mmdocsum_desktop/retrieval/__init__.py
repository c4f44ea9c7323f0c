"""Evidence search over a document's prose, captions, figure text and the sentences citing each figure.

One module for every caller that needs evidence: answers (``answer/``), and in time the summary's
evidence stage, placement and the judge. A :class:`~mmdocsum_desktop.retrieval.search.Retriever` takes
the models it ranks with (the session's container builds them: ``app.models.Models.retriever``) and keeps
each document's index.

This package re-exports nothing: import each name from the module that defines it (``retrieval.search``,
``retrieval.passages``).
"""
