"""The desktop app with a document, for test_no_network (run in its own process, offscreen): open the
file (the document view shows it, the gallery its figures), Summarize, save the project and export the
summary in every format. Prints one JSON line of what happened.

    python -m tests.security.gui_open DOCUMENT OUT_DIR
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main(argv: list[str]) -> int:
    document, out = Path(argv[0]), Path(argv[1])
    out.mkdir(parents=True, exist_ok=True)
    from PySide6.QtCore import QEventLoop
    from PySide6.QtWidgets import QApplication

    from mmdocsum_desktop.gui.main_window import MainWindow

    app = QApplication([sys.argv[0]])

    def wait(condition, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
            if time.monotonic() > deadline:
                raise TimeoutError(f"{what}: not within {timeout} s")
            time.sleep(0.005)

    window = MainWindow()
    window.ask_save_changes = lambda: "discard"
    window.resize(1280, 820)
    window.show()
    opened: list = []
    window.documentOpened.connect(opened.append)
    window.open_path(document)
    wait(lambda: opened or window.banner.text, 60, "open")
    report: dict = {"opened": bool(opened), "banner": window.banner.text}
    if opened:
        report["figures"] = [v.image for v in opened[0].visuals]
        report["warnings"] = opened[0].warnings
        report["document_view"] = window.document_view.grab().width() > 0  # painted, images included
        job = window.summarize()
        wait(lambda: job.delivered, 120, "summary")
        report["summary"] = job.state
        window.summary_view.flush()
        window.tabs.setCurrentWidget(window.summary_view)
        window.grab()  # paint the summary cards with their figures
        window.ask_save_path = lambda *args: str(out / "project.mdsproj")
        report["saved"] = window.save_project()
        report["exports"] = {}
        for fmt, suffix in (("markdown", ".md"), ("html", ".html"), ("pdf", ".pdf"), ("mdocsum", ".json")):
            export = window.export(fmt, out / f"export{suffix}")
            wait(lambda export=export: export.delivered, 60, f"export {fmt}")
            report["exports"][fmt] = export.state
    window.dirty = False
    window.close()
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
