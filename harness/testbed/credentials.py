"""Sealing connection credentials at rest.

Fernet (AES with an HMAC) with a key that lives in its own file beside the
database (mode 0600), so a copy of the database alone reveals nothing and a
tampered sealed value is refused rather than misread.
"""

from __future__ import annotations

import os
from pathlib import Path

from cryptography.fernet import Fernet

KEY_FILE = "secrets/connections.key"


class CredentialBox:
    """Seals and opens connection credentials with the instance's own key (made on first use, mode 0600)."""

    def __init__(self, data_dir: Path) -> None:
        path = data_dir / KEY_FILE
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "wb") as out:
                out.write(Fernet.generate_key())
        self._fernet = Fernet(path.read_bytes())

    def seal(self, credential: str) -> bytes:
        return self._fernet.encrypt(credential.encode())

    def open(self, sealed: bytes) -> str:
        return self._fernet.decrypt(sealed).decode()
