"""A user at the keyboard, for test_kill_recovery: run as a subprocess, it starts the real desktop app
(``MainWindow`` on Qt's offscreen platform), opens a project and edits it through the real widgets —
typing into the authoring editor and into the summary's paragraph editors, opening and closing them —
until the test kills it with SIGKILL.

Every edit is journalled *after* the widget has taken it: one JSON line per event, written with one
``os.write`` to an O_APPEND file (the kernel keeps it whatever happens to this process):

    {"event": "ready", "pid", "root"}                 the project is open; its workspace folder
    {"event": "edit", "t", "kind", "index", "marker"}  "marker" (a unique word) was typed into the
                                                        authoring text (kind "authoring") or into
                                                        paragraph ``index`` (kind "paragraph")
    {"event": "write-start" | "write-end", "t"}        an autosave is writing project.json

    python -m tests.gui.kill_driver PROJECT.mdsproj JOURNAL SEED
"""

from __future__ import annotations

import json
import os
import random
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from mmdocsum_desktop.gui.main_window import MainWindow  # noqa: E402 — Qt reads the platform when it loads


def main(argv: list[str]) -> int:
    project_file, journal_path, seed = argv[0], argv[1], int(argv[2])
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtGui import QTextCursor
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    journal = os.open(journal_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)

    def note(**event) -> None:
        os.write(journal, (json.dumps({"t": time.time(), **event}) + "\n").encode("utf-8"))

    app = QApplication([sys.argv[0]])
    window = MainWindow()
    window.ask_save_changes = lambda: "discard"
    window.show()
    window.open_path(project_file)
    workspace = window.workspace
    if workspace is None or workspace.project.summary is None:
        note(event="error", message=window.banner.text or "the project did not open")
        return 1
    window.summary_view.flush()

    # the autosave writes project.json on a worker thread through Workspace.write_snapshot: journal when
    # a write starts and ends, so the test can kill in the middle of one (the real method does the work)
    write_snapshot = workspace.write_snapshot

    def traced_write(text: str):
        note(event="write-start")
        try:
            return write_snapshot(text)
        finally:
            note(event="write-end")

    workspace.write_snapshot = traced_write
    note(event="ready", pid=os.getpid(), root=str(workspace.root))

    rng = random.Random(seed)
    counter = iter(range(1, 1_000_000))
    cards = window.summary_view.cards

    def type_into(editor, marker: str, *, new_line: bool = False) -> None:
        editor.moveCursor(QTextCursor.MoveOperation.End)
        if new_line:
            QTest.keyClick(editor, Qt.Key.Key_Return)
        QTest.keyClicks(editor, f" {marker}")

    def edit() -> None:
        marker = f"Q{next(counter):05d}Z"
        if rng.random() < 0.55 or not cards:
            window.tabs.setCurrentWidget(window.authoring_view)
            type_into(window.authoring_view.editor, marker, new_line=rng.random() < 0.15)
            note(event="edit", kind="authoring", index=None, marker=marker)
        else:
            window.tabs.setCurrentWidget(window.summary_view)
            index = rng.randrange(len(cards))
            card = cards[index]
            if not card.edit_button.isChecked():
                QTest.mouseClick(card.edit_button, Qt.MouseButton.LeftButton)
            type_into(card.editor, marker)
            note(event="edit", kind="paragraph", index=index, marker=marker)
            if rng.random() < 0.3:  # done with this paragraph: close its editor
                QTest.mouseClick(card.edit_button, Qt.MouseButton.LeftButton)
        QTimer.singleShot(rng.randint(20, 200), edit)

    QTimer.singleShot(50, edit)
    return app.exec()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
