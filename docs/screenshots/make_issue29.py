"""Screenshots of issue 29's reader and authoring, made by driving the real window offscreen:

    QT_QPA_PLATFORM=offscreen .venv/bin/python docs/screenshots/make_issue29.py

writes, next to this script: a text selection with its context menu, search hits on a word printed with
a ligature, the authoring view with captions and a filled Why column, and the pages of the exported PDF.
Work and window state go to a scratch folder; the corpus is read from ../shared."""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PAPERS = Path(os.environ.get("MMDOCSUM_CORPUS") or ROOT.parent / "shared" / "corpus") / "papers"
TEXT = ("Stereo matching estimates disparity from two views of a scene.\n\n"
        "Fig. 2 shows how temporal consistency across video frames reduces flicker in the disparity maps.\n\n"
        "The error of the methods on several sequences is plotted in Fig. 4.\n")


def main() -> int:
    scratch = Path(tempfile.mkdtemp(prefix="mmdocsum-shots-"))
    for name in ("WORKSPACES", "CONFIG", "DATA"):
        os.environ[f"MMDOCSUM_{name}_DIR"] = str(scratch / name.lower())
    from PySide6.QtCore import QEventLoop, QPoint, QPointF, QTimer
    from PySide6.QtGui import QPainter
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv)
    from mmdocsum_desktop.gui.main_window import MainWindow
    from mmdocsum_desktop.gui.prefs import GuiPrefs

    def wait_until(condition, timeout_s: float) -> None:
        loop = QEventLoop()
        timer = QTimer()
        timer.timeout.connect(lambda: condition() and loop.quit())
        timer.start(50)
        QTimer.singleShot(int(timeout_s * 1000), loop.quit)
        loop.exec()
        timer.stop()
        if not condition():
            raise SystemExit(f"timed out after {timeout_s:.0f} s")

    def settle(ms: int = 400) -> None:
        loop = QEventLoop()
        QTimer.singleShot(ms, loop.quit)
        loop.exec()

    window = MainWindow(prefs=GuiPrefs())
    window.ask_save_changes = lambda: "discard"
    window.resize(1440, 900)
    window.show()
    view = window.document_view

    # 1. a selection with its context menu (p. 4 of the J. Hydrology paper)
    opened = []
    window.documentOpened.connect(opened.append)
    window.open_path(PAPERS / "mineru_demo1.pdf")
    wait_until(lambda: opened, 120)
    page = 4
    view.show_page(page)
    wait_until(lambda: view.rendered_page == page, 30)
    words = view._renderer.words(page - 1)
    start = next(i for i, w in enumerate(words) if w.text == "zero" and words[i + 1].text == "ﬂow")
    view.select_words(page, start, start + 2)
    settle()
    last = words[start + 2]
    at_scene = view._page_items[page].mapToScene(QPointF(last.x1 * view.scale, last.y1 * view.scale))
    at = view.view.mapFromScene(at_scene) + QPoint(6, 6)
    view.view.centerOn(at_scene)
    settle()
    at = view.view.mapFromScene(at_scene) + QPoint(6, 6)
    view._context_menu(at_scene, view.view.viewport().mapToGlobal(at))
    menu = view.last_menu
    settle()
    shot = window.grab()
    painter = QPainter(shot)
    painter.drawPixmap(window.mapFromGlobal(menu.pos()), menu.grab())
    painter.end()
    shot.save(str(HERE / "reader-selection-menu.png"))
    menu.close()
    print(f"selected: {view.selected_text!r}")

    # 2. search hits on a word printed with a ligature
    view.search_box.setText("zero flow days")
    job = view.search("zero flow days")
    wait_until(lambda: job.delivered, 60)
    settle()
    window.grab().save(str(HERE / "reader-search-ligature.png"))
    print(f"search: {view.search_label.text()}")

    # 3. authoring: placements accepted with their captions, the Why column filled
    opened.clear()
    window.open_path(PAPERS / "mineru_demo2.pdf")
    wait_until(lambda: opened, 120)
    authoring = window.authoring_view
    window.tabs.setCurrentWidget(authoring)
    authoring.editor.setPlainText(TEXT)
    job = authoring.place_images()
    wait_until(lambda: job.delivered, 300)
    for row, suggestion in enumerate(window.workspace.project.placements):
        if suggestion.image and suggestion.why and suggestion.why.get("mention"):
            authoring.accept(row)
    authoring.refresh_preview()
    settle(600)
    window.grab().save(str(HERE / "authoring-captions-why.png"))
    print("authoring text:\n" + authoring.editor.toPlainText())

    # 4. the summary exported as PDF, its pages rendered
    ready = []
    window.summaryReady.connect(ready.append)
    window.summarize()
    wait_until(lambda: ready, 300)
    out = scratch / "summary.pdf"
    job = window.export("pdf", out)
    wait_until(lambda: job.delivered, 120)
    import pymupdf

    with pymupdf.open(out) as pdf:
        print(f"exported PDF: {pdf.page_count} pages; text has ligature glyphs: "
              f"{bool(re.search('[ﬀ-ﬆ]', ''.join(p.get_text() for p in pdf)))}")
        pages = [p.get_pixmap(dpi=60) for p in pdf]
        width = sum(p.width for p in pages) + 10 * (len(pages) + 1)
        height = max(p.height for p in pages) + 20
        sheet = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, width, height), False)
        sheet.set_rect(sheet.irect, (120, 120, 120))
        x = 10
        for pix in pages:
            pix.set_origin(x, 10)
            sheet.copy(pix, pix.irect)
            x += pix.width + 10
        sheet.save(str(HERE / "export-pdf-pages.png"))
    window.dirty = False
    window.close()
    app.processEvents()
    return 0


if __name__ == "__main__":
    sys.exit(main())
