"""Shared fixtures of the model-layer tests: an isolated data/cache dir per test, and a local
Hugging-Face-style file server on 127.0.0.1 (never the internet)."""

from __future__ import annotations

import hashlib
import http.server
import re
import threading
from dataclasses import dataclass, field

import pytest


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path, monkeypatch):
    """Every test gets its own data and cache dir, so nothing touches the user's real ones."""
    data = tmp_path / "data"
    cache = tmp_path / "cache"
    monkeypatch.setenv("MMDOCSUM_DATA_DIR", str(data))
    monkeypatch.setenv("MMDOCSUM_CACHE_DIR", str(cache))
    return data, cache


# ------------------------------------------------------------------------------------ local hub server

COMMIT = "0123456789abcdef0123456789abcdef01234567"


@dataclass
class HubServer:
    url: str
    files: dict[str, bytes]  # "owner/name/filename" -> content
    requests: list[dict] = field(default_factory=list)

    def add(self, repo: str, filename: str, content: bytes) -> str:
        self.files[f"{repo}/{filename}"] = content
        return hashlib.sha256(content).hexdigest()

    def gets(self, filename: str) -> list[dict]:
        return [r for r in self.requests if r["method"] == "GET" and r["path"].endswith("/" + filename)]


_RESOLVE = re.compile(r"^/(?P<repo>[^/]+/[^/]+)/resolve/(?P<revision>[^/]+)/(?P<filename>.+)$")


def _make_handler(server_state: HubServer):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):  # keep pytest output clean
            pass

        def _lookup(self):
            match = _RESOLVE.match(self.path.split("?")[0])
            if not match:
                return None, None
            key = f"{match['repo']}/{match['filename']}"
            return key, server_state.files.get(key)

        def _record(self):
            server_state.requests.append(
                {"method": self.command, "path": self.path, "range": self.headers.get("Range")}
            )

        def _not_found(self):
            body = b'{"error":"Entry not found"}'
            self.send_response(404)
            self.send_header("Content-Type", "application/json")
            self.send_header("X-Error-Code", "EntryNotFound")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _headers(self, content: bytes, status: int, start: int = 0):
            self.send_response(status)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("ETag", f'"{hashlib.sha256(content).hexdigest()}"')
            self.send_header("X-Repo-Commit", COMMIT)
            self.send_header("Accept-Ranges", "bytes")
            if status == 206:
                self.send_header("Content-Range", f"bytes {start}-{len(content) - 1}/{len(content)}")
            self.send_header("Content-Length", str(len(content) - start))
            self.end_headers()

        def do_HEAD(self):
            self._record()
            _key, content = self._lookup()
            if content is None:
                return self._not_found()
            self._headers(content, 200)

        def do_GET(self):
            self._record()
            _key, content = self._lookup()
            if content is None:
                return self._not_found()
            start = 0
            requested = self.headers.get("Range")
            if requested:
                match = re.match(r"bytes=(\d+)-$", requested)
                start = int(match.group(1)) if match else 0
            self._headers(content, 206 if start else 200, start)
            try:
                view = memoryview(content)[start:]
                for offset in range(0, len(view), 1 << 20):
                    self.wfile.write(view[offset : offset + (1 << 20)])
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client cancelled

    return Handler


@pytest.fixture(scope="session")
def hub_server():
    state = HubServer(url="", files={})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(state))
    httpd.daemon_threads = True
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def hf_env(tmp_path, monkeypatch, hub_server):
    """huggingface_hub pointed at the local server, with an empty HF_HOME and no token."""
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf_home"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    import huggingface_hub.constants as constants

    # constants are read once at import; the env var above covers a fresh interpreter
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    return hub_server
