"""Atomic file writes: every file the app writes appears whole or not at all."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _current_umask()


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes, *, durable: bool = True) -> Path:
    """Write via a temporary file and a rename. ``durable=False`` skips fsync for files that can be
    recreated (figure crops): still never half-written, just not forced to disk before returning."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        # mkstemp creates 0600; files the user exports should get the usual permissions.
        os.fchmod(fd, 0o666 & ~_UMASK)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.replace(tmp_name, target)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    return target


def write_text_atomic(path: str | os.PathLike[str], text: str) -> Path:
    return write_bytes_atomic(path, text.encode("utf-8"))


def write_json_atomic(path: str | os.PathLike[str], payload: Any) -> Path:
    return write_text_atomic(path, json.dumps(payload, ensure_ascii=False, indent=2) + "\n")
