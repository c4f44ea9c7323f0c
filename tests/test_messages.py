"""The one channel from the core to whoever drives it (mmdocsum_desktop.messages)."""

from __future__ import annotations

import threading

import pytest

from mmdocsum_desktop import cli
from mmdocsum_desktop.cli import doctor
from mmdocsum_desktop.errors import MmdocsumWarning
from mmdocsum_desktop.messages import Notice, listening, notify
from mmdocsum_desktop.models.cache import CacheWarning, ContentCache


def test_without_a_listener_a_notice_is_a_python_warning_of_its_category():
    with pytest.warns(CacheWarning, match="recreated"):
        notify("the cache was recreated", category=CacheWarning)


def test_a_listener_gets_notices_from_worker_threads_instead_of_warnings():
    heard: list[Notice] = []
    with listening(heard.append):
        worker = threading.Thread(target=notify, args=("fell back to the CPU",))
        worker.start()
        worker.join()
    assert [(n.text, n.level, n.category) for n in heard] == [("fell back to the CPU", "warning", MmdocsumWarning)]
    # the listener is gone after the block: the next notice is a warning again
    with pytest.warns(MmdocsumWarning):
        notify("nobody listens")


def test_a_damaged_cache_reaches_the_listener(tmp_path):
    path = tmp_path / "cache.sqlite"
    path.write_bytes(b"this is not an SQLite database" * 100)
    heard: list[Notice] = []
    with listening(heard.append):
        cache = ContentCache(path)
        cache.put("kind", "key", b"value")
        assert cache.get("kind", "key") == b"value"
    assert heard and all(n.category is CacheWarning for n in heard)
    assert any("damaged" in n.text or "cannot be used" in n.text for n in heard)


def test_the_cli_prints_notices_on_stderr(capsys, monkeypatch):
    def run(args):
        notify("a model runs on the CPU instead of the GPU")
        return 0

    # register() binds the handler when the parser is built, so the command's own function is swapped
    monkeypatch.setattr(doctor, "run", run)
    assert cli.main(["doctor"]) == 0
    err = capsys.readouterr().err
    assert "mmdocsum: warning: a model runs on the CPU instead of the GPU" in err
