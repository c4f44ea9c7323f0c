"""Citation keys: Better BibTeX's from its ``better-bibtex.sqlite`` (today's ``citationkey`` table and the
older JSON collection), read while the file is locked and left byte-identical; a ``Citation Key:`` line in
an item's Extra field; otherwise first author, year and title word, unique within the library (a later
paper gets ``a``, ``b``…, a key Zotero gave is never changed); notes are named by them."""

from __future__ import annotations

import json
import sqlite3

from mmdocsum_desktop.app import library as use
from mmdocsum_desktop.library.citekeys import KeyEntry, extra_citation_key, unique_keys
from mmdocsum_desktop.library.sources import Candidate, register
from mmdocsum_desktop.library.store import Metadata
from mmdocsum_desktop.library.zotero import better_bibtex_keys
from mmdocsum_desktop.schemas.library import AddZoteroRequest, ExportNotesRequest, SourceReport
from tests.library.conftest import copy_papers
from tests.library.test_zotero import build_zotero, digest

EXTRA = 16  # Zotero's fieldID of "extra"


def _better_bibtex(data, rows, *, legacy=False):
    """A better-bibtex.sqlite as Better BibTeX 6+ writes it (``citationkey``), or the older JSON layout."""
    conn = sqlite3.connect(data / "better-bibtex.sqlite")
    if legacy:
        conn.execute('CREATE TABLE "better-bibtex" (name TEXT PRIMARY KEY NOT NULL, data TEXT NOT NULL)')
        collection = {"name": "citekey", "data": [
            {"itemID": item_id, "libraryID": 1, "itemKey": key, "citekey": citekey, "pinned": False, "$loki": n}
            for n, (item_id, key, citekey) in enumerate(rows, start=1)]}
        conn.execute('INSERT INTO "better-bibtex" VALUES (?, ?)', ("better-bibtex.citekey", json.dumps(collection)))
    else:
        conn.execute("CREATE TABLE citationkey (itemID NOT NULL PRIMARY KEY, itemKey NOT NULL, libraryID NOT NULL, "
                     "citationKey NOT NULL CHECK (citationKey <> ''), pinned CHECK (pinned in (0, 1)), lastPinned)")
        conn.executemany("INSERT INTO citationkey VALUES (?, ?, 1, ?, 0, NULL)", rows)
    conn.commit()
    conn.close()


def _extra(data, item_id, text):
    conn = sqlite3.connect(data / "zotero.sqlite")
    conn.execute("INSERT INTO fields(fieldID, fieldName) VALUES (?, 'extra')", (EXTRA,))
    conn.execute("INSERT INTO itemDataValues VALUES (900, ?)", (text,))
    conn.execute("INSERT INTO itemData VALUES (?, ?, 900)", (item_id, EXTRA))
    conn.commit()
    conn.close()


def test_better_bibtex_and_extra_field_keys_are_used_and_zoteros_files_left_alone(session, tmp_path):
    data = build_zotero(tmp_path, tmp_path / "elsewhere")
    _better_bibtex(data, [(1, "ARTICLE1", "Suanarunsawat2010_HolyBasil")])
    _extra(data, 3, "PMID: 26200000\nCitation Key: robinson-seals-2015\ntex.note: x")
    before = {name: digest(data / name) for name in ("zotero.sqlite", "better-bibtex.sqlite")}
    locked = sqlite3.connect(data / "better-bibtex.sqlite")
    locked.execute("BEGIN EXCLUSIVE")  # what a running Zotero with Better BibTeX holds
    try:
        with use.Library(tmp_path / "lib") as library:
            use.add_zotero(session, library, AddZoteroRequest(data_dir=data, index=False))
            keys = {p.zotero_key: p.citekey for p in library.papers()}
            vault = tmp_path / "vault"
            use.export_notes(library, ExportNotesRequest(folder=vault))
    finally:
        locked.rollback()
        locked.close()
    assert keys == {"ARTICLE1": "Suanarunsawat2010_HolyBasil", "ARTICLE2": "robinson-seals-2015"}
    assert sorted(p.name for p in vault.glob("*.md")) == ["Suanarunsawat2010_HolyBasil.md", "robinson-seals-2015.md"]
    assert 'citekey: "Suanarunsawat2010_HolyBasil"' in (vault / "Suanarunsawat2010_HolyBasil.md").read_text("utf-8")
    assert {name: digest(data / name) for name in before} == before
    assert sorted(p.name for p in data.iterdir() if p.is_file()) == ["better-bibtex.sqlite", "zotero.sqlite"]


def test_the_older_better_bibtex_layout_is_read(tmp_path):
    data = build_zotero(tmp_path, tmp_path / "elsewhere")
    _better_bibtex(data, [(1, "ARTICLE1", "suanarunsawat2010"), (3, "ARTICLE2", "robinson2015")], legacy=True)
    assert better_bibtex_keys(data) == {(1, "ARTICLE1"): "suanarunsawat2010", (0, "1"): "suanarunsawat2010",
                                        (1, "ARTICLE2"): "robinson2015", (0, "3"): "robinson2015"}


def test_an_unreadable_better_bibtex_file_gives_no_keys(tmp_path):
    (tmp_path / "better-bibtex.sqlite").write_bytes(b"not a database at all" * 100)
    assert better_bibtex_keys(tmp_path) == {}


def test_extra_field_spellings():
    assert extra_citation_key("Citation Key: smith2020") == "smith2020"
    assert extra_citation_key("foo: bar\ncitation key:  Smith_2020 \n") == "Smith_2020"
    assert extra_citation_key("bibtex: jones1999") == "jones1999"
    assert extra_citation_key("Citation Key: two words") is None  # no key a BibTeX file could hold
    assert extra_citation_key("PMID: 123") is None


def test_generated_keys_are_unique_and_zoteros_keys_win(tmp_path):
    folder = copy_papers(tmp_path / "papers", "PMC2803133.pdf", "PMC4521097.pdf", "PMC4736972.pdf")
    same = Metadata(title="Malaria in the highlands", authors=("Jo Smith",), family_names=("Smith",), year=2020)
    with use.Library(tmp_path / "lib") as library:
        register(library.store, [Candidate(folder / "PMC2803133.pdf", same), Candidate(folder / "PMC4521097.pdf", same),
                                 Candidate(folder / "PMC4736972.pdf", Metadata(
                                     title="Another malaria paper", authors=("Ann Smith",), year=2020,
                                     citekey="smith2020malaria"))],
                 root=str(folder), kind="folder", report=SourceReport(source=str(folder), kind="folder"))
        keys = {p.id: p.citekey for p in library.papers()}
        assert keys == {1: "smith2020malariaa", 2: "smith2020malariab", 3: "smith2020malaria"}
        vault = tmp_path / "vault"
        use.export_notes(library, ExportNotesRequest(folder=vault))
        assert sorted(p.name for p in vault.glob("*.md")) == [
            "smith2020malaria.md", "smith2020malariaa.md", "smith2020malariab.md"]


def test_unique_keys_fold_case_and_fall_back_to_the_paper_id():
    keys = unique_keys([KeyEntry(1, "Smith", 2020, "The malaria"), KeyEntry(2, "", None, "", None),
                        KeyEntry(3, "smith", 2020, "Malaria again"), KeyEntry(4, "", None, "", "Smith2020Malaria")])
    assert keys == {1: "smith2020malariaa", 2: "paper2", 3: "smith2020malariab", 4: "Smith2020Malaria"}


def test_many_papers_of_one_key_stay_unique():
    keys = unique_keys([KeyEntry(i, "Smith", 2020, "Malaria") for i in range(1, 31)])
    assert len(set(keys.values())) == 30
    assert [keys[1], keys[2], keys[27], keys[28], keys[30]] == [
        "smith2020malaria", "smith2020malariaa", "smith2020malariaz", "smith2020malariaaa", "smith2020malariaac"]
