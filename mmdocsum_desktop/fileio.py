"""Writing the user's files: every file the app writes appears whole or not at all, never on top of a
document it read, never under /proc, /sys or /dev, and a failure to write is the user's error (a
read-only folder, a full disk), told in one line, with nothing half-written left behind.

* :func:`check_output_path` — the one output-path guard of every command and of the desktop app's
  exports: called by the front ends before any long work (with the input files named), and by every
  atomic write here (with the documents this process has read, :func:`protect_input`).
* :func:`write_bytes_atomic` and friends — a temporary file and a rename; OS errors become OutputError.
* :func:`removed_on_failure` — a block that writes several files (figure crops and document.json) leaves
  none of them, and no folder it created, when it fails or is interrupted.
* :class:`OutputFolder` — a folder the app fills beside the user's files (``NAME_images/``,
  ``NAME_files/``, a ``place -o`` folder): what the app wrote there is recorded, with each file's sha256,
  in the app's own data dir (``written/`` under :func:`paths.data_dir`), never in a file inside the
  folder that anyone can edit; the app replaces or removes only a file it recorded and whose bytes are
  still the ones it wrote, never a file it did not write (the user's own, an input document, one the user
  changed since), and never deletes the folder wholesale.
* :func:`check_input_file` — a document (or paragraphs file) is read only when it is a regular file outside
  /proc, /sys and /dev: a symlink to /proc/self/environ would put the environment in document.json, a
  FIFO or a device would block or never end. A file checked here is an input: no write of this process
  replaces it.
* :func:`read_json_file` — a configuration or record file (settings, manifests) is read only when it is a
  regular file of bounded size whose JSON nests no deeper than :data:`MAX_JSON_DEPTH`: a FIFO does not
  block, deep nesting is one line, not a RecursionError.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import stat
import tempfile
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import Any

from mmdocsum_desktop import paths, secrets
from mmdocsum_desktop.errors import InputNotFoundError, MmdocsumError


class OutputError(MmdocsumError, OSError):
    """The output cannot be written where the user asked: onto an input file, into a system folder,
    a read-only folder or a full disk. An OSError too, so code that tolerates a failed write still does."""

    exit_code = 2


class InputFileError(MmdocsumError):
    """A path given as a document that is not a regular file the app may read (a FIFO, a socket, a device,
    a file under /proc, /sys or /dev, directly or through a symlink)."""

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
    if not utf8_name(target):
        raise OutputError(f"{shown_name(target)}: the output's name is not valid UTF-8 (the app writes its name into "
                          "its files, which are UTF-8); choose a name in UTF-8")
    _check_name_length(target, folder=folder)
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


def utf8_name(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` can be written in UTF-8: a name in another encoding (Latin-1 "caf\\xe9.md") comes
    to Python as lone surrogates, which no JSON, Markdown or HTML output can carry."""
    try:
        os.fspath(path).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown_name(path: str | os.PathLike[str]) -> str:
    """``path`` printable whatever its bytes: the bytes that are not UTF-8 as \\xNN."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


# What the app derives from an output's name, in bytes beyond it: the temporary ".NAME.XXXXXXXX.tmp" of an
# atomic write (fileio.write_*_atomic: 14 more than NAME), and beside NAME.md the staging folder
# ".STEM_images.<12 hex>" of NAME_images/ (summarize/render.py: 21 more than the stem; NAME_files/ is shorter)
_ATOMIC_EXTRA = 14
_STAGING_EXTRA = 21
_NAME_MAX = 255  # bytes of one name on Linux, macOS and Windows file systems, where pathconf cannot tell


def _name_max(target: Path) -> int:
    folder = target.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        return int(os.pathconf(folder, "PC_NAME_MAX"))
    except (OSError, ValueError, AttributeError):
        return _NAME_MAX


def _check_name_length(target: Path, *, folder: bool) -> None:
    """One line (OutputError) when the output's name, or a name the app derives from it, would pass the file
    system's limit on one name: the write would fail half-way with "File name too long"."""
    name = os.fsencode(target.name)
    limit = _name_max(target)
    stem = os.fsencode(target.stem)
    longest = len(name) if folder else max(len(name) + _ATOMIC_EXTRA, len(stem) + _STAGING_EXTRA)
    if longest <= limit:
        return
    room = limit if folder else min(limit - _ATOMIC_EXTRA, limit - _STAGING_EXTRA + len(name) - len(stem))
    beside = "" if folder else " with the files the app writes beside it (NAME_images/, NAME_files/, a temporary copy)"
    shown = shown_name(target.name)
    raise OutputError(f"{shown[:24]}…{shown[-12:]}: the output's name is {len(name)} bytes;{beside} it passes the "
                      f"{limit}-byte limit on a file name; choose a shorter name (at most {room} bytes)")


_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def check_input_file(path: str | os.PathLike[str], what: str = "document") -> Path:
    """``path`` as a Path when it is a regular file outside /proc, /sys and /dev (symlinks followed to
    where they lead); else one line: InputNotFoundError when nothing is there, InputFileError for a
    system file, a FIFO, a socket, a device or a folder. Checked on the file's status, before it is
    opened: opening a FIFO would block until a writer came."""
    source = Path(path)
    if not utf8_name(source):
        raise InputFileError(f"{shown_name(source)}: the file's name is not valid UTF-8 (the app writes the name "
                             f"into its outputs, which are UTF-8); rename the {what} to a UTF-8 name")
    real = os.path.realpath(source)
    for system in _SYSTEM_FOLDERS:
        if real == system or real.startswith(system + "/"):
            shown = f"{source} (it leads to {real})" if str(source) != real else str(source)
            raise InputFileError(f"{shown}: will not read a system file under {system} as a {what}; "
                                 "give a regular file")
    try:
        status = os.stat(real)
    except FileNotFoundError as error:
        raise InputNotFoundError(f"{source}: no such file") from error
    except OSError as error:
        raise InputFileError(f"{source}: cannot read it ({error.strerror or error})") from error
    if stat.S_ISDIR(status.st_mode):
        raise InputFileError(f"{source}: not a file (it is a folder); give a {what} file")
    if not stat.S_ISREG(status.st_mode):
        kind = next((name for test, name in _KINDS if test(status.st_mode)), "not a regular file")
        raise InputFileError(f"{source}: is {kind}, not a regular file; give a {what} file")
    protect_input(real)  # read as an input: no output of this process replaces it
    return source


# configuration and record files are small: anything larger is not one of them
MAX_CONFIG_BYTES = 16 * 1024 * 1024
# JSON nesting deeper than this is refused before it is parsed (json recurses once per level)
MAX_JSON_DEPTH = 64
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_JSON_BRACKET = re.compile(r"[\[\]{}]")


class ConfigFileError(MmdocsumError):
    """A configuration or record file that is not a regular file, too large, too deeply nested or not JSON."""

    exit_code = 2


def json_depth(text: str) -> int:
    """How deep ``text``'s arrays and objects nest (brackets inside strings do not count); counted without
    recursion, so any text can be measured."""
    depth = deepest = 0
    for match in _JSON_BRACKET.finditer(_JSON_STRING.sub('""', text)):
        if match.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth = max(depth - 1, 0)
    return deepest


def loads_bounded(text: str | bytes, *, what: str = "JSON", max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads`` for text from outside (a file, a server): nesting past ``max_depth``, NaN and
    Infinity and anything that is not JSON are a :class:`ConfigFileError` of one line."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ConfigFileError(f"{what}: not UTF-8 text ({error.reason} at byte {error.start})") from None
    depth = json_depth(text)
    if depth > max_depth:
        raise ConfigFileError(f"{what}: nested {depth} levels deep, more than the {max_depth} a file of the app has")

    def no_constant(name: str) -> Any:
        raise ValueError(f"{name} is not a JSON number")

    try:
        return json.loads(text, parse_constant=no_constant)
    except (ValueError, RecursionError) as error:
        raise ConfigFileError(f"{what}: not valid JSON ({str(error).splitlines()[0][:200]})") from None


def read_json_file(path: str | os.PathLike[str], what: str = "file", *, max_bytes: int = MAX_CONFIG_BYTES,
                   max_depth: int = MAX_JSON_DEPTH) -> Any:
    """The JSON value of a configuration or record file: InputNotFoundError when it is not there;
    ConfigFileError (one line) when it is not a regular file (a FIFO is never opened for reading: it would
    block until a writer came), larger than ``max_bytes``, nested deeper than ``max_depth`` or not JSON."""
    source = Path(path)
    try:
        fd = os.open(source, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError as error:
        raise InputNotFoundError(f"{source}: no such file") from error
    except OSError as error:
        raise ConfigFileError(f"{source}: cannot read the {what} ({error.strerror or error})") from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            kind = "a folder" if stat.S_ISDIR(status.st_mode) else next(
                (name for test, name in _KINDS if test(status.st_mode)), "not a regular file")
            raise ConfigFileError(f"{source}: the {what} is {kind}, not a regular file; it was not read")
        if status.st_size > max_bytes:
            raise ConfigFileError(f"{source}: the {what} is {status.st_size:,} bytes, more than the "
                                  f"{max_bytes:,} it may have; it was not read")
        with os.fdopen(os.dup(fd), "rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as error:
        raise ConfigFileError(f"{source}: cannot read the {what} ({error.strerror or error})") from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise ConfigFileError(f"{source}: the {what} grew past {max_bytes:,} bytes while it was read; not read")
    return loads_bounded(data, what=f"{source}", max_depth=max_depth)


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


# the hidden manifest earlier versions wrote inside an output folder: no longer written, never trusted
MANIFEST = ".mmdocsum-files.json"
RECORDS = "written"  # under paths.data_dir(): one record per output folder


def record_file(root: str | os.PathLike[str]) -> Path:
    """Where the app records what it wrote in the folder ``root`` (a file of its data dir)."""
    real = os.path.realpath(root)
    name = hashlib.sha256(os.fsencode(real)).hexdigest()[:40]
    return paths.data_dir() / RECORDS / f"{name}.json"


def file_digest(path: Path) -> str | None:
    """sha256 of a regular file (a link is never followed), or None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        digest = hashlib.sha256()
        with os.fdopen(os.dup(fd), "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        return digest.hexdigest()
    except OSError:
        return None
    finally:
        os.close(fd)


def _read_record(root: Path) -> dict[str, dict[str, str]]:
    """group → {relative name: sha256} of what the app wrote in ``root`` (its data dir's record)."""
    try:
        data = read_json_file(record_file(root), "record of written files", max_bytes=4 * 1024 * 1024, max_depth=8)
    except (MmdocsumError, OSError):
        return {}
    if not isinstance(data, dict) or data.get("folder") != os.path.realpath(root):
        return {}
    groups = data.get("groups")
    if not isinstance(groups, dict):
        return {}
    return {str(group): {n: h for n, h in names.items() if _safe_relative(n) and isinstance(h, str)}
            for group, names in groups.items() if isinstance(names, dict)}


def recorded_files(root: str | os.PathLike[str]) -> dict[str, list[str]]:
    """group → the names the app recorded writing in ``root`` (sorted)."""
    return {group: sorted(names) for group, names in _read_record(Path(root)).items()}


def _write_record(root: Path, groups: dict[str, dict[str, str]]) -> None:
    record = record_file(root)
    try:
        if groups:
            write_json_atomic(record, {"written_by": "mmdocsum-desktop", "folder": os.path.realpath(root),
                                       "why": "the files mmdocsum wrote in this folder, with their sha256: it "
                                              "replaces or removes only these, while their bytes are these",
                                       "groups": groups})
        else:
            record.unlink(missing_ok=True)
    except OSError:
        pass  # an unwritable data dir: the files count as not the app's next time (kept, never removed)


class OutputFolder:
    """A folder the app fills with files of its own beside the user's (``NAME_images/`` of a Markdown
    summary, ``NAME_files/`` with the figure crops and document.json, a ``place -o`` folder).

    The app may have written there before, and the user may keep their own files there (an article's
    ``art_images/duck.png``, the input PDF itself). What the app wrote is recorded in its own data dir,
    by group (``images``, ``document``, ``placement``: one group per writer, so two writers sharing a
    folder do not remove each other's files) and by content hash. Nothing inside the folder is trusted: a
    manifest file there (what earlier versions wrote) is ignored. Rules:

    * :meth:`claim` a file before writing it: an existing file that the record does not list with its
      present bytes is not the app's (OutputError, exit 2, or another free name with ``rename=True``); an
      input is never a target;
    * :meth:`finish` removes the files this group wrote in an earlier run and did not write now (stale
      crops), only those whose bytes are still what the app wrote, and records this run's; an input or a
      file replaced by a link stays;
    * the folder is never removed wholesale; a folder derived from the output's name (``derived``) must be
      a real folder, not a file or a symlink.
    """

    def __init__(self, folder: str | os.PathLike[str], group: str, *,
                 inputs: Iterable[str | os.PathLike[str]] = (), derived: bool = True) -> None:
        self.root = Path(folder)
        self.group = group
        self.inputs = [Path(p) for p in inputs]
        self.derived = derived
        self.claimed: list[str] = []
        self._record = _read_record(self.root)
        self._adopted: set[str] = set()

    def check(self) -> OutputFolder:
        """The folder itself: not a file, not a symlink (when derived), not an input, not a system
        folder. Cheap: front ends call it before long work."""
        if self.derived and self.root.is_symlink():
            raise OutputError(f"{self.root} is a symbolic link; the app writes its files into a folder of its "
                              "own there: remove the link or choose another output name")
        if self.derived and self.root.exists() and not self.root.is_dir():
            raise OutputError(f"{self.root} is a file; the app writes its files into a folder of that name: "
                              "move the file or choose another output name")
        check_output_path(self.root, self.inputs, folder=True, probe=False)
        return self

    def has_manifest(self) -> bool:
        """Whether the app's record lists files it wrote in this folder."""
        return any(self._record.values())

    def adopt(self, names: Iterable[str]) -> None:
        """Count ``names`` as written by the app before (what a folder written before records existed
        says of itself, e.g. its own document.json listing its crops): they may be replaced, never removed;
        names leaving the folder are ignored."""
        self._adopted.update(n for n in names if _safe_relative(n))

    def owned(self, relative: str) -> bool:
        """Whether the app wrote ``relative`` (a path inside the folder) in this run, or in an earlier one
        and its bytes are still the ones written then."""
        if relative in self.claimed or relative in self._adopted:
            return True
        hashes = {names[relative] for names in self._record.values() if relative in names}
        return bool(hashes) and file_digest(self.root / relative) in hashes

    def claim(self, relative: str, *, rename: bool = False) -> Path:
        """The path to write ``relative`` to. Refused (OutputError) when it is an input, or a file there
        that the app did not write; with ``rename``, the first free ``NAME-2.EXT``, ``NAME-3.EXT``… instead."""
        self.check()
        candidate = PurePosixPath(relative)
        number = 2
        while True:
            name = candidate.as_posix()
            path = self.root / name
            try:  # an input first: that is the message the user needs, recorded or not
                check_output_path(path, self.inputs, probe=False)
                taken = (path.exists() or path.is_symlink()) and not self.owned(name)
            except OutputError:
                if not rename:
                    raise
                taken = True
            if not taken:
                if name not in self.claimed:
                    self.claimed.append(name)
                return path
            if not rename:
                raise OutputError(f"{path} is not a file mmdocsum wrote (it was there before) and is kept; "
                                  "move it or choose another output name")
            stem = PurePosixPath(relative).stem
            candidate = PurePosixPath(relative).with_name(f"{stem}-{number}{PurePosixPath(relative).suffix}")
            number += 1

    def finish(self) -> None:
        """Remove what this group wrote before and not now (while its bytes are what was written); record
        what it wrote now, with its hashes."""
        before = self._record.get(self.group, {})
        protected = [*self.inputs, *(Path(p) for p in protected_inputs())]
        for name, digest in before.items():
            if name in self.claimed:
                continue
            path = self.root / name
            if path.is_symlink() or not path.is_file() or file_digest(path) != digest:
                continue  # gone, a link, or changed since: not the file the app wrote
            if any(_same_file(path, source, os.path.realpath(path)) for source in protected):
                continue
            try:
                path.unlink()
                _remove_empty_parents(path.parent, self.root)
            except OSError:
                pass  # a file that cannot be removed is only stale
        recorded = _read_record(self.root)  # again: another writer of this folder may have recorded since
        written = {name: hashed for name in self.claimed if (hashed := file_digest(self.root / name)) is not None}
        recorded[self.group] = written
        recorded = {group: names for group, names in recorded.items() if names}
        self._record = recorded
        _write_record(self.root, recorded)
        if not recorded:
            try:
                self.root.rmdir()  # only when nothing else is left in it
            except OSError:
                pass


def _safe_relative(name: object) -> bool:
    # a record's names stay inside their folder
    if not isinstance(name, str) or not name or name.startswith("/") or "\\" in name:
        return False
    return ".." not in PurePosixPath(name).parts


def _remove_empty_parents(folder: Path, root: Path) -> None:
    while folder != root and root in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent
