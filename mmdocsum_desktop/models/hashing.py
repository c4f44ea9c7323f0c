"""sha256 of files, memoised per (path, size, mtime) so verifying twice in one process hashes once."""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

from mmdocsum_desktop.jobs import JobControl

_CHUNK = 4 * 1024 * 1024
_memo: dict[tuple[str, int, int], str] = {}
_memo_lock = threading.Lock()


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def sha256_file(path: str | os.PathLike[str], *, control: JobControl | None = None, label: str = "") -> str:
    """Hex sha256 of a file. Raises OSError when it cannot be read; reports progress in bytes."""
    target = Path(path)
    stat = target.stat()
    key = (str(target.resolve()), stat.st_size, stat.st_mtime_ns)
    with _memo_lock:
        cached = _memo.get(key)
    if cached is not None:
        return cached
    digest = hashlib.sha256()
    done = 0
    with open(target, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
            done += len(chunk)
            if control is not None:
                control.report(done, stat.st_size, label or target.name)
    value = digest.hexdigest()
    with _memo_lock:
        _memo[key] = value
    return value
