"""Writing the user's files: every file the app writes appears whole or not at all, never on top of a
document it read, never under /proc, /sys or /dev, and a failure to write is the user's error (a
read-only folder, a full disk), told in one line, with nothing half-written left behind.

* :func:`check_output_path` — the one output-path guard of every command and of the desktop app's
  exports: called by the front ends before any long work (with the input files named), and by every
  atomic write here (with the documents this process has read, :func:`protect_input`).
* :func:`write_bytes_atomic` and friends — a temporary file and a rename; OS errors become OutputError.
* :func:`removed_on_failure` — a block that writes several files (figure crops and document.json) leaves
  none of them, and no folder it created, when it fails or is interrupted.
"""

from __future__ import annotations

import errno
import json
import os
import tempfile
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mmdocsum_desktop import secrets
from mmdocsum_desktop.errors import MmdocsumError


class OutputError(MmdocsumError, OSError):
    """The output cannot be written where the user asked: onto an input file, into a system folder,
    a read-only folder or a full disk. An OSError too, so code that tolerates a failed write still does."""

    exit_code = 2


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _current_umask()
# Kernel and device file systems: writing there is never an export (and as root a rename onto /dev/null
# would replace the device).
_SYSTEM_FOLDERS = ("/proc", "/sys", "/dev")

_protected_lock = threading.Lock()
_protected_inputs: set[str] = set()


def protect_input(path: str | os.PathLike[str]) -> None:
    """Remember a document this process read: no write of this process may replace it (the reader calls
    this, so the command line and the desktop app's exports are both covered)."""
    with _protected_lock:
        _protected_inputs.add(os.path.realpath(path))


def protected_inputs() -> list[str]:
    with _protected_lock:
        return sorted(_protected_inputs)


def check_output_path(out: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]] = (), *,
                      folder: bool = False, probe: bool = True) -> Path:
    """Refuse, with one line (OutputError, exit 2), an output that would replace an input file (same
    file by inode or by resolved path, symlinks and hard links included), that lies under /proc, /sys or
    /dev, that is a file where a folder is expected (``folder=True``) or a folder where a file is, or
    whose folder cannot be written (``probe``: a temporary file is created and removed there, which is
    the only test that holds for root, read-only mounts and full disks alike). Returns ``out`` as a Path."""
    target = Path(out)
    real = os.path.realpath(target)
    for system in _SYSTEM_FOLDERS:
        if real == system or real.startswith(system + "/"):
            raise OutputError(f"{target}: will not write under {system} (a system folder); choose another path")
    for source in [*inputs, *protected_inputs()]:
        if _same_file(target, Path(source), real):
            raise OutputError(f"{target}: that is the input document {Path(source).name}; "
                              "choose another output path (the input would be overwritten)")
    if folder:
        if target.exists() and not target.is_dir():
            raise OutputError(f"{target} is a file; -o takes the folder to write into")
    elif target.is_dir():
        raise OutputError(f"{target} is a folder; -o takes the file to write (e.g. {target / 'summary.json'})")
    if probe:
        _probe_writable(target if folder else target.parent)
    return target


def _same_file(target: Path, source: Path, real_target: str) -> bool:
    if real_target == os.path.realpath(source):
        return True
    try:
        return target.exists() and source.exists() and os.path.samefile(target, source)
    except OSError:
        return False


def _probe_writable(folder: Path) -> None:
    existing = folder
    while not existing.exists():  # the folders that will be created: their nearest existing ancestor
        if existing.parent == existing:
            break
        existing = existing.parent
    if existing.exists() and not existing.is_dir():
        raise OutputError(f"{folder}: {existing} is a file, not a folder")
    try:
        fd, name = tempfile.mkstemp(prefix=".mmdocsum-probe.", dir=existing)
    except OSError as error:
        raise output_error(existing, error) from error
    os.close(fd)
    os.unlink(name)


_REASONS = {
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EROFS: "the folder is on a read-only file system",
    errno.ENOSPC: "no space left on the disk",
    errno.EDQUOT: "the disk quota is exceeded",
    errno.EFBIG: "the file is too large for this file system",
    errno.ENOTDIR: "a part of the path is a file, not a folder",
    errno.EISDIR: "it is a folder",
    errno.ENAMETOOLONG: "the name is too long",
    errno.EEXIST: "a file of that name is in the way",
    errno.ENOENT: "the folder does not exist",
    errno.EIO: "the disk reported an input/output error",
}


def output_error(path: str | os.PathLike[str], error: OSError) -> OutputError:
    """One line saying what could not be written and why, from the OS error."""
    if isinstance(error, OutputError):
        return error
    reason = _REASONS.get(error.errno or 0) or error.strerror or str(error)
    return OutputError(f"cannot write {path}: {reason}")


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes, *, durable: bool = True) -> Path:
    """Write via a temporary file and a rename. ``durable=False`` skips fsync for files that can be
    recreated (figure crops): still never half-written, just not forced to disk before returning."""
    target = check_output_path(path, probe=False)
    tmp_name = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        # mkstemp creates 0600; files the user exports should get the usual permissions.
        os.fchmod(fd, 0o666 & ~_UMASK)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.replace(tmp_name, target)
    except BaseException as error:
        if tmp_name is not None:
            Path(tmp_name).unlink(missing_ok=True)
        if isinstance(error, OSError) and not isinstance(error, OutputError):
            raise output_error(target, error) from error
        raise
    return target


def write_text_atomic(path: str | os.PathLike[str], text: str) -> Path:
    # every text file the app writes (summaries, reports, document.json, projects) passes here: no key in it
    return write_bytes_atomic(path, secrets.scrub(text).encode("utf-8"))


def write_json_atomic(path: str | os.PathLike[str], payload: Any) -> Path:
    return write_text_atomic(path, json.dumps(payload, ensure_ascii=False, indent=2) + "\n")


@contextmanager
def removed_on_failure(folder: str | os.PathLike[str]) -> Iterator[Path]:
    """Files written under ``folder`` inside the block, and folders the block created, are removed again
    when the block fails or is interrupted (Ctrl-C): a failed export leaves what was there before."""
    root = Path(folder)
    existed = root.exists()
    before = _walk(root) if existed and root.is_dir() else set()
    try:
        yield root
    except BaseException:
        _remove_new(root, before, existed)
        raise


def _walk(root: Path) -> set[Path]:
    found: set[Path] = set()
    for base, folders, files in os.walk(root):
        found.update(Path(base) / name for name in folders + files)
    return found


def _remove_new(root: Path, before: set[Path], existed: bool) -> None:
    if not root.is_dir():
        return
    created = _walk(root) - before
    for path in sorted(created, key=lambda p: len(p.parts), reverse=True):  # files before their folders
        try:
            if path.is_dir() and not path.is_symlink():
                path.rmdir()  # only if empty: a folder the user filled meanwhile stays
            else:
                path.unlink()
        except OSError:
            pass
    if not existed:
        try:
            root.rmdir()
        except OSError:
            pass
