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

Exports: Markdown with an images folder, self-contained HTML (images inlined as data URIs), PDF
(PyMuPDF's Story, no Qt) and M-DocSum JSON. Nothing here imports Qt.
"""

from __future__ import annotations

import base64
import contextlib
import html
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

from pydantic import BaseModel, Field, ValidationError

from mmdocsum_desktop.document.model import Document, Figure
from mmdocsum_desktop.engines.extractive import ROLE_TITLES, ROLES
from mmdocsum_desktop.errors import MmdocsumError
from mmdocsum_desktop.fileio import write_bytes_atomic, write_json_atomic, write_text_atomic
from mmdocsum_desktop.jobs import JobControl, ensure_control

PROJECT_FORMAT = 1
PROJECT_SUFFIX = ".mdsproj"


class ProjectError(MmdocsumError):
    """A project file cannot be read or written."""


# ------------------------------------------------------------------------------------------ schema


class Citation(BaseModel):
    """Where a sentence came from: a page, a figure or table (by id), or a text block (by id)."""

    kind: Literal["page", "figure", "table", "block"]
    ref: str
    label: str = ""
    sentence: int | None = Field(default=None, description="0-based sentence index in the paragraph")
    page: int | None = None

    def display(self) -> str:
        if self.label:
            return self.label
        if self.kind == "page":
            return f"p. {self.ref}"
        return self.ref


class SummaryParagraph(BaseModel):
    role: str
    text: str
    figure: str | None = Field(default=None, description="id of the document figure/table shown, or None")
    image_caption: str = ""
    citations: list[Citation] = Field(default_factory=list)
    figure_source: Literal["engine", "placement", "user"] = "engine"
    score: float | None = None


class Summary(BaseModel):
    engine: str = ""
    paragraphs: list[SummaryParagraph] = Field(default_factory=list)
    created: float = Field(default_factory=time.time)
    seconds: float | None = None
    warnings: list[str] = Field(default_factory=list)
    raw: dict[str, Any] | None = Field(default=None, description="the pipeline's own JSON, kept as given")


class PlacementSuggestion(BaseModel):
    """One flow-insertion suggestion in the authoring view: after paragraph N, this image (or none)."""

    paragraph: int
    image: str | None = None
    figure: str | None = None
    label: str | None = None
    score: float = 0.0
    status: Literal["pending", "accepted", "rejected"] = "pending"


class Project(BaseModel):
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


# -------------------------------------------------------------------------------------- locations


def workspaces_dir() -> Path:
    override = os.environ.get("MMDOCSUM_WORKSPACES_DIR")
    if override:
        return Path(override).expanduser()
    from mmdocsum_desktop.models.paths import data_dir

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
        from mmdocsum_desktop.document.reader import export_document

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


# ----------------------------------------------------------------------------------------- summary


def summary_from_pipeline(result: Any, document: Document | None = None) -> Summary:
    """The app's editable Summary from the summary pipeline's rich JSON (``summarize.render.to_json``:
    ``paragraphs`` with ``role``, ``text``, ``figure`` {id, label, index, score, chosen_by},
    ``image_caption`` and ``sentences`` [{pages, figures, tables, blocks}]), or from a bare M-DocSum
    answer list (imageRef = 1-based index in document order)."""
    data: Any = result
    if isinstance(data, str):
        data = json.loads(data)
    visuals = document.visuals if document is not None else []
    by_id = {v.id: v for v in visuals}
    by_label = {v.label.lower(): v for v in visuals if v.label}
    order = _figure_order(data, document)
    items = data.get("paragraphs") if isinstance(data, dict) else data
    paragraphs: list[SummaryParagraph] = []
    for position, item in enumerate(items or []):
        if not isinstance(item, dict):
            continue
        role = str(item.get("role") or (ROLES[position] if position < len(ROLES) else f"paragraph {position + 1}"))
        text = str(item.get("text") or item.get("summary") or "")
        figure_id, caption, score = _figure_of(item, order, by_id, by_label)
        paragraphs.append(
            SummaryParagraph(role=role, text=text, figure=figure_id, image_caption=caption,
                             citations=_citations_of(item, by_id, by_label), score=score)
        )
    engine = ""
    seconds = None
    warnings: list[str] = []
    if isinstance(data, dict):
        described = data.get("engine")
        if isinstance(described, dict):
            engine = str(described.get("engine") or described.get("name") or "")
            model = str(described.get("model") or "")
            if model.startswith(engine):
                engine = model
            elif model:
                engine = f"{engine} ({model})"
        elif described:
            engine = str(described)
        timings = data.get("timings") or {}
        if isinstance(timings, dict):
            seconds = _float(timings.get("total_s") or timings.get("total"))
        warnings = [str(w) for w in data.get("warnings") or []]
        for repair in data.get("repairs") or []:
            if isinstance(repair, dict):
                where = f"paragraph {repair['paragraph']}: " if repair.get("paragraph") else ""
                warnings.append(f"{where}{repair.get('kind', 'repair')} ({repair.get('reason', '')})".strip())
    return Summary(engine=engine, paragraphs=paragraphs, seconds=seconds, warnings=warnings,
                   raw=data if isinstance(data, dict) else {"answer": data})


def _figure_order(data: Any, document: Document | None) -> list[str]:
    """Figure ids in the order M-DocSum's imageRef counts them (the pipeline's candidates)."""
    if isinstance(data, dict) and isinstance(data.get("figures"), list):
        ids = [str(f.get("id")) for f in data["figures"] if isinstance(f, dict) and f.get("id")]
        if ids:
            return ids
    if document is None:
        return []
    try:
        from mmdocsum_desktop.placement.candidates import candidates_from_document

        return [c.source_id for c in candidates_from_document(document, None) if c.source_id]
    except ImportError:
        return [v.id for v in document.visuals if v.image]


def _float(value: Any) -> float | None:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def _figure_of(item: dict, order: list[str], by_id: dict, by_label: dict) -> tuple[str | None, str, float | None]:
    caption = str(item.get("image_caption") or "")
    figure = item.get("figure")
    if isinstance(figure, dict):
        score = _float(figure.get("score"))
        if figure.get("id") in by_id:
            return figure["id"], caption, score
        if str(figure.get("label") or "").lower() in by_label:
            return by_label[str(figure["label"]).lower()].id, caption, score
        reference: Any = figure.get("index")
    else:
        score = None
        reference = figure
        image = item.get("image")
        if isinstance(image, dict):
            caption = str(image.get("imageCaption") or caption)
            reference = image.get("imageRef")
    if isinstance(reference, str) and reference in by_id:
        return reference, caption, score
    try:
        index = int(str(reference).strip())
    except (TypeError, ValueError):
        return None, "", score
    if 1 <= index <= len(order) and order[index - 1] in by_id:
        return order[index - 1], caption, score
    return None, "", score


def _citations_of(item: dict, by_id: dict, by_label: dict) -> list[Citation]:
    """Citations per sentence from the pipeline's ``sentences`` (pages, figure/table labels, blocks)."""
    out: list[Citation] = []
    for number, sentence in enumerate(item.get("sentences") or []):
        if not isinstance(sentence, dict):
            continue
        for page in sentence.get("pages") or []:
            if isinstance(page, int):
                out.append(Citation(kind="page", ref=str(page), label=f"p. {page}", sentence=number, page=page))
        for key in ("figures", "tables"):
            for label in sentence.get(key) or []:
                visual = by_label.get(str(label).lower()) or by_id.get(str(label))
                if visual is not None:
                    out.append(Citation(kind=visual.kind, ref=visual.id, label=visual.label or visual.id,
                                        sentence=number, page=visual.page))
        for block in sentence.get("blocks") or []:
            out.append(Citation(kind="block", ref=str(block), sentence=number))
    return out


# ----------------------------------------------------------------------------------------- exports


ExportFormat = Literal["markdown", "html", "pdf", "mdocsum"]
EXPORT_SUFFIXES: dict[str, str] = {"markdown": ".md", "html": ".html", "pdf": ".pdf", "mdocsum": ".json"}


def mdocsum_answer(summary: Summary, document: Document | None) -> list[dict[str, Any]]:
    """M-DocSum's answer: four ``{"summary", "image": {"imageRef", "imageCaption"}}`` objects, where
    imageRef is the 1-based index of the figure in document order (the summary pipeline's candidates)."""
    index = {figure_id: position + 1 for position, figure_id in enumerate(_figure_order(summary.raw, document))}
    answer = []
    for paragraph in summary.paragraphs:
        ref = str(index[paragraph.figure]) if paragraph.figure in index else "None"
        answer.append(
            {"summary": paragraph.text, "image": {"imageRef": ref, "imageCaption": paragraph.image_caption}}
        )
    return answer


def _paragraph_markdown_blocks(workspace: Workspace, which: str) -> list[tuple[str, str | None, str, Figure | None]]:
    """(heading, text, caption, figure) per block of the chosen text: the summary or the authoring text."""
    project = workspace.project
    blocks: list[tuple[str, str | None, str, Figure | None]] = []
    if which == "summary":
        if project.summary is None:
            raise ProjectError("there is no summary to export yet: run Summarize first")
        for paragraph in project.summary.paragraphs:
            figure = workspace.figure(paragraph.figure)
            caption = paragraph.image_caption or (figure.caption if figure else "")
            cites = ", ".join(dict.fromkeys(c.display() for c in paragraph.citations))
            text = paragraph.text + (f" [{cites}]" if cites else "")
            blocks.append((ROLE_TITLES.get(paragraph.role, paragraph.role.title()), text, caption, figure))
    else:
        for text in split_paragraphs(project.authoring):
            blocks.append(("", text, "", None))
    return blocks


def split_paragraphs(markdown: str) -> list[str]:
    """Paragraphs of the user's Markdown: blank-line separated, image-only lines left out."""
    out = []
    for chunk in re.split(r"\n\s*\n", markdown):
        lines = [line for line in chunk.strip().splitlines() if not re.fullmatch(r"\s*!\[[^\]]*\]\([^)]*\)\s*", line)]
        text = "\n".join(lines).strip()
        if text:
            out.append(text)
    return out


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
    """Export the summary (or the authoring text) and return the files written."""
    control = ensure_control(control)
    target = Path(path)
    control.report(0, 1, fmt)
    if fmt == "mdocsum":
        if workspace.project.summary is None:
            raise ProjectError("there is no summary to export yet: run Summarize first")
        written = [write_json_atomic(target, mdocsum_answer(workspace.project.summary, workspace.document))]
    elif fmt == "markdown":
        written = export_markdown(workspace, target, which=which)
    elif fmt == "html":
        written = [write_text_atomic(target, render_html(workspace, which=which, inline_images=True))]
    elif fmt == "pdf":
        written = [export_pdf(workspace, target, which=which)]
    else:
        raise ProjectError(f"unknown export format {fmt!r}")
    control.report(1, 1, "done")
    return written


def export_markdown(workspace: Workspace, target: Path, *, which: str = "summary") -> list[Path]:
    """``NAME.md`` plus ``NAME_images/`` holding the figures it shows (relative links)."""
    images_dir = target.with_name(f"{target.stem}_images")
    written: list[Path] = []
    lines = [f"# {_title_of(workspace)}", ""] if which == "summary" else []
    if which == "authoring":
        text = workspace.project.authoring
        for match in re.finditer(r"!\[[^\]]*\]\(([^)]+)\)", text):
            source = Path(match.group(1))
            if source.is_file():
                out = images_dir / source.name
                if out not in written:
                    written.append(write_bytes_atomic(out, source.read_bytes(), durable=False))
                text = text.replace(f"]({match.group(1)})", f"]({images_dir.name}/{source.name})")
        written.insert(0, write_text_atomic(target, text.rstrip() + "\n"))
        return written
    for heading, text, caption, figure in _paragraph_markdown_blocks(workspace, which):
        if heading:
            lines += [f"## {heading}", ""]
        lines += [text or "", ""]
        image = workspace.image_path(figure)
        if image is not None and figure is not None:
            out = images_dir / f"{figure.id}.png"
            written.append(write_bytes_atomic(out, image.read_bytes(), durable=False))
            alt = (figure.label or "figure").replace("]", ")")
            lines += [f"![{alt}]({images_dir.name}/{out.name})", ""]
            if caption:
                lines += [f"*{(figure.label + ': ') if figure.label else ''}{_md_escape(caption)}*", ""]
    written.insert(0, write_text_atomic(target, "\n".join(lines).rstrip() + "\n"))
    return written


def _md_escape(text: str) -> str:
    return re.sub(r"([*_`\[\]<>])", r"\\\1", text.replace("\n", " "))


def markdown_to_html(text: str) -> str:
    """CommonMark to HTML with raw HTML disabled (typed ``<script>`` stays text)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable("table").render(text)


_HTML_STYLE = """
body { font-family: 'Helvetica', 'Arial', sans-serif; max-width: 46em; margin: 2em auto; line-height: 1.5;
       color: #1d2330; padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { font-size: 1.2em; margin-top: 1.4em; color: #2b4a7a; }
figure { margin: 1em 0; text-align: center; } figure img { max-width: 100%; }
figcaption { font-size: 0.9em; color: #4a5160; text-align: left; }
.cite { color: #2b4a7a; font-size: 0.85em; }
"""


def render_html(workspace: Workspace, *, which: str = "summary", inline_images: bool = True,
                image_base: Path | None = None) -> str:
    """A complete HTML page. ``inline_images`` embeds PNGs as data URIs (self-contained); otherwise
    images are referenced relative to ``image_base`` (used for the PDF)."""
    parts = [f"<h1>{html.escape(_title_of(workspace))}</h1>"]
    if which == "authoring":
        parts = [markdown_to_html(_inline_local_images(workspace.project.authoring) if inline_images
                                  else workspace.project.authoring)]
    else:
        for heading, text, caption, figure in _paragraph_markdown_blocks(workspace, which):
            parts.append(f"<h2>{html.escape(heading)}</h2>")
            parts.append(markdown_to_html(text or ""))
            image = workspace.image_path(figure)
            if image is not None and figure is not None:
                if inline_images:
                    src = "data:image/png;base64," + base64.b64encode(image.read_bytes()).decode("ascii")
                else:
                    src = image.relative_to(image_base).as_posix() if image_base else image.as_posix()
                label = html.escape(figure.label or "")
                cap = html.escape(caption)
                parts.append(
                    f'<figure><img src="{src}" alt="{label or "figure"}" width="420"/>'
                    f"<figcaption><b>{label}</b>{': ' if label and cap else ''}{cap}</figcaption></figure>"
                )
    title = html.escape(_title_of(workspace))
    return (
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"/>"
        f"<title>{title}</title><style>{_HTML_STYLE}</style></head><body>\n"
        + "\n".join(parts)
        + "\n</body></html>\n"
    )


def _inline_local_images(markdown: str) -> str:
    def replace(match: re.Match[str]) -> str:
        path = Path(match.group(2))
        if path.is_file() and path.suffix.lower() in {".png", ".jpg", ".jpeg", ".gif", ".webp"}:
            mime = "jpeg" if path.suffix.lower() in {".jpg", ".jpeg"} else path.suffix.lower().lstrip(".")
            data = base64.b64encode(path.read_bytes()).decode("ascii")
            return f"![{match.group(1)}](data:image/{mime};base64,{data})"
        return match.group(0)

    return re.sub(r"!\[([^\]]*)\]\(([^)\s]+)\)", replace, markdown)


def export_pdf(workspace: Workspace, target: Path, *, which: str = "summary") -> Path:
    """A4 PDF through PyMuPDF's Story (HTML subset), images read from the workspace."""
    import pymupdf

    body = render_html(workspace, which=which, inline_images=False, image_base=workspace.root)
    body = re.sub(r"<style>.*?</style>", "", body, flags=re.DOTALL)
    css = ("body {font-family: sans-serif; font-size: 11px; line-height: 1.4;} h1 {font-size: 18px;} "
           "h2 {font-size: 14px; color: #2b4a7a;} figcaption {font-size: 9px; color: #444;}")
    archive = pymupdf.Archive(str(workspace.root))
    story = pymupdf.Story(html=body, user_css=css, archive=archive)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        writer = pymupdf.DocumentWriter(tmp_name)
        mediabox = pymupdf.paper_rect("a4")
        where = mediabox + (50, 50, -50, -50)
        more = True
        pages = 0
        while more and pages < 500:
            device = writer.begin_page(mediabox)
            more, _ = story.place(where)
            story.draw(device)
            writer.end_page()
            pages += 1
        writer.close()
        os.replace(tmp_name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            Path(tmp_name).unlink()
        raise
    return target
