"""Preparing Paperclip's template data folder: onboard once and start the server once, so each instance just copies it.

Apart from :mod:`.install` because preparing starts an instance, and an
instance copies the prepared folder.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from everyday_paperclip.install import (
    CLI,
    INSTALL_DIR,
    INSTANCE_NAME,
    PINNED_VERSION,
    TEMPLATE_DIR,
    require_installed,
)
from everyday_paperclip.instance import PaperclipInstance, free_port, paperclip_env
from harness.products.base import InstanceError


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def prepare() -> Path:
    """Prepare the template data folder (config, secrets, migrated database) once per pinned version.

    Parallel cells share it read-only; the first one to need it prepares it
    under a lock, the others wait.
    """
    require_installed()
    ready = TEMPLATE_DIR / "ready"
    if ready.exists():
        return TEMPLATE_DIR
    with _locked(INSTALL_DIR / "template.lock"):
        if not ready.exists():
            _prepare_template()
    return TEMPLATE_DIR


def _prepare_template() -> None:
    """Onboard once (it writes the config), then start the server once so initdb and migrations run, and stop it."""
    shutil.rmtree(TEMPLATE_DIR, ignore_errors=True)
    for folder in ("home", "tmp", "data", "logs"):
        (TEMPLATE_DIR / folder).mkdir(parents=True)
    TEMPLATE_DIR.chmod(0o755)
    env = paperclip_env(TEMPLATE_DIR, free_port(), jwt_secret=None)
    config = TEMPLATE_DIR / "data" / "instances" / INSTANCE_NAME / "config.json"
    with open(TEMPLATE_DIR / "logs" / "onboard.log", "wb") as log:
        onboard = subprocess.Popen(
            [str(CLI), "onboard", "--yes", "--no-install-service", "-d", str(TEMPLATE_DIR / "data")],
            env=env,
            cwd=TEMPLATE_DIR,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        # Onboarding writes the config, then starts a server; as root that server stops at initdb. Either way,
        # the config is all that is kept from it.
        deadline = time.monotonic() + 120
        while onboard.poll() is None and not _answers(int(env["PORT"])) and time.monotonic() < deadline:
            time.sleep(0.2)
        if onboard.poll() is None:
            os.killpg(onboard.pid, signal.SIGTERM)
            onboard.wait(60)
    if not config.is_file():
        raise InstanceError(
            f"onboarding wrote no config: {(TEMPLATE_DIR / 'logs' / 'onboard.log').read_text(errors='replace')[-2000:]}"
        )
    database = config.parent / "db"
    shutil.rmtree(database, ignore_errors=True)  # a half-made cluster from the failed start, if any
    instance = PaperclipInstance(root=TEMPLATE_DIR, fresh=False, keep_data=True, create_company=False)
    instance.start()
    instance.close()
    (TEMPLATE_DIR / "ready").write_text(PINNED_VERSION + "\n")


def _answers(port: int) -> bool:
    import httpx

    try:
        return httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=1).status_code == 200
    except httpx.TransportError:
        return False
