from __future__ import annotations

import sqlite3
import threading

import pytest

from mmdocsum_desktop.models.cache import CacheWarning, ContentCache, default_cache_path


def test_roundtrip_namespaces_and_counts(tmp_path):
    with ContentCache(tmp_path / "c.sqlite") as cache:
        key = ContentCache.key_for_text("hello")
        assert cache.get("m1", key) is None
        cache.put("m1", key, b"\x00\x01")
        cache.put_many("m2", [(key, b"other"), ("k2", b"v2")])
        assert cache.get("m1", key) == b"\x00\x01"
        assert cache.get_many("m2", [key, "k2", "absent"]) == {key: b"other", "k2": b"v2"}
        assert cache.count("m2") == 2 and cache.count() == 3
        cache.clear("m2")
        assert cache.count() == 1
    # persisted
    with ContentCache(tmp_path / "c.sqlite") as again:
        assert again.get("m1", key) == b"\x00\x01"


def test_many_keys_beyond_sqlite_variable_limit(tmp_path):
    cache = ContentCache(tmp_path / "c.sqlite")
    items = [(f"k{i}", str(i).encode()) for i in range(2500)]
    cache.put_many("ns", items)
    found = cache.get_many("ns", [k for k, _ in items] + ["missing"])
    assert len(found) == 2500 and found["k1234"] == b"1234"
    assert cache.hits == 2500 and cache.misses == 1


def test_wal_mode_and_default_location(isolated_dirs):
    cache = ContentCache()
    assert cache.path == default_cache_path()
    assert cache.path.parent == isolated_dirs[1]
    with sqlite3.connect(cache.path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_corrupt_file_is_recreated_with_a_warning(tmp_path):
    path = tmp_path / "c.sqlite"
    path.write_bytes(b"this is definitely not an sqlite database" * 100)
    with pytest.warns(CacheWarning, match="damaged"):
        cache = ContentCache(path)
    cache.put("ns", "k", b"v")
    assert cache.get("ns", "k") == b"v"
    assert (tmp_path / "c.sqlite.corrupt").exists()
    assert cache.path == path


def test_unusable_location_falls_back_to_memory(tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache folder should be")
    with pytest.warns(CacheWarning, match="memory"):
        cache = ContentCache(blocker / "c.sqlite")
    cache.put("ns", "k", b"v")
    assert cache.get("ns", "k") == b"v" and cache.path is None


def test_concurrent_readers_and_writer(tmp_path):
    path = tmp_path / "shared.sqlite"
    ContentCache(path).close()
    errors: list[BaseException] = []
    done = threading.Event()

    def writer():
        try:
            cache = ContentCache(path)
            for batch in range(20):
                cache.put_many("ns", [(f"{batch}-{i}", bytes([i])) for i in range(50)])
            cache.close()
        except BaseException as error:  # noqa: BLE001
            errors.append(error)
        finally:
            done.set()

    def reader():
        try:
            cache = ContentCache(path)  # its own connection, as another process would have
            while not done.is_set():
                cache.get_many("ns", [f"{b}-{i}" for b in range(20) for i in range(0, 50, 7)])
            cache.close()
        except BaseException as error:  # noqa: BLE001
            errors.append(error)

    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheWarning)  # a skipped (locked) operation would be a failure here
        threads = [threading.Thread(target=writer)] + [threading.Thread(target=reader) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
    assert not errors
    assert ContentCache(path).count("ns") == 1000
