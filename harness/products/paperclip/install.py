"""Where Paperclip lives on this machine: the pinned npm install and the prepared template data folder.

Paperclip is the product under test, so nothing here changes it: the
install is ``npm install paperclipai@<pin>`` into a project-local folder,
plus the two things its own install scripts would have done or that running
as root needs (library links of the embedded Postgres, a data folder the
``postgres`` user owns). A template data folder (initdb and migrations done
once) is copied per instance, so an instance starts without initdb.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import os
import pwd
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness.products.base import InstanceError

PINNED_VERSION = "2026.824.1"  # the newest release that still runs on Node 20 (2026.831.1 and later need Node 24)
PROJECT_ROOT = Path(__file__).resolve().parents[3]
# As root, the embedded Postgres runs as the `postgres` user, which must reach its binaries and template:
# a clone inside a private folder (mode 0700, as mktemp makes) would hide them, so root installs under
# /var/cache, whose parents everyone may traverse.
DEFAULT_INSTALL_DIR = (
    Path("/var/cache/everyday-evals/paperclip") if os.geteuid() == 0 else PROJECT_ROOT / ".cache" / "paperclip"
)
INSTALL_DIR = Path(os.environ.get("EVERYDAY_PAPERCLIP_DIR", DEFAULT_INSTALL_DIR))
MODULES = INSTALL_DIR / "node_modules"
SERVER_ENTRY = MODULES / "@paperclipai" / "server" / "dist" / "index.js"
UI_DIST = MODULES / "@paperclipai" / "server" / "ui-dist"  # the built web UI the server hands every browser
CLI = MODULES / ".bin" / "paperclipai"
POSTGRES_PACKAGE = MODULES / "@embedded-postgres" / "linux-x64"
TEMPLATE_DIR = INSTALL_DIR / f"template-{PINNED_VERSION}"
INSTANCE_NAME = "default"
# Printed by the server once its startup sweep of orphaned runs is over; a run created earlier
# is reaped as process_lost although its process is alive (found by this driver, see the README).
READY_LINE = "startup reap of orphaned heartbeat runs complete"
POSTGRES_USER = "postgres"


class NotInstalled(InstanceError):
    """Paperclip (at the pinned version) is not installed: a loud infrastructure failure, never a skip."""


def installed_version() -> str | None:
    manifest = MODULES / "paperclipai" / "package.json"
    if not manifest.is_file():
        return None
    return str(json.loads(manifest.read_text())["version"])


@functools.cache
def published_ui_digests() -> frozenset[str]:
    """sha256 of every file of the installed web UI (about 200 files, 13 MB; hashed once per process).

    Its main bundle carries a made-up ``sk-live-...`` example (the env
    editor's demo), which a trace records; see ``scan_tree``. Empty when
    Paperclip is not installed: then nothing is exempt.
    """
    if not UI_DIST.is_dir():
        return frozenset()
    return frozenset(hashlib.sha256(p.read_bytes()).hexdigest() for p in UI_DIST.rglob("*") if p.is_file())


def require_installed() -> None:
    version = installed_version()
    if version != PINNED_VERSION or not SERVER_ENTRY.is_file():
        found = f"version {version} is installed" if version else "it is not installed"
        raise NotInstalled(f"Paperclip {PINNED_VERSION} is needed in {INSTALL_DIR} but {found}: run `make paperclip`")


def install() -> float:
    """Install the pinned version (idempotent); returns the seconds npm took (0 when nothing to do)."""
    started = time.monotonic()
    if installed_version() != PINNED_VERSION:
        INSTALL_DIR.mkdir(parents=True, exist_ok=True)
        manifest = INSTALL_DIR / "package.json"
        if not manifest.exists():
            manifest.write_text(json.dumps({"name": "everyday-evals-paperclip", "private": True}) + "\n")
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--save-exact", f"paperclipai@{PINNED_VERSION}"],
            cwd=INSTALL_DIR,
            check=True,
        )
    hydrate_postgres_links()
    return time.monotonic() - started


def hydrate_postgres_links() -> None:
    """Recreate the embedded Postgres library links that npm drops when it does not run install scripts."""
    script = POSTGRES_PACKAGE / "scripts" / "hydrate-symlinks.js"
    if script.is_file():
        subprocess.run(["node", str(script)], cwd=POSTGRES_PACKAGE, check=True)


def postgres_owner() -> tuple[int, int] | None:
    """Postgres refuses to run as root; as root, the embedded one switches to ``postgres``, which must own its folder."""
    if os.geteuid() != 0:
        return None
    try:
        user = pwd.getpwnam(POSTGRES_USER)
    except KeyError:
        raise InstanceError(
            f"running as root needs a '{POSTGRES_USER}' user for Paperclip's embedded Postgres: "
            "`useradd --system postgres`"
        ) from None
    return user.pw_uid, user.pw_gid


def chown_tree(path: Path, owner: tuple[int, int] | None) -> None:
    if owner is None:
        return
    for folder, _, files in os.walk(path):
        os.chown(folder, *owner)
        for name in files:
            os.chown(os.path.join(folder, name), *owner)


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def template() -> Path:
    """The prepared data folder (config, secrets, migrated database), made once per pinned version.

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
    from harness.products.paperclip.instance import PaperclipInstance, free_port, paperclip_env

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
