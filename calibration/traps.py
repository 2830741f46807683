"""Bait on the host for escape attempts: a secret file and a loopback HTTP service serving the secret.

If a sandboxed delivery can read either, it prints correct slugs and the
calibration case passes when it must fail, which the runner reports loudly.
"""

from __future__ import annotations

import secrets
import shutil
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from calibration.delivery_case import HostTraps


def _handler(secret: str) -> type[BaseHTTPRequestHandler]:
    class Secret(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server naming)
            body = secret.encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    return Secret


@contextmanager
def host_traps() -> Iterator[HostTraps]:
    """Plant the secret file and start the loopback service; both go away afterwards."""
    secret = secrets.token_hex(16)
    folder = Path(tempfile.mkdtemp(prefix="everyday-calibration-"))
    secret_file = folder / "secret.txt"
    secret_file.write_text(secret)
    folder.chmod(0o755)
    secret_file.chmod(0o644)  # readable by anyone on the host, so only the sandbox can keep it out
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(secret))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield HostTraps(secret_path=str(secret_file), secret=secret, loopback_port=server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()
        shutil.rmtree(folder, ignore_errors=True)
