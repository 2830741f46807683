"""Where the agent CLIs are installed, which version each one is (for provenance), and the pins that install them.

``make agents`` installs every registered CLI at its pinned version into
``.agents/`` at the project root (or ``$EVERYDAY_AGENTS_DIR``): the npm
manifest is written from the registry (:func:`manifest`), so the pins have
one source. A missing or mismatched CLI is an error naming that command,
never a silent skip: a replay cell that did not run its CLI would prove
nothing.

``python -m harness.agents.install [FOLDER]`` writes the manifest and runs npm
there when it changed or a CLI is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from .launch import InstalledCli
from .registry import registered

PROJECT_ROOT = Path(__file__).resolve().parents[2]
NPM_INSTALL = ["npm", "install", "--no-package-lock", "--no-audit", "--no-fund", "--loglevel=error"]


class MissingCli(RuntimeError):
    """The CLI is not installed at its pinned version."""


def agents_dir() -> Path:
    configured = os.environ.get("EVERYDAY_AGENTS_DIR")
    return Path(configured) if configured else PROJECT_ROOT / ".agents"


def pinned_versions() -> dict[str, str]:
    """npm package -> its exact pinned version, for every registered CLI."""
    return {entry.package: entry.version for entry in registered().values()}


def manifest() -> dict[str, Any]:
    """The npm manifest of the pinned CLIs; install scripts run only where an entry allows them."""
    return {
        "name": "everyday-evals-agent-clis",
        "private": True,
        "description": "The agent CLIs the runners run, pinned exactly (written from harness.agents.registry by `make agents`).",
        "dependencies": pinned_versions(),
        "allowScripts": {entry.package: True for entry in registered().values() if entry.install_scripts},
    }


def locate(name: str, folder: Path | None = None) -> InstalledCli:
    """The installed CLI at its pinned version (in ``folder``, by default :func:`agents_dir`), or MissingCli with
    the one-line fix. Where there is no node, a CLI whose command is a node script is its native program."""
    entry = registered().get(name)
    if entry is None:
        raise MissingCli(f"no agent CLI {name!r} is registered; known: {', '.join(registered())}")
    folder = folder or agents_dir()
    root = folder / "node_modules"
    binary = root / ".bin" / entry.binary
    installed = root / entry.package / "package.json"
    if not binary.exists() or not installed.exists():
        raise MissingCli(f"agent CLI {name} ({entry.package}) is not installed in {folder}: run `make agents`")
    version = json.loads(installed.read_text())["version"]
    if version != entry.version:
        raise MissingCli(f"agent CLI {name} is {entry.package}@{version}, pinned {entry.version}: run `make agents`")
    if entry.native and shutil.which("node") is None:  # its command is a node script: run what it would start
        binary = root / entry.native
        if not binary.exists():
            raise MissingCli(f"agent CLI {name}: no node here and no native program at {binary}: run `make agents`")
    return InstalledCli(name=name, package=entry.package, version=version, binary=binary)


def provenance(folder: Path | None = None) -> dict[str, str]:
    """``{"codex": "@openai/codex@0.171.0", ...}`` for every CLI; raises MissingCli if one is absent."""
    located = [locate(name, folder) for name in registered()]
    return {cli.name: f"{cli.package}@{cli.version}" for cli in located}


def install(folder: Path) -> bool:
    """Write the manifest into ``folder`` and run npm there, unless it is unchanged and every CLI is in place.

    Returns whether npm ran. Reinstalling only on a change keeps a shared
    install (and its neighbours' running CLIs) untouched by a no-op ``make agents``.
    """
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "package.json"
    wanted = manifest()
    current = json.loads(path.read_text()) if path.is_file() else {}
    if _pins(current) == _pins(wanted) and _complete(folder):
        return False
    path.write_text(json.dumps(wanted, indent=2) + "\n")
    subprocess.run(NPM_INSTALL, cwd=folder, check=True)
    provenance(folder)  # every pin in place now, or MissingCli names the one npm did not install
    return True


def _pins(manifest: dict[str, Any]) -> tuple[object, object]:
    """What npm installs from a manifest: its words (name, description) change nothing."""
    return manifest.get("dependencies"), manifest.get("allowScripts")


def _complete(folder: Path) -> bool:
    try:
        provenance(folder)
    except MissingCli:
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.agents.install", description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, nargs="?", default=None, help="where to install (default: .agents)")
    folder = parser.parse_args(argv).folder or agents_dir()
    try:
        ran = install(folder)
    except (MissingCli, OSError, subprocess.CalledProcessError) as error:
        print(f"agent CLIs not installed: {error}", file=sys.stderr)
        return 1
    print(f"agent CLIs {'installed' if ran else 'up to date'} in {folder}: {', '.join(provenance(folder).values())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
