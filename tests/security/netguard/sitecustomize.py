"""Network guard for the tests' subprocesses: put this folder on PYTHONPATH and set NETGUARD_LOG.

Python imports ``sitecustomize`` at start-up, before the app. This one installs an audit hook
(PEP 578) on every way Python code reaches the network — name lookups (``socket.getaddrinfo``,
``socket.gethostbyname``…), ``socket.connect``/``sendto``/``sendmsg``, ``urllib.Request``,
``http.client.connect`` — and also wraps ``socket.socket.connect``/``connect_ex``. Each attempt is
appended to NETGUARD_LOG (one JSON line) and, with NETGUARD_MODE=block (the default), fails loudly with
``NetworkBlocked``, a RuntimeError that the app's OSError handlers do not swallow. NETGUARD_MODE=record
only records (the tests that serve real HTTP on 127.0.0.1 to see what would have been fetched).

Unix-domain sockets are local IPC (D-Bus), not the network: recorded as such, never blocked.
"""

from __future__ import annotations

import json
import os
import socket
import sys


class NetworkBlocked(RuntimeError):
    pass


_LOG = os.environ.get("NETGUARD_LOG")
_BLOCK = os.environ.get("NETGUARD_MODE", "block") != "record"
_EVENTS = {
    "socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyname_ex", "socket.gethostbyaddr",
    "socket.getnameinfo", "socket.connect", "socket.sendto", "socket.sendmsg", "urllib.Request",
    "http.client.connect", "ftplib.connect", "smtplib.connect", "poplib.connect", "imaplib.open",
    "telnetlib.Telnet.open", "webbrowser.open",
}
_busy = False


def _unix(args) -> bool:
    sock = args[0] if args else None
    family = getattr(sock, "family", None)
    return family is not None and family == getattr(socket, "AF_UNIX", object())


def _record(event: str, args, local: bool) -> None:
    global _busy
    if _busy:
        return
    _busy = True
    try:
        shown = [a if isinstance(a, (str, int, float, type(None))) else repr(a)[:200] for a in args]
        line = json.dumps({"pid": os.getpid(), "argv": sys.argv[:3], "event": event, "args": shown,
                           "local_ipc": local})
        fd = os.open(_LOG, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            os.write(fd, (line + "\n").encode("utf-8"))
        finally:
            os.close(fd)
    finally:
        _busy = False


def _hook(event: str, args) -> None:
    if event not in _EVENTS:
        return
    local = event in ("socket.connect", "socket.sendto", "socket.sendmsg") and _unix(args)
    _record(event, args, local)
    if _BLOCK and not local:
        raise NetworkBlocked(f"network blocked by the test: {event} {args[1:] if event.startswith('socket.') else args}")


def _install() -> None:
    sys.addaudithook(_hook)
    original_connect = socket.socket.connect
    original_connect_ex = socket.socket.connect_ex

    def connect(self, address):
        if self.family != getattr(socket, "AF_UNIX", None):
            _record("socket.socket.connect", (self, address), False)
            if _BLOCK:
                raise NetworkBlocked(f"network blocked by the test: connect {address!r}")
        return original_connect(self, address)

    def connect_ex(self, address):
        if self.family != getattr(socket, "AF_UNIX", None):
            _record("socket.socket.connect_ex", (self, address), False)
            if _BLOCK:
                raise NetworkBlocked(f"network blocked by the test: connect_ex {address!r}")
        return original_connect_ex(self, address)

    socket.socket.connect = connect
    socket.socket.connect_ex = connect_ex


if _LOG:
    _install()
