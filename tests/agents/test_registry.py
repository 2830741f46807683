"""Adding an agent CLI is one module with its registry entry: every list of CLIs in the project derives from it.

An outside package is the strictest case (it cannot edit this repository):
one module and one entry point in ``everyday_evals.agents``, and a fresh
interpreter finds it in the runner's adapters, the catalog's profiles and
cells, the npm pins, the CPU benchmark's process kinds and the install check.
"""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import harness.agents.clis
from harness.agents.install import PROJECT_ROOT
from harness.agents.registry import ENTRY_POINT_GROUP, AgentCli, RegistryError, agent_cli, registered
from harness.core.profiles import LIVE_PROFILES, REPLAY_PROFILES
from harness.core.registry import catalog

THROWAWAY = """
from harness.agents.launch import LaunchRequest, LaunchSpec, base_env
from harness.agents.registry import AgentCli, LiveProfile, agent_cli


@agent_cli
class Throwaway(AgentCli):
    name = "throwaway"
    package = "@example/throwaway-cli"
    version = "1.2.3"
    binary = "throwaway"
    install_scripts = True
    provider = "anthropic"
    protocol = "messages"
    session_field = "conversation"
    replay_model = "claude-haiku-4-5"
    live_profiles = (LiveProfile(name="runner-throwaway", model="claude-haiku-4-5", description="A throwaway CLI."),)
    process_names = ("throwaway-agent",)

    def launch(self, request: LaunchRequest) -> LaunchSpec:
        argv = [str(request.cli.binary), request.prompt]
        return LaunchSpec(argv=argv, env=base_env(request.home), cwd=request.workspace, timeout_seconds=1)
"""

SEEN_FROM_A_FRESH_INTERPRETER = """
import json, sys
from harness.agents.adapters import adapter_for, adapter_names
from harness.agents.install import MissingCli, locate, manifest
from bench.cpu_by_kind import kind_of
from harness.core.cli_probe import installed_agent_cli
from harness.core.profiles import LIVE_PROFILES, REPLAY_PROFILES
from harness.core.registry import catalog
from harness.testbed.web import adapter_names as hire_form_adapters

try:
    locate("throwaway")
    missing = None
except MissingCli as error:
    missing = str(error)
print(json.dumps({
    "adapters": adapter_names(),
    "hire_form": hire_form_adapters(),
    "runner_adapter": adapter_for("throwaway").kind.name,
    "replay_profiles": [p.name for p in REPLAY_PROFILES],
    "live_profiles": {p.name: [p.model, list(p.required_env)] for p in LIVE_PROFILES},
    "cells": [c.execution_id for c in catalog().cells() if c.profile.agent_cli == "throwaway"],
    "pins": manifest()["dependencies"],
    "scripts": manifest()["allowScripts"],
    "kind": kind_of(["/opt/throwaway/bin/throwaway-agent", "run"]),
    "installed": installed_agent_cli("throwaway"),
    "missing": missing,
}))
"""


def outside_package(folder: Path) -> Path:
    """A module and its distribution's metadata with one entry point, as ``pip install`` would leave them."""
    (folder / "throwaway_cli.py").write_text(THROWAWAY)
    metadata = folder / "throwaway_cli-0.1.dist-info"
    metadata.mkdir()
    (metadata / "METADATA").write_text("Metadata-Version: 2.1\nName: throwaway-cli\nVersion: 0.1\n")
    (metadata / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\nthrowaway = throwaway_cli\n")
    return folder


def test_an_outside_cli_with_one_entry_point_is_in_every_list(tmp_path: Path) -> None:
    site = outside_package(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", SEEN_FROM_A_FRESH_INTERPRETER],
        capture_output=True,
        text=True,
        cwd=PROJECT_ROOT,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{site}:{PROJECT_ROOT}", "EVERYDAY_AGENTS_DIR": str(tmp_path)},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout)
    assert "throwaway" in seen["adapters"] and seen["hire_form"] == seen["adapters"]
    assert seen["runner_adapter"] == "throwaway"
    assert "replay-throwaway" in seen["replay_profiles"]
    assert seen["live_profiles"]["runner-throwaway"] == ["claude-haiku-4-5", ["ANTHROPIC_API_KEY"]]
    assert "everyday-workflows-replay.replay-throwaway.local.build-revise" in seen["cells"]
    assert "everyday-workflows.runner-throwaway.local.build-revise" in seen["cells"]
    assert seen["pins"]["@example/throwaway-cli"] == "1.2.3" and seen["scripts"]["@example/throwaway-cli"] is True
    assert seen["kind"] == "agent CLIs"
    assert seen["installed"] is None and "run `make agents`" in seen["missing"]


def test_the_built_in_lists_are_the_registry_s() -> None:
    """Nothing in this interpreter registered a throwaway: the lists hold exactly the built-in modules' CLIs."""
    modules = {module.name for module in pkgutil.iter_modules(harness.agents.clis.__path__)}
    assert {type(cli).__module__.rpartition(".")[2] for cli in registered().values()} == modules
    assert {profile.agent_cli for profile in REPLAY_PROFILES} == set(registered())
    assert {profile.agent_cli for profile in LIVE_PROFILES} == set(registered())
    assert {cell.profile.agent_cli for cell in catalog().cells()} - {None} == set(registered())


def test_a_name_is_registered_once_and_scripted_is_the_runner_s_own() -> None:
    codex = type(registered()["codex"])

    class Impostor(codex):  # type: ignore[valid-type, misc]
        pass

    with pytest.raises(RegistryError, match="registered twice"):
        agent_cli(Impostor)

    class Scripted(Impostor):
        name = "scripted"

    with pytest.raises(RegistryError, match="reserved"):
        agent_cli(Scripted)
    assert type(registered()["codex"]) is codex and "scripted" not in registered()
    assert agent_cli(codex) is codex  # the same class again changes nothing


def test_an_entry_without_a_launch_cannot_be_made() -> None:
    class Unfinished(AgentCli):
        name = "unfinished"

    with pytest.raises(TypeError, match="launch"):
        agent_cli(Unfinished)  # type: ignore[type-abstract]
    assert "unfinished" not in registered()
