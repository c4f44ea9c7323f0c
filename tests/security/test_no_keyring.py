"""No keyring backend (``keyring.backends.fail.Keyring``, what a headless Linux without a Secret Service
gets): the app says so, keeps a key the user gives for the session only — in memory, used by the engines
built in that session, written nowhere — and forgets it when the process ends. In the core, in the
desktop app's Settings dialog (offscreen, real widgets), and at the command line (no terminal: a clear
error; in a terminal: a prompt that does not echo)."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
import uuid

import keyring
import pytest
from keyring.backends import fail
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QDialogButtonBox

from mmdocsum_desktop.engines.base import GenerationOptions, Message
from mmdocsum_desktop.engines.factory import build_engine
from mmdocsum_desktop.errors import SecretError
from mmdocsum_desktop.schemas import settings as app_settings
from mmdocsum_desktop.schemas.settings import EngineChoice as EngineRequest
from tests.security.conftest import AppHome, KeyServer, find_secret, tiny_document

NO_BACKEND = "keyring.backends.fail.Keyring"


@pytest.fixture
def no_keyring(tmp_path, monkeypatch):
    """This process without a keyring backend, its settings and workspaces in tmp_path."""
    for name, folder in (("MMDOCSUM_DATA_DIR", "data"), ("MMDOCSUM_CONFIG_DIR", "config"),
                         ("MMDOCSUM_WORKSPACES_DIR", "workspaces")):
        monkeypatch.setenv(name, str(tmp_path / folder))
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    app_settings.forget_session_keys()
    yield tmp_path
    app_settings.forget_session_keys()
    keyring.set_keyring(previous)


def _files(root):
    return [p for p in root.rglob("*") if p.is_file()]


def test_core_keeps_the_key_in_memory_for_the_session(no_keyring):
    key = f"sk-session-{uuid.uuid4().hex}"
    assert not app_settings.keyring_available()
    with pytest.raises(SecretError, match="no system keyring is available.*kept for that session only"):
        app_settings.get_api_key("work")
    assert app_settings.set_api_key("work", key) == "session"
    assert "session only" in app_settings.session_only_message("work")
    assert app_settings.get_api_key("work") == key

    with KeyServer(key) as server:  # it answers only with this key
        engines = app_settings.EngineSettings.model_validate(
            {"engine": "openai", "openai": {"base_url": server.url, "key_name": "work", "retries": 0}})
        engine = build_engine(EngineRequest(engine="auto"), engines, embedder=None)
        assert engine.model_name == "canned"  # GET /models, with the key
        engine.generate([Message("user", "Hi")], GenerationOptions(max_tokens=8))
        assert server.authorized == [("GET", "/v1/models"), ("POST", "/v1/chat/completions")]
    app_settings.save_settings(app_settings.Settings(engines=engines))
    assert app_settings.settings_path().is_file()
    assert not find_secret(_files(no_keyring), key)

    # another process (the next session) has no key: it was never written anywhere
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON_KEYRING")}
    other = subprocess.run(
        [sys.executable, "-c", "from mmdocsum_desktop.schemas.settings import get_api_key; get_api_key('work')"],
        env={**env, "PYTHON_KEYRING_BACKEND": NO_BACKEND}, capture_output=True, text=True, timeout=60,
        stdin=subprocess.DEVNULL)
    assert other.returncode != 0 and "no system keyring is available" in other.stderr
    app_settings.delete_api_key("work")
    with pytest.raises(SecretError):
        app_settings.get_api_key("work")


def test_settings_dialog_offers_a_session_only_key_and_the_window_uses_it(qtbot, no_keyring):
    from mmdocsum_desktop.gui.main_window import MainWindow
    from mmdocsum_desktop.gui.settings_dialog import SettingsDialog

    key = f"sk-session-{uuid.uuid4().hex}"
    document = tiny_document(no_keyring / "docs")
    window = MainWindow()
    qtbot.addWidget(window)
    window.ask_save_changes = lambda: "discard"
    window.show()
    seen: dict = {}
    with KeyServer(key) as server:
        def fill() -> None:  # the user, in the dialog the window's Settings action opened
            dialog = QApplication.activeModalWidget()
            seen["keyring_ok"] = dialog.keyring_ok
            seen["note"] = dialog.no_keyring_note.text()
            seen["placeholder"] = dialog.api_key.placeholderText()
            dialog.engine.setCurrentIndex(dialog.engine.findData("openai"))
            dialog.base_url.setText(server.url)
            dialog.key_name.setText("work")
            dialog.api_key.setText(key)
            dialog.buttons.button(QDialogButtonBox.StandardButton.Save).click()
            seen["visible_after_save"] = dialog.isVisible()

        QTimer.singleShot(0, fill)
        window.open_settings()
        assert seen["keyring_ok"] is False and not seen["visible_after_save"]
        assert "session only" in seen["note"] and "never written to a file" in seen["note"]
        assert "session only" in seen["placeholder"]
        assert "kept in memory for this session only" in window.banner.text
        assert app_settings.get_api_key("work") == key
        saved = json.loads(app_settings.settings_path().read_text())
        assert saved["engines"]["openai"]["key_name"] == "work" and saved["engines"]["engine"] == "openai"

        # a new dialog says where the key is, and "Test connection" sends it (nothing typed this time)
        dialog = SettingsDialog(window.runner, window)
        qtbot.addWidget(dialog)
        assert "kept for this session only" in dialog.key_state.text()
        job = dialog.test_connection()
        qtbot.waitUntil(lambda: job.delivered, timeout=30_000)
        assert dialog.test_result.text().startswith("Connected"), dialog.test_result.text()
        dialog.reject()

        # the summary job the window starts builds its engine with the session's key
        with qtbot.waitSignal(window.documentOpened, timeout=60_000):
            window.open_path(document)
        with qtbot.waitSignal(window.summaryReady, timeout=120_000):
            window.summarize()
        assert ("POST", "/v1/chat/completions") in server.authorized
        assert not [r for r in server.requests if r[2] != f"Bearer {key}"]
    window.dirty = False
    window.close()
    assert not find_secret(_files(no_keyring), key)


def test_command_line_says_so_and_asks_for_the_key_in_a_terminal(tmp_path):
    key = f"sk-session-{uuid.uuid4().hex}"
    app = AppHome.make(tmp_path / "app", PYTHON_KEYRING_BACKEND=NO_BACKEND)
    document = tiny_document(app.cwd / "docs")
    with KeyServer(key) as server:
        args = ["summarize", str(document), "-o", "out/summary.json", "--engine", "openai", "--base-url", server.url,
                "--api-key-name", "work", "--quiet"]
        # no terminal (a script, a pipe): one clear line, nothing sent
        done = app.run(*args, stdin=subprocess.DEVNULL, name="no-terminal")
        assert done.returncode != 0
        assert "mmdocsum: error: no system keyring is available" in done.stderr
        assert "kept for that session only" in done.stderr and "Traceback" not in done.stderr
        assert server.requests == []

        # in a terminal: the same message, then a prompt; the key typed is not echoed, the run uses it
        transcript, code = _in_terminal(app, args, answer_to="kept for this run only", answer=key)
        assert code == 0, transcript
        assert "no system keyring is available" in transcript
        assert key not in transcript  # not echoed
        assert ("POST", "/v1/chat/completions") in server.authorized
        assert json.loads((app.cwd / "out" / "summary.json").read_text())["engine"]["engine"] == "openai"
    assert not find_secret(app.files(), key)


def _in_terminal(app: AppHome, args: list[str], *, answer_to: str, answer: str, timeout: float = 120) -> tuple[str, int]:
    """Run ``mmdocsum ARGS`` with a pseudo-terminal as its controlling terminal; type ``answer`` when
    ``answer_to`` appears. Returns what the terminal showed and the exit code."""
    import fcntl
    import pty
    import termios

    master, slave = pty.openpty()

    def take_terminal() -> None:  # in the child, after setsid(): the pty becomes /dev/tty
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    process = subprocess.Popen([sys.executable, "-m", "mmdocsum_desktop", *args], cwd=app.cwd, env=app.env,
                               stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
                               preexec_fn=take_terminal)
    os.close(slave)
    shown = b""
    answered = False
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # the child closed the terminal
                    break
                if not chunk:
                    break
                shown += chunk
            if not answered and answer_to.encode() in shown:
                os.write(master, answer.encode() + b"\n")
                answered = True
            if process.poll() is not None and not ready:
                break
        code = process.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)
    assert answered, shown.decode(errors="replace")
    return shown.decode(errors="replace"), code
