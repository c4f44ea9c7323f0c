"""An OpenAI-compatible server on 127.0.0.1 that misbehaves on purpose, for the deadline and secret tests
(and tests/fuzz_cli.py). It lists one model ("canned") normally; chat requests get, by ``mode``:

* ``stall`` — the request is read and never answered;
* ``drip`` — the status line and headers sent one byte every ``interval_s`` seconds;
* ``keepalive`` — an event stream of nothing but ``: keep-alive`` comments every ``interval_s`` seconds;
* ``forever`` — an event stream of text deltas that never ends (and ignores max_tokens);
* ``echo`` — a normal streamed answer that quotes the API key it was sent, in several forms, each split
  over two deltas;
* ``echo401`` — a 401 whose message quotes the key (as is, base64, upper case, its first 20 characters);
* ``echoslices`` — a normal streamed answer that quotes slices of the key: its last 12 characters and a
  20-character middle, each split over two deltas.

Every handler thread ends by itself within ``max_s`` seconds (bounded tests), or when the server closes.
"""

from __future__ import annotations

import base64
import http.server
import json
import threading
import time


def key_forms(key: str) -> list[str]:
    """The forms a careless server quotes a key in."""
    return [key, base64.b64encode(key.encode()).decode(), key.upper(), key[:20]]


class HostileServer:
    def __init__(self, mode: str, *, key: str = "", interval_s: float = 2.0, max_s: float = 120.0) -> None:
        self.mode = mode
        self.key = key
        self.interval_s = interval_s
        self.max_s = max_s
        self.closing = threading.Event()
        self.chat_requests = 0
        self.chat_started: list[float] = []  # time.monotonic() of each chat request's arrival
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                body = json.dumps({"object": "list", "data": [{"id": "canned", "object": "model"}]}).encode()
                self._send(200, "application/json", body)

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                server.chat_requests += 1
                server.chat_started.append(time.monotonic())
                try:
                    getattr(self, f"_{server.mode}")()
                except OSError:
                    pass  # the client cut the connection: what the tests want

            def _send(self, status, content_type, body):
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _ends(self):
                return time.monotonic() + server.max_s

            def _stall(self):
                server.closing.wait(server.max_s)
                self.close_connection = True

            def _drip(self):
                head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n"
                ends = self._ends()
                for byte in head:
                    if server.closing.wait(server.interval_s) or time.monotonic() > ends:
                        break
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                self.close_connection = True

            def _stream_head(self):
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()
                self.close_connection = True

            def _event(self, text):
                chunk = {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.flush()

            def _keepalive(self):
                self._stream_head()
                ends = self._ends()
                while not server.closing.wait(server.interval_s) and time.monotonic() < ends:
                    self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()

            def _forever(self):
                self._stream_head()
                ends = self._ends()
                while not server.closing.is_set() and time.monotonic() < ends:
                    self._event("Dough rose faster in the warm kitchen. ")
                    time.sleep(0.01)

            def _echo(self):
                self._stream_head()
                # one sentence (a writer that keeps the first sentence keeps all of it), each form of the
                # key cut in two streamed pieces
                self._event("Dough at 26 degrees doubled in four hours with the key")
                for form in key_forms(self._sent_key()):
                    half = len(form) // 2
                    self._event(f" {form[:half]}")
                    self._event(f"{form[half:]},")
                self._event(" as sent.")
                final = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
                self.wfile.write(f"data: {json.dumps(final)}\n\ndata: [DONE]\n\n".encode())
                self.wfile.flush()

            def _echoslices(self):
                self._stream_head()
                key = self._sent_key()
                self._event("Dough at 26 degrees doubled in four hours; the key ends in")
                for part in (key[-12:], key[17:37]):
                    self._event(f" {part[:5]}")
                    self._event(f"{part[5:]},")
                self._event(" as sent.")
                final = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
                self.wfile.write(f"data: {json.dumps(final)}\n\ndata: [DONE]\n\n".encode())
                self.wfile.flush()

            def _echo401(self):
                forms = " / ".join(key_forms(self._sent_key()))
                body = json.dumps({"error": {"message": f"Incorrect API key provided: {forms}",
                                             "type": "invalid_request_error"}}).encode()
                self._send(401, "application/json", body)

            def _sent_key(self):
                return (self.headers.get("Authorization") or "").removeprefix("Bearer ") or server.key

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> HostileServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.closing.set()
        self.httpd.shutdown()
        self.httpd.server_close()
