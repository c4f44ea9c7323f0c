"""What a user does in the desktop app with an API key, for test_planted_key (run in its own process by
``run_logged``, offscreen): open Settings from the window, choose the OpenAI-compatible engine, type
the endpoint, a key name and the key, press "Test connection", Save; open a document, Summarize (the
key is sent), save the project, export it in every format; then point the settings at a wrong URL and
Summarize again (an error), and set the right URL back. Prints one JSON line of what happened.

    MMDOCSUM_TEST_TYPED_KEY=KEY python -m tests.security.run_logged gui-flows DOCUMENT OUT_DIR BASE_URL WRONG_URL KEY_NAME

(the key comes in the environment, as a user's typing leaves no trace in a command line)
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main(argv: list[str]) -> int:
    document, out_dir, base_url, wrong_url, key_name = argv
    key = os.environ.pop("MMDOCSUM_TEST_TYPED_KEY")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication, QDialogButtonBox

    from mmdocsum_desktop.gui.main_window import MainWindow

    app = QApplication([sys.argv[0]])
    app.setApplicationName("mmdocsum-desktop")
    app.setOrganizationName("mmdocsum")
    report: dict = {}

    def wait(condition, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
            if time.monotonic() > deadline:
                raise TimeoutError(f"{what}: not within {timeout} s")
            time.sleep(0.005)

    window = MainWindow()
    window.ask_save_changes = lambda: "discard"
    window.show()

    def settings(url: str, *, with_key: bool) -> None:
        """Fill in the real Settings dialog, opened (modal) by the window's own action."""
        def fill() -> None:
            dialog = app.activeModalWidget()
            dialog.engine.setCurrentIndex(dialog.engine.findData("openai"))
            dialog.base_url.setText(url)
            dialog.key_name.setText(key_name)
            dialog.max_tokens.setValue(64)
            if with_key:
                dialog.api_key.setText(key)
                job = dialog.test_connection()  # sends the typed key
                wait(lambda: job.delivered, 60, "test connection")
                report["test_connection"] = dialog.test_result.text()
            dialog.buttons.button(QDialogButtonBox.StandardButton.Save).click()
            report.setdefault("dialog_messages", []).append(dialog.error.text())

        QTimer.singleShot(0, fill)
        window.open_settings()

    settings(base_url, with_key=True)

    opened = []
    window.documentOpened.connect(opened.append)
    window.open_path(document)
    wait(lambda: opened, 60, "open the document")
    summaries = []
    window.summaryReady.connect(summaries.append)
    job = window.summarize()
    wait(lambda: job.delivered, 240, "summary")
    report["summary_state"] = job.state
    report["summary_error"] = job.error
    report["summary_engine"] = summaries[0].engine_label if summaries else None

    window.ask_save_path = lambda *args: str(out / "project.mdsproj")
    report["saved"] = window.save_project()
    exports = []
    for fmt, suffix in (("markdown", ".md"), ("html", ".html"), ("pdf", ".pdf"), ("mdocsum", ".json")):
        export = window.export(fmt, out / f"export{suffix}")
        wait(lambda export=export: export.delivered, 60, f"export {fmt}")
        exports.append((fmt, export.state))
    report["exports"] = exports

    settings(wrong_url, with_key=False)
    job = window.summarize()
    wait(lambda: job.delivered, 120, "summary with a wrong URL")
    report["wrong_url_state"] = job.state
    report["wrong_url_banner"] = window.banner.text
    settings(base_url, with_key=False)  # back to the working endpoint (the command line uses it next)
    window.dirty = False
    window.close()
    print(json.dumps(report))
    return 0
