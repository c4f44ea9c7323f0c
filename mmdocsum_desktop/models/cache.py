"""A small persistent key → bytes cache in SQLite, shared by embeddings and OCR results.

Keys are content hashes (sha256 of a text, of an image's bytes) inside a namespace that names the model
and its settings, so a different model or file never returns stale results. The database runs in WAL
mode, so readers in other threads or processes are never blocked by a writer. A damaged database file is
moved aside and recreated with a warning; if even that fails the cache keeps working in memory. A cache
problem never stops the app: the worst case is recomputing.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterable
from pathlib import Path

from mmdocsum_desktop.errors import MmdocsumWarning
from mmdocsum_desktop.messages import notify
from mmdocsum_desktop.models.hashing import sha256_bytes, sha256_text
from mmdocsum_desktop.paths import cache_dir

DEFAULT_FILENAME = "content-cache.sqlite"
_BATCH = 500  # keys per SELECT ... IN (...): well under SQLite's variable limit
_CORRUPT_CODES = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB
_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    namespace TEXT NOT NULL,
    key TEXT NOT NULL,
    value BLOB NOT NULL,
    PRIMARY KEY (namespace, key)
) WITHOUT ROWID
"""


class CacheWarning(MmdocsumWarning):
    """The cache file was damaged or unusable; the app went on without the cached values."""


def default_cache_path() -> Path:
    return cache_dir() / DEFAULT_FILENAME


class ContentCache:
    """``get``/``put`` bytes by (namespace, key); thread-safe; safe with other processes on the same file.

    ``path=None`` uses ``<cache dir>/content-cache.sqlite``; ``path=":memory:"`` keeps nothing on disk.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, timeout_s: float = 5.0) -> None:
        self.path: Path | None = None if str(path) == ":memory:" else Path(path or default_cache_path())
        self.timeout_s = timeout_s
        self.hits = 0
        self.misses = 0
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._open()

    # ------------------------------------------------------------------------------------ keys

    @staticmethod
    def key_for_text(text: str) -> str:
        return sha256_text(text)

    @staticmethod
    def key_for_bytes(data: bytes) -> str:
        return sha256_bytes(data)

    # ------------------------------------------------------------------------------------- api

    def get(self, namespace: str, key: str) -> bytes | None:
        return self.get_many(namespace, [key]).get(key)

    def get_many(self, namespace: str, keys: Iterable[str]) -> dict[str, bytes]:
        wanted = list(dict.fromkeys(keys))
        found: dict[str, bytes] = {}

        def run(conn: sqlite3.Connection) -> None:
            for start in range(0, len(wanted), _BATCH):
                chunk = wanted[start : start + _BATCH]
                marks = ",".join("?" * len(chunk))
                rows = conn.execute(
                    f"SELECT key, value FROM entries WHERE namespace = ? AND key IN ({marks})",
                    (namespace, *chunk),
                )
                found.update((k, bytes(v)) for k, v in rows)

        if wanted:
            self._guard(run, "read")
        self.hits += len(found)
        self.misses += len(wanted) - len(found)
        return found

    def put(self, namespace: str, key: str, value: bytes) -> None:
        self.put_many(namespace, [(key, value)])

    def put_many(self, namespace: str, items: Iterable[tuple[str, bytes]]) -> None:
        rows = [(namespace, key, sqlite3.Binary(value)) for key, value in items]
        if not rows:
            return

        def run(conn: sqlite3.Connection) -> None:
            with conn:
                conn.executemany(
                    "INSERT OR REPLACE INTO entries (namespace, key, value) VALUES (?, ?, ?)", rows
                )

        self._guard(run, "write")

    def count(self, namespace: str | None = None) -> int:
        result = [0]

        def run(conn: sqlite3.Connection) -> None:
            if namespace is None:
                result[0] = conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
            else:
                result[0] = conn.execute(
                    "SELECT COUNT(*) FROM entries WHERE namespace = ?", (namespace,)
                ).fetchone()[0]

        self._guard(run, "read")
        return result[0]

    def clear(self, namespace: str | None = None) -> None:
        def run(conn: sqlite3.Connection) -> None:
            with conn:
                if namespace is None:
                    conn.execute("DELETE FROM entries")
                else:
                    conn.execute("DELETE FROM entries WHERE namespace = ?", (namespace,))

        self._guard(run, "write")

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> ContentCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ContentCache({str(self.path) if self.path else ':memory:'})"

    # ------------------------------------------------------------------------------- internals

    def _connect(self, target: str) -> sqlite3.Connection:
        conn = sqlite3.connect(
            target, timeout=self.timeout_s, check_same_thread=False, isolation_level="DEFERRED"
        )
        try:
            if target != ":memory:":
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(_SCHEMA)
            conn.commit()
        except BaseException:
            conn.close()
            raise
        return conn

    def _open(self) -> None:
        if self.path is None:
            self._conn = self._connect(":memory:")
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = self._connect(str(self.path))
        except sqlite3.DatabaseError as error:
            if _is_corrupt(error):
                self._recreate(error)
            else:
                self._fall_back_to_memory(error)
        except OSError as error:
            self._fall_back_to_memory(error)

    def _recreate(self, error: BaseException) -> None:
        assert self.path is not None
        self.close()
        backup = self.path.with_name(self.path.name + ".corrupt")
        notify(
            f"the cache {self.path} is damaged ({error}); it was moved to {backup.name} and recreated",
            category=CacheWarning,
            stacklevel=4,
        )
        try:
            os.replace(self.path, backup)
            for suffix in ("-wal", "-shm"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
            self._conn = self._connect(str(self.path))
        except (OSError, sqlite3.DatabaseError) as again:
            self._fall_back_to_memory(again)

    def _fall_back_to_memory(self, error: BaseException) -> None:
        notify(
            f"the cache {self.path} cannot be used ({error}); results are cached in memory only",
            category=CacheWarning,
            stacklevel=4,
        )
        self.path = None
        self._conn = self._connect(":memory:")

    def _guard(self, action, what: str) -> None:
        with self._lock:
            for attempt in (1, 2):
                if self._conn is None:
                    self._open()
                assert self._conn is not None
                try:
                    action(self._conn)
                    return
                except sqlite3.DatabaseError as error:
                    if _is_corrupt(error) and attempt == 1 and self.path is not None:
                        self._recreate(error)
                        continue
                    # busy past the timeout, disk full, read-only file...: skip this cache operation
                    notify(f"cache {what} skipped: {error}", category=CacheWarning, stacklevel=4)
                    return


def _is_corrupt(error: sqlite3.DatabaseError) -> bool:
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in _CORRUPT_CODES
    message = str(error).lower()
    return "not a database" in message or "malformed" in message
