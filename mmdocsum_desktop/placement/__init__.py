"""Placement: which image of a pool goes after which paragraph, or none.

    candidates = candidates.candidates_from_document(document, base_dir)
    engine = engine.PlacementEngine(embedder=TextEmbedder(), ocr=OcrEngine(), clip=None)
    placements = engine.place(paragraphs, candidates)  # strategy="align"

This package re-exports nothing: import each name from the module that defines it (``placement.engine``,
``placement.candidates``; the records are in ``schemas.placement``), so that importing one module of it
does not load the others.
"""
