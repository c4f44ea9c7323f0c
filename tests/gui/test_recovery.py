"""The user's work survives a crash: autosave within seconds of a change, recovery offered at the next
start after the window was destroyed without saving."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import shiboken6

from mmdocsum_desktop.app import project as proj
from mmdocsum_desktop.gui.main_window import MainWindow
from mmdocsum_desktop.gui.project_files import AUTOSAVE_DELAY_MS


def test_autosave_then_recovery_after_the_window_is_destroyed(qtbot, two_figure_pdf):
    window = MainWindow()
    window.show()
    with qtbot.waitSignal(window.documentOpened, timeout=60_000):
        window.open_path(two_figure_pdf)
    text = "Notes I must not lose.\n\nA second paragraph, typed just before the crash."
    root = window.workspace.root

    def saved() -> dict:
        return json.loads((root / "project.json").read_text(encoding="utf-8"))

    changed = time.monotonic()
    window.authoring_view.editor.setPlainText(text)
    qtbot.waitUntil(lambda: saved()["authoring"] == text, timeout=AUTOSAVE_DELAY_MS + 3_000)
    assert time.monotonic() - changed < 5  # "within a few seconds of a change"

    shiboken6.delete(window)  # gone without closeEvent: as good as a crash for the work on disk
    assert root.is_dir()

    items = proj.recoverable_workspaces()
    assert [item.root for item in items] == [str(root)]
    offered = []
    second = MainWindow()
    qtbot.addWidget(second)
    second.ask_recover = lambda found: (offered.append(found), found[0])[1]
    assert second.offer_recovery()
    assert offered and offered[0][0].title
    assert second.authoring_view.editor.toPlainText() == text
    assert second.workspace.document is not None and second.gallery.list.count() == 2
    assert "Recovered" in second.status_label.text()
    assert proj.recoverable_workspaces() == []  # held by the new window now

    # a clean close after saving leaves nothing to recover
    target = Path(os.environ["MMDOCSUM_DATA_DIR"]) / "work.mdsproj"
    second.ask_save_path = lambda *args: str(target)
    assert second.save_project()
    second.close()
    assert target.is_file() and not root.exists()
    assert proj.recoverable_workspaces() == []

    third = MainWindow()
    qtbot.addWidget(third)
    third.open_path(target)
    assert third.authoring_view.editor.toPlainText() == text and not third.dirty


def test_declining_recovery_keeps_the_work_for_later(qtbot):
    window = MainWindow()
    window.authoring_view.editor.setPlainText("draft")
    window.autosave(background=False)
    shiboken6.delete(window)
    second = MainWindow()
    qtbot.addWidget(second)
    second.ask_recover = lambda found: None
    assert not second.offer_recovery()
    assert len(proj.recoverable_workspaces()) == 1
