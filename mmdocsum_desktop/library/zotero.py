"""A Zotero data folder as a source of papers, read strictly read-only.

Zotero keeps its library in ``zotero.sqlite`` and holds a lock on it while it runs. The file is opened
through SQLite's URI ``file:...?mode=ro&immutable=1``: read-only, and *immutable* tells SQLite not to
take locks or look for a journal, so a running Zotero neither blocks us nor sees us, and nothing is ever
written there (not even a ``-wal`` or ``-shm`` file beside it). Should that open fail (a file system
that refuses it), the database is copied to a temporary folder and the copy is read.

One paper per Zotero item: the item's PDF (the oldest whose file is there); its web snapshot or other
files only when the item has no PDF (see :func:`read_attachments`).

What is read (Zotero 7's schema): the attachments in ``itemAttachments`` whose file is a paper (PDF,
HTML, EPUB is not read) — ``path = 'storage:NAME'`` for files Zotero stores under ``storage/KEY/``, an
absolute path for linked files, ``attachments:REL`` relative to the linked-attachment base folder when
given. Every path is checked before its file is opened: ``storage:NAME`` must resolve inside ``storage/``
(a key like ``../../private`` or an absolute NAME is left out), ``attachments:REL`` inside the base folder,
and an absolute path is taken only for a linked file (linkMode 2) named as a paper; what is left out is
reported. Text that is not UTF-8 (a damaged database) is read with replacement characters. Then its parent item's title, creators, date, DOI, tags and collections from ``items``, ``itemData``,
``itemDataValues``, ``fields``, ``creators``/``itemCreators``, ``tags``/``itemTags``, ``collections``/
``collectionItems``. Items (parent or attachment) in ``deletedItems`` — Zotero's trash — are left out.

Citation keys: Better BibTeX keeps its keys in ``better-bibtex.sqlite`` beside ``zotero.sqlite`` (table
``citationkey`` since Better BibTeX 6; before that a JSON document in the ``better-bibtex`` table), read
with the same read-only, lock-free open and never written; an item without one there gives the key of a
``Citation Key: …`` line in its Extra field (or Zotero's own ``citationKey`` field). A database that cannot
be read gives no keys, and the library's own keys stand in (:mod:`library.citekeys`).

The linked-attachment base folder (ZotFile-style ``attachments:`` paths) is the one given, else the one
Zotero's own settings name: the ``extensions.zotero.baseAttachmentPath`` of the profile's ``prefs.js``
whose ``extensions.zotero.dataDir`` is this data folder (or, where no profile names one, the profile of the
default data folder ``~/Zotero``), read-only (:func:`linked_base_folder`).

Annotations made in Zotero's reader (``itemAnnotations``, Zotero 6 and 7: highlights and underlines with
their text, notes, text boxes, image areas, ink; the user's comment; the page) are read with the paper they
annotate (:func:`read_zotero`). An item whose paper is not on this computer is reported with its title and
what to do (:class:`~mmdocsum_desktop.schemas.library.AbsentItem`), and the library keeps the list.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from mmdocsum_desktop.errors import InputNotFoundError, MmdocsumError
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.library.citekeys import clean_key, extra_citation_key
from mmdocsum_desktop.library.sources import Candidate, register
from mmdocsum_desktop.library.store import LibraryStore, Metadata
from mmdocsum_desktop.schemas.library import PAPER_SUFFIXES, AbsentItem, Annotation, SourceReport

DB_NAME = "zotero.sqlite"
BBT_DB_NAME = "better-bibtex.sqlite"
USER_LIBRARY_ID = 1  # Zotero's own library (groups have other ids)
# content types of attachments that are papers the readers take
_PAPER_TYPES = ("application/pdf", "text/html", "application/xhtml+xml", "text/markdown", "application/xml",
                "text/xml")
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")
_KEY = re.compile(r"[A-Za-z0-9]{1,32}")  # Zotero's item keys (eight of 23456789ABCDEFGHIJKLMNPQRSTUVWXYZ)
LINKED_FILE = 2  # itemAttachments.linkMode of a file linked where the user keeps it (not under storage/)
# itemAnnotations.type (Zotero's annotation types)
ANNOTATION_KINDS = {1: "highlight", 2: "note", 3: "image", 4: "ink", 5: "underline", 6: "text"}
PREFS_MAX_BYTES = 8 * 2**20  # a prefs.js larger than this is not read
_PREF = re.compile(r'^\s*user_pref\(\s*"(extensions\.zotero\.(?:baseAttachmentPath|dataDir|useDataDir))"\s*,\s*(.+?)\s*\)\s*;',
                   re.MULTILINE)
ADVICE_BASE = ("give the linked-attachment base folder: mmdocsum library add --zotero DIR --zotero-base FOLDER "
               "(Zotero: Settings > Advanced > Files and Folders > Linked Attachment Base Directory)")
ADVICE_STORED = ("the file is not on this computer: open the item in Zotero (it downloads the file when file "
                 "syncing is on) or attach the PDF again, then add the library again")
ADVICE_LINKED = ("the linked file was moved or deleted: relink it in Zotero (Show File > Locate), then add the "
                 "library again")


class ZoteroError(MmdocsumError):
    """The Zotero data folder cannot be read."""


@dataclass(frozen=True)
class ZoteroAttachment:
    attachment_key: str
    item_key: str | None
    library_id: int
    path: Path
    metadata: Metadata
    annotations: tuple[Annotation, ...] = ()  # the Zotero reader's, in reading order


@dataclass(frozen=True)
class ZoteroRead:
    """What a Zotero data folder holds for the library: its papers, a line for each item left out, and the
    items whose paper is not here."""

    attachments: list[ZoteroAttachment]
    skipped: list[str]
    absent: list[AbsentItem]


def database_uri(path: Path) -> str:
    """The read-only, lock-free URI of a Zotero database (see the module docstring)."""
    return f"file:{quote(str(path.resolve()))}?mode=ro&immutable=1"


def _text(value: bytes) -> str:
    return value.decode("utf-8", "replace")


@contextmanager
def open_read_only(data_dir: Path) -> Iterator[sqlite3.Connection]:
    database = data_dir / DB_NAME
    if not database.is_file():
        raise InputNotFoundError(f"{data_dir}: not a Zotero data folder (no {DB_NAME}; Zotero ▸ Settings ▸ "
                                 "Advanced ▸ Files and Folders shows where it is)")
    try:
        conn = sqlite3.connect(database_uri(database), uri=True)
        conn.text_factory = _text  # a damaged value is text with a replacement character, not a traceback
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError:
        # some file systems refuse the immutable open: read a copy instead, never the original for writing
        with tempfile.TemporaryDirectory(prefix="mmdocsum-zotero-") as scratch:
            copy = Path(scratch) / DB_NAME
            shutil.copyfile(database, copy)
            try:
                conn = sqlite3.connect(database_uri(copy), uri=True)
                conn.text_factory = _text
                yield conn
            except (sqlite3.DatabaseError, ValueError, TypeError) as error:  # damaged: values of the wrong type too
                raise ZoteroError(f"{database}: not a readable Zotero database ({error})") from None
            finally:
                conn.close()
        return
    try:
        yield conn
    except (sqlite3.DatabaseError, ValueError, TypeError) as error:  # damaged: values of the wrong type too
        raise ZoteroError(f"{database}: not a readable Zotero database ({error})") from None
    finally:
        conn.close()


@dataclass
class _Attachment:
    item_id: int
    key: str
    owner: int  # the item it belongs to: its parent, or itself when standalone
    parent_key: str | None
    library_id: int
    stored: str
    path: Path | None  # None: relative to a base folder that was not given
    is_pdf: bool


def read_attachments(data_dir: Path, *, base_dir: Path | None = None) -> tuple[list[ZoteroAttachment], list[str]]:
    """The papers of a Zotero data folder and a line for each item left out (see :func:`read_zotero`)."""
    read = read_zotero(data_dir, base_dir=base_dir)
    return read.attachments, read.skipped


def read_zotero(data_dir: Path, *, base_dir: Path | None = None) -> ZoteroRead:
    """The papers of a Zotero data folder, one per item, with the item's metadata and the annotations of
    its paper; one line for each item left out (its file not there, a relative path without a base folder)
    and, for those whose paper is not here, an :class:`AbsentItem` saying what to do.

    One paper per item: an item's PDF is its paper (the oldest PDF whose file is there, when it has
    several); its web snapshot (HTML) and other files are read only when the item has no PDF at all. An
    item whose PDF's file is not there is reported, not replaced by its snapshot."""
    data_dir = data_dir.expanduser().resolve()
    skipped: list[str] = []
    absent: list[AbsentItem] = []
    found: list[ZoteroAttachment] = []
    keys = better_bibtex_keys(data_dir)
    with open_read_only(data_dir) as conn:
        conn.row_factory = sqlite3.Row
        trashed = {int(r[0]) for r in conn.execute("SELECT itemID FROM deletedItems")}
        fields = _item_fields(conn)
        creators = _item_creators(conn)
        tags = _item_tags(conn)
        collections = _item_collections(conn)
        rows = conn.execute(
            "SELECT a.itemID, a.parentItemID, a.linkMode, a.contentType, a.path, i.key, i.libraryID, "
            "p.key AS parentKey FROM itemAttachments a JOIN items i ON i.itemID = a.itemID "
            "LEFT JOIN items p ON p.itemID = a.parentItemID ORDER BY i.dateAdded, a.itemID").fetchall()
        item_keys = {int(r[0]): (int(r[1]), str(r[2])) for r in conn.execute("SELECT itemID, libraryID, key FROM items")}
        annotations = _annotations(conn, trashed)
    by_item: dict[int, list[_Attachment]] = {}
    for row in rows:
        item_id, parent_id = int(row["itemID"]), row["parentItemID"]
        if item_id in trashed or (parent_id is not None and int(parent_id) in trashed):
            continue
        stored = str(row["path"] or "")
        if not stored:
            continue  # a link to a web page: no file
        try:
            path = _resolve(data_dir, str(row["key"]), stored, base_dir,
                            row["linkMode"] if isinstance(row["linkMode"], int) else None)
        except _Outside as outside:
            skipped.append(f"Zotero attachment {row['key']}: {outside}; not read")
            continue
        content_type = str(row["contentType"] or "")
        suffix = (path or Path(stored)).suffix.lower()
        if suffix not in PAPER_SUFFIXES and content_type not in _PAPER_TYPES:
            continue
        owner = int(parent_id) if parent_id is not None else item_id
        by_item.setdefault(owner, []).append(_Attachment(
            item_id, str(row["key"]), owner, str(row["parentKey"]) if row["parentKey"] else None,
            int(row["libraryID"]), stored, path, content_type == "application/pdf" or suffix == ".pdf"))
    for owner, attachments in by_item.items():
        values = fields.get(owner, {})
        title = values.get("title") or ""
        pdfs = [a for a in attachments if a.is_pdf]
        candidates = pdfs or attachments  # snapshots only when the item has no PDF
        chosen = next((a for a in candidates if a.path is not None and a.path.is_file()), None)
        if chosen is None:
            skipped.append(_why_not(candidates[0], title, has_snapshot=bool(pdfs) and len(pdfs) < len(attachments)))
            absent.append(_absent(data_dir, candidates[0], title))
            continue
        title = title or fields.get(chosen.item_id, {}).get("title") or ""
        year_match = _YEAR.search(values.get("date", ""))
        names = creators.get(owner, [])
        library_id, item_key = item_keys.get(owner, (chosen.library_id, chosen.parent_key or chosen.key))
        citekey = (keys.get((library_id, item_key)) or keys.get((0, str(owner))) or clean_key(values.get("citationKey"))
                   or extra_citation_key(values.get("extra", "")))
        metadata = Metadata(
            title=title, authors=tuple(n for n, _family in names), family_names=tuple(f for _n, f in names),
            year=int(year_match.group(1)) if year_match else None,
            doi=values.get("DOI") or None, collections=tuple(collections.get(owner, [])),
            tags=tuple(dict.fromkeys([*tags.get(owner, []), *tags.get(chosen.item_id, [])])),
            zotero_key=chosen.parent_key or chosen.key, zotero_attachment_key=chosen.key,
            zotero_library_id=chosen.library_id, citekey=citekey,
        )
        assert chosen.path is not None
        found.append(ZoteroAttachment(chosen.key, metadata.zotero_key, chosen.library_id, chosen.path, metadata,
                                      tuple(annotations.get(chosen.item_id, ()))))
    return ZoteroRead(found, skipped, absent)


def better_bibtex_keys(data_dir: Path) -> dict[tuple[int, str], str]:
    """Better BibTeX's citation keys: (library id, item key) → key, and (0, "ITEMID") → key where only the
    item's id is recorded. Read-only and lock-free (as ``zotero.sqlite``); none when there is no such file or
    it cannot be read (a damaged or unknown layout never stops the Zotero folder being read)."""
    database = data_dir / BBT_DB_NAME
    if not database.is_file():
        return {}
    keys: dict[tuple[int, str], str] = {}
    try:
        conn = sqlite3.connect(database_uri(database), uri=True)
    except sqlite3.DatabaseError:
        return {}
    try:
        conn.text_factory = _text
        tables = {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "citationkey" in tables:  # Better BibTeX 6 and later
            rows = [(r[0], r[1], r[2], r[3]) for r in conn.execute(
                "SELECT itemID, libraryID, itemKey, citationKey FROM citationkey")]
        elif "better-bibtex" in tables:  # earlier: a LokiJS collection stored as JSON
            row = conn.execute("SELECT data FROM \"better-bibtex\" WHERE name = 'better-bibtex.citekey'").fetchone()
            data = json.loads(row[0]).get("data", []) if row and row[0] else []
            rows = [(d.get("itemID"), d.get("libraryID"), d.get("itemKey"), d.get("citekey"))
                    for d in data if isinstance(d, dict)]
        else:
            rows = []
    except (sqlite3.DatabaseError, ValueError, TypeError, AttributeError):
        return {}
    finally:
        conn.close()
    for item_id, library_id, item_key, citekey in rows:
        key = clean_key(citekey if isinstance(citekey, str) else None)
        if key is None:
            continue
        if isinstance(item_key, str) and item_key:
            keys[(int(library_id) if isinstance(library_id, int) else USER_LIBRARY_ID, item_key)] = key
        if isinstance(item_id, int):
            keys[(0, str(item_id))] = key
    return keys


def _absent(data_dir: Path, attachment: _Attachment, title: str) -> AbsentItem:
    if attachment.path is None:
        reason, advice = f"{attachment.stored}: relative to the linked-attachment base folder, not known", ADVICE_BASE
    elif attachment.stored.startswith("storage:"):
        reason, advice = f"file not found: {attachment.path}", ADVICE_STORED
    else:
        reason, advice = f"linked file not found: {attachment.path}", ADVICE_LINKED
    return AbsentItem(source=str(data_dir), item_key=attachment.parent_key or attachment.key, title=title,
                      reason=reason, advice=advice)


def _annotations(conn: sqlite3.Connection, trashed: set[int]) -> dict[int, list[Annotation]]:
    """The reader's annotations by the attachment they annotate, in reading order (Zotero 6 and 7; none
    before). A row of a shape Zotero never writes is left out, not guessed."""
    if not _has_table(conn, "itemAnnotations"):
        return {}
    out: dict[int, list[Annotation]] = {}
    rows = conn.execute("SELECT a.itemID, a.parentItemID, a.type, a.text, a.comment, a.color, a.pageLabel, "
                        "a.sortIndex, a.position, i.key FROM itemAnnotations a JOIN items i ON i.itemID = a.itemID "
                        "ORDER BY a.parentItemID, a.sortIndex, a.itemID").fetchall()
    for row in rows:
        item_id, parent, kind = row[0], row[1], ANNOTATION_KINDS.get(row[2]) if isinstance(row[2], int) else None
        if kind is None or not isinstance(parent, int) or item_id in trashed or parent in trashed:
            continue
        page: int | None = None
        try:
            position = json.loads(row[8]) if isinstance(row[8], str) and len(row[8]) < 1_000_000 else {}
            index = position.get("pageIndex") if isinstance(position, dict) else None
            page = index + 1 if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < 100_000 else None
        except ValueError:
            page = None
        out.setdefault(parent, []).append(Annotation(
            key=str(row[9]), kind=kind, text=" ".join(str(row[3] or "").split()),  # type: ignore[arg-type]
            comment=str(row[4] or "").strip(), color=str(row[5] or ""), page_label=str(row[6] or ""),
            page=page, sort_index=str(row[7] or "")))
    return out


def _why_not(attachment: _Attachment, title: str, *, has_snapshot: bool) -> str:
    item = f"Zotero item {attachment.parent_key or attachment.key}" + (f" ({title})" if title else "")
    snapshot = "; its web snapshot is not read while the item has a PDF" if has_snapshot else ""
    if attachment.path is None:
        return (f"{item}: {attachment.stored} (relative to the linked-attachment base folder, which was not "
                f"given){snapshot}")
    return f"{item}: file not found: {attachment.path}{snapshot}"


def add_zotero(store: LibraryStore, data_dir: Path, *, base_dir: Path | None = None,
               control: JobControl | None = None, profiles: list[Path] | None = None) -> SourceReport:
    """Register a Zotero library's paper attachments with their annotations; those gone from it (deleted,
    trashed) are marked missing; the items whose paper is not here are kept as absent. ``base_dir`` None:
    the base folder Zotero's prefs.js names for this data folder (``profiles``: where to look)."""
    data_dir = data_dir.expanduser().resolve()
    base_from = "--zotero-base" if base_dir is not None else None
    if base_dir is None:
        found_base, prefs = linked_base_folder(data_dir, profiles)
        if found_base is not None:
            base_dir, base_from = found_base, str(prefs)
    read = read_zotero(data_dir, base_dir=base_dir)
    report = SourceReport(source=str(data_dir), kind="zotero", skipped=read.skipped, absent=read.absent,
                          annotations=sum(len(a.annotations) for a in read.attachments),
                          base_dir=str(base_dir) if base_dir is not None else None, base_dir_from=base_from)
    candidates = [Candidate(a.path, a.metadata) for a in read.attachments]
    register(store, candidates, root=str(data_dir), kind="zotero", report=report, control=control)
    store.replace_annotations(str(data_dir), {str(a.path): list(a.annotations) for a in read.attachments})
    store.replace_absent(str(data_dir), read.absent)
    # an item's earlier paper at another path (its snapshot, before it had a PDF; or both, as libraries
    # before one paper per item held them) goes: one paper per item
    report.superseded = store.remove_superseded(
        str(data_dir), {(a.library_id, a.item_key or a.attachment_key): str(a.path) for a in read.attachments})
    return report


def open_pdf_link(attachment_key: str, page: int | None = None, library_id: int | None = None,
                  group_id: int | None = None) -> str:
    """zotero://open-pdf/... : opens the attachment in Zotero's reader, at ``page`` (1-based) when given."""
    where = f"groups/{group_id}" if group_id is not None else "library"
    link = f"zotero://open-pdf/{where}/items/{attachment_key}"
    return f"{link}?page={page}" if page else link


class _Outside(ValueError):
    """A path from Zotero's database that leaves the folder it must be in."""


def _inside(folder: Path, relative: str, what: str) -> Path:
    """``folder / relative`` resolved (links followed), when it stays inside ``folder``; else _Outside."""
    if not relative or "\x00" in relative or Path(relative).is_absolute():
        raise _Outside(f"{relative!r} is not a path relative to {what}")
    try:
        resolved = (folder / relative).resolve()
        inside = resolved.is_relative_to(folder.resolve())
    except (OSError, RuntimeError, ValueError):
        inside = False
    if not inside:
        raise _Outside(f"{relative!r} leads outside {what}")
    return resolved


def _resolve(data_dir: Path, key: str, stored: str, base_dir: Path | None, link_mode: int | None = None) -> Path | None:
    """Where an attachment's file is: ``storage:NAME`` inside ``storage/KEY/``, ``attachments:REL`` inside the
    base folder, an absolute path only for a linked file (Zotero's linkMode 2) named as a paper (.pdf, .html…).
    Decided on the path before the file is opened; _Outside when it leaves where it must be."""
    if stored.startswith("storage:"):
        if not _KEY.fullmatch(key):
            raise _Outside(f"the attachment key {key!r} is not a Zotero key")
        storage, name = data_dir / "storage", stored.removeprefix("storage:")
        if Path(name).is_absolute():
            raise _Outside(f"{stored!r} names an absolute path, not a file of storage/{key}/")
        return _inside(storage, f"{key}/{name}", f"{storage}")
    if stored.startswith("attachments:"):
        if base_dir is None:
            return None
        return _inside(base_dir.expanduser(), stored.removeprefix("attachments:"), f"the base folder {base_dir}")
    path = Path(stored)
    if link_mode != LINKED_FILE or not path.is_absolute() or "\x00" in stored:
        raise _Outside(f"{stored!r} is neither in storage/ nor a linked file")
    if path.suffix.lower() not in PAPER_SUFFIXES:
        raise _Outside(f"the linked file {stored!r} is not named as a paper ({', '.join(sorted(PAPER_SUFFIXES))})")
    return path


def _item_fields(conn: sqlite3.Connection) -> dict[int, dict[str, str]]:
    out: dict[int, dict[str, str]] = {}
    for row in conn.execute("SELECT d.itemID, f.fieldName, v.value FROM itemData d JOIN fields f ON f.fieldID = d.fieldID "
                            "JOIN itemDataValues v ON v.valueID = d.valueID"):
        out.setdefault(int(row[0]), {})[str(row[1])] = str(row[2])
    return out


def _item_creators(conn: sqlite3.Connection) -> dict[int, list[tuple[str, str]]]:
    """Item → its creators as (full name, family name): Zotero's ``lastName`` is the family name whole
    ("De Bock" of "Jasper De Bock"); a one-field name (an institution) is its own family name."""
    out: dict[int, list[tuple[str, str]]] = {}
    for row in conn.execute("SELECT ic.itemID, c.firstName, c.lastName FROM itemCreators ic "
                            "JOIN creators c ON c.creatorID = ic.creatorID ORDER BY ic.itemID, ic.orderIndex"):
        first, last = " ".join(str(row[1] or "").split()), " ".join(str(row[2] or "").split())
        name = " ".join(f"{first} {last}".split())
        if name:
            out.setdefault(int(row[0]), []).append((name, last or first))
    return out


def _item_tags(conn: sqlite3.Connection) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    if not _has_table(conn, "itemTags"):
        return out
    for row in conn.execute("SELECT it.itemID, t.name FROM itemTags it JOIN tags t ON t.tagID = it.tagID ORDER BY t.name"):
        out.setdefault(int(row[0]), []).append(str(row[1]))
    return out


def _item_collections(conn: sqlite3.Connection) -> dict[int, list[str]]:
    """Item → the paths of its collections ("Parent/Child"); collections in the trash are left out."""
    rows = conn.execute("SELECT collectionID, collectionName, parentCollectionID FROM collections").fetchall()
    trashed = ({int(r[0]) for r in conn.execute("SELECT collectionID FROM deletedCollections")}
               if _has_table(conn, "deletedCollections") else set())
    parents = {int(r[0]): (str(r[1]), r[2]) for r in rows}

    def path_of(collection_id: int) -> str | None:
        names: list[str] = []
        seen: set[int] = set()
        current: int | None = collection_id
        while current is not None and current in parents and current not in seen:
            if current in trashed:
                return None
            seen.add(current)
            name, parent = parents[current]
            names.append(name)
            current = int(parent) if parent is not None else None
        return "/".join(reversed(names)) if names else None

    out: dict[int, list[str]] = {}
    for row in conn.execute("SELECT collectionID, itemID FROM collectionItems ORDER BY orderIndex"):
        path = path_of(int(row[0]))
        if path:
            out.setdefault(int(row[1]), []).append(path)
    return out


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone() is not None


# ------------------------------------------------------------------------- Zotero's own settings


def profile_folders(home: Path | None = None) -> list[Path]:
    """Zotero's profile folders holding a prefs.js (Linux, macOS, Windows places)."""
    home = home if home is not None else Path.home()
    roots = [home / ".zotero" / "zotero", home / "Library" / "Application Support" / "Zotero" / "Profiles"]
    appdata = os.environ.get("APPDATA")
    if appdata:
        roots.append(Path(appdata) / "Zotero" / "Zotero" / "Profiles")
    found: list[Path] = []
    for root in roots:
        try:
            found += [p for p in sorted(root.iterdir()) if (p / "prefs.js").is_file()]
        except OSError:
            continue
    return found


def read_prefs(path: Path) -> dict[str, object]:
    """The Zotero preferences of a prefs.js the library uses (base folder, data folder), read as text,
    never executed; {} when it cannot be read or is not a regular file of bounded size."""
    try:
        if not path.is_file() or path.stat().st_size > PREFS_MAX_BYTES:
            return {}
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    prefs: dict[str, object] = {}
    for match in _PREF.finditer(text):
        try:
            prefs[match.group(1)] = json.loads(match.group(2))
        except ValueError:
            continue
    return prefs


def linked_base_folder(data_dir: Path, profiles: list[Path] | None = None) -> tuple[Path | None, Path | None]:
    """The linked-attachment base folder Zotero's settings name for ``data_dir`` and the prefs.js that
    names it: the profile whose ``dataDir`` is this folder, else (when no profile names a data folder of
    its own and this is the default ``~/Zotero``) the only profile or the first with a base folder."""
    data_dir = data_dir.expanduser().resolve()
    candidates = profile_folders() if profiles is None else profiles
    read = [(folder / "prefs.js", read_prefs(folder / "prefs.js")) for folder in candidates]

    def base(prefs: dict[str, object]) -> Path | None:
        value = prefs.get("extensions.zotero.baseAttachmentPath")
        return Path(value).expanduser() if isinstance(value, str) and value.strip() else None

    for path, prefs in read:
        named = prefs.get("extensions.zotero.dataDir")
        if isinstance(named, str) and named.strip() and prefs.get("extensions.zotero.useDataDir", True) is not False:
            try:
                same = Path(named).expanduser().resolve() == data_dir
            except (OSError, RuntimeError):
                same = False
            if same:
                return base(prefs), path
    default = (Path.home() / "Zotero").resolve()
    if data_dir == default:
        own = [(path, prefs) for path, prefs in read if not prefs.get("extensions.zotero.dataDir")
               or prefs.get("extensions.zotero.useDataDir") is False]
        for path, prefs in own:
            if base(prefs) is not None:
                return base(prefs), path
    return None, None
