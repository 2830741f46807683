"""Where vibe-kanban lives on this machine: the pinned npm package and its server binary, unpacked once.

0.0.71 is the last release whose npm package carries its Linux server
binary (a ZIP its launcher unpacks with ``unzip`` at every start); later
releases download the binary from the vendor's server at first run, which
cannot work offline. The launcher's chain (node -> sh -> binary) outlives
a stop of node, so the install unpacks the binary once and instances start
it directly.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import time
from pathlib import Path

from harness.products.base import InstanceError

PINNED_VERSION = "0.0.71"
PACKAGE = "vibe-kanban"
PROJECT_ROOT = Path(__file__).resolve().parents[3]
DEFAULT_INSTALL_DIR = (
    Path("/var/cache/everyday-evals/vibe-kanban") if os.geteuid() == 0 else PROJECT_ROOT / ".cache" / "vibe-kanban"
)
INSTALL_DIR = Path(os.environ.get("EVERYDAY_VIBE_KANBAN_DIR", DEFAULT_INSTALL_DIR))
MODULE = INSTALL_DIR / "node_modules" / PACKAGE
BINARY = INSTALL_DIR / f"bin-{PINNED_VERSION}" / PACKAGE


class NotInstalled(InstanceError):
    """vibe-kanban (at the pinned version) is not installed: a loud infrastructure failure, never a skip."""


class InstallFailed(RuntimeError):
    """The install could not finish: one line saying why."""


def installed_version() -> str | None:
    manifest = MODULE / "package.json"
    if not manifest.is_file():
        return None
    return str(json.loads(manifest.read_text())["version"])


def require_installed() -> Path:
    """The server binary of the pinned release, or :class:`NotInstalled` saying how to get it."""
    version = installed_version()
    if version != PINNED_VERSION or not BINARY.is_file():
        found = f"version {version} is installed" if version else "it is not installed"
        raise NotInstalled(
            f"vibe-kanban {PINNED_VERSION} is needed in {INSTALL_DIR} but {found}: run `make vibe-kanban`"
        )
    return BINARY


def _platform_dir() -> str:
    machine = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine().lower())
    if platform.system() != "Linux" or machine is None:
        raise InstallFailed(
            f"vibe-kanban {PINNED_VERSION} ships a server for Linux x64/arm64, not {platform.machine()}"
        )
    return f"linux-{machine}"


def install() -> float:
    """Install the pinned version and unpack its server (idempotent); returns the seconds it took."""
    started = time.monotonic()
    if shutil.which("npm") is None:
        raise InstallFailed("vibe-kanban installs from npm and `npm` is missing: install Node.js 20 with npm")
    if shutil.which("unzip") is None:
        raise InstallFailed("vibe-kanban's server binary is a ZIP and `unzip` is missing: apt-get install unzip")
    if installed_version() != PINNED_VERSION:
        INSTALL_DIR.mkdir(parents=True, exist_ok=True)
        manifest = INSTALL_DIR / "package.json"
        if not manifest.exists():
            manifest.write_text(json.dumps({"name": "everyday-evals-vibe-kanban", "private": True}) + "\n")
        npm = subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--save-exact", f"{PACKAGE}@{PINNED_VERSION}"],
            cwd=INSTALL_DIR,
            capture_output=True,
            text=True,
        )
        if npm.returncode != 0:
            last = (npm.stderr.strip().splitlines() or ["no output"])[-1]
            raise InstallFailed(f"npm install {PACKAGE}@{PINNED_VERSION} failed: {last}")
    if not BINARY.is_file():
        archive = MODULE / "dist" / _platform_dir() / f"{PACKAGE}.zip"
        if not archive.is_file():
            raise InstallFailed(f"the package carries no server binary at {archive}")
        BINARY.parent.mkdir(parents=True, exist_ok=True)
        unpacked = subprocess.run(["unzip", "-qq", "-o", str(archive), "-d", str(BINARY.parent)], capture_output=True)
        if unpacked.returncode != 0 or not BINARY.is_file():
            raise InstallFailed(f"unzip {archive} failed: {unpacked.stderr.decode(errors='replace').strip()}")
        BINARY.chmod(0o755)
    return time.monotonic() - started
