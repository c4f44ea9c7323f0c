"""The Doctor tab of Settings: the real report, worked out off the GUI thread, copied for bug reports."""

from __future__ import annotations

import threading

import llama_cpp
from PySide6.QtGui import QGuiApplication

import mmdocsum_desktop.app.doctor as doctor
from mmdocsum_desktop.gui.settings_dialog import SettingsDialog
from mmdocsum_desktop.gui.widgets.doctor_panel import DoctorPanel
from mmdocsum_desktop.gui.workers import JobRunner
from tests.gui.conftest import wait_job


def test_panel_checks_when_shown_off_the_gui_thread_and_copies(qtbot, monkeypatch):
    threads = []
    real = doctor.run_doctor

    def recording(**kwargs):  # the real report; only the thread it runs on is noted
        threads.append(threading.current_thread())
        return real(**kwargs)

    monkeypatch.setattr(doctor, "run_doctor", recording)
    runner = JobRunner()
    panel = DoctorPanel(runner)
    qtbot.addWidget(panel)
    panel.show()
    assert panel.job is not None  # showing the panel started the check
    wait_job(qtbot, panel.job, timeout=60_000)
    assert threads and threads[0] is not threading.main_thread()
    text = panel.text.toPlainText()
    assert "[llama.cpp" in text and llama_cpp.__version__ in text
    assert panel.summary.text().startswith(("Nothing to fix", f"{len(panel.report.problems)} thing"))
    panel.copy()
    assert QGuiApplication.clipboard().text() == panel.report.to_text()
    again = panel.check()
    wait_job(qtbot, again, timeout=60_000)
    assert again is not None and panel.check_button.isEnabled()
    runner.wait()


def test_settings_dialog_has_the_doctor_tab(qtbot):
    runner = JobRunner()
    dialog = SettingsDialog(runner)
    qtbot.addWidget(dialog)
    titles = [dialog.tabs.tabText(i) for i in range(dialog.tabs.count())]
    assert "Doctor" in titles
    assert dialog.doctor.job is None  # nothing is probed until the tab is opened
    dialog.tabs.setCurrentWidget(dialog.doctor)
    dialog.show()
    assert dialog.doctor.job is not None
    wait_job(qtbot, dialog.doctor.job, timeout=60_000)
    assert "[models]" in dialog.doctor.text.toPlainText()
    dialog.reject()
    runner.wait()
