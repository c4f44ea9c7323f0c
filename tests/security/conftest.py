"""The user's data (issue 7): helpers shared by the tests that run the app as the user would, in its own
processes, with a private home.

* :class:`AppHome` — a fresh HOME with the XDG folders, TMPDIR and a working folder inside it, so every
  file the app writes lands under one root that a test can walk; ``run`` starts ``mmdocsum`` there.
* :class:`KeyServer` — a small OpenAI-compatible endpoint on 127.0.0.1 that requires one API key and
  records what it was sent (or echoes the Authorization header back in a 401, as careless proxies do).
"""

from __future__ import annotations

import base64
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # the dialogs tested in this process

NETGUARD = Path(__file__).parent / "netguard"
DEMO = REPO_ROOT / "mmdocsum_desktop" / "resources" / "demo"
TINY = """# Sourdough rises faster in a warm kitchen

## Abstract

We baked twelve loaves at three kitchen temperatures and measured how fast the dough rose.

## Method

Dough was kept at 18, 22 and 26 degrees. We measured its height every hour.

![Figure 1: Dough height over time at three temperatures.](bread_rise.png)

## Results

Dough at 26 degrees doubled in four hours; at 18 degrees it took nine hours, as Figure 1 shows.

## Conclusion

A warm kitchen halves the rising time of sourdough.
"""


def tiny_document(folder: Path) -> Path:
    """A short article with one figure: a small prompt keeps the model's share of the test short."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(DEMO / "docs" / "bread_rise.png", folder / "bread_rise.png")
    path = folder / "tiny.md"
    path.write_text(TINY, encoding="utf-8")
    return path


def tiny_split(folder: Path, document: Path) -> Path:
    """The demo split's bread record (its gold summary) pointing at the tiny document."""
    record = next(json.loads(line) for line in (DEMO / "mdocsum.jsonl").read_text().splitlines()
                  if line.strip() and json.loads(line)["id"] == "bread")
    record["document"] = str(document)
    path = folder / "tiny.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    return path


FILE_KEYRING = "tests.security.file_keyring.FileKeyring"


@dataclass
class AppHome:
    root: Path
    env: dict[str, str] = field(default_factory=dict)

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def cwd(self) -> Path:
        return self.root / "work"

    @classmethod
    def make(cls, root: Path, **extra: str) -> AppHome:
        app = cls(root)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("MMDOCSUM_", "XDG_", "NETGUARD_", "PYTHON_KEYRING", "QT_"))}
        env.update(
            HOME=str(app.home),
            XDG_CONFIG_HOME=str(app.home / ".config"),
            XDG_DATA_HOME=str(app.home / ".local" / "share"),
            XDG_CACHE_HOME=str(app.home / ".cache"),
            XDG_STATE_HOME=str(app.home / ".local" / "state"),
            XDG_RUNTIME_DIR=str(root / "runtime"),
            TMPDIR=str(root / "tmp"),
            PYTHONPATH=str(REPO_ROOT),
            QT_QPA_PLATFORM="offscreen",
            NO_PROXY="127.0.0.1,localhost",
            PYTHONFAULTHANDLER="1",
        )
        env.update(extra)
        app.env = env
        for folder in (app.home, app.cwd, root / "tmp"):
            folder.mkdir(parents=True, exist_ok=True)
        (root / "runtime").mkdir(mode=0o700, exist_ok=True)
        return app

    def run(self, *args: str, **kwargs) -> subprocess.CompletedProcess:
        """``mmdocsum ARGS`` in the working folder (see :meth:`run_module`)."""
        return self.run_module("mmdocsum_desktop", *args, **kwargs)

    def run_module(self, module: str, *args: str, timeout: float = 180, env: dict[str, str] | None = None,
                   name: str | None = None, **kwargs) -> subprocess.CompletedProcess:
        """``python -m MODULE ARGS`` in the working folder. With ``name``, its stdout and stderr are kept
        there too (what the user sees, and may paste into a bug report)."""
        result = subprocess.run([sys.executable, "-m", module, *args], cwd=self.cwd,
                                env={**self.env, **(env or {})}, capture_output=True, text=True,
                                timeout=timeout, **kwargs)
        if name:
            (self.cwd / f"{name}.stdout.txt").write_text(result.stdout)
            (self.cwd / f"{name}.stderr.txt").write_text(result.stderr)
        return result

    def run_many(self, commands: dict[str, list[str]], *, module: str = "mmdocsum_desktop", timeout: float = 300,
                 env: dict[str, str] | None = None) -> dict[str, subprocess.CompletedProcess]:
        """Several ``python -m MODULE ARGS`` at once (they are independent; the machine has cores to
        spare while each one imports and waits); stdout and stderr kept as NAME.stdout.txt / .stderr.txt."""
        started = {}
        for name, args in commands.items():
            out = (self.cwd / f"{name}.stdout.txt").open("w")
            err = (self.cwd / f"{name}.stderr.txt").open("w")
            process = subprocess.Popen([sys.executable, "-m", module, *args], cwd=self.cwd,
                                       env={**self.env, **(env or {})}, stdout=out, stderr=err,
                                       stdin=subprocess.DEVNULL)
            started[name] = (process, out, err, args)
        results = {}
        for name, (process, out, err, args) in started.items():
            try:
                process.wait(timeout=timeout)
            finally:
                if process.poll() is None:
                    process.kill()
                    process.wait()
                out.close()
                err.close()
            results[name] = subprocess.CompletedProcess(
                args, process.returncode, (self.cwd / f"{name}.stdout.txt").read_text(),
                (self.cwd / f"{name}.stderr.txt").read_text())
        return results

    def files(self) -> list[Path]:
        return sorted(p for p in self.root.rglob("*") if p.is_file() and not p.is_symlink())


@pytest.fixture
def app_home(tmp_path) -> AppHome:
    return AppHome.make(tmp_path / "app")


def encodings(secret: str) -> dict[str, bytes]:
    """The forms a leaked key could take in a file: as is, UTF-16, hex, and base64 at each alignment
    (a key inside a longer base64 text, e.g. ``Basic``/``Bearer`` headers or a data: URI)."""
    raw = secret.encode("utf-8")
    forms = {"utf-8": raw, "utf-16-le": secret.encode("utf-16-le"), "hex": raw.hex().encode()}
    for shift in range(3):
        padded = b"\0" * shift + raw
        encoded = base64.b64encode(padded)
        # drop the characters that depend on the unknown bytes before and after the key
        start = {0: 0, 1: 2, 2: 3}[shift]
        usable = (len(padded) // 3) * 4 - 4
        forms[f"base64+{shift}"] = encoded[start:usable]
        forms[f"base64url+{shift}"] = base64.urlsafe_b64encode(padded)[start:usable]
    return forms


def find_secret(files: list[Path], secret: str) -> list[str]:
    """'path: form' for every file that holds the secret in any of its forms."""
    forms = encodings(secret)
    found = []
    for path in files:
        try:
            data = path.read_bytes()
        except OSError:
            continue
        for name, form in forms.items():
            if form and form in data:
                found.append(f"{path}: {name}")
    return found


# ------------------------------------------------------------------------------------ a key server


CANNED_ANSWER = json.dumps([
    {"summary": "Dough rose faster in warm kitchens.", "image": {"imageRef": "None", "imageCaption": ""}},
    {"summary": "Loaves were kept at three temperatures.", "image": {"imageRef": "1", "imageCaption": "Rise"}},
    {"summary": "Warm dough doubled in four hours.", "image": {"imageRef": "None", "imageCaption": ""}},
    {"summary": "Warmth halves the rising time.", "image": {"imageRef": "None", "imageCaption": ""}},
])


class KeyServer:
    """An OpenAI-compatible endpoint that requires ``Bearer <key>``. ``echo=True``: it lists its model,
    then answers every chat request with a 401 whose message quotes the Authorization header it got."""

    def __init__(self, key: str, *, echo: bool = False) -> None:
        self.key = key
        self.echo = echo
        self.requests: list[tuple[str, str, str | None]] = []  # (method, path, Authorization)
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _reply(self):
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                auth = self.headers.get("Authorization")
                server.requests.append((self.command, self.path, auth))
                if self.path.endswith("/models") and auth == f"Bearer {server.key}":
                    status, body = 200, {"object": "list", "data": [{"id": "canned", "object": "model"}]}
                elif server.echo or auth != f"Bearer {server.key}":
                    status = 401
                    body = {"error": {"message": f"Incorrect API key provided: {auth}", "type": "invalid_request_error"}}
                else:
                    status = 200
                    body = {"choices": [{"message": {"role": "assistant", "content": CANNED_ANSWER},
                                         "finish_reason": "stop"}],
                            "usage": {"prompt_tokens": 100, "completion_tokens": 60}}
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _reply

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> KeyServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    @property
    def authorized(self) -> list[tuple[str, str]]:
        return [(m, p) for m, p, auth in self.requests if auth == f"Bearer {self.key}"]
