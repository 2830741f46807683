"""Where Paperclip lives on this machine: the pinned npm install and the prepared template data folder.

Paperclip is the product under test, so nothing here changes it: the
install is ``npm install paperclipai@<pin>`` into a project-local folder,
plus the two things its own install scripts would have done or that running
as root needs (library links of the embedded Postgres, a data folder the
``postgres`` user owns). A template data folder (initdb and migrations done
once) is copied per instance, so an instance starts without initdb.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import pwd
import subprocess
import time
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


def template() -> Path:
    """The prepared data folder (config, secrets, migrated database) of the pinned version, which each instance copies.

    ``make paperclip`` prepares it (:mod:`.template`); without it no instance can start.
    """
    require_installed()
    if not (TEMPLATE_DIR / "ready").exists():
        raise InstanceError(f"Paperclip's template data folder is not prepared in {TEMPLATE_DIR}: run `make paperclip`")
    return TEMPLATE_DIR
