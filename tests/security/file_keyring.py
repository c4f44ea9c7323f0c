"""A real keyring backend for the tests: secrets in one JSON file named by ``MMDOCSUM_TEST_KEYRING``.

Selected in a subprocess with ``PYTHON_KEYRING_BACKEND=tests.security.file_keyring.FileKeyring`` (and the
repository root on ``PYTHONPATH``), so the app goes through the real ``keyring`` API exactly as it does
with the Secret Service. The file plays the system keyring: the tests keep it outside every folder they
search for leaked keys.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError


class FileKeyring(KeyringBackend):
    priority = 1

    @staticmethod
    def _path() -> Path:
        return Path(os.environ["MMDOCSUM_TEST_KEYRING"])

    def _load(self) -> dict[str, str]:
        try:
            return json.loads(self._path().read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}

    def get_password(self, service: str, username: str) -> str | None:
        return self._load().get(f"{service}\0{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        data = self._load()
        data[f"{service}\0{username}"] = password
        self._path().write_text(json.dumps(data), encoding="utf-8")

    def delete_password(self, service: str, username: str) -> None:
        data = self._load()
        if data.pop(f"{service}\0{username}", None) is None:
            raise PasswordDeleteError(username)
        self._path().write_text(json.dumps(data), encoding="utf-8")
