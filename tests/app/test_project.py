"""The project core (no Qt): workspaces, project files written atomically, recovery, exports."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pymupdf
import pytest
from PIL import Image

from mmdocsum_desktop.app import project as proj
from mmdocsum_desktop.schemas.document import Block, Document, Figure
from mmdocsum_desktop.schemas.summary import ROLES, Summary
from mmdocsum_desktop.text.paragraphs import split_paragraphs


@pytest.fixture(autouse=True)
def workspaces(tmp_path, monkeypatch):
    monkeypatch.setenv("MMDOCSUM_WORKSPACES_DIR", str(tmp_path / "workspaces"))
    return tmp_path / "workspaces"


def make_workspace(tmp_path: Path) -> proj.Workspace:
    workspace = proj.Workspace.create()
    figures = workspace.figures_dir
    figures.mkdir(parents=True)
    for name, colour in (("fig1", "red"), ("tab1", "blue"), ("fig2", "green")):
        Image.new("RGB", (120, 80), colour).save(figures / f"{name}.png")
    document = Document(
        source=str(tmp_path / "paper.pdf"), kind="pdf", title="A paper", page_count=3,
        blocks=[Block(id="b1", type="paragraph", text="We study ducks.", page=1)],
        figures=[
            Figure(id="fig1", index=1, label="Figure 1", caption="Ducks in a row.", page=1, bbox=(0, 0, 10, 10),
                   image="figures/fig1.png"),
            Figure(id="fig2", index=2, label="Figure 2", caption="More ducks.", page=3, bbox=(0, 0, 10, 10),
                   image="figures/fig2.png"),
        ],
        tables=[Figure(id="tab1", kind="table", index=1, label="Table 1", caption="Duck counts.", page=2,
                       bbox=(0, 0, 10, 10), image="figures/tab1.png")],
    )
    document.save(workspace.root / "document.json")
    workspace.set_document(document)
    workspace.project.summary = Summary.model_validate(PIPELINE_JSON)
    workspace.autosave()
    return workspace


PIPELINE_JSON = {
    "engine": {"engine": "extractive", "model": "extractive"},
    "paragraphs": [
        {"role": "background", "text": "Ducks matter <script>alert(1)</script> as Figure 1 shows.",
         "figure": {"index": 1, "id": "fig1", "label": "Figure 1", "score": 0.9, "image": "figures/fig1.png"},
         "image_caption": "Why fig 1",
         "sentences": [{"text": "Ducks matter <script>alert(1)</script> as Figure 1 shows.", "pages": [1], "figures": ["Figure 1"], "tables": [],
                        "blocks": ["b1"]}]},
        {"role": "method", "text": "We counted them.", "figure": {"index": 2, "id": "tab1", "label": "Table 1", "image": "figures/tab1.png"},
         "image_caption": "", "sentences": [{"text": "We counted.", "pages": [2], "figures": [],
                                             "tables": ["Table 1"], "blocks": []}]},
        {"role": "results", "text": "There were many.", "figure": None, "sentences": []},
        {"role": "conclusion", "text": "Ducks are many.", "figure": None, "sentences": []},
    ],
    # document order of the pipeline's candidates: fig1 (p.1), tab1 (p.2), fig2 (p.3)
    "figures": [{"index": 1, "id": "fig1", "label": "Figure 1", "image": "figures/fig1.png"},
                {"index": 2, "id": "tab1", "label": "Table 1", "kind": "table", "image": "figures/tab1.png"},
                {"index": 3, "id": "fig2", "label": "Figure 2", "image": "figures/fig2.png"}],
    "timings": {"total_s": 1.25},
    "repairs": [{"paragraph": 2, "kind": "figure", "reason": "index out of range"}],
    "warnings": ["a note"],
}


def test_the_project_stores_the_pipeline_summary(tmp_path):
    workspace = make_workspace(tmp_path)
    summary = workspace.project.summary
    assert [p.role for p in summary.paragraphs] == list(ROLES)
    assert [p.figure_id for p in summary.paragraphs] == ["fig1", "tab1", None, None]
    assert summary.paragraphs[0].figure.score == pytest.approx(0.9)
    cited = summary.paragraphs[0].sentences[0]
    assert (cited.pages, cited.figures, cited.blocks) == ([1], ["Figure 1"], ["b1"])
    assert summary.paragraphs[1].sentences[0].tables == ["Table 1"]
    assert summary.engine_label.startswith("extractive") and summary.seconds == pytest.approx(1.25)
    assert any("index out of range" in w for w in summary.notes())
    reloaded = proj.Workspace.load(workspace.root).project.summary
    assert reloaded == summary  # stored as it is


def test_project_files_of_format_1_still_open(tmp_path):
    """Format 1 kept a reduced copy of the summary (a figure id per paragraph, the pipeline's JSON under
    ``raw``); opening one gives the Summary with the user's edits laid over the pipeline's."""
    workspace = make_workspace(tmp_path)
    raw = dict(PIPELINE_JSON, options={"figure_mode": "hybrid", "shuffle_images": None})
    old = {
        "format": 1, "id": "0123456789abcdef", "title": "A paper", "authoring": "Notes.",
        "summary": {
            "engine": "extractive", "created": 1.0, "seconds": 1.25, "warnings": ["old note"], "raw": raw,
            "paragraphs": [
                {"role": "background", "text": "Edited by hand.", "figure": "fig1", "image_caption": "Why fig 1",
                 "citations": [{"kind": "page", "ref": "1", "label": "p. 1", "sentence": 0, "page": 1}],
                 "figure_source": "engine", "score": 0.9},
                {"role": "method", "text": "We counted them.", "figure": "fig2", "image_caption": "More ducks.",
                 "citations": [], "figure_source": "user", "score": None},
                {"role": "results", "text": "There were many.", "figure": None, "citations": []},
                {"role": "conclusion", "text": "Ducks are many.", "figure": None, "citations": []},
            ],
        },
    }
    archive_path = tmp_path / "old.mdsproj"
    with zipfile.ZipFile(archive_path, "w") as archive:
        archive.writestr("project.json", json.dumps(old))
        archive.write(workspace.root / "document.json", "document.json")
        for name in ("fig1", "tab1", "fig2"):
            archive.write(workspace.figures_dir / f"{name}.png", f"figures/{name}.png")
    opened = proj.open_project(archive_path)
    summary = opened.project.summary
    assert opened.project.format == proj.PROJECT_FORMAT and opened.project.authoring == "Notes."
    assert [p.text for p in summary.paragraphs][:2] == ["Edited by hand.", "We counted them."]
    assert [p.figure_id for p in summary.paragraphs] == ["fig1", "fig2", None, None]
    assert summary.paragraphs[1].figure.chosen_by == "user" and summary.paragraphs[1].figure.index == 3
    assert summary.paragraphs[0].sentences[0].pages == [1]  # the pipeline's citations are kept
    assert summary.engine_label == "extractive" and "old note" in summary.warnings
    assert [a["image"]["imageRef"] for a in proj.render.to_mdocsum(summary)] == ["1", "3", "None", "None"]
    written = proj.export(opened, "markdown", tmp_path / "old.md")
    assert (tmp_path / "old_images" / "figure-2.png").is_file() and "Edited by hand." in written[0].read_text()


def test_autosave_and_project_file_round_trip(tmp_path):
    workspace = make_workspace(tmp_path)
    workspace.project.authoring = "My text.\n\nMore text."
    workspace.project.summary.paragraphs[2].figure = workspace.project.summary.figure_choice("fig2")
    workspace.autosave()
    saved = json.loads((workspace.root / "project.json").read_text(encoding="utf-8"))
    assert saved["authoring"] == "My text.\n\nMore text." and "session" not in saved
    target = tmp_path / "out" / "mine"
    written = workspace.save_as(target)
    assert written == tmp_path / "out" / "mine.mdsproj"
    assert [p.name for p in written.parent.iterdir()] == ["mine.mdsproj"]  # no temporary file left
    with zipfile.ZipFile(written) as archive:
        names = set(archive.namelist())
    assert {"project.json", "document.json", "figures/fig1.png"} <= names and "session.json" not in names
    workspace.discard()
    assert not workspace.root.exists()

    reopened = proj.open_project(written)
    assert reopened.project.authoring == "My text.\n\nMore text."
    assert reopened.project.summary.paragraphs[2].figure_id == "fig2"
    assert reopened.project.saved_to == str(written)
    assert reopened.image_path(reopened.figure("fig1")).is_file()
    assert reopened.document.title == "A paper"
    # saving again over the same file replaces it whole
    reopened.project.authoring = "changed"
    reopened.save_as(written)
    with zipfile.ZipFile(written) as archive:
        assert json.loads(archive.read("project.json"))["authoring"] == "changed"


def test_bad_project_files_give_clear_errors(tmp_path):
    junk = tmp_path / "junk.mdsproj"
    junk.write_bytes(b"not a zip at all")
    with pytest.raises(proj.ProjectError, match="damaged"):
        proj.open_project(junk)
    with pytest.raises(proj.ProjectError, match="no such project"):
        proj.open_project(tmp_path / "missing.mdsproj")
    other = tmp_path / "other.mdsproj"
    with zipfile.ZipFile(other, "w") as archive:
        archive.writestr("hello.txt", "hi")
    with pytest.raises(proj.ProjectError, match="not a mmdocsum project"):
        proj.open_project(other)
    evil = tmp_path / "evil.mdsproj"
    with zipfile.ZipFile(evil, "w") as archive:
        archive.writestr("project.json", proj.Project().model_dump_json())
        archive.writestr("../escape.txt", "x")
    with pytest.raises(proj.ProjectError, match="unsafe"):
        proj.open_project(evil)
    assert not (tmp_path / "escape.txt").exists()


def test_recovery_finds_workspaces_whose_process_is_gone(tmp_path, workspaces):
    live = make_workspace(tmp_path)
    assert proj.recoverable_workspaces() == []  # held by this process
    crashed = make_workspace(tmp_path)
    crashed.project.authoring = "typed before the crash"
    crashed.autosave()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    session = json.loads((crashed.root / "session.json").read_text(encoding="utf-8"))
    session["pid"] = dead.pid
    (crashed.root / "session.json").write_text(json.dumps(session), encoding="utf-8")
    crashed.release()
    items = proj.recoverable_workspaces()
    assert [item.id for item in items] == [crashed.project.id]
    recovered = proj.recover(items[0])
    assert recovered.project.authoring == "typed before the crash"
    assert recovered.document is not None and recovered.document.title == "A paper"
    assert proj.recoverable_workspaces() == []

    # another running instance of the app holds its workspace: not offered
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        live.release()
        session = json.loads((live.root / "session.json").read_text(encoding="utf-8"))
        session["pid"] = other.pid
        (live.root / "session.json").write_text(json.dumps(session), encoding="utf-8")
        assert proj.recoverable_workspaces() == []
    finally:
        other.kill()
        other.wait()


def test_empty_workspaces_are_cleaned_not_offered(workspaces):
    empty = proj.Workspace.create()
    empty.release()
    assert proj.recoverable_workspaces() == []
    assert not empty.root.exists()


def test_exports(tmp_path):
    workspace = make_workspace(tmp_path)
    out = tmp_path / "exports"
    files = proj.export(workspace, "markdown", out / "summary.md")
    text = (out / "summary.md").read_text(encoding="utf-8")
    assert files[0] == out / "summary.md" and (out / "summary_images" / "figure-1.png").is_file()
    assert "## Research background" in text and "![Figure 1](<summary_images/figure-1.png>)" in text
    assert "\\[p. 1; Figure 1\\]" in text

    proj.export(workspace, "html", out / "summary.html")
    page = (out / "summary.html").read_text(encoding="utf-8")
    assert page.count("data:image/png;base64,") == 2
    assert "<script>" not in page and "&lt;script&gt;" in page  # raw HTML from a model stays text
    assert "src=\"figures/" not in page  # self-contained

    proj.export(workspace, "pdf", out / "summary.pdf")
    with pymupdf.open(out / "summary.pdf") as pdf:
        text = "".join(page.get_text() for page in pdf)
        assert "Research background" in text and "We counted them." in text
        assert sum(len(page.get_images()) for page in pdf) == 2

    proj.export(workspace, "mdocsum", out / "answer.json")
    answer = json.loads((out / "answer.json").read_text(encoding="utf-8"))
    assert [a["image"]["imageRef"] for a in answer] == ["1", "2", "None", "None"]
    assert answer[0]["image"]["imageCaption"] == "Why fig 1"
    assert set(answer[0]) == {"summary", "image"}


def test_export_of_authoring_text_and_without_summary(tmp_path):
    workspace = make_workspace(tmp_path)
    image = workspace.figures_dir / "fig2.png"
    workspace.project.authoring = f"First paragraph.\n\n![Figure 2]({image.as_posix()})\n\nSecond."
    workspace.project.summary = None
    with pytest.raises(proj.ProjectError, match="no summary"):
        proj.export(workspace, "markdown", tmp_path / "x.md")
    written = proj.export(workspace, "markdown", tmp_path / "notes.md", which="authoring")
    assert "](notes_images/fig2.png)" in written[0].read_text(encoding="utf-8")
    proj.export(workspace, "html", tmp_path / "notes.html", which="authoring")
    assert "data:image/png;base64," in (tmp_path / "notes.html").read_text(encoding="utf-8")
    assert split_paragraphs(workspace.project.authoring) == ["First paragraph.", "Second."]
