"""Four-paragraph interleaved summaries: ``pipeline.summarize_document`` (prompt → engine → tolerant
parse → figure choice → citations) and ``render.write_summary`` (json, mdocsum, md, html)."""
