"""The library file's schema: a version 1 library (before the notes' records, the summaries' claims and
the family names) is upgraded in place when opened, its papers kept."""

from __future__ import annotations

import sqlite3

from mmdocsum_desktop.library.store import SCHEMA_VERSION, LibraryStore, Metadata


def test_a_version_1_library_is_upgraded_in_place(tmp_path):
    with LibraryStore(tmp_path) as store, store.write() as conn:
        store.upsert(conn, str(tmp_path / "a.pdf"), kind="folder", root=str(tmp_path), size=1, mtime_ns=1,
                     content_hash="abc", metadata=Metadata(title="A paper", authors=("Jasper De Bock",)))
    # what version 1 wrote: no notes table, no family names, no summary claims
    conn = sqlite3.connect(tmp_path / "library.sqlite")
    conn.executescript("DROP TABLE notes; ALTER TABLE papers DROP COLUMN family_names; "
                       "ALTER TABLE papers DROP COLUMN summary_claimed_by; "
                       "UPDATE papers SET summary_status = 'queued'; PRAGMA user_version = 1;")
    conn.close()
    with LibraryStore(tmp_path) as store:
        paper = store.papers()[0]
        # a v1 "queued" carries no claim: no batch is running it, so it is pending
        assert (paper.title, paper.authors, paper.family_names, paper.summary_status) == (
            "A paper", ["Jasper De Bock"], [], "pending")
        assert paper.first_family_name() == "Bock"  # no family name recorded: the last word stands in
        assert store.note_of(str(tmp_path), "paper:1") is None
    conn = sqlite3.connect(tmp_path / "library.sqlite")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2
    conn.close()
