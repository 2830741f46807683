"""`make agents` put the pinned CLIs where the adapters look, and a missing one fails loudly."""

from __future__ import annotations

import subprocess

import pytest

from harness.agents.install import MissingCli, locate, pinned_versions, provenance
from harness.agents.registry import registered

pytestmark = pytest.mark.e2e  # starts a real product, runner or agent CLI in the test


@pytest.mark.parametrize("name", sorted(registered()))
def test_each_cli_is_installed_at_its_pin_and_runs(name, tmp_path):
    """Run with a home of its own: a CLI writes its state there on first start, and none may stay behind."""
    cli = locate(name)
    assert cli.version == pinned_versions()[cli.package]
    printed = subprocess.run(
        [str(cli.binary), "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert cli.version in printed.stdout


def test_provenance_names_every_cli_with_its_version():
    assert provenance() == {name: f"{cli.package}@{cli.version}" for name, cli in registered().items()}


def test_a_missing_cli_names_the_command_that_installs_it(tmp_path, monkeypatch):
    monkeypatch.setenv("EVERYDAY_AGENTS_DIR", str(tmp_path))
    with pytest.raises(MissingCli, match="run `make agents`") as error:
        locate("claude")
    assert "\n" not in str(error.value) and "@anthropic-ai/claude-code" in str(error.value)


def test_pins_are_exact_versions():
    assert all(
        version[0].isdigit() and all(part.isdigit() for part in version.split("."))
        for version in pinned_versions().values()
    )
