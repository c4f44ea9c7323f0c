"""The desktop app's exports go through the output guard too (issue 38, item 1): a Markdown export's
``NAME_images/`` may hold the user's own files, which stay as they are; the copies the export needs get
another name, and a later export replaces only what an earlier one wrote."""

from __future__ import annotations

from mmdocsum_desktop.app import project as proj
from mmdocsum_desktop.fileio import recorded_files
from tests.app.test_project import make_workspace


def test_summary_and_authoring_exports_keep_the_users_images(tmp_path):
    workspace = make_workspace(tmp_path)
    out = tmp_path / "exports"
    folder = out / "notes_images"
    folder.mkdir(parents=True)
    mine = {"figure-1.png": b"the user's figure 1", "fig2.png": b"the user's fig2", "diary.txt": b"private"}
    for name, data in mine.items():
        (folder / name).write_bytes(data)

    written = proj.export(workspace, "markdown", out / "notes.md")
    text = written[0].read_text(encoding="utf-8")
    assert {name: (folder / name).read_bytes() for name in mine} == mine
    assert "notes_images/figure-1-2.png" in text and (folder / "figure-1-2.png").is_file()

    workspace.project.authoring = f"Notes.\n\n![Figure 2]({(workspace.figures_dir / 'fig2.png').as_posix()})\n"
    written = proj.export(workspace, "markdown", out / "notes.md", which="authoring")
    assert {name: (folder / name).read_bytes() for name in mine} == mine
    assert "](notes_images/fig2-2.png)" in written[0].read_text(encoding="utf-8")
    # the summary's copies went with the summary: this export shows fig2 alone
    assert sorted(p.name for p in folder.iterdir()) == sorted([*mine, "fig2-2.png"])
    assert recorded_files(folder) == {"images": ["fig2-2.png"]}
