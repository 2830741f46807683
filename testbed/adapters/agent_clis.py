"""Where the agent CLIs are installed, and which version each one is (for provenance).

``make agents`` installs the versions pinned in ``npm/package.json`` into
``.agents/`` at the project root (or ``$EVERYDAY_AGENTS_DIR``). A missing or
mismatched CLI is an error naming that command, never a silent skip: a
replay cell that did not run its CLI would prove nothing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

CliName = Literal["codex", "claude", "opencode"]
PINS_PATH = Path(__file__).with_name("npm") / "package.json"
PACKAGES: dict[CliName, tuple[str, str]] = {  # CLI -> (npm package, binary name)
    "codex": ("@openai/codex", "codex"),
    "claude": ("@anthropic-ai/claude-code", "claude"),
    "opencode": ("opencode-ai", "opencode"),
}


class MissingCli(RuntimeError):
    """The CLI is not installed at its pinned version."""


class InstalledCli(BaseModel):
    """One located CLI: what provenance records about it, and what to execute."""

    name: CliName
    package: str
    version: str
    binary: Path


def agents_dir() -> Path:
    configured = os.environ.get("EVERYDAY_AGENTS_DIR")
    return Path(configured) if configured else Path(__file__).resolve().parents[2] / ".agents"


def pinned_versions() -> dict[str, str]:
    return json.loads(PINS_PATH.read_text())["dependencies"]


def locate(name: CliName) -> InstalledCli:
    """The installed CLI at its pinned version, or MissingCli with the one-line fix."""
    package, binary_name = PACKAGES[name]
    root = agents_dir() / "node_modules"
    binary = root / ".bin" / binary_name
    manifest = root / package / "package.json"
    if not binary.exists() or not manifest.exists():
        raise MissingCli(f"agent CLI {name} ({package}) is not installed in {agents_dir()}: run `make agents`")
    version = json.loads(manifest.read_text())["version"]
    pinned = pinned_versions()[package]
    if version != pinned:
        raise MissingCli(f"agent CLI {name} is {package}@{version}, pinned {pinned}: run `make agents`")
    return InstalledCli(name=name, package=package, version=version, binary=binary)


def provenance() -> dict[str, str]:
    """``{"codex": "@openai/codex@0.171.0", ...}`` for every CLI; raises MissingCli if one is absent."""
    located = [locate(name) for name in PACKAGES]
    return {cli.name: f"{cli.package}@{cli.version}" for cli in located}
