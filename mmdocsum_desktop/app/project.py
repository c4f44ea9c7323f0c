"""The user's work: a project (document, summary and its edits, authoring text, placements), kept safe.

Layout on disk
--------------
* A **workspace** is a folder under ``<data dir>/workspaces/<id>/`` holding ``document.json`` and
  ``figures/`` (written once, by :func:`~mmdocsum_desktop.document.reader.export_document`, the same
  function as ``mmdocsum extract``), ``project.json`` (the user's work, small, rewritten atomically by
  every autosave) and ``session.json`` (which process has it open).
* A **project file** (``*.mdsproj``) is a zip archive of a workspace, written to a temporary file and
  renamed, so it is always whole. Opening one unpacks it into a fresh workspace.
* **Recovery**: a clean close deletes the workspace (after the user saved or chose to discard). A
  workspace still there whose process is gone (a crash, a kill), or whose window in this process was
  destroyed without closing, is offered at the next start by :func:`recoverable_workspaces`.

The summary is stored as the summary pipeline made it (:class:`~mmdocsum_desktop.schemas.summary.Summary`)
with the user's edits; project files of format 1, which kept a reduced copy, are migrated on opening.
Exports of the summary go through :mod:`mmdocsum_desktop.summarize.render`, the renderer of
``mmdocsum summarize``: Markdown with an images folder, self-contained HTML (images inlined as data
URIs), PDF (PyMuPDF's Story, no Qt) and M-DocSum JSON. Nothing here imports Qt.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import sys
import tempfile
import threading
import time
import uuid
import zipfile
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from mmdocsum_desktop.document.reader import export_document
from mmdocsum_desktop.errors import MmdocsumError
from mmdocsum_desktop.fileio import OutputFolder, write_bytes_atomic, write_json_atomic, write_text_atomic
from mmdocsum_desktop.jobs import JobControl, ensure_control
from mmdocsum_desktop.paths import data_dir
from mmdocsum_desktop.schemas.document import Document, Figure
from mmdocsum_desktop.schemas.engine import EngineInfo
from mmdocsum_desktop.schemas.summary import ROLES, FigureChoice, FigureEntry, Summary, SummaryParagraph
from mmdocsum_desktop.summarize import render

PROJECT_FORMAT = 2  # 2: the summary is the pipeline's Summary (1: a reduced copy, migrated)
PROJECT_SUFFIX = ".mdsproj"


class ProjectError(MmdocsumError):
    """A project file cannot be read or written."""


# ------------------------------------------------------------------------------------------ schema


class PlacementSuggestion(BaseModel):
    """One flow-insertion suggestion in the authoring view: after paragraph N, this image (or none)."""

    paragraph: int
    image: str | None = None
    figure: str | None = None
    label: str | None = None
    score: float = 0.0
    status: Literal["pending", "accepted", "rejected"] = "pending"
    # placement.PlacementWhy as JSON: why this image was proposed (caption match, sentences, OCR words...)
    why: dict[str, Any] | None = None


class Project(BaseModel):
    """The user's work. ``summary`` is the summary pipeline's Summary as the user has edited it."""

    format: int = PROJECT_FORMAT
    id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    title: str = ""
    source: str | None = Field(default=None, description="the document file the user opened")
    summary: Summary | None = None
    authoring: str = ""
    image_folder: str | None = None
    placements: list[PlacementSuggestion] = Field(default_factory=list)
    saved_to: str | None = Field(default=None, description="the .mdsproj file last saved")
    modified: float = Field(default_factory=time.time)
    extra: dict[str, Any] = Field(default_factory=dict)

    @field_validator("summary", mode="before")
    @classmethod
    def _summary_of_format_1(cls, value: Any) -> Any:
        return migrate_summary(value)

    @model_validator(mode="after")
    def _now_current_format(self) -> Project:
        self.format = PROJECT_FORMAT  # what was older is migrated by now, and is saved as current
        return self


def migrate_summary(old: Any) -> Any:
    """A summary as project files of format 1 stored it (the app's own reduced copy: ``engine`` as text,
    paragraphs holding a figure id and citations, the pipeline's JSON under ``raw``) as a Summary of
    the one schema: the pipeline's JSON with the user's edits (text, figure, caption) laid over it."""
    if not isinstance(old, dict) or not ("raw" in old or isinstance(old.get("engine"), str)):
        return old  # already the Summary schema
    stored = old.get("raw")
    raw: dict[str, Any] = stored if isinstance(stored, dict) else {}
    summary = Summary.model_validate(raw if isinstance(raw.get("paragraphs"), list) else {})
    summary.figures = [f for f in summary.figures if f.id]
    if not summary.engine.engine and old.get("engine"):
        summary.engine = EngineInfo(engine=str(old["engine"]))
    if old.get("seconds") is not None and "total_s" not in summary.timings:
        summary.timings["total_s"] = float(old["seconds"])
    summary.warnings = list(dict.fromkeys([*summary.warnings, *(str(w) for w in old.get("warnings") or [])]))
    paragraphs: list[SummaryParagraph] = []
    for position, item in enumerate(old.get("paragraphs") or []):
        if not isinstance(item, dict):
            continue
        kept = summary.paragraphs[position] if position < len(summary.paragraphs) else None
        paragraph = kept or SummaryParagraph(role=str(item.get("role") or ROLES[position % len(ROLES)]), text="")
        paragraph.text = str(item.get("text") or "")
        paragraph.image_caption = str(item.get("image_caption") or "")
        figure_id = item.get("figure")
        by = "user" if item.get("figure_source") == "user" else None
        if figure_id is None:
            paragraph.figure = None
        elif paragraph.figure is None or paragraph.figure.id != figure_id or by:
            entry = summary.figure_entry(str(figure_id))
            if entry is None:  # a figure the pipeline did not offer, picked by hand
                entry = FigureEntry(index=len(summary.figures) + 1, id=str(figure_id))
                summary.figures.append(entry)
            paragraph.figure = FigureChoice.of(entry, score=float(item.get("score") or 0.0),
                                               chosen_by=by or "placement")
        paragraphs.append(paragraph)
    summary.paragraphs = paragraphs
    return summary


# -------------------------------------------------------------------------------------- locations


def workspaces_dir() -> Path:
    override = os.environ.get("MMDOCSUM_WORKSPACES_DIR")
    if override:
        return Path(override).expanduser()
    return data_dir() / "workspaces"


_live_lock = threading.Lock()
_live_in_process: set[str] = set()


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    if pid == os.getpid():
        return True
    if sys.platform == "win32":  # os.kill would terminate the process on Windows
        import ctypes

        handle = ctypes.windll.kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return False
        ctypes.windll.kernel32.CloseHandle(handle)
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


# -------------------------------------------------------------------------------------- workspace


class _Snapshot(str):
    """A project.json text that knows its place in the order the snapshots were taken."""

    generation: int

    def __new__(cls, text: str, generation: int) -> _Snapshot:
        value = super().__new__(cls, text)
        value.generation = generation
        return value


class Workspace:
    """A project's working folder: the document, its figure crops, and the user's work."""

    def __init__(self, root: Path, project: Project, document: Document | None = None) -> None:
        self.root = root
        self.project = project
        self.document = document
        self._lock = threading.Lock()
        self._taken = 0  # snapshots taken
        self._written = 0  # the newest snapshot written to project.json

    # ---- creation
    @classmethod
    def create(cls, project: Project | None = None) -> Workspace:
        project = project or Project()
        root = workspaces_dir() / project.id
        root.mkdir(parents=True, exist_ok=True)
        workspace = cls(root, project)
        workspace.attach()
        workspace.autosave()
        return workspace

    @classmethod
    def load(cls, root: Path) -> Workspace:
        """Read a workspace folder (after a crash, or unpacked from a project file)."""
        try:
            project = Project.model_validate(json.loads((root / "project.json").read_text(encoding="utf-8")))
        except FileNotFoundError as error:
            raise ProjectError(f"{root}: not a project (project.json is missing)") from error
        except (ValueError, ValidationError) as error:
            raise ProjectError(f"{root.name}: the project data is damaged ({_first_line(error)})") from error
        document = None
        if (root / "document.json").exists():
            try:
                document = Document.load(root / "document.json")
            except (ValueError, ValidationError) as error:
                raise ProjectError(f"{root.name}: the document data is damaged ({_first_line(error)})") from error
        return cls(root, project, document)

    # ---- session ownership
    def attach(self) -> None:
        with _live_lock:
            _live_in_process.add(self.project.id)
        write_json_atomic(
            self.root / "session.json",
            {"pid": os.getpid(), "host": socket.gethostname(), "started": time.time()},
        )

    def release(self) -> None:
        """This process no longer holds the workspace (a window was destroyed); it stays on disk."""
        with _live_lock:
            _live_in_process.discard(self.project.id)

    def discard(self) -> None:
        """A clean close: the work is saved elsewhere or the user chose not to keep it."""
        self.release()
        shutil.rmtree(self.root, ignore_errors=True)

    # ---- content
    @property
    def figures_dir(self) -> Path:
        return self.root / "figures"

    def set_document(self, document: Document) -> None:
        """Adopt a document whose crops were exported into this workspace (document.json written)."""
        self.document = document
        self.project.source = document.source
        if not self.project.title:
            self.project.title = document.title or Path(document.source).stem

    def import_document(
        self, document: Document, *, password: str | None = None, control: JobControl | None = None
    ) -> Document:
        """Render the document's figure crops into this workspace and write document.json."""
        export_document(document, self.root, password=password, control=control)
        self.set_document(document)
        self.autosave()
        return document

    def image_path(self, figure: Figure | None) -> Path | None:
        if figure is None or not figure.image:
            return None
        path = self.root / figure.image
        return path if path.exists() else None

    def figure(self, figure_id: str | None) -> Figure | None:
        if self.document is None or figure_id is None:
            return None
        for visual in self.document.visuals:
            if visual.id == figure_id:
                return visual
        return None

    def autosave(self) -> Path:
        """Write project.json atomically; cheap enough to run seconds after every change."""
        return self.write_snapshot(self.snapshot())

    def snapshot(self) -> str:
        """The user's work as JSON, taken where the project is edited (then written anywhere)."""
        self.project.modified = time.time()
        with self._lock:
            self._taken += 1
            return _Snapshot(self.project.model_dump_json(indent=1) + "\n", self._taken)

    def write_snapshot(self, text: str) -> Path:
        """Write a snapshot, unless a newer one is already on disk: autosaves run on worker threads, and
        one that started late must never put older work back over newer work."""
        target = self.root / "project.json"
        generation = getattr(text, "generation", None)
        with self._lock:
            if generation is not None and generation <= self._written:
                return target
            written = write_text_atomic(target, text)
            if generation is not None:
                self._written = generation
            return written

    # ---- project files
    def save_as(self, path: str | os.PathLike[str], *, control: JobControl | None = None) -> Path:
        """Pack the workspace into one ``.mdsproj`` archive, written atomically."""
        target = Path(path)
        if target.suffix != PROJECT_SUFFIX:
            target = target.with_name(target.name + PROJECT_SUFFIX)
        control = ensure_control(control)
        self.project.saved_to = str(target)
        self.autosave()
        files = [p for p in sorted(self.root.rglob("*")) if p.is_file() and p.name != "session.json"]
        files = [p for p in files if not p.name.startswith(".")]
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                with zipfile.ZipFile(handle, "w") as archive:
                    for position, file in enumerate(files):
                        control.report(position, len(files), file.name)
                        compress = zipfile.ZIP_STORED if file.suffix == ".png" else zipfile.ZIP_DEFLATED
                        archive.write(file, file.relative_to(self.root).as_posix(), compress_type=compress)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp_name, target)
        except BaseException:
            Path(tmp_name).unlink(missing_ok=True)
            raise
        control.report(len(files), len(files), "saved")
        return target


def open_project(path: str | os.PathLike[str]) -> Workspace:
    """Unpack a ``.mdsproj`` file into a fresh workspace (the archive's id is kept)."""
    source = Path(path)
    if not source.is_file():
        raise ProjectError(f"{source}: no such project file")
    try:
        with zipfile.ZipFile(source) as archive:
            names = archive.namelist()
            if "project.json" not in names:
                raise ProjectError(f"{source.name}: not a mmdocsum project (project.json is missing)")
            for name in names:
                if name.startswith("/") or ".." in Path(name).parts:
                    raise ProjectError(f"{source.name}: refusing an unsafe path inside the project ({name})")
            project = Project.model_validate(json.loads(archive.read("project.json")))
            root = workspaces_dir() / project.id
            if project.id in _live_in_process:  # the same project is open twice: give the copy its own id
                project.id = uuid.uuid4().hex
                root = workspaces_dir() / project.id
            if root.exists():
                shutil.rmtree(root)
            root.mkdir(parents=True)
            for name in names:
                if name.endswith("/"):
                    continue
                out = root / name
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(archive.read(name))
    except (zipfile.BadZipFile, OSError, ValueError, ValidationError) as error:
        if isinstance(error, ProjectError):
            raise
        raise ProjectError(f"{source.name}: the project file is damaged ({_first_line(error)})") from error
    project.saved_to = str(source)
    write_text_atomic(root / "project.json", project.model_dump_json(indent=1) + "\n")
    workspace = Workspace.load(root)
    workspace.attach()
    return workspace


class Recoverable(BaseModel):
    root: str
    id: str
    title: str
    source: str | None
    modified: float
    saved_to: str | None


def recoverable_workspaces() -> list[Recoverable]:
    """Workspaces left behind by a crash, a kill, or a window destroyed without closing."""
    base = workspaces_dir()
    if not base.is_dir():
        return []
    found: list[Recoverable] = []
    for root in sorted(base.iterdir()):
        if not root.is_dir() or root.name in _live_in_process:
            continue
        try:
            session = json.loads((root / "session.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            session = {}
        pid = int(session.get("pid") or 0)
        same_host = session.get("host") in (None, socket.gethostname())
        if pid and pid != os.getpid() and same_host and _pid_alive(pid):
            continue  # another running instance of the app holds it
        try:
            project = Project.model_validate(json.loads((root / "project.json").read_text(encoding="utf-8")))
        except (OSError, ValueError, ValidationError):
            continue
        if not _has_work(project, root):
            shutil.rmtree(root, ignore_errors=True)
            continue
        found.append(
            Recoverable(
                root=str(root),
                id=project.id,
                title=project.title or (Path(project.source).name if project.source else "Untitled"),
                source=project.source,
                modified=project.modified,
                saved_to=project.saved_to,
            )
        )
    return sorted(found, key=lambda r: r.modified, reverse=True)


def recover(item: Recoverable | str | os.PathLike[str]) -> Workspace:
    root = Path(item.root if isinstance(item, Recoverable) else item)
    workspace = Workspace.load(root)
    for stale in root.glob(".*.tmp"):  # an atomic write the killed process never finished
        stale.unlink(missing_ok=True)
    workspace.attach()
    return workspace


def _has_work(project: Project, root: Path) -> bool:
    return bool(project.summary or project.authoring.strip() or project.placements or (root / "document.json").exists())


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


# ----------------------------------------------------------------------------------------- exports


ExportFormat = Literal["markdown", "html", "pdf", "mdocsum"]
EXPORT_SUFFIXES: dict[str, str] = {"markdown": ".md", "html": ".html", "pdf": ".pdf", "mdocsum": ".json"}


def _title_of(workspace: Workspace) -> str:
    project = workspace.project
    if project.title:
        return project.title
    if workspace.document is not None and workspace.document.title:
        return workspace.document.title
    return "Summary"


def export(
    workspace: Workspace,
    fmt: ExportFormat,
    path: str | os.PathLike[str],
    *,
    which: Literal["summary", "authoring"] = "summary",
    control: JobControl | None = None,
) -> list[Path]:
    """Export the summary (through the renderer ``mmdocsum summarize`` uses, so the files are the same)
    or the authoring text, and return the files written."""
    control = ensure_control(control)
    target = Path(path)
    if fmt not in EXPORT_SUFFIXES:
        raise ProjectError(f"unknown export format {fmt!r}")
    control.report(0, 1, fmt)
    if which == "authoring" and fmt != "mdocsum":
        written = _export_authoring(workspace, fmt, target)
    else:
        summary = workspace.project.summary
        if summary is None:
            raise ProjectError("there is no summary to export yet: run Summarize first")
        written = render.write_summary_files(summary, target, "md" if fmt == "markdown" else fmt,
                                             base_dir=workspace.root)
    control.report(1, 1, "done")
    return written


def _export_authoring(workspace: Workspace, fmt: str, target: Path) -> list[Path]:
    """The user's Markdown: ``NAME.md`` (with YAML front matter, as Obsidian reads it) and copies of its
    images in ``NAME_images/``, a self-contained page, or a PDF; rendered with the summary renderer's
    Markdown and escaping. Image links are read relative to the project (as the text stores them)."""
    text = workspace.project.authoring
    title = _title_of(workspace)
    if fmt == "html":
        page = render.html_page(title, render.markdown_to_html(_inline_local_images(text, workspace.root)))
        return [write_text_atomic(target, page)]
    if fmt == "pdf":
        page = render.html_page(title, render.markdown_to_html(_absolute_images(text, workspace.root)))
        return [render.html_to_pdf(page, target, Path("/"))]
    images_dir = target.with_name(f"{target.stem}_images")
    # through the output guard: a file of the user's in NAME_images/ of the same name is kept (the copy
    # gets another name), and the images an earlier export put there and this one does not show go
    images = OutputFolder(images_dir, "images").check()
    copies: list[Path] = []
    named: dict[Path, str] = {}  # source image -> its name in NAME_images/
    for match in re.finditer(r"!\[[^\]]*\]\(<?([^)>]+)>?\)", text):
        source = _image_source(match.group(1), workspace.root)
        if source is not None:
            if source not in named:
                out = images.claim(source.name, rename=True)
                named[source] = out.name
                copies.append(write_bytes_atomic(out, source.read_bytes(), durable=False))
            text = text.replace(match.group(0), match.group(0).replace(match.group(1), f"{images_dir.name}/{named[source]}"))
    images.finish()
    front = render.front_matter_lines(title, source=workspace.project.source or "")
    return [write_text_atomic(target, "\n".join(front) + text.rstrip() + "\n"), *copies]


USER_IMAGES = "images"  # the folder of the project that holds the images the user's text shows


label_file_name = render.label_file_name  # "Figure 3" → "figure-3.png", as the summary's exports name them


def adopt_image(workspace: Workspace, source: Path, label: str | None) -> str:
    """Copy an image the user's text is to show into the project (``images/figure-3.png``) and return
    the relative link to write: the text never names a workspace path, and the image travels with the
    project file."""
    folder = workspace.root / USER_IMAGES
    name = label_file_name(label, source.stem, source.suffix)
    data = source.read_bytes()
    target, number = folder / name, 2
    while target.exists() and target.read_bytes() != data:  # another image already has that label
        target = folder / f"{Path(name).stem}-{number}{Path(name).suffix}"
        number += 1
    if not target.exists():
        write_bytes_atomic(target, data)
    return target.relative_to(workspace.root).as_posix()


def _image_source(link: str, root: Path) -> Path | None:
    """The file an image link of the user's text names: relative to the project, or absolute."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", link, re.IGNORECASE) and not re.match(r"^[A-Za-z]:[\\/]", link):
        return None  # http:, data: ... are left as they are
    path = Path(link)
    path = path if path.is_absolute() else root / path
    return path if path.is_file() else None


def _absolute_images(markdown: str, root: Path) -> str:
    def replace(match: re.Match[str]) -> str:
        source = _image_source(match.group(2), root)
        return match.group(0) if source is None else f"![{match.group(1)}](<{source.as_posix()}>)"

    return re.sub(r"!\[([^\]]*)\]\(<?([^)>\s]+)>?\)", replace, markdown)


def _inline_local_images(markdown: str, root: Path) -> str:
    def replace(match: re.Match[str]) -> str:
        source = _image_source(match.group(2), root)
        uri = render.data_uri(source) if source is not None else None
        return match.group(0) if uri is None else f"![{match.group(1)}]({uri})"

    return re.sub(r"!\[([^\]]*)\]\(<?([^)>\s]+)>?\)", replace, markdown)
