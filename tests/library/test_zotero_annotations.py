"""Zotero as people keep it (issue 44, point 5), on a Zotero 7 data folder built here: ZotFile-style
``attachments:`` links resolved through the base folder Zotero's own prefs.js names (or --zotero-base),
the reader's annotations read with their paper (kept, searchable, exported into the note), and items whose
paper is not on this computer kept by title with what to do (``library list --absent``)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from mmdocsum_desktop.library.store import LibraryStore
from mmdocsum_desktop.library.zotero import (
    ADVICE_BASE,
    ADVICE_STORED,
    add_zotero,
    linked_base_folder,
    read_zotero,
)
from mmdocsum_desktop.schemas.library import PaperFilter
from tests.conftest import DATA_PAPERS
from tests.library.test_zotero import ATTACHMENT, IMPORTED_FILE, LINKED_FILE, TITLE, build_zotero
from tests.library.test_zotero import digest as sha

# Zotero 7's itemAnnotations (schema.sql)
ANNOTATIONS_SCHEMA = """
CREATE TABLE itemAnnotations (itemID INTEGER PRIMARY KEY, parentItemID INT NOT NULL, type INTEGER NOT NULL,
    authorName TEXT, text TEXT, comment TEXT, color TEXT, pageLabel TEXT, sortIndex TEXT NOT NULL,
    position TEXT NOT NULL, isExternal INT NOT NULL,
    FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE,
    FOREIGN KEY (parentItemID) REFERENCES itemAttachments(itemID));
"""
ANNOTATION_TYPE = 41
HIGHLIGHTED = "serum total cholesterol was lowered"


def _value(conn: sqlite3.Connection, item_id: int, field_id: int, value: str) -> None:
    value_id = conn.execute("SELECT coalesce(max(valueID), 0) + 1 FROM itemDataValues").fetchone()[0]
    conn.execute("INSERT INTO itemDataValues VALUES (?, ?)", (value_id, value))
    conn.execute("INSERT INTO itemData VALUES (?, ?, ?)", (item_id, field_id, value_id))


@pytest.fixture()
def zotero(tmp_path) -> tuple[Path, Path]:
    return build_annotated_zotero(tmp_path)


def build_annotated_zotero(tmp_path: Path) -> tuple[Path, Path]:
    """(Zotero data folder, the base folder of its linked attachments)."""
    data = build_zotero(tmp_path, tmp_path / "elsewhere")
    base = tmp_path / "Papers"
    (base / "reviews").mkdir(parents=True)
    shutil.copyfile(DATA_PAPERS / "PMC4736972.pdf", base / "reviews" / "notch-review.pdf")
    conn = sqlite3.connect(data / "zotero.sqlite")
    conn.executescript(ANNOTATIONS_SCHEMA)
    conn.execute("INSERT INTO itemTypes(itemTypeID, typeName) VALUES (?, 'annotation')", (ANNOTATION_TYPE,))
    items = [(20, 11, "ARTICLE3"), (21, ATTACHMENT, "BASELNK1"), (22, 11, "ARTICLE4"), (23, ATTACHMENT, "GONEPDF1"),
             (30, ANNOTATION_TYPE, "ANNOT001"), (31, ANNOTATION_TYPE, "ANNOT002"), (32, ANNOTATION_TYPE, "ANNOT003")]
    conn.executemany("INSERT INTO items(itemID, itemTypeID, libraryID, key) VALUES (?, ?, 1, ?)", items)
    _value(conn, 20, TITLE, "Notch signalling reviewed")
    _value(conn, 22, TITLE, "A paper whose PDF never synced")
    conn.executemany("INSERT INTO itemAttachments(itemID, parentItemID, linkMode, contentType, path) VALUES (?, ?, ?, ?, ?)",
                     [(21, 20, LINKED_FILE, "application/pdf", "attachments:reviews/notch-review.pdf"),
                      (23, 22, IMPORTED_FILE, "application/pdf", "storage:never-synced.pdf")])
    # on the holy basil paper's PDF (item 2): a highlight with a comment on page 5, a note, one in the trash
    conn.executemany("INSERT INTO itemAnnotations VALUES (?, ?, ?, 'me', ?, ?, ?, ?, ?, ?, 0)", [
        (30, 2, 1, f"The {HIGHLIGHTED} by the oil", "check the dose", "#ffd400", "5", "00004|000120|00300",
         json.dumps({"pageIndex": 4, "rects": [[50, 300, 500, 312]]})),
        (31, 2, 2, None, "Compare with the garlic study", "#5fb236", "2", "00001|000010|00100",
         json.dumps({"pageIndex": 1, "rects": [[40, 700, 62, 722]]})),
        (32, 2, 1, "deleted words", "", "#ffd400", "3", "00002|000000|00000", json.dumps({"pageIndex": 2})),
    ])
    conn.execute("INSERT INTO deletedItems(itemID) VALUES (32)")
    conn.commit()
    conn.close()
    return data, base


def write_profile(home: Path, data: Path, base: Path | None) -> Path:
    """A Zotero profile under HOME whose prefs.js names this data folder (and its base folder)."""
    profile = home / ".zotero" / "zotero" / "x1y2z3.default"
    profile.mkdir(parents=True)
    lines = ['// Mozilla User Preferences', f'user_pref("extensions.zotero.dataDir", {json.dumps(str(data))});',
             'user_pref("extensions.zotero.useDataDir", true);']
    if base is not None:
        lines.append(f'user_pref("extensions.zotero.baseAttachmentPath", {json.dumps(str(base))});')
    (profile / "prefs.js").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return profile


def test_the_base_folder_comes_from_the_profile_that_names_this_data_folder(zotero, tmp_path):
    data, base = zotero
    other = tmp_path / "other-home" / ".zotero" / "zotero" / "p.default"
    other.mkdir(parents=True)
    (other / "prefs.js").write_text('user_pref("extensions.zotero.dataDir", "/somewhere/else");\n'
                                    'user_pref("extensions.zotero.baseAttachmentPath", "/wrong/base");\n')
    profile = write_profile(tmp_path / "home", data, base)
    assert linked_base_folder(data, [other, profile]) == (base, profile / "prefs.js")
    assert linked_base_folder(data, [other]) == (None, None)  # another data folder's settings are not taken


def test_without_a_base_folder_the_linked_item_is_absent_with_what_to_do(zotero):
    data, _base = zotero
    read = read_zotero(data)
    assert {a.attachment_key for a in read.attachments} == {"ATTACH01", "LINKED01"}
    absent = {item.item_key: item for item in read.absent}
    assert set(absent) == {"ARTICLE3", "ARTICLE4"}
    assert absent["ARTICLE3"].title == "Notch signalling reviewed" and absent["ARTICLE3"].advice == ADVICE_BASE
    assert absent["ARTICLE4"].title == "A paper whose PDF never synced" and absent["ARTICLE4"].advice == ADVICE_STORED
    assert "never-synced.pdf" in absent["ARTICLE4"].reason


def test_annotations_are_read_kept_and_found_and_zotero_is_untouched(zotero, tmp_path):
    data, base = zotero
    before = sha(data / "zotero.sqlite")
    profile = write_profile(tmp_path / "home", data, base)
    with LibraryStore(tmp_path / "lib") as store:
        report = add_zotero(store, data, profiles=[profile])
        assert report.base_dir == str(base) and report.base_dir_from == str(profile / "prefs.js")
        assert report.found == 3 and report.annotations == 2
        assert [item.item_key for item in report.absent] == ["ARTICLE4"]  # the linked one is found now
        papers = {p.zotero_attachment_key: p for p in store.papers()}
        assert papers["BASELNK1"].source_path == str((base / "reviews" / "notch-review.pdf").resolve())
        basil = papers["ATTACH01"]
        notes = store.annotations(basil.id)
        assert [(a.kind, a.page, a.page_label) for a in notes] == [("note", 2, "2"), ("highlight", 5, "5")]
        assert notes[1].text == f"The {HIGHLIGHTED} by the oil" and notes[1].comment == "check the dose"
        # the user's highlighted words and comments find their paper
        assert [p.id for p in store.papers(PaperFilter(search=HIGHLIGHTED))] == [basil.id]
        assert [p.id for p in store.papers(PaperFilter(search="garlic study"))] == [basil.id]
        assert [a.item_key for a in store.absent()] == ["ARTICLE4"]
        # the user deletes the note in Zotero: the next reading drops it
        conn = sqlite3.connect(data / "zotero.sqlite")
        conn.execute("INSERT INTO deletedItems(itemID) VALUES (31)")
        conn.commit()
        conn.close()
        before = sha(data / "zotero.sqlite")
        again = add_zotero(store, data, profiles=[profile])
        assert again.annotations == 1 and [a.kind for a in store.annotations(basil.id)] == ["highlight"]
    assert sha(data / "zotero.sqlite") == before
