"""Whether this machine can run a live cell: its credentials set and its agent CLI installed, probed by name only.

A live cell that cannot run is reported ``skipped`` with the reason, never
run on a default agent; the reason names what is missing, never a value.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping

from harness.agents.install import MissingCli, locate
from harness.agents.registry import registered
from harness.core.catalog import Cell


def installed_agent_cli(name: str) -> str | None:
    """Where an agent CLI is: the project's pinned install (``make agents``), else PATH."""
    if name in registered():
        try:
            return str(locate(name).binary)
        except MissingCli:
            return None
    return shutil.which(name)


def live_cell_unavailable_reason(
    cell: Cell,
    env: Mapping[str, str] = os.environ,
    which: Callable[[str], str | None] = installed_agent_cli,
) -> str | None:
    """Why a live cell must be reported ``skipped`` instead of run; None when it can run.

    A live cell without its credentials or binary must never fall back to a
    default agent, and never count as passed. The reason names what is missing,
    never a value.
    """
    if not cell.profile.live:
        return None
    missing: list[str] = []
    absent_env = [name for name in cell.profile.required_env if not env.get(name)]
    if absent_env:
        missing.append(f"environment variable(s) {', '.join(absent_env)} not set")
    binary = cell.profile.required_binary
    if binary and which(binary) is None:
        missing.append(f"agent CLI '{binary}' not installed (run `make agents`)")
    if not missing:
        return None
    return f"profile {cell.profile.name} cannot run: {'; '.join(missing)}"
