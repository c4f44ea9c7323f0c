"""Ask the paper: a question about one document answered from its evidence, every sentence cited
(page, Figure N, Table N, block ids), in the :class:`~mmdocsum_desktop.schemas.answer.Answer` schema.

This package re-exports nothing: the functions are in ``answer.ask``, the records in ``schemas.answer``.
"""
