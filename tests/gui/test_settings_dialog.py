"""Settings round trip through the dialog, with the API key in a test keyring backend."""

from __future__ import annotations

import json

import keyring
import pytest
from keyring.backend import KeyringBackend

from mmdocsum_desktop.gui.settings_dialog import SettingsDialog
from mmdocsum_desktop.gui.widgets.doctor_panel import DoctorPanel
from mmdocsum_desktop.gui.workers import JobRunner
from mmdocsum_desktop.schemas.settings import (
    KEYRING_SERVICE,
    Settings,
    get_api_key,
    load_settings,
    save_settings,
    settings_path,
)
from tests.gui.conftest import wait_job


class MemoryKeyring(KeyringBackend):
    """A real keyring backend that keeps secrets in memory: the test's system keyring."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service, username):
        return self.store.get((service, username))

    def set_password(self, service, username, password):
        self.store[(service, username)] = password

    def delete_password(self, service, username):
        self.store.pop((service, username), None)


@pytest.fixture
def memory_keyring():
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def dialog(qtbot):
    runner = JobRunner()
    made = []

    def make():
        d = SettingsDialog(runner)
        qtbot.addWidget(d)
        made.append(d)
        return d

    yield make
    runner.cancel_all()
    runner.wait(5_000)


def test_settings_round_trip(dialog, memory_keyring):
    first = dialog()
    first.engine.setCurrentIndex(first.engine.findData("openai"))
    first.figure_mode.setCurrentIndex(first.figure_mode.findData("placement"))
    first.base_url.setText("http://127.0.0.1:8089/v1/")
    first.openai_model.setText("tiny")
    first.key_name.setText("work")
    first.api_key.setText("sk-test-123")
    first.n_ctx.setValue(4096)
    first.n_threads.setValue(2)
    first.n_gpu_layers.setValue(0)
    first.llama_model.setText("/models/m.gguf")
    assert first.save()
    assert settings_path().is_file()
    assert "sk-test-123" not in settings_path().read_text(encoding="utf-8")
    assert memory_keyring.store[(KEYRING_SERVICE, "work")] == "sk-test-123"
    assert get_api_key("work") == "sk-test-123"

    saved = load_settings().engines
    assert (saved.engine, saved.figure_mode) == ("openai", "placement")
    assert saved.openai.base_url == "http://127.0.0.1:8089/v1" and saved.openai.model == "tiny"
    assert (saved.llama.n_ctx, saved.llama.n_threads, saved.llama.n_gpu_layers) == (4096, 2, 0)

    second = dialog()  # a new dialog shows what was saved
    assert second.engine.currentData() == "openai"
    assert second.base_url.text() == "http://127.0.0.1:8089/v1"
    assert second.llama_model.text() == "/models/m.gguf"
    assert second.api_key.text() == "" and "is stored" in second.key_state.text()


def test_a_misspelled_settings_key_is_named_in_the_windows_banner_and_saving_cleans_it(make_window, dialog,
                                                                                      memory_keyring):
    settings_path().parent.mkdir(parents=True, exist_ok=True)
    settings_path().write_text(json.dumps({"format": 1, "engines": {"engine": "extractive", "temprature": 0.5}}),
                               encoding="utf-8")
    window = make_window()
    banner = window.banner.text
    assert "'engines.temprature'" in banner and "engines.temperature" in banner
    assert window.banner.kind == "warning"

    d = dialog()  # opened while the window listens: the same file is not warned about twice
    assert d.engine.currentData() == "extractive"
    assert d.save()
    saved = json.loads(settings_path().read_text(encoding="utf-8"))
    assert "temprature" not in saved["engines"] and saved["engines"]["engine"] == "extractive"


def test_invalid_values_keep_the_dialog_and_what_was_typed(dialog, memory_keyring):
    d = dialog()
    d.base_url.setText("ftp://example")
    d.openai_model.setText("typed model")
    assert not d.save()
    assert "base_url" in d.error.text() and not d.error.isHidden()
    assert d.openai_model.text() == "typed model" and d.base_url.text() == "ftp://example"
    assert not settings_path().exists()
    d.base_url.setText("")
    d.api_key.setText("secret")
    assert not d.save() and "Key name" in d.error.text()


def test_test_connection_reports_a_server_that_is_down(qtbot, dialog, memory_keyring):
    d = dialog()
    d.base_url.setText("http://127.0.0.1:9/v1")
    wait_job(qtbot, d.test_connection(), 20_000)
    assert d.test_result.text().startswith("Failed:") and "127.0.0.1" in d.test_result.text()


def test_model_manager_lists_and_verifies(qtbot, dialog):
    d = dialog()
    assert d.models_table.rowCount() >= 1
    names = {d.models_table.item(r, 0).text() for r in range(d.models_table.rowCount())}
    assert "smollm2-135m" in names or "minilm-int8" in names
    row = next(r for r in range(d.models_table.rowCount()) if d.models_table.item(r, 1).text() == "text-embedder")
    d.models_table.selectRow(row)
    assert wait_job(qtbot, d.verify_models(), 60_000).state == "succeeded"
    assert d.models_note.text()


def test_the_clip_model_is_saved_and_shown_again(dialog, memory_keyring):
    save_settings(Settings.model_validate({"placement": {"clip": "my-clip"}}))
    d = dialog()
    assert d.clip_model.currentData() == "my-clip"  # kept, though no such model is registered here
    assert "not found" in d.clip_model.currentText()
    assert d.save()
    assert load_settings().placement.clip == "my-clip"
    d = dialog()
    d.clip_model.setCurrentIndex(d.clip_model.findData(None))
    assert d.save()
    assert load_settings().placement.clip is None


def test_model_names_are_never_cut_and_doctor_advice_wraps(qtbot):
    """Issue 29: names in the models table were cut off; the Doctor's advice ran off the side."""
    runner = JobRunner()
    dialog = SettingsDialog(runner)
    qtbot.addWidget(dialog)
    dialog.resize(760, 520)
    dialog.tabs.setCurrentIndex([dialog.tabs.tabText(i) for i in range(dialog.tabs.count())].index("Models"))
    dialog.show()
    qtbot.waitExposed(dialog)
    table = dialog.models_table
    assert table.rowCount() > 0
    metrics = table.fontMetrics()
    for row in range(table.rowCount()):
        name = table.item(row, 0).text()
        assert table.columnWidth(0) >= metrics.horizontalAdvance(name), name

    dialog.reject()
    runner.wait()

    # the Doctor's report view, as the panel makes it (not shown in its tab: no slow device check here)
    panel = DoctorPanel(runner)
    qtbot.addWidget(panel)
    doctor = panel.text
    doctor.setParent(None)
    qtbot.addWidget(doctor)
    doctor.resize(420, 200)
    doctor.show()
    doctor.setPlainText("[llama] advice: " + "choose a smaller model or give the app more memory " * 12)
    qtbot.waitExposed(doctor)
    assert doctor.horizontalScrollBar().maximum() == 0  # wrapped: nothing to scroll sideways
