"""The library file's schema: a version 1 library (before the notes' records, the summaries' claims and
the family names) and a version 2 library (before Zotero's citation keys) are upgraded in place when opened,
their papers kept. Whose file it is: only a file with the
app's mark (or this app's unmarked tables) is opened; another program's SQLite file, Zotero's database
(copied or through a link) and a link among the library's files are refused, byte-identical after."""

from __future__ import annotations

import sqlite3

import pytest

from mmdocsum_desktop.library.store import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    LibraryError,
    LibraryStore,
    Metadata,
)
from tests.library.test_zotero import ZOTERO_SCHEMA


def test_a_version_1_library_is_upgraded_in_place(tmp_path):
    with LibraryStore(tmp_path) as store, store.write() as conn:
        store.upsert(conn, str(tmp_path / "a.pdf"), kind="folder", root=str(tmp_path), size=1, mtime_ns=1,
                     content_hash="abc", metadata=Metadata(title="A paper", authors=("Jasper De Bock",)))
    # what version 1 wrote: no notes table, no family names, no summary claims
    conn = sqlite3.connect(tmp_path / "library.sqlite")
    conn.executescript("DROP TABLE notes; DROP TABLE annotations; DROP TABLE absent; "
                       "ALTER TABLE papers DROP COLUMN family_names; "
                       "ALTER TABLE papers DROP COLUMN summary_claimed_by; ALTER TABLE papers DROP COLUMN citekey; "
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
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
    assert {"annotations", "absent"} <= {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    conn.close()


def test_a_version_2_library_is_upgraded_in_place_and_keeps_its_keys_shape(tmp_path):
    with LibraryStore(tmp_path) as store, store.write() as conn:
        store.upsert(conn, str(tmp_path / "a.pdf"), kind="folder", root=str(tmp_path), size=1, mtime_ns=1,
                     content_hash="abc", metadata=Metadata(title="Malaria in the highlands", authors=("Jo Smith",),
                                                           family_names=("Smith",), year=2020))
    conn = sqlite3.connect(tmp_path / "library.sqlite")
    conn.executescript("ALTER TABLE papers DROP COLUMN citekey; DROP TABLE annotations; DROP TABLE absent; "
                       "PRAGMA user_version = 2;")
    conn.close()
    with LibraryStore(tmp_path) as store:
        assert [(p.title, p.citekey) for p in store.papers()] == [("Malaria in the highlands", "smith2020malaria")]
    conn = sqlite3.connect(tmp_path / "library.sqlite")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 4
    assert "citekey" in [r[1] for r in conn.execute("PRAGMA table_info(papers)")]
    conn.close()


def test_a_version_3_library_gets_the_annotations_and_absent_tables_and_keeps_its_papers(tmp_path):
    with LibraryStore(tmp_path) as store, store.write() as conn:
        store.upsert(conn, str(tmp_path / "a.pdf"), kind="folder", root=str(tmp_path), size=1, mtime_ns=1,
                     content_hash="abc", metadata=Metadata(title="Seals", authors=("Kelly Robinson",), year=2015))
    conn = sqlite3.connect(tmp_path / "library.sqlite")
    conn.executescript("DROP TABLE annotations; DROP TABLE absent; PRAGMA user_version = 3;")
    conn.close()
    with LibraryStore(tmp_path) as store:
        assert [p.title for p in store.papers()] == ["Seals"]
        assert store.annotations(store.papers()[0].id) == [] and store.absent() == []
    conn = sqlite3.connect(tmp_path / "library.sqlite")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 4
    conn.close()


def _other_programs_database(path, *, schema="CREATE TABLE t (x TEXT); INSERT INTO t VALUES ('mine');",
                             application_id=0):
    conn = sqlite3.connect(path)
    conn.executescript(schema)
    conn.execute(f"PRAGMA application_id = {application_id}")
    conn.close()
    return path.read_bytes()


def _left_alone(folder, before):
    assert (folder / "library.sqlite").resolve().read_bytes() == before
    assert not [p for p in folder.iterdir() if p.name.startswith("library.sqlite-")]  # no journal, no WAL


@pytest.mark.parametrize("application_id", [0, 0x0F055112])  # unmarked, and marked by another program
def test_a_sqlite_file_without_the_apps_mark_is_never_opened_for_writing(tmp_path, application_id):
    before = _other_programs_database(tmp_path / "library.sqlite", application_id=application_id)
    with pytest.raises(LibraryError, match="not an mmdocsum library|another program's SQLite"):
        LibraryStore(tmp_path)
    _left_alone(tmp_path, before)


def test_a_zotero_database_is_never_a_library_copied_or_linked(tmp_path):
    zotero = tmp_path / "Zotero"
    zotero.mkdir()
    before = _other_programs_database(zotero / "zotero.sqlite", schema=ZOTERO_SCHEMA)
    copied, linked = tmp_path / "copied", tmp_path / "linked"
    copied.mkdir()
    linked.mkdir()
    (copied / "library.sqlite").write_bytes(before)
    with pytest.raises(LibraryError, match="a Zotero database"):
        LibraryStore(copied)
    _left_alone(copied, before)
    (linked / "library.sqlite").symlink_to(zotero / "zotero.sqlite")
    with pytest.raises(LibraryError, match="symbolic link"):
        LibraryStore(linked)
    assert (zotero / "zotero.sqlite").read_bytes() == before
    assert sorted(p.name for p in zotero.iterdir()) == ["zotero.sqlite"]


def test_a_journal_file_that_is_a_link_is_refused(tmp_path):
    with LibraryStore(tmp_path / "lib"):
        pass
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's\n")
    (tmp_path / "lib" / "library.sqlite-wal").unlink(missing_ok=True)
    (tmp_path / "lib" / "library.sqlite-wal").symlink_to(victim)
    with pytest.raises(LibraryError, match="symbolic link"):
        LibraryStore(tmp_path / "lib")
    assert victim.read_text() == "the user's\n"


def test_a_new_library_carries_the_mark_and_an_unmarked_one_of_this_app_is_marked(tmp_path):
    with LibraryStore(tmp_path) as store, store.write() as conn:
        store.upsert(conn, str(tmp_path / "a.pdf"), kind="folder", root=str(tmp_path), size=1, mtime_ns=1,
                     content_hash="abc", metadata=Metadata(title="A paper"))
    header = (tmp_path / "library.sqlite").read_bytes()[:100]
    assert int.from_bytes(header[68:72], "big") == APPLICATION_ID
    conn = sqlite3.connect(tmp_path / "library.sqlite")
    conn.execute("PRAGMA application_id = 0")  # what this app wrote before it marked its files
    conn.close()
    with LibraryStore(tmp_path) as store:
        assert [p.title for p in store.papers()] == ["A paper"]
    conn = sqlite3.connect(tmp_path / "library.sqlite")
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    conn.close()
