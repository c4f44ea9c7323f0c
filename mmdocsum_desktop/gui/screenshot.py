"""`mmdocsum-desktop --screenshot OUT.png FILE`: open FILE, summarize it with the configured engine,
and save a picture of the window (works on the offscreen platform, without a display)."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QEventLoop, QIODevice, QTimer
from PySide6.QtWidgets import QApplication

from mmdocsum_desktop.fileio import OutputError, check_output_path, write_bytes_atomic
from mmdocsum_desktop.gui.main_window import MainWindow
from mmdocsum_desktop.gui.prefs import GuiPrefs


def take_screenshot(document: Path, out: Path, *, size: str = "1440x900", timeout_s: float = 300.0) -> int:
    if not document.exists():
        print(f"mmdocsum-desktop: error: {document}: no such file", file=sys.stderr)
        return 2
    try:
        # the picture goes through the output guard like every output: `--screenshot paper.pdf paper.pdf`
        # would otherwise replace the document with a PNG; checked before the summary's long work
        check_output_path(out, [document])
    except OutputError as error:
        print(f"mmdocsum-desktop: error: {error}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="mmdocsum-shot-") as scratch:
        # the picture's work and window state stay in a scratch folder, not in the user's
        os.environ.setdefault("MMDOCSUM_WORKSPACES_DIR", str(Path(scratch) / "workspaces"))
        os.environ.setdefault("MMDOCSUM_CONFIG_DIR", str(Path(scratch) / "config"))
        window = MainWindow(prefs=GuiPrefs())
        width, _, height = size.partition("x")
        window.resize(int(width or 1440), int(height or 900))
        window.show()
        loop = QEventLoop()
        failures: list[str] = []

        def fail(message: str) -> None:
            failures.append(message)
            loop.quit()

        def opened(_document) -> None:
            job = window.summarize()
            if job is None:
                fail("could not start the summary")
                return
            job.signals.failed.connect(fail)
            job.signals.cancelled.connect(lambda _partial: fail("cancelled"))

        window.documentOpened.connect(opened)
        window.summaryReady.connect(lambda _summary: QTimer.singleShot(300, loop.quit))
        job = window.open_path(document)
        if job is not None:
            job.signals.failed.connect(fail)
        QTimer.singleShot(int(timeout_s * 1000), lambda: fail(f"no summary after {timeout_s:.0f} s"))
        loop.exec()
        if failures:
            print(f"mmdocsum-desktop: error: {failures[0]}", file=sys.stderr)
            window.release()
            return 1
        if window.workspace is not None and window.workspace.project.summary is not None:
            summary = window.workspace.project.summary
            first_with_figure = next((p.figure_id for p in summary.paragraphs if p.figure_id), None)
            if first_with_figure:
                window.follow_citation("figure", first_with_figure)
        window.summary_view.flush()
        deadline = QTimer()
        deadline.setSingleShot(True)
        wait = QEventLoop()
        deadline.timeout.connect(wait.quit)
        deadline.start(600)  # let the page render and the layout settle
        wait.exec()
        QApplication.processEvents()
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        ok = window.grab().save(buffer, "PNG")
        buffer.close()
        window.dirty = False
        window.close()
        if not ok:
            print(f"mmdocsum-desktop: error: cannot make a PNG of the window for {out}", file=sys.stderr)
            return 1
        try:
            write_bytes_atomic(out, bytes(data.data()))  # atomic, and checked again against every input read
        except OutputError as error:
            print(f"mmdocsum-desktop: error: {error}", file=sys.stderr)
            return 2
        print(f"wrote {out}")
        return 0
