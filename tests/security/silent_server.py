"""A real TCP server on 127.0.0.1 that accepts every connection, reads the request and never answers:
the slowest server there is (tests of --time-limit, and tests/fuzz_cli.py)."""

from __future__ import annotations

import socket
import threading


class SilentServer:
    def __init__(self) -> None:
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(16)
        self.url = f"http://127.0.0.1:{self._socket.getsockname()[1]}/v1"
        self._held: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self._socket.accept()
                connection.recv(65536)
            except OSError:
                return
            self._held.append(connection)  # open and silent: the client waits for a status line

    def __enter__(self) -> SilentServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._socket.close()
        for connection in self._held:
            connection.close()
