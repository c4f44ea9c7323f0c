"""A server that quotes slices of the API key (its last 12 characters, a 20-character middle, each cut over
two streamed pieces) gets none of them into any output (issue 38, item 6): not the ``--stream`` text on
stderr, not ``s.json`` or ``s.md``, not ``ask``'s answer, through the real commands in their own
processes, the key coming from a real keyring backend."""

from __future__ import annotations

import http.server
import json
import threading
import uuid

import pytest

from tests.security.conftest import FILE_KEYRING, AppHome, tiny_document

pytestmark = pytest.mark.slow


class SliceServer:
    """OpenAI-compatible on 127.0.0.1: lists one model; every chat answer streams a sentence that quotes
    slices of the Bearer key it was sent."""

    def __init__(self) -> None:
        self.chats = 0
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                body = json.dumps({"object": "list", "data": [{"id": "canned", "object": "model"}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                server.chats += 1
                key = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                self.close_connection = True
                pieces = ["Dough at 26 degrees doubled in four hours; the key ends in"]
                for part in (key[-12:], key[17:37]):
                    pieces += [f" {part[:5]}", f"{part[5:]},"]
                pieces.append(" as the dough rose.")
                for piece in pieces:
                    chunk = {"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                final = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
                self.wfile.write(f"data: {json.dumps(final)}\n\ndata: [DONE]\n\n".encode())
                self.wfile.flush()

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


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
    server = SliceServer()
    try:
        engine = ["--engine", "openai", "--base-url", server.url, "--api-model", "canned", "--api-key-name", "slices"]
        runs = {
            "json": app.run("summarize", str(document), "-o", "s.json", "--stream", "--max-tokens", "64", *engine),
            "md": app.run("summarize", str(document), "-o", "s.md", "--stream", "--max-tokens", "64", *engine),
            "ask": app.run("ask", str(document), "How fast did the dough rise?", "--stream", *engine),
        }
    finally:
        server.close()
    assert server.chats >= 3  # every command asked the server, and got the slices back
    streamed = runs["json"].stderr + runs["md"].stderr
    assert "the key ends in" in streamed, streamed[-2000:]  # the text was shown, with the key masked
    for name, result in runs.items():
        assert "Traceback" not in result.stderr, (name, result.stderr[-2000:])
        assert _runs(result.stdout + result.stderr, key) == [], (name, result.stdout[-1000:], result.stderr[-1000:])
    written = [p for p in app.root.rglob("*") if p.is_file() and not p.is_symlink()]
    assert any(p.name == "s.md" for p in written) and any(p.name == "s.json" for p in written)
    leaks = {str(p.relative_to(app.root)): _runs(p.read_text(errors="replace"), key) for p in written}
    assert {p: runs for p, runs in leaks.items() if runs} == {}
