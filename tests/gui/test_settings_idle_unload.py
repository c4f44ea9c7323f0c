"""Settings ▸ Local model ▸ "Unload when unused for": the model process's idle timeout (issue 37, point 4)
is saved to the settings the engines read, 0 meaning never, and shown again when the dialog reopens."""

from __future__ import annotations

from mmdocsum_desktop.gui.settings_dialog import SettingsDialog
from mmdocsum_desktop.gui.workers import JobRunner
from mmdocsum_desktop.schemas.settings import LlamaSettings, load_settings


def test_the_idle_unload_time_is_saved_and_shown_again(qtbot):
    runner = JobRunner()
    try:
        dialog = SettingsDialog(runner)
        qtbot.addWidget(dialog)
        assert dialog.idle_timeout.value() == LlamaSettings().idle_timeout_s == 120  # the default shown
        dialog.idle_timeout.setValue(45)
        assert dialog.save()
        assert load_settings().engines.llama.idle_timeout_s == 45.0
        again = SettingsDialog(runner)
        qtbot.addWidget(again)
        assert again.idle_timeout.value() == 45
        again.idle_timeout.setValue(0)  # "never"
        assert again.idle_timeout.text() == "never"
        assert again.save()
        assert load_settings().engines.llama.idle_timeout_s is None
        third = SettingsDialog(runner)
        qtbot.addWidget(third)
        assert third.idle_timeout.text() == "never"
    finally:
        runner.cancel_all()
        runner.wait(5_000)
