"""A server that quotes slices of the API key (its last 12 characters, a 20-character middle, each cut over
two streamed pieces) gets none of them into any output (issue 38, item 6): not the ``--stream`` text on
stderr, not ``s.json`` or ``s.md``, not ``ask``'s answer, through the real commands in their own
processes, the key coming from a real keyring backend."""

from __future__ import annotations

import json
import uuid

import pytest

from tests.security.conftest import FILE_KEYRING, AppHome, tiny_document
from tests.security.hostile_server import HostileServer

pytestmark = pytest.mark.slow


def _runs(text: str, key: str) -> list[str]:
    folded = text.casefold()
    return sorted({key[i:i + 8] for i in range(len(key) - 7) if key[i:i + 8].casefold() in folded})


def test_key_slices_echoed_by_a_server_reach_no_output(tmp_path):
    key = f"sk-slices-{uuid.uuid4().hex}{uuid.uuid4().hex[:8]}"
    vault = tmp_path / "vault"
    vault.mkdir()
    keyring_file = vault / "keyring.json"
    keyring_file.write_text(json.dumps({"mmdocsum-desktop\0slices": key}))
    app = AppHome.make(tmp_path / "app", PYTHON_KEYRING_BACKEND=FILE_KEYRING, MMDOCSUM_TEST_KEYRING=str(keyring_file))
    document = tiny_document(app.cwd / "docs")
    # every chat answer streams a sentence quoting slices of the Bearer key it was sent
    with HostileServer("echoslices") as server:
        engine = ["--engine", "openai", "--base-url", server.url, "--api-model", "canned", "--api-key-name", "slices"]
        runs = {
            "json": app.run("summarize", str(document), "-o", "s.json", "--stream", "--max-tokens", "64", *engine),
            "md": app.run("summarize", str(document), "-o", "s.md", "--stream", "--max-tokens", "64", *engine),
            "ask": app.run("ask", str(document), "How fast did the dough rise?", "--stream", *engine),
        }
    assert server.chat_requests >= 3  # every command asked the server, and got the slices back
    streamed = runs["json"].stderr + runs["md"].stderr
    assert "the key ends in" in streamed, streamed[-2000:]  # the text was shown, with the key masked
    for name, result in runs.items():
        assert "Traceback" not in result.stderr, (name, result.stderr[-2000:])
        assert _runs(result.stdout + result.stderr, key) == [], (name, result.stdout[-1000:], result.stderr[-1000:])
    written = [p for p in app.root.rglob("*") if p.is_file() and not p.is_symlink()]
    assert any(p.name == "s.md" for p in written) and any(p.name == "s.json" for p in written)
    leaks = {str(p.relative_to(app.root)): _runs(p.read_text(errors="replace"), key) for p in written}
    assert {p: runs for p, runs in leaks.items() if runs} == {}
