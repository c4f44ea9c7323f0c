"""A Zotero data folder built here with Zotero 7's schema (the tables the library reads, with Zotero's
own columns): a paper stored under storage/KEY/ in a sub-collection with a tag, a paper whose PDF is a
linked file elsewhere, a paper in the trash, a note. The library reads it while a connection holds
Zotero's exclusive lock (as a running Zotero does), and zotero.sqlite is byte-identical afterwards, with
no journal or WAL file beside it. Then: ask filtered by collection, a batch summary, notes out with
zotero://open-pdf links."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest

from mmdocsum_desktop.app import library as use
from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.library.notes import citation_key
from mmdocsum_desktop.library.sources import Candidate, register
from mmdocsum_desktop.library.store import Metadata
from mmdocsum_desktop.library.zotero import ZoteroError, read_attachments
from mmdocsum_desktop.schemas.library import (
    AddZoteroRequest,
    ExportNotesRequest,
    LibraryAskRequest,
    ListRequest,
    PaperFilter,
    SourceReport,
    SummarizeLibraryRequest,
)
from mmdocsum_desktop.schemas.settings import Settings
from tests.conftest import DATA_PAPERS

# Zotero 7's tables as its schema.sql creates them (the columns the library reads and their neighbours)
ZOTERO_SCHEMA = """
CREATE TABLE version (schema TEXT PRIMARY KEY, version INT NOT NULL);
CREATE TABLE libraries (libraryID INTEGER PRIMARY KEY, type TEXT NOT NULL, editable INT NOT NULL,
    filesEditable INT NOT NULL, version INT NOT NULL DEFAULT 0, storageVersion INT NOT NULL DEFAULT 0,
    lastSync INT NOT NULL DEFAULT 0, archived INT NOT NULL DEFAULT 0);
CREATE TABLE itemTypes (itemTypeID INTEGER PRIMARY KEY, typeName TEXT, templateItemTypeID INT, display INT DEFAULT 1);
CREATE TABLE fields (fieldID INTEGER PRIMARY KEY, fieldName TEXT, fieldFormatID INT);
CREATE TABLE items (itemID INTEGER PRIMARY KEY, itemTypeID INT NOT NULL, dateAdded TIMESTAMP NOT NULL DEFAULT
    CURRENT_TIMESTAMP, dateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, clientDateModified TIMESTAMP NOT NULL
    DEFAULT CURRENT_TIMESTAMP, libraryID INT NOT NULL, key TEXT NOT NULL, version INT NOT NULL DEFAULT 0,
    synced INT NOT NULL DEFAULT 0, UNIQUE (libraryID, key),
    FOREIGN KEY (libraryID) REFERENCES libraries(libraryID) ON DELETE CASCADE);
CREATE TABLE itemDataValues (valueID INTEGER PRIMARY KEY, value UNIQUE);
CREATE TABLE itemData (itemID INT, fieldID INT, valueID, PRIMARY KEY (itemID, fieldID),
    FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE,
    FOREIGN KEY (fieldID) REFERENCES fields(fieldID), FOREIGN KEY (valueID) REFERENCES itemDataValues(valueID));
CREATE TABLE itemNotes (itemID INTEGER PRIMARY KEY, parentItemID INT, note TEXT, title TEXT,
    FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE);
CREATE TABLE itemAttachments (itemID INTEGER PRIMARY KEY, parentItemID INT, linkMode INT, contentType TEXT,
    charsetID INT, path TEXT, syncState INT DEFAULT 0, storageModTime INT, storageHash TEXT, lastProcessedModificationTime INT,
    lastIndexedTime INT, lastIndexedModificationTime INT,
    FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE,
    FOREIGN KEY (parentItemID) REFERENCES items(itemID) ON DELETE CASCADE);
CREATE TABLE creators (creatorID INTEGER PRIMARY KEY, firstName TEXT, lastName TEXT, fieldMode INT,
    UNIQUE (lastName, firstName, fieldMode));
CREATE TABLE creatorTypes (creatorTypeID INTEGER PRIMARY KEY, creatorType TEXT);
CREATE TABLE itemCreators (itemID INT NOT NULL, creatorID INT NOT NULL, creatorTypeID INT NOT NULL DEFAULT 1,
    orderIndex INT NOT NULL DEFAULT 0, PRIMARY KEY (itemID, orderIndex), UNIQUE (itemID, creatorID, creatorTypeID, orderIndex),
    FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE,
    FOREIGN KEY (creatorID) REFERENCES creators(creatorID) ON DELETE CASCADE);
CREATE TABLE collections (collectionID INTEGER PRIMARY KEY, collectionName TEXT NOT NULL, parentCollectionID INT DEFAULT NULL,
    clientDateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, libraryID INT NOT NULL, key TEXT NOT NULL,
    version INT NOT NULL DEFAULT 0, synced INT NOT NULL DEFAULT 0, UNIQUE (libraryID, key));
CREATE TABLE collectionItems (collectionID INT NOT NULL, itemID INT NOT NULL, orderIndex INT NOT NULL DEFAULT 0,
    PRIMARY KEY (collectionID, itemID));
CREATE TABLE tags (tagID INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE itemTags (itemID INT NOT NULL, tagID INT NOT NULL, type INT NOT NULL, PRIMARY KEY (itemID, tagID));
CREATE TABLE deletedItems (itemID INTEGER PRIMARY KEY, dateDeleted DEFAULT CURRENT_TIMESTAMP NOT NULL);
CREATE TABLE deletedCollections (collectionID INTEGER PRIMARY KEY, dateDeleted DEFAULT CURRENT_TIMESTAMP NOT NULL);
"""

JOURNAL_ARTICLE, ATTACHMENT, NOTE = 22, 3, 28
TITLE, DATE, DOI = 1, 6, 59
IMPORTED_FILE, IMPORTED_URL, LINKED_FILE = 0, 1, 2


def build_zotero(root: Path, linked_folder: Path) -> Path:
    """A Zotero data folder: zotero.sqlite and storage/; returns it."""
    data = root / "Zotero"
    (data / "storage" / "ATTACH01").mkdir(parents=True)
    (data / "storage" / "TRASHAT1").mkdir(parents=True)
    shutil.copyfile(DATA_PAPERS / "PMC2803133.pdf", data / "storage" / "ATTACH01" / "Suanarunsawat - 2010.pdf")
    shutil.copyfile(DATA_PAPERS / "PMC4736972.pdf", data / "storage" / "TRASHAT1" / "Acar - 2016.pdf")
    linked_folder.mkdir(parents=True)
    linked = linked_folder / "robinson-seals.pdf"
    shutil.copyfile(DATA_PAPERS / "PMC4521097.pdf", linked)

    conn = sqlite3.connect(data / "zotero.sqlite")
    conn.executescript(ZOTERO_SCHEMA)
    conn.execute("INSERT INTO version VALUES ('userdata', 120)")
    conn.execute("INSERT INTO libraries VALUES (1, 'user', 1, 1, 0, 0, 0, 0)")
    conn.executemany("INSERT INTO itemTypes(itemTypeID, typeName) VALUES (?, ?)",
                     [(JOURNAL_ARTICLE, "journalArticle"), (ATTACHMENT, "attachment"), (NOTE, "note")])
    conn.executemany("INSERT INTO fields(fieldID, fieldName) VALUES (?, ?)", [(TITLE, "title"), (DATE, "date"), (DOI, "DOI")])
    items = [(1, JOURNAL_ARTICLE, "ARTICLE1"), (2, ATTACHMENT, "ATTACH01"), (3, JOURNAL_ARTICLE, "ARTICLE2"),
             (4, ATTACHMENT, "LINKED01"), (5, JOURNAL_ARTICLE, "TRASHED1"), (6, ATTACHMENT, "TRASHAT1"), (7, NOTE, "NOTE0001")]
    conn.executemany("INSERT INTO items(itemID, itemTypeID, libraryID, key) VALUES (?, ?, 1, ?)", items)
    values = {
        1: {TITLE: "Essential oils of holy basil lower lipids in rats", DATE: "2010-01-00 January 2010", DOI: "10.3164/jcbn.09-52"},
        2: {TITLE: "Full Text PDF"},
        3: {TITLE: "Seal pups recognise familiar individuals", DATE: "2015-07-00 2015"},
        5: {TITLE: "Notch signalling in breast cancer", DATE: "2016"},
    }
    value_ids: dict[str, int] = {}
    for item_id, fields in values.items():
        for field_id, value in fields.items():
            value_id = value_ids.setdefault(value, len(value_ids) + 1)
            conn.execute("INSERT OR IGNORE INTO itemDataValues VALUES (?, ?)", (value_id, value))
            conn.execute("INSERT INTO itemData VALUES (?, ?, ?)", (item_id, field_id, value_id))
    conn.executemany("INSERT INTO creators VALUES (?, ?, ?, 0)",
                     [(1, "Thamolwan", "Suanarunsawat"), (2, "Thanapat", "Songsak"), (3, "Kelly J.", "Robinson")])
    conn.executemany("INSERT INTO itemCreators VALUES (?, ?, 1, ?)", [(1, 1, 0), (1, 2, 1), (3, 3, 0)])
    conn.executemany("INSERT INTO collections(collectionID, collectionName, parentCollectionID, libraryID, key) "
                     "VALUES (?, ?, ?, 1, ?)", [(1, "Nutrition", None, "COLL0001"), (2, "Lipids", 1, "COLL0002"),
                                                (3, "Behaviour", None, "COLL0003")])
    conn.executemany("INSERT INTO collectionItems VALUES (?, ?, 0)", [(2, 1), (3, 3), (2, 5)])
    conn.execute("INSERT INTO tags VALUES (1, 'essential oils')")
    conn.execute("INSERT INTO itemTags VALUES (1, 1, 0)")
    conn.executemany("INSERT INTO itemAttachments(itemID, parentItemID, linkMode, contentType, path) VALUES (?, ?, ?, ?, ?)",
                     [(2, 1, IMPORTED_FILE, "application/pdf", "storage:Suanarunsawat - 2010.pdf"),
                      (4, 3, LINKED_FILE, "application/pdf", str(linked)),
                      (6, 5, IMPORTED_FILE, "application/pdf", "storage:Acar - 2016.pdf")])
    conn.execute("INSERT INTO itemNotes VALUES (7, 1, '<p>read again</p>', 'read again')")
    conn.execute("INSERT INTO deletedItems(itemID) VALUES (5)")  # the Notch paper is in the trash
    conn.commit()
    conn.close()
    return data


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def zotero_library(tmp_path_factory, models):
    """The Zotero folder added to a library while Zotero's lock is held; (data dir, library dir, report,
    digest before)."""
    root = tmp_path_factory.mktemp("zotero")
    data = build_zotero(root, root / "elsewhere")
    before = digest(data / "zotero.sqlite")
    running_zotero = sqlite3.connect(data / "zotero.sqlite")
    running_zotero.execute("BEGIN EXCLUSIVE")  # what a running Zotero holds: others can neither write nor read
    try:
        with Session(Settings.model_validate({"engines": {"engine": "extractive"}}), models=models) as session, \
                use.Library(root / "lib") as library:
            report = use.add_zotero(session, library, AddZoteroRequest(data_dir=data))
    finally:
        running_zotero.rollback()
        running_zotero.close()
    return data, root / "lib", report, before


def test_zotero_is_read_while_locked_and_left_byte_identical(zotero_library):
    data, _library_dir, report, before = zotero_library
    assert digest(data / "zotero.sqlite") == before
    assert sorted(p.name for p in data.iterdir()) == ["storage", "zotero.sqlite"]  # no -wal, -shm or -journal
    source = report.sources[0]
    assert source.kind == "zotero" and source.found == 2 and source.skipped == []
    assert report.index is not None and report.index.indexed == 2 and report.index.failed == {}


def test_zotero_metadata_collections_and_the_trash(zotero_library):
    _data, library_dir, _report, _before = zotero_library
    with use.Library(library_dir) as library:
        papers = {p.zotero_attachment_key: p for p in library.papers()}
        assert set(papers) == {"ATTACH01", "LINKED01"}  # the trashed paper and the note are left out
        stored = papers["ATTACH01"]
        assert stored.title == "Essential oils of holy basil lower lipids in rats"
        assert stored.authors == ["Thamolwan Suanarunsawat", "Thanapat Songsak"]
        assert (stored.year, stored.doi, stored.zotero_key) == (2010, "10.3164/jcbn.09-52", "ARTICLE1")
        assert stored.collections == ["Nutrition/Lipids"] and stored.tags == ["essential oils"]
        assert stored.source_path.endswith("storage/ATTACH01/Suanarunsawat - 2010.pdf") and stored.pages == 8
        linked = papers["LINKED01"]
        assert linked.source_path.endswith("elsewhere/robinson-seals.pdf") and linked.collections == ["Behaviour"]
        assert [p.zotero_key for p in library.papers()] == ["ARTICLE1", "ARTICLE2"]  # sorted by title
        assert [p.id for p in library.papers(ListRequest(filter=PaperFilter(collection="Nutrition")))] == [stored.id]
        assert [p.id for p in library.papers(ListRequest(filter=PaperFilter(tag="Essential Oils")))] == [stored.id]
        assert [p.id for p in library.papers(ListRequest(filter=PaperFilter(year_from=2011)))] == [linked.id]
        assert library.link(stored, 5) == "zotero://open-pdf/library/items/ATTACH01?page=5"


def test_ask_is_restricted_to_the_collection_asked(zotero_library, session):
    _data, library_dir, _report, _before = zotero_library
    with use.Library(library_dir) as library:
        question = "Which serum lipids changed in rats fed the high cholesterol diet?"
        everywhere = use.ask_library(session, library, LibraryAskRequest(question=question))
        assert everywhere.searched_papers == 2 and everywhere.papers[0].title.startswith("Essential oils")
        elsewhere = use.ask_library(session, library, LibraryAskRequest(
            question=question, filter=PaperFilter(collection="Behaviour")))
        assert elsewhere.searched_papers == 1
        assert {hit.title for hit in elsewhere.papers} == {"Seal pups recognise familiar individuals"}
        assert all(c.link.startswith("zotero://open-pdf/library/items/LINKED01") for c in elsewhere.citations)
        assert all(c.zotero_key == "ARTICLE2" for c in elsewhere.citations)  # cited by the item
        assert [hit.zotero_key for hit in elsewhere.papers] == ["ARTICLE2"]


@pytest.mark.slow
def test_a_batch_summary_then_notes_with_front_matter_figures_and_zotero_links(zotero_library, session, tmp_path):
    _data, library_dir, _report, _before = zotero_library
    with use.Library(library_dir) as library:
        report = use.summarize_papers(session, library, SummarizeLibraryRequest(papers=["ARTICLE1"]))
        assert (report.done, report.failed) == (1, 0)
        paper = library.resolve(["ATTACH01"])[0]
        assert paper.summary_status == "done" and library.summary(paper) is not None
        again = use.summarize_papers(session, library, SummarizeLibraryRequest(papers=["ARTICLE1"]))
        assert (again.done, again.resumed) == (0, 1)  # resumable: what is done is not redone

        vault = tmp_path / "vault"
        exported = use.export_notes(library, ExportNotesRequest(folder=vault))
    assert exported.without_summary == 1 and len(exported.notes) == 2
    note = (vault / "suanarunsawat2010essential.md").read_text(encoding="utf-8")
    front = note.split("---")[1]
    for line in ('title: "Essential oils of holy basil lower lipids in rats"',
                 'authors: ["Thamolwan Suanarunsawat", "Thanapat Songsak"]', "year: 2010", 'doi: "10.3164/jcbn.09-52"',
                 'citekey: "suanarunsawat2010essential"', 'zotero_key: "ARTICLE1"', 'zotero_attachment_key: "ATTACH01"'):
        assert line in front
    summary = library_summary(library_dir, paper.id)
    pages = sorted({page for paragraph in summary.paragraphs for s in paragraph.sentences for page in s.pages})
    assert pages and all(f"zotero://open-pdf/library/items/ATTACH01?page={page})" in note for page in pages)
    for paragraph in summary.paragraphs:
        assert f"## {paragraph.title}" in note
    shown = [p.figure for p in summary.paragraphs if p.figure is not None]
    assert shown, "the summary of a paper with 7 figures and tables shows some"
    links = [line.split("](<", 1)[1].split(">)", 1)[0] for line in note.splitlines() if line.startswith("![")]
    assert len(links) == len(shown) and all((vault / link).is_file() for link in links)
    seals = (vault / "robinson2015seal.md").read_text(encoding="utf-8")
    assert "No summary yet" in seals and "zotero://open-pdf/library/items/LINKED01)" in seals


def library_summary(library_dir: Path, paper_id: int):
    with use.Library(library_dir) as library:
        paper = library.paper(paper_id)
        assert paper is not None
        summary = library.summary(paper)
        assert summary is not None
        return summary


SNAPSHOT_HTML = """<!DOCTYPE html><html lang="en"><head><title>{title}</title></head><body><h1>{title}</h1>
<p>A web page Zotero saved beside the item.</p></body></html>"""


def add_snapshots(data: Path) -> None:
    """Web snapshots as Zotero saves them (imported URL, text/html under storage/KEY/): one beside the
    seals item's PDF, one of an item that has no PDF (by Jasper De Bock, a two-word last name), and one of
    an item whose PDF was never downloaded to this machine."""
    pages = {"SNAPSEAL": "Seal pups recognise familiar individuals", "SNAPWEB1": "Imprecise probabilities in practice",
             "SNAPGON1": "A paper not downloaded yet"}
    for key, title in pages.items():
        (data / "storage" / key).mkdir(parents=True)
        (data / "storage" / key / "snapshot.html").write_text(SNAPSHOT_HTML.format(title=title), encoding="utf-8")
    conn = sqlite3.connect(data / "zotero.sqlite")
    items = [(8, ATTACHMENT, "SNAPSEAL"), (9, JOURNAL_ARTICLE, "WEBONLY1"), (10, ATTACHMENT, "SNAPWEB1"),
             (11, JOURNAL_ARTICLE, "NOFILE01"), (12, ATTACHMENT, "PDFGONE1"), (13, ATTACHMENT, "SNAPGON1")]
    conn.executemany("INSERT INTO items(itemID, itemTypeID, libraryID, key) VALUES (?, ?, 1, ?)", items)
    for item_id, field_id, value_id, value in [(9, TITLE, 101, pages["SNAPWEB1"]), (9, DATE, 102, "2019-05-02"),
                                               (11, TITLE, 103, pages["SNAPGON1"])]:
        conn.execute("INSERT INTO itemDataValues VALUES (?, ?)", (value_id, value))
        conn.execute("INSERT INTO itemData VALUES (?, ?, ?)", (item_id, field_id, value_id))
    conn.execute("INSERT INTO creators VALUES (4, 'Jasper', 'De Bock', 0)")
    conn.execute("INSERT INTO itemCreators VALUES (9, 4, 1, 0)")
    conn.executemany("INSERT INTO itemAttachments(itemID, parentItemID, linkMode, contentType, path) VALUES (?, ?, ?, ?, ?)",
                     [(8, 3, IMPORTED_URL, "text/html", "storage:snapshot.html"),
                      (10, 9, IMPORTED_URL, "text/html", "storage:snapshot.html"),
                      (12, 11, IMPORTED_FILE, "application/pdf", "storage:not-downloaded.pdf"),
                      (13, 11, IMPORTED_URL, "text/html", "storage:snapshot.html")])
    conn.commit()
    conn.close()


def test_one_paper_per_item_its_pdf_and_a_snapshot_only_without_one(session, tmp_path):
    data = build_zotero(tmp_path, tmp_path / "elsewhere")
    add_snapshots(data)
    before = digest(data / "zotero.sqlite")
    with use.Library(tmp_path / "lib") as library:
        # what a library kept before one paper per item: the seals item's snapshot as a paper of its own,
        # with a note in the vault
        snapshot = data / "storage" / "SNAPSEAL" / "snapshot.html"
        register(library.store, [Candidate(snapshot, Metadata(
            title="Seal pups recognise familiar individuals", authors=("Kelly J. Robinson",), year=2015,
            zotero_key="ARTICLE2", zotero_attachment_key="SNAPSEAL", zotero_library_id=1))],
            root=str(data.resolve()), kind="zotero", report=SourceReport(source=str(data), kind="zotero"),
            mark_gone=False)
        vault = tmp_path / "vault"
        use.export_notes(library, ExportNotesRequest(folder=vault))
        assert [p.name for p in vault.glob("*.md")] == ["robinson2015seal.md"]

        report = use.add_zotero(session, library, AddZoteroRequest(data_dir=data, index=False))
        source = report.sources[0]
        assert source.found == 3 and source.superseded == 1  # the snapshot paper gave way to the item's PDF
        papers = {p.zotero_key: p for p in library.papers()}
        assert set(papers) == {"ARTICLE1", "ARTICLE2", "WEBONLY1"}
        assert papers["ARTICLE2"].zotero_attachment_key == "LINKED01"
        assert papers["ARTICLE2"].source_path.endswith("robinson-seals.pdf")
        web = papers["WEBONLY1"]  # no PDF: its snapshot is the paper
        assert web.zotero_attachment_key == "SNAPWEB1" and web.source_path.endswith("SNAPWEB1/snapshot.html")
        assert (web.authors, web.family_names, web.first_family_name()) == (["Jasper De Bock"], ["De Bock"], "De Bock")
        assert citation_key(web) == "debock2019imprecise"
        # the item whose PDF is not on this machine: said, by its key and title, not replaced by its snapshot
        assert source.skipped == [f"Zotero item NOFILE01 (A paper not downloaded yet): file not found: "
                                  f"{data.resolve() / 'storage' / 'PDFGONE1' / 'not-downloaded.pdf'}; its web "
                                  "snapshot is not read while the item has a PDF"]

        # notes are the item's: the note written for the snapshot is the one the PDF's export updates
        exported = use.export_notes(library, ExportNotesRequest(folder=vault))
        assert exported.skipped == []
        assert sorted(p.name for p in vault.glob("*.md")) == ["debock2019imprecise.md", "robinson2015seal.md",
                                                              "suanarunsawat2010essential.md"]
        seals = (vault / "robinson2015seal.md").read_text(encoding="utf-8")
        assert 'zotero_attachment_key: "LINKED01"' in seals and "SNAPSEAL" not in seals
        again = use.add_zotero(session, library, AddZoteroRequest(data_dir=data, index=False))
        assert (again.sources[0].superseded, again.sources[0].unchanged) == (0, 3)
    assert digest(data / "zotero.sqlite") == before


def _attach(data: Path, rows: list[tuple[int, int, str, str, int, str]]) -> None:
    """Attachments (item id, parent id, key, path, linkMode, content type) added to a Zotero database."""
    conn = sqlite3.connect(data / "zotero.sqlite")
    for item_id, parent, key, path, link_mode, content_type in rows:
        conn.execute("INSERT INTO items(itemID, itemTypeID, libraryID, key) VALUES (?, ?, 1, ?)", (item_id, ATTACHMENT, key))
        conn.execute("INSERT INTO itemAttachments(itemID, parentItemID, linkMode, contentType, path) VALUES (?, ?, ?, ?, ?)",
                     (item_id, parent, link_mode, content_type, path))
    conn.commit()
    conn.close()


def test_every_path_from_zoteros_database_stays_where_it_must_be(tmp_path):
    """storage:NAME inside storage/, attachments:REL inside the base folder, an absolute path only for a
    linked file named as a paper: a key of ../../private, storage: with an absolute path, a relative path
    climbing out of the base folder or a key file given as a linked page are left out before any is opened."""
    data = build_zotero(tmp_path, tmp_path / "elsewhere")
    private = tmp_path / "private"
    private.mkdir()
    for name in ("secret.pdf", "other.pdf", "base-escape.pdf"):
        shutil.copyfile(DATA_PAPERS / "PMC4736972.pdf", private / name)
    (private / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    base = tmp_path / "base"
    base.mkdir()
    for parent in (11, 12, 13, 14):
        conn = sqlite3.connect(data / "zotero.sqlite")
        conn.execute("INSERT INTO items(itemID, itemTypeID, libraryID, key) VALUES (?, ?, 1, ?)",
                     (parent, JOURNAL_ARTICLE, f"PARENT{parent}"))
        conn.commit()
        conn.close()
    _attach(data, [(21, 11, "../../private", "storage:secret.pdf", IMPORTED_FILE, "application/pdf"),
                   (22, 12, "ATTACH22", f"storage:{private / 'other.pdf'}", IMPORTED_FILE, "application/pdf"),
                   (23, 13, "ATTACH23", "attachments:../private/base-escape.pdf", LINKED_FILE, "application/pdf"),
                   (24, 14, "ATTACH24", str(private / "id_rsa"), IMPORTED_FILE, "text/html")])
    found, skipped = read_attachments(data, base_dir=base)
    assert all(not a.path.resolve().is_relative_to(private) for a in found)
    assert sorted(a.attachment_key for a in found) == ["ATTACH01", "LINKED01"]  # the fixture's two papers
    for key in ("../../private", "ATTACH22", "ATTACH23", "ATTACH24"):
        assert any(line.startswith(f"Zotero attachment {key}:") and line.endswith("not read") for line in skipped), key


def test_a_damaged_zotero_database_is_one_clear_error(tmp_path):
    data = build_zotero(tmp_path, tmp_path / "elsewhere")
    conn = sqlite3.connect(data / "zotero.sqlite")
    conn.execute("UPDATE itemDataValues SET value = CAST(X'4573736Aff6e7469616c' AS TEXT) WHERE valueID = 1")
    conn.commit()
    conn.close()
    found, _skipped = read_attachments(data)  # a title that is not UTF-8: read with a replacement character
    assert any("\ufffd" in a.metadata.title for a in found)
    (data / "zotero.sqlite").write_bytes(b"SQLite format 3\x00" + bytes(range(256)) * 40)
    with pytest.raises(ZoteroError, match="not a readable Zotero database"):
        read_attachments(data)
