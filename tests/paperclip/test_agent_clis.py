"""A CLI agent on Paperclip is configured to reach only the harness's model server, never a real provider."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.products.paperclip.agent_clis import DUMMY_KEY, KEY_VARIABLE, NoModelServer, codex_local_config

UPSTREAM = "http://127.0.0.1:43210/scripts/story"


def test_codex_on_paperclip_talks_only_to_the_replay_with_a_dummy_key(tmp_path: Path) -> None:
    settings = {"model_upstream": UPSTREAM, "workspaces": str(tmp_path), "instance": str(tmp_path / "instance")}
    config = codex_local_config("Avery", "gpt-5-codex", settings)
    providers = json.loads(config["env"]["PAPERCLIP_CODEX_PROVIDERS"])
    chosen = providers["providers"][providers["model_provider"]]
    assert chosen["base_url"] == UPSTREAM + "/v1" and chosen["wire_api"] == "responses"
    assert config["env"][chosen["env_key"]] == DUMMY_KEY and chosen["env_key"] == KEY_VARIABLE
    assert Path(config["command"]).name == "codex" and ".agents" in config["command"], "our pinned CLI, not Paperclip's"
    assert config["cwd"] == str(tmp_path / "avery") and (tmp_path / "avery").is_dir()
    # the tool server names the instance folder, so teardown finds it; it gets the run's variables, nothing else secret
    args = " ".join(config["extraArgs"])
    assert (
        str(tmp_path / "instance") in args and "PAPERCLIP_API_KEY" in args and "testbed.adapters.paperclip_mcp" in args
    )


def test_without_the_harness_model_server_no_cli_agent_is_made(tmp_path: Path) -> None:
    with pytest.raises(NoModelServer, match="replay"):
        codex_local_config("Avery", "gpt-5-codex", {"workspaces": str(tmp_path), "instance": str(tmp_path)})
