"""Notices from a worker thread reach the main window's banner through the message bridge."""

from __future__ import annotations

import threading

from mmdocsum_desktop.gui.main_window import MainWindow
from mmdocsum_desktop.messages import notify


def test_a_notice_from_a_worker_thread_shows_in_the_window(qtbot):
    window = MainWindow()
    qtbot.addWidget(window)
    worker = threading.Thread(target=notify, args=("the cross-encoder fell back to the CPU",))
    with qtbot.waitSignal(window.messages.notice, timeout=5000):
        worker.start()
    worker.join()
    qtbot.waitUntil(lambda: not window.banner.isHidden())
    assert "cross-encoder fell back to the CPU" in window.banner.label.text()
    assert window.banner.kind == "warning"
    window.close()
