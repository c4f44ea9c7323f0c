"""The library's one SQLite file: papers, their content (passages with embeddings, figures and tables),
their summaries; WAL so a reader (the window, a second command) never waits for the indexer, FTS5 for
the words of every passage.

Identity. A *paper* is a file path (``papers.source_path`` is unique: adding the same file twice is one
paper). What was read from it is keyed by the file's sha256 (``contents.hash``): two paths holding the
same bytes share one content (read once; the second is marked ``duplicate_of`` the first), and a file
whose bytes changed gets a new content and is read again. A content no paper refers to any more is
deleted by :meth:`LibraryStore.collect_garbage`.

Crash safety. Everything one paper's indexing writes (content, passages, their FTS rows, visuals, the
paper's status) is one transaction: a kill -9 leaves the paper pending, never half-stored, so a resumed
run reads it again and duplicates nothing. Two processes indexing at once each *claim* a paper before
reading it (``claimed_by``: host, pid and a token); a claim whose process is gone (killed) or older than
:data:`CLAIM_LEASE_S` is taken over.

Summaries in a batch are claimed the same way (``summary_claimed_by``): a paper ``queued`` or ``running``
whose batch process is gone goes back to ``pending`` when the library is next opened (:meth:`recover`),
as do indexing claims of dead processes.

Whose file it is: the app marks a library it creates with its own ``PRAGMA application_id``
(:data:`APPLICATION_ID`, in the file's header) and opens only a file that carries it (or, unmarked, one
with this app's tables, written before the marker existed, which is marked then). Another program's SQLite
file named ``library.sqlite`` (a Zotero database among them) and a ``library.sqlite`` (or its ``-wal``,
``-shm`` or ``-journal`` file) that is a symbolic link are refused with a message before SQLite opens them
for writing: nothing is written there. The header is read from the file itself, not through SQLite.

Schema version: ``PRAGMA user_version``; a file written by a newer version is refused with a message,
never altered. Version 2 added the notes written by export (``notes``: what the app last wrote in each
note, so a note the user edited is never overwritten), the summaries' claims and the authors' family
names; version 3 the citation key a Zotero item gives (``papers.citekey``: Better BibTeX's, or its Extra
field's). Files of versions 1 and 2 are upgraded in place.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import stat
import threading
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np

from mmdocsum_desktop.errors import MmdocsumError
from mmdocsum_desktop.library.citekeys import KeyEntry, clean_key, unique_keys
from mmdocsum_desktop.schemas.library import AbsentItem, Annotation, Paper, PaperFilter, VisualRecord
from mmdocsum_desktop.text.tokens import tokens

SCHEMA_VERSION = 4
FILE_NAME = "library.sqlite"
# the app's mark in the SQLite header (PRAGMA application_id, bytes 68-71): "mmds"
APPLICATION_ID = int.from_bytes(b"mmds", "big")
_SQLITE_HEADER = b"SQLite format 3\x00"
# what an unmarked library of this app (written before the marker) holds
_OWN_TABLES = frozenset({"meta", "papers", "contents", "passages", "visuals"})
# a claim older than this is taken over even when its process seems alive (a hung or reused pid)
CLAIM_LEASE_S = 30 * 60.0
# version 1 → 2, statement by statement (inside one transaction, the version checked again in it)
_UPGRADE_1_2 = (
    "ALTER TABLE papers ADD COLUMN family_names TEXT NOT NULL DEFAULT '[]'",
    "ALTER TABLE papers ADD COLUMN summary_claimed_by TEXT",
    "CREATE TABLE IF NOT EXISTS notes (path TEXT PRIMARY KEY, folder TEXT NOT NULL, owner TEXT NOT NULL, "
    "paper_id INTEGER, body_hash TEXT NOT NULL, properties TEXT NOT NULL DEFAULT '{}', written_at REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS notes_owner ON notes(folder, owner)",
)
# version 2 → 3
_UPGRADE_2_3 = ("ALTER TABLE papers ADD COLUMN citekey TEXT",)
# version 3 → 4: the Zotero reader's annotations, and the Zotero items whose paper is not here
_ANNOTATIONS_TABLE = (
    "CREATE TABLE IF NOT EXISTS annotations (paper_id INTEGER NOT NULL, key TEXT NOT NULL, kind TEXT NOT NULL, "
    "text TEXT NOT NULL DEFAULT '', comment TEXT NOT NULL DEFAULT '', color TEXT NOT NULL DEFAULT '', "
    "page_label TEXT NOT NULL DEFAULT '', page INTEGER, sort_index TEXT NOT NULL DEFAULT '', "
    "PRIMARY KEY (paper_id, key))")
_ABSENT_TABLE = (
    "CREATE TABLE IF NOT EXISTS absent (source_root TEXT NOT NULL, item_key TEXT NOT NULL, "
    "title TEXT NOT NULL DEFAULT '', reason TEXT NOT NULL, advice TEXT NOT NULL DEFAULT '', seen_at REAL NOT NULL, "
    "PRIMARY KEY (source_root, item_key))")
_UPGRADE_3_4 = (_ANNOTATIONS_TABLE, _ABSENT_TABLE)
# embeddings are stored as float16: half the file and the memory, and cosine ranks do not change
VECTOR_DTYPE = np.float16

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS papers (
    id INTEGER PRIMARY KEY,
    source_path TEXT NOT NULL UNIQUE,
    source_kind TEXT NOT NULL DEFAULT 'folder',
    source_root TEXT NOT NULL DEFAULT '',
    size INTEGER, mtime_ns INTEGER,
    content_hash TEXT NOT NULL DEFAULT '',
    title TEXT NOT NULL DEFAULT '', authors TEXT NOT NULL DEFAULT '[]', year INTEGER, doi TEXT,
    family_names TEXT NOT NULL DEFAULT '[]', citekey TEXT,
    collections TEXT NOT NULL DEFAULT '[]', tags TEXT NOT NULL DEFAULT '[]',
    zotero_key TEXT, zotero_attachment_key TEXT, zotero_library_id INTEGER,
    status TEXT NOT NULL DEFAULT 'pending', error TEXT,
    claimed_by TEXT, claimed_at REAL,
    added_at REAL NOT NULL, indexed_at REAL,
    summary_status TEXT NOT NULL DEFAULT 'none', summary_error TEXT, summary_json TEXT, summary_assets TEXT,
    summary_at REAL, summary_claimed_by TEXT
);
CREATE INDEX IF NOT EXISTS papers_hash ON papers(content_hash);
CREATE INDEX IF NOT EXISTS papers_status ON papers(status);
CREATE TABLE IF NOT EXISTS contents (
    hash TEXT PRIMARY KEY,
    title TEXT NOT NULL DEFAULT '', language TEXT, pages INTEGER, figures INTEGER NOT NULL DEFAULT 0,
    tables INTEGER NOT NULL DEFAULT 0, doi TEXT, passages INTEGER NOT NULL DEFAULT 0,
    indexed_at REAL NOT NULL, read_seconds REAL NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS passages (
    id INTEGER PRIMARY KEY,
    content_hash TEXT NOT NULL,
    idx INTEGER NOT NULL, kind TEXT NOT NULL, text TEXT NOT NULL, page INTEGER, block TEXT,
    labels TEXT NOT NULL DEFAULT '[]', section TEXT, figure TEXT, inherited INTEGER NOT NULL DEFAULT 0,
    vector BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS passages_content ON passages(content_hash, idx);
CREATE TABLE IF NOT EXISTS visuals (
    content_hash TEXT NOT NULL, position INTEGER NOT NULL, label TEXT, kind TEXT NOT NULL,
    page INTEGER, caption TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS visuals_content ON visuals(content_hash);
CREATE TABLE IF NOT EXISTS notes (
    path TEXT PRIMARY KEY, folder TEXT NOT NULL, owner TEXT NOT NULL, paper_id INTEGER,
    body_hash TEXT NOT NULL, properties TEXT NOT NULL DEFAULT '{}', written_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS notes_owner ON notes(folder, owner);
CREATE VIRTUAL TABLE IF NOT EXISTS passages_fts USING fts5(
    text, content='passages', content_rowid='id', tokenize='porter unicode61'
);
CREATE TRIGGER IF NOT EXISTS passages_ai AFTER INSERT ON passages BEGIN
    INSERT INTO passages_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER IF NOT EXISTS passages_ad AFTER DELETE ON passages BEGIN
    INSERT INTO passages_fts(passages_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
"""
_SCHEMA += _ANNOTATIONS_TABLE + ";\n" + _ABSENT_TABLE + ";\n"

_SORTS = {"title": "lower(coalesce(nullif(p.title, ''), p.source_path))", "year": "p.year", "authors": "lower(p.authors)",
          "status": "p.status", "added": "p.added_at", "language": "c.language"}


class LibraryError(MmdocsumError):
    """The library file cannot be used (newer schema, damaged, not writable)."""


@dataclass(frozen=True)
class FileState:
    size: int
    mtime_ns: int
    content_hash: str
    status: str


@dataclass(frozen=True)
class Metadata:
    """What a source knows of a paper before it is read (Zotero does; a folder knows nothing)."""

    title: str = ""
    authors: tuple[str, ...] = ()
    year: int | None = None
    doi: str | None = None
    # each author's family name as the source gives it ("De Bock"), parallel to ``authors``; empty: unknown
    family_names: tuple[str, ...] = ()
    collections: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    zotero_key: str | None = None
    zotero_attachment_key: str | None = None
    zotero_library_id: int | None = None
    citekey: str | None = None  # the key Zotero gives the item (Better BibTeX's, or its Extra field's)


@dataclass(frozen=True)
class StoredPassage:
    id: int
    content_hash: str
    idx: int
    kind: str
    text: str
    page: int | None
    block: str | None
    labels: tuple[str, ...]
    section: str | None
    figure: str | None
    inherited: bool


@dataclass(frozen=True)
class NewPassage:
    """A passage to store (the indexer's, from ``retrieval.passages.Passage``)."""

    kind: str
    text: str
    page: int | None
    block: str | None
    labels: tuple[str, ...]
    section: str | None
    figure: str | None
    inherited: bool


@dataclass(frozen=True)
class ContentFacts:
    title: str
    language: str | None
    pages: int | None
    doi: str | None
    read_seconds: float
    # what the file itself says of its authors and year (a folder PDF's metadata and first page): given to
    # the paper only where its source gave none
    authors: tuple[str, ...] = ()
    family_names: tuple[str, ...] = ()
    year: int | None = None


@dataclass
class VectorTable:
    """Every stored passage's embedding in memory (what a library-wide question is compared with)."""

    passage_ids: np.ndarray  # int64 (n,)
    content_of: np.ndarray  # int32 (n,): index into ``contents``
    contents: list[str]  # content hashes
    vectors: np.ndarray  # float32 (n, dim)
    generation: int


def claim_token() -> str:
    """This process's claim on a paper: host, pid and a random part (a pid is reused after a while)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@dataclass(frozen=True)
class NoteRecord:
    """What export last wrote in one note: the hash of its generated part and the properties it wrote."""

    path: str
    folder: str
    owner: str
    paper_id: int | None
    body_hash: str
    properties: dict[str, Any]


def _claim_is_stale(token: str | None, claimed_at: float | None, now: float, *, lease: bool = True) -> bool:
    """Whether a claim may be taken over: none, past the lease (``lease``), or its process gone."""
    if not token:
        return True
    if lease and (claimed_at is None or now - claimed_at > CLAIM_LEASE_S):
        return True
    host, _, rest = token.partition(":")
    pid_text = rest.partition(":")[0]
    if host != socket.gethostname() or not pid_text.isdigit():
        return False  # another machine's claim (a library on a shared disk): only the lease ends it
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return True  # the process that claimed it is gone (killed, crashed)
    except PermissionError:
        return False
    return False


def check_library_file(path: Path) -> str:
    """Whether ``path`` may be opened as a library: "new" (absent or empty), "ours" (it carries
    :data:`APPLICATION_ID`) or "unmarked" (this app's tables, written before the mark); else LibraryError,
    nothing written: a symbolic link (the file or its journals), not a regular file, not SQLite, another
    program's SQLite database (Zotero's named as such)."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        linked = Path(f"{path}{suffix}")
        if linked.is_symlink():
            raise LibraryError(f"{linked} is a symbolic link (to {os.readlink(linked)}); a library file is never "
                               "opened through a link, so nothing was changed: remove the link or choose another "
                               "--library folder")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return "new"
    except OSError as error:
        raise LibraryError(f"{path}: cannot read it ({error.strerror or error})") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise LibraryError(f"{path}: not a regular file, so not a library; nothing was changed")
        header = os.read(fd, 100)
    finally:
        os.close(fd)
    if not header:
        return "new"
    refusal = (f"{path}: not an mmdocsum library (it does not carry the app's mark) and it is left as it is; "
               "give --library a folder of its own")
    if len(header) < 100 or not header.startswith(_SQLITE_HEADER):
        raise LibraryError(f"{path}: not a SQLite file, so not an mmdocsum library; it is left as it is: give "
                           "--library a folder of its own")
    application_id = int.from_bytes(header[68:72], "big")
    if application_id == APPLICATION_ID:
        return "ours"
    if application_id != 0:
        raise LibraryError(f"{path}: another program's SQLite database (application id {application_id:#x}), not "
                           "an mmdocsum library; it is left as it is: give --library a folder of its own")
    try:  # read-only and immutable: no lock, no journal rolled back, nothing written
        conn = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro&immutable=1", uri=True)
        try:
            tables = {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            generation = ("meta" in tables and conn.execute(
                "SELECT 1 FROM meta WHERE key = 'generation'").fetchone() is not None)
        finally:
            conn.close()
    except sqlite3.DatabaseError as error:
        raise LibraryError(f"{path}: not a usable SQLite file ({error}); it is left as it is") from None
    if "itemAttachments" in tables or "libraries" in tables and "items" in tables:
        raise LibraryError(f"{path}: that is a Zotero database, not an mmdocsum library; it is never written "
                           "(add it with `mmdocsum library add --zotero FOLDER`) and was left as it is")
    if _OWN_TABLES <= tables and generation and 1 <= version:
        return "unmarked"
    raise LibraryError(refusal)


def _busy(error: sqlite3.OperationalError) -> bool:
    text = str(error).lower()
    return "locked" in text or "busy" in text


class LibraryStore:
    """The library file in ``folder``; one connection shared by this process's threads (a lock serialises
    them: SQLite writes one at a time anyway). Every method commits before it returns."""

    def __init__(self, folder: str | os.PathLike[str], *, timeout_s: float = 60.0) -> None:
        self.folder = Path(folder).expanduser()
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise LibraryError(f"{self.folder}: cannot create the library folder ({error.strerror or error})") from None
        if not self.folder.is_dir():
            raise LibraryError(f"{self.folder}: not a folder")
        self.path = self.folder / FILE_NAME
        self._lock = threading.RLock()
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                self._open(timeout_s)
                self.recover()
                return
            except sqlite3.OperationalError as error:
                # Two processes opening a new library at once: switching to WAL and WAL recovery can answer
                # "database is locked" at once, without SQLite's busy handler waiting; try again until the
                # timeout rather than fail (CI saw it with two `mmdocsum library add` at once)
                if getattr(self, "_conn", None) is not None:
                    self._conn.close()
                if not _busy(error) or time.monotonic() >= deadline:
                    raise LibraryError(f"{self.path}: not a usable library file ({error})") from None
                time.sleep(0.05)
            except sqlite3.DatabaseError as error:
                raise LibraryError(f"{self.path}: not a usable library file ({error})") from None

    def _open(self, timeout_s: float) -> None:
        state = check_library_file(self.path)  # before SQLite opens it for writing: another's file is left alone
        # autocommit mode (isolation_level None): transactions are explicit, BEGIN IMMEDIATE where we write
        self._conn = sqlite3.connect(str(self.path), timeout=timeout_s, isolation_level=None,
                                     check_same_thread=False)
        self._conn.row_factory = sqlite3.Row
        self._conn.execute(f"PRAGMA busy_timeout = {int(timeout_s * 1000)}")
        self._check_version()  # before anything is written: a newer library is left as it is
        if state != "ours":
            # a new file (written in rollback mode, before WAL: the mark is in the header at once, so a second
            # process opening it meanwhile finds it) or this app's unmarked file
            self._conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        self._conn.execute("PRAGMA journal_mode = WAL")
        # NORMAL in WAL mode: a power cut may lose the last commits, never corrupt the file; a killed
        # process loses nothing committed
        self._conn.execute("PRAGMA synchronous = NORMAL")
        self._migrate()

    # ------------------------------------------------------------------------------------ plumbing

    def _check_version(self) -> int:
        version = int(self._conn.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            self._conn.close()
            raise LibraryError(f"{self.path}: written by a newer mmdocsum (library schema {version}, "
                               f"this one reads {SCHEMA_VERSION}); not changed")
        return version

    def _migrate(self) -> None:
        version = self._check_version()
        if version == SCHEMA_VERSION:
            return
        if version in (1, 2, 3):
            self._upgrade_from(version)
            return
        # one script, one transaction (executescript commits whatever is pending first, so the
        # transaction is spelled inside it): two processes creating the library at once serialise here
        with self._lock:
            self._conn.executescript(
                "BEGIN IMMEDIATE;" + _SCHEMA + "INSERT OR IGNORE INTO meta(key, value) VALUES ('generation', '0');"
                f"PRAGMA user_version = {SCHEMA_VERSION};COMMIT;")

    def _upgrade_from(self, version: int) -> None:
        # statement by statement, not executescript (which would commit first): two processes upgrading at
        # once serialise on BEGIN IMMEDIATE and the second finds the work done
        steps = {1: _UPGRADE_1_2 + _UPGRADE_2_3 + _UPGRADE_3_4, 2: _UPGRADE_2_3 + _UPGRADE_3_4, 3: _UPGRADE_3_4}
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                found = int(self._conn.execute("PRAGMA user_version").fetchone()[0])
                if found in steps:
                    for statement in steps[found]:
                        self._conn.execute(statement)
                    self._conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def recover(self) -> tuple[int, int]:
        """Release the claims of processes that are gone: a paper a killed process was indexing shows as
        pending again, a summary ``queued`` or ``running`` in a killed batch goes back to ``pending``.
        Returns (indexing claims released, summaries back to pending); writes only when there is some."""
        now = time.time()
        rows = self._query("SELECT id, claimed_by, claimed_at, summary_status, summary_claimed_by FROM papers "
                           "WHERE claimed_by IS NOT NULL OR summary_status IN ('queued', 'running')")
        claims = [int(r["id"]) for r in rows if r["claimed_by"] and _claim_is_stale(r["claimed_by"], r["claimed_at"], now)]
        summaries = [int(r["id"]) for r in rows if r["summary_status"] in ("queued", "running")
                     and _claim_is_stale(r["summary_claimed_by"], None, now, lease=False)]
        if claims or summaries:
            with self.write() as conn:
                conn.executemany("UPDATE papers SET claimed_by = NULL, claimed_at = NULL WHERE id = ?",
                                 [(i,) for i in claims])
                conn.executemany("UPDATE papers SET summary_status = 'pending', summary_claimed_by = NULL "
                                 "WHERE id = ? AND summary_status IN ('queued', 'running')", [(i,) for i in summaries])
        return len(claims), len(summaries)

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE: the write lock is taken now, so two processes never
        both read-then-write on stale rows); committed on leaving, rolled back on an exception."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def _query(self, sql: str, parameters: Sequence[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return list(self._conn.execute(sql, parameters).fetchall())

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> LibraryStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def backup(self, target: str | os.PathLike[str]) -> None:
        """A consistent copy of the library into ``target`` (SQLite's online backup: safe while another
        process writes; a plain file copy of a WAL database is not)."""
        with self._lock:
            destination = sqlite3.connect(str(target))
            try:
                self._conn.backup(destination)
            finally:
                destination.close()

    def generation(self) -> int:
        """A number that changes whenever passages are added or removed (the in-memory vectors of
        library-wide search are reloaded when it does, in this process or after another's writes)."""
        row = self._query("SELECT value FROM meta WHERE key = 'generation'")
        return int(row[0][0]) if row else 0

    @staticmethod
    def _bump(conn: sqlite3.Connection) -> None:
        conn.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'")

    # ------------------------------------------------------------------------------------ papers in

    def file_states(self, paths: Iterable[str]) -> dict[str, FileState]:
        wanted = list(paths)
        found: dict[str, FileState] = {}
        for start in range(0, len(wanted), 500):
            chunk = wanted[start:start + 500]
            marks = ",".join("?" * len(chunk))
            for row in self._query(f"SELECT source_path, size, mtime_ns, content_hash, status FROM papers "
                                   f"WHERE source_path IN ({marks})", chunk):
                found[row["source_path"]] = FileState(row["size"] or -1, row["mtime_ns"] or -1,
                                                      row["content_hash"], row["status"])
        return found

    def upsert(self, conn: sqlite3.Connection, path: str, *, kind: str, root: str, size: int, mtime_ns: int,
               content_hash: str | None, metadata: Metadata | None) -> str:
        """Record one file (inside a :meth:`write` transaction). ``content_hash`` None: the file is
        unchanged (same size and modification time as recorded). Returns "new", "changed" or "unchanged"."""
        now = time.time()
        row = conn.execute("SELECT id, content_hash, status FROM papers WHERE source_path = ?", (path,)).fetchone()
        if row is None:
            assert content_hash is not None, "a new file is hashed"
            conn.execute("INSERT INTO papers(source_path, source_kind, source_root, size, mtime_ns, content_hash, "
                         "added_at) VALUES (?, ?, ?, ?, ?, ?, ?)", (path, kind, root, size, mtime_ns, content_hash, now))
            paper_id = int(conn.execute("SELECT last_insert_rowid()").fetchone()[0])
            outcome = "new"
        else:
            paper_id = int(row["id"])
            if content_hash is None or content_hash == row["content_hash"]:
                outcome = "unchanged"
                conn.execute("UPDATE papers SET size = ?, mtime_ns = ?, source_kind = ?, source_root = ? WHERE id = ?",
                             (size, mtime_ns, kind, root, paper_id))
                if row["status"] == "missing":  # the file is back
                    conn.execute("UPDATE papers SET status = 'pending', error = NULL WHERE id = ?", (paper_id,))
            else:
                outcome = "changed"
                # new bytes: read again; the summary of the old bytes no longer describes the file
                conn.execute("UPDATE papers SET size = ?, mtime_ns = ?, content_hash = ?, status = 'pending', "
                             "error = NULL, indexed_at = NULL WHERE id = ?", (size, mtime_ns, content_hash, paper_id))
                conn.execute("UPDATE papers SET summary_status = 'none', summary_json = NULL, summary_error = NULL, "
                             "summary_assets = NULL WHERE id = ?", (paper_id,))
        if metadata is not None:
            conn.execute(
                "UPDATE papers SET title = CASE WHEN ? != '' THEN ? ELSE title END, authors = ?, family_names = ?, "
                "year = ?, doi = ?, collections = ?, tags = ?, zotero_key = ?, zotero_attachment_key = ?, "
                "zotero_library_id = ?, citekey = ? WHERE id = ?",
                (metadata.title, metadata.title, json.dumps(list(metadata.authors)),
                 json.dumps(list(metadata.family_names)), metadata.year, metadata.doi,
                 json.dumps(list(metadata.collections)), json.dumps(list(metadata.tags)), metadata.zotero_key,
                 metadata.zotero_attachment_key, metadata.zotero_library_id, metadata.citekey, paper_id))
        # a paper whose content another path already brought in is indexed at once
        conn.execute("UPDATE papers SET status = 'indexed', indexed_at = coalesce(indexed_at, ?) WHERE id = ? AND "
                     "status = 'pending' AND content_hash IN (SELECT hash FROM contents)", (now, paper_id))
        return outcome

    def replace_annotations(self, root: str, by_path: dict[str, list[Annotation]]) -> int:
        """The Zotero reader's annotations of the papers of ``root``, as Zotero has them now (those the user
        deleted in Zotero go); returns how many are stored."""
        with self.write() as conn:
            ids = {str(r["source_path"]): int(r["id"]) for r in conn.execute(
                "SELECT id, source_path FROM papers WHERE source_root = ?", (root,))}
            conn.execute("DELETE FROM annotations WHERE paper_id IN (SELECT id FROM papers WHERE source_root = ?)",
                         (root,))
            rows = [(ids[path], a.key, a.kind, a.text, a.comment, a.color, a.page_label, a.page, a.sort_index)
                    for path, annotations in by_path.items() if path in ids for a in annotations]
            conn.executemany("INSERT OR REPLACE INTO annotations(paper_id, key, kind, text, comment, color, page_label, "
                             "page, sort_index) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        return len(rows)

    def annotations(self, paper_id: int) -> list[Annotation]:
        """A paper's annotations in reading order."""
        return [Annotation(key=r["key"], kind=r["kind"], text=r["text"], comment=r["comment"], color=r["color"],
                           page_label=r["page_label"], page=r["page"], sort_index=r["sort_index"])
                for r in self._query("SELECT * FROM annotations WHERE paper_id = ? ORDER BY sort_index, key", (paper_id,))]

    def replace_absent(self, root: str, items: Sequence[AbsentItem]) -> None:
        """The Zotero items of ``root`` whose paper is not here, as the last reading of it found them."""
        now = time.time()
        with self.write() as conn:
            conn.execute("DELETE FROM absent WHERE source_root = ?", (root,))
            conn.executemany("INSERT OR REPLACE INTO absent(source_root, item_key, title, reason, advice, seen_at) "
                             "VALUES (?, ?, ?, ?, ?, ?)",
                             [(root, i.item_key, i.title, i.reason, i.advice, now) for i in items])

    def absent(self) -> list[AbsentItem]:
        """Every source's items whose paper is not here, by title."""
        return [AbsentItem(source=r["source_root"], item_key=r["item_key"], title=r["title"], reason=r["reason"],
                           advice=r["advice"])
                for r in self._query("SELECT * FROM absent ORDER BY lower(title), item_key")]

    def mark_missing(self, conn: sqlite3.Connection, *, root: str, present: set[str]) -> int:
        """Papers recorded from ``root`` whose path is not in ``present`` (or whose file is gone) are
        marked missing; they keep their content and summary. Returns how many were marked now."""
        rows = conn.execute("SELECT id, source_path FROM papers WHERE source_root = ? AND status != 'missing'",
                            (root,)).fetchall()
        gone = [int(r["id"]) for r in rows if r["source_path"] not in present or not Path(r["source_path"]).exists()]
        for paper_id in gone:
            conn.execute("UPDATE papers SET status = 'missing', claimed_by = NULL WHERE id = ?", (paper_id,))
        return len(gone)

    def remove_superseded(self, root: str, chosen: dict[tuple[int, str], str]) -> int:
        """Papers of the Zotero data folder ``root`` whose item ((library id, item key) in ``chosen``) has its
        paper at another path now are removed (one paper per item). Returns how many."""
        rows = self._query("SELECT id, source_path, zotero_library_id, zotero_key FROM papers "
                           "WHERE source_root = ? AND source_kind = 'zotero' AND zotero_key IS NOT NULL", (root,))
        gone = [int(r["id"]) for r in rows
                if (path := chosen.get((int(r["zotero_library_id"] or 1), str(r["zotero_key"])))) is not None
                and path != r["source_path"]]
        return self.remove(gone)

    def refresh_missing(self) -> int:
        """Every paper whose file is gone is marked missing (whatever source brought it)."""
        rows = self._query("SELECT id, source_path FROM papers WHERE status != 'missing'")
        gone = [int(r["id"]) for r in rows if not Path(r["source_path"]).exists()]
        if gone:
            with self.write() as conn:
                conn.executemany("UPDATE papers SET status = 'missing' WHERE id = ?", [(i,) for i in gone])
        return len(gone)

    # ------------------------------------------------------------------------------------ papers out

    def papers(self, filter: PaperFilter | None = None, *, sort: str = "title", descending: bool = False,
               ids: Sequence[int] | None = None) -> list[Paper]:
        filter = filter or PaperFilter()
        where: list[str] = []
        values: list[Any] = []
        if ids is not None:
            if not ids:
                return []
            where.append(f"p.id IN ({','.join('?' * len(ids))})")
            values.extend(ids)
        if filter.status == "indexing":
            where.append("p.status = 'pending' AND p.claimed_by IS NOT NULL")
        elif filter.status:
            where.append("p.status = ?")
            values.append(filter.status)
        if filter.summary_status:
            where.append("p.summary_status = ?")
            values.append(filter.summary_status)
        if filter.year_from is not None:
            where.append("p.year >= ?")
            values.append(filter.year_from)
        if filter.year_to is not None:
            where.append("p.year <= ?")
            values.append(filter.year_to)
        if filter.collection:
            # a collection matches itself and its sub-collections ("Reviews" matches "Reviews/2020")
            where.append("EXISTS (SELECT 1 FROM json_each(p.collections) WHERE lower(value) = lower(?) "
                         "OR lower(value) LIKE lower(?) || '/%')")
            values.extend([filter.collection, filter.collection])
        if filter.tag:
            where.append("EXISTS (SELECT 1 FROM json_each(p.tags) WHERE lower(value) = lower(?))")
            values.append(filter.tag)
        if filter.search:
            like = f"%{filter.search.strip()}%"
            words = fts_query(filter.search)
            text_match = ("p.content_hash IN (SELECT pa.content_hash FROM passages_fts f JOIN passages pa "
                          "ON pa.id = f.rowid WHERE passages_fts MATCH ?)") if words else "0"
            # the user's own annotations (highlighted words, comments) find their paper too
            noted = "p.id IN (SELECT paper_id FROM annotations WHERE text LIKE ? OR comment LIKE ?)"
            where.append(f"(p.title LIKE ? OR p.authors LIKE ? OR p.source_path LIKE ? OR {noted} OR {text_match})")
            values.extend([like, like, like, like, like] + ([words] if words else []))
        order = _SORTS.get(sort, _SORTS["title"])
        sql = ("SELECT p.*, c.language AS c_language, c.pages AS c_pages, c.figures AS c_figures, "
               "c.tables AS c_tables, c.title AS c_title, c.doi AS c_doi FROM papers p "
               "LEFT JOIN contents c ON c.hash = p.content_hash"
               + (" WHERE " + " AND ".join(where) if where else "")
               + f" ORDER BY {order} IS NULL, {order} {'DESC' if descending else 'ASC'}, p.id")
        rows = self._query(sql, values)
        first_of: dict[str, int] = {}
        for row in self._query("SELECT content_hash, min(id) AS first FROM papers WHERE content_hash != '' "
                               "GROUP BY content_hash HAVING count(*) > 1"):
            first_of[row["content_hash"]] = int(row["first"])
        now = time.time()
        keys = self.citation_keys() if rows else {}
        found = [_paper(row, first_of, now, keys.get(int(row["id"]), "")) for row in rows]
        if filter.status == "indexing":  # a claim whose process is gone is no indexing
            found = [p for p in found if p.indexing]
        elif filter.status == "pending":
            found = [p for p in found if not p.indexing]
        return found

    def citation_keys(self) -> dict[int, str]:
        """Every paper's citation key, unique within the library (:func:`citekeys.unique_keys`): the key
        Zotero gives, else first author, year and title word."""
        rows = self._query("SELECT p.id, p.authors, p.family_names, p.year, p.title, p.citekey, p.source_path, "
                           "c.title AS c_title FROM papers p LEFT JOIN contents c ON c.hash = p.content_hash")
        entries = []
        for row in rows:
            families, authors = json.loads(row["family_names"] or "[]"), json.loads(row["authors"] or "[]")
            family = (families[0].strip() if families and str(families[0]).strip()
                      else (authors[0].split() or [""])[-1] if authors else "")
            title = row["title"] or row["c_title"] or Path(row["source_path"]).name
            entries.append(KeyEntry(int(row["id"]), family, row["year"], title, clean_key(row["citekey"])))
        return unique_keys(entries)

    def paper(self, paper_id: int) -> Paper | None:
        found = self.papers(ids=[paper_id])
        return found[0] if found else None

    def resolve(self, references: Sequence[str]) -> list[Paper]:
        """Papers by id ("12"), file path, Zotero item or attachment key; an unknown one is an error that
        names it."""
        out: list[Paper] = []
        unknown: list[str] = []
        for reference in references:
            text = reference.strip()
            rows = []
            if text.isdigit():
                rows = self._query("SELECT id FROM papers WHERE id = ?", (int(text),))
            if not rows:
                path = str(Path(text).expanduser().resolve()) if text else text
                rows = self._query("SELECT id FROM papers WHERE source_path = ? OR source_path = ? OR zotero_key = ? "
                                   "OR zotero_attachment_key = ?", (text, path, text, text))
            if not rows:
                unknown.append(reference)
                continue
            for row in rows:
                paper = self.paper(int(row["id"]))
                if paper is not None and all(p.id != paper.id for p in out):
                    out.append(paper)
        if unknown:
            raise LibraryError(f"not in the library: {', '.join(unknown)} (give an id, a path or a Zotero key; "
                               "`mmdocsum library list` shows them)")
        return out

    def visuals(self, content_hash: str) -> list[VisualRecord]:
        rows = self._query("SELECT label, kind, page, caption FROM visuals WHERE content_hash = ? ORDER BY position",
                           (content_hash,))
        return [VisualRecord(label=r["label"], kind="table" if r["kind"] == "table" else "figure", page=r["page"],
                             caption=r["caption"]) for r in rows]

    def remove(self, paper_ids: Sequence[int]) -> int:
        if not paper_ids:
            return 0
        with self.write() as conn:
            marks = ",".join("?" * len(paper_ids))
            removed = conn.execute(f"DELETE FROM papers WHERE id IN ({marks})", list(paper_ids)).rowcount
            conn.execute(f"DELETE FROM annotations WHERE paper_id IN ({marks})", list(paper_ids))
        self.collect_garbage()
        return int(removed)

    def collections(self) -> list[str]:
        rows = self._query("SELECT DISTINCT value FROM papers, json_each(papers.collections) ORDER BY lower(value)")
        return [str(r[0]) for r in rows]

    def counts(self) -> dict[str, int]:
        return {str(r[0]): int(r[1]) for r in self._query("SELECT status, count(*) FROM papers GROUP BY status")}

    # ------------------------------------------------------------------------------------ indexing

    def claim_next(self, token: str, *, skip: set[int] | None = None) -> Paper | None:
        """The next pending paper, claimed for ``token`` (None when none is left to claim)."""
        skip = skip or set()
        now = time.time()
        with self.write() as conn:
            rows = conn.execute("SELECT id, claimed_by, claimed_at FROM papers WHERE status = 'pending' ORDER BY id").fetchall()
            chosen = next((int(r["id"]) for r in rows if int(r["id"]) not in skip
                           and (r["claimed_by"] == token or _claim_is_stale(r["claimed_by"], r["claimed_at"], now))), None)
            if chosen is None:
                return None
            conn.execute("UPDATE papers SET claimed_by = ?, claimed_at = ? WHERE id = ?", (token, now, chosen))
        return self.paper(chosen)

    def release(self, paper_id: int, token: str) -> None:
        with self.write() as conn:
            conn.execute("UPDATE papers SET claimed_by = NULL, claimed_at = NULL WHERE id = ? AND claimed_by = ?",
                         (paper_id, token))

    def pending(self) -> int:
        return int(self._query("SELECT count(*) FROM papers WHERE status = 'pending'")[0][0])

    def has_content(self, content_hash: str) -> bool:
        return bool(self._query("SELECT 1 FROM contents WHERE hash = ?", (content_hash,)))

    def store_content(self, paper_id: int, content_hash: str, facts: ContentFacts, passages: Sequence[NewPassage],
                      vectors: np.ndarray, visuals: Sequence[VisualRecord]) -> bool:
        """Store what was read of one content and mark the paper indexed, in one transaction. False when
        the content was already there (another process stored it first): nothing is stored twice."""
        now = time.time()
        blobs = np.asarray(vectors, dtype=VECTOR_DTYPE)
        with self.write() as conn:
            stored = conn.execute("SELECT 1 FROM contents WHERE hash = ?", (content_hash,)).fetchone() is None
            if stored:
                conn.execute("INSERT INTO contents(hash, title, language, pages, figures, tables, doi, passages, "
                             "indexed_at, read_seconds) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                             (content_hash, facts.title, facts.language, facts.pages,
                              sum(v.kind == "figure" for v in visuals), sum(v.kind == "table" for v in visuals),
                              facts.doi, len(passages), now, facts.read_seconds))
                conn.executemany(
                    "INSERT INTO passages(content_hash, idx, kind, text, page, block, labels, section, figure, "
                    "inherited, vector) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(content_hash, i, p.kind, p.text, p.page, p.block, json.dumps(list(p.labels)), p.section,
                      p.figure, int(p.inherited), blobs[i].tobytes()) for i, p in enumerate(passages)])
                conn.executemany("INSERT INTO visuals(content_hash, position, label, kind, page, caption) "
                                 "VALUES (?, ?, ?, ?, ?, ?)",
                                 [(content_hash, i, v.label, v.kind, v.page, v.caption) for i, v in enumerate(visuals)])
                self._bump(conn)
            no_authors = "authors = '[]' AND ? != '[]'"
            conn.execute("UPDATE papers SET status = 'indexed', error = NULL, indexed_at = ?, claimed_by = NULL, "
                         "title = CASE WHEN title = '' THEN ? ELSE title END, doi = coalesce(doi, ?), "
                         f"family_names = CASE WHEN {no_authors} THEN ? ELSE family_names END, "
                         f"authors = CASE WHEN {no_authors} THEN ? ELSE authors END, year = coalesce(year, ?) "
                         "WHERE id = ? AND content_hash = ?",
                         (now, facts.title, facts.doi, json.dumps(list(facts.authors)),
                          json.dumps(list(facts.family_names)), json.dumps(list(facts.authors)),
                          json.dumps(list(facts.authors)), facts.year, paper_id, content_hash))
        return stored

    def mark_indexed(self, paper_id: int) -> None:
        with self.write() as conn:
            conn.execute("UPDATE papers SET status = 'indexed', error = NULL, indexed_at = ?, claimed_by = NULL "
                         "WHERE id = ?", (time.time(), paper_id))

    def mark_failed(self, paper_id: int, error: str) -> None:
        with self.write() as conn:
            conn.execute("UPDATE papers SET status = 'failed', error = ?, claimed_by = NULL WHERE id = ?",
                         (error, paper_id))

    def retry_failed(self) -> int:
        with self.write() as conn:
            return int(conn.execute("UPDATE papers SET status = 'pending', error = NULL WHERE status = 'failed'").rowcount)

    def collect_garbage(self) -> int:
        """Delete the contents no paper refers to any more (a changed file's old bytes, removed papers)."""
        with self.write() as conn:
            orphans = [str(r[0]) for r in conn.execute(
                "SELECT hash FROM contents WHERE hash NOT IN (SELECT content_hash FROM papers)").fetchall()]
            for content_hash in orphans:
                conn.execute("DELETE FROM passages WHERE content_hash = ?", (content_hash,))
                conn.execute("DELETE FROM visuals WHERE content_hash = ?", (content_hash,))
                conn.execute("DELETE FROM contents WHERE hash = ?", (content_hash,))
            if orphans:
                self._bump(conn)
        return len(orphans)

    # ------------------------------------------------------------------------------------ search

    def vector_table(self) -> VectorTable:
        """Every passage's embedding, in passage-id order, filled into one preallocated array (a list of
        row blobs joined at the end would hold the vectors twice)."""
        generation = self.generation()
        with self._lock:
            count = int(self._conn.execute("SELECT count(*) FROM passages").fetchone()[0])
            first = self._conn.execute("SELECT vector FROM passages LIMIT 1").fetchone()
            dim = len(bytes(first[0])) // np.dtype(VECTOR_DTYPE).itemsize if first else 384
            ids = np.zeros(count, dtype=np.int64)
            content_of = np.zeros(count, dtype=np.int32)
            # float32 in memory (twice the file's float16): numpy has no fast float16 product, and converting
            # 200,000 rows per question cost more than the question (2.7 s of 7 at a thousand papers)
            vectors = np.zeros((count, dim), dtype=np.float32)
            position: dict[str, int] = {}
            row_number = 0
            for passage_id, content_hash, blob in self._conn.execute(
                    "SELECT id, content_hash, vector FROM passages ORDER BY id"):
                if row_number >= count:  # another process added passages since the count: next time
                    break
                ids[row_number] = passage_id
                content_of[row_number] = position.setdefault(str(content_hash), len(position))
                vectors[row_number] = np.frombuffer(blob, dtype=VECTOR_DTYPE)
                row_number += 1
        return VectorTable(ids[:row_number], content_of[:row_number], list(position), vectors[:row_number], generation)

    def text_search(self, query: str, *, limit: int = 200) -> list[tuple[int, float]]:
        """(passage id, BM25 score, higher is better) of the passages whose words match ``query``."""
        words = fts_query(query)
        if not words:
            return []
        rows = self._query("SELECT rowid, -bm25(passages_fts) FROM passages_fts WHERE passages_fts MATCH ? "
                           "ORDER BY bm25(passages_fts) LIMIT ?", (words, limit))
        return [(int(r[0]), float(r[1])) for r in rows]

    def passages_of(self, content_hash: str) -> tuple[list[StoredPassage], np.ndarray]:
        rows = self._query("SELECT * FROM passages WHERE content_hash = ? ORDER BY idx", (content_hash,))
        vectors = (np.frombuffer(b"".join(bytes(r["vector"]) for r in rows), dtype=VECTOR_DTYPE).reshape(len(rows), -1)
                   if rows else np.zeros((0, 384), dtype=VECTOR_DTYPE))
        return [_stored(r) for r in rows], vectors

    def passages_by_id(self, ids: Sequence[int]) -> dict[int, StoredPassage]:
        found: dict[int, StoredPassage] = {}
        for start in range(0, len(ids), 500):
            chunk = list(ids[start:start + 500])
            marks = ",".join("?" * len(chunk))
            for row in self._query(f"SELECT * FROM passages WHERE id IN ({marks})", chunk):
                found[int(row["id"])] = _stored(row)
        return found

    def read_costs(self) -> list[tuple[str, float, int]]:
        """(source path, seconds reading and embedding it took, passages) of every indexed paper."""
        rows = self._query("SELECT p.source_path, c.read_seconds, c.passages FROM papers p JOIN contents c "
                           "ON c.hash = p.content_hash ORDER BY p.id")
        return [(str(r[0]), float(r[1]), int(r[2])) for r in rows]

    def papers_of_contents(self) -> dict[str, list[int]]:
        """Content hash → the ids of the indexed papers holding it (first the oldest)."""
        out: dict[str, list[int]] = {}
        for row in self._query("SELECT content_hash, id FROM papers WHERE status = 'indexed' ORDER BY id"):
            out.setdefault(str(row[0]), []).append(int(row[1]))
        return out

    # ------------------------------------------------------------------------------------ summaries

    def set_summary_status(self, paper_ids: Sequence[int], status: str, error: str | None = None, *,
                           token: str | None = None) -> None:
        """``token``: the batch's claim (``queued`` and ``running`` carry one, so that a killed batch's papers
        are recognised and go back to pending); the other states clear it."""
        with self.write() as conn:
            conn.executemany("UPDATE papers SET summary_status = ?, summary_error = ?, summary_claimed_by = ? "
                             "WHERE id = ?", [(status, error, token, i) for i in paper_ids])

    def release_summaries(self, paper_ids: Sequence[int], token: str) -> int:
        """The papers of a batch that stopped (cancelled) before their summary was written: back to pending."""
        with self.write() as conn:
            return sum(int(conn.execute(
                "UPDATE papers SET summary_status = 'pending', summary_claimed_by = NULL WHERE id = ? "
                "AND summary_status IN ('queued', 'running') AND summary_claimed_by = ?", (i, token)).rowcount)
                for i in paper_ids)

    def store_summary(self, paper_id: int, summary_json: str, assets: str) -> None:
        with self.write() as conn:
            conn.execute("UPDATE papers SET summary_status = 'done', summary_error = NULL, summary_json = ?, "
                         "summary_assets = ?, summary_at = ?, summary_claimed_by = NULL WHERE id = ?",
                         (summary_json, assets, time.time(), paper_id))

    def summary_counts(self) -> dict[str, int]:
        return {str(r[0]): int(r[1]) for r in
                self._query("SELECT summary_status, count(*) FROM papers GROUP BY summary_status")}

    # ------------------------------------------------------------------------------------ notes out

    def note_record(self, path: str) -> NoteRecord | None:
        rows = self._query("SELECT * FROM notes WHERE path = ?", (path,))
        return _note(rows[0]) if rows else None

    def note_of(self, folder: str, owner: str) -> NoteRecord | None:
        """The note this library last wrote in ``folder`` for ``owner`` (a Zotero item or a paper)."""
        rows = self._query("SELECT * FROM notes WHERE folder = ? AND owner = ? ORDER BY written_at DESC LIMIT 1",
                           (folder, owner))
        return _note(rows[0]) if rows else None

    def record_note(self, record: NoteRecord) -> None:
        with self.write() as conn:
            conn.execute("INSERT OR REPLACE INTO notes(path, folder, owner, paper_id, body_hash, properties, written_at) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?)",
                         (record.path, record.folder, record.owner, record.paper_id, record.body_hash,
                          json.dumps(record.properties, ensure_ascii=False), time.time()))

    def summary(self, paper_id: int) -> tuple[str, str] | None:
        """(summary JSON, assets folder) of a paper, or None."""
        rows = self._query("SELECT summary_json, summary_assets FROM papers WHERE id = ?", (paper_id,))
        if not rows or not rows[0][0]:
            return None
        return str(rows[0][0]), str(rows[0][1] or "")


def fts_query(text: str) -> str:
    """An FTS5 query matching any of the text's words (each quoted: a word like AND or a hyphen is text,
    never query syntax)."""
    words = list(dict.fromkeys(tokens(text)))[:32]
    return " OR ".join('"' + w.replace('"', "") + '"' for w in words if w.replace('"', ""))


def _paper(row: sqlite3.Row, first_of: dict[str, int], now: float, citekey: str = "") -> Paper:
    first = first_of.get(row["content_hash"])
    indexing = row["status"] == "pending" and bool(row["claimed_by"]) \
        and not _claim_is_stale(row["claimed_by"], row["claimed_at"], now)
    return Paper(
        id=row["id"], source_path=row["source_path"], source_kind=row["source_kind"], content_hash=row["content_hash"],
        title=row["title"] or row["c_title"] or "", authors=json.loads(row["authors"] or "[]"),
        family_names=json.loads(row["family_names"] or "[]"), year=row["year"],
        doi=row["doi"] or row["c_doi"], language=row["c_language"], pages=row["c_pages"], figures=row["c_figures"] or 0,
        tables=row["c_tables"] or 0, status=row["status"], indexing=indexing, error=row["error"],
        summary_status=row["summary_status"],
        summary_error=row["summary_error"], collections=json.loads(row["collections"] or "[]"),
        tags=json.loads(row["tags"] or "[]"), zotero_key=row["zotero_key"],
        zotero_attachment_key=row["zotero_attachment_key"], zotero_library_id=row["zotero_library_id"],
        duplicate_of=first if first is not None and first != row["id"] else None, added_at=row["added_at"],
        indexed_at=row["indexed_at"], citekey=citekey,
    )


def _note(row: sqlite3.Row) -> NoteRecord:
    return NoteRecord(str(row["path"]), str(row["folder"]), str(row["owner"]), row["paper_id"], str(row["body_hash"]),
                      json.loads(row["properties"] or "{}"))


def _stored(row: sqlite3.Row) -> StoredPassage:
    return StoredPassage(int(row["id"]), row["content_hash"], int(row["idx"]), row["kind"], row["text"], row["page"],
                         row["block"], tuple(json.loads(row["labels"] or "[]")), row["section"], row["figure"],
                         bool(row["inherited"]))
