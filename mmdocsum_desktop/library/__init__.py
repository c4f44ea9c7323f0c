"""The library of papers: one SQLite file of papers, their passages and embeddings, their summaries.

``store`` (SQLite, WAL, FTS5), ``sources`` (folders) and ``zotero`` (a Zotero data folder, read-only),
``indexer`` (resumable, cancellable reading and embedding), ``ask`` (library-wide retrieval), ``batch``
(summaries in a queue), ``notes`` (Markdown notes out). The use cases that drive them with a session's
models and engines are in ``app.library``; front ends call those, never this package.
"""
