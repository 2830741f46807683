"""A CLI agent on Paperclip is configured to reach only the harness's model server, never a real provider."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from everyday_paperclip.agent_clis import (
    CLAUDE_KEY_VARIABLE,
    DUMMY_KEY,
    KEY_VARIABLE,
    NoModelServer,
    claude_local_config,
    codex_local_config,
)
from tests.needs import marked

UPSTREAM = "http://127.0.0.1:43210/scripts/story"


@marked("product", "agent_cli")
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
        str(tmp_path / "instance") in args
        and "PAPERCLIP_API_KEY" in args
        and "everyday_paperclip.agent.tool_server" in args
    )


@marked("product", "agent_cli")
def test_claude_on_paperclip_talks_only_to_the_replay_through_our_pinned_cli_and_tools(tmp_path: Path) -> None:
    settings = {"model_upstream": UPSTREAM, "workspaces": str(tmp_path), "instance": str(tmp_path / "instance")}
    config = claude_local_config("Avery", "claude-sonnet-4-5", settings)
    env = config["env"]
    assert env["ANTHROPIC_BASE_URL"] == UPSTREAM and env[CLAUDE_KEY_VARIABLE] == DUMMY_KEY
    assert env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1" and env["CLAUDE_CODE_MAX_RETRIES"] == "0"
    assert config["engine"] == "cli", "auto would run Paperclip's ACP server, not our pinned CLI"
    assert Path(config["command"]).name == "claude" and ".agents" in config["command"]
    assert config["cwd"] == str(tmp_path / "avery") and (tmp_path / "avery").is_dir()
    flag, path, strict, allow, tools = config["extraArgs"]
    assert flag == "--mcp-config" and strict == "--strict-mcp-config"
    assert (allow, tools) == ("--allowedTools", "mcp__everyday"), "as root Paperclip's own list has no MCP tool"
    assert not Path(path).is_relative_to(tmp_path / "avery"), "a delivery zips the workspace: no config in it"
    [server] = json.loads(Path(path).read_text())["mcpServers"].values()
    assert server["type"] == "stdio" and "everyday_paperclip.agent.tool_server" in server["args"]
    assert str(tmp_path / "instance") in server["args"] and "PAPERCLIP_API_KEY" not in json.dumps(server)


@pytest.mark.parametrize("make", [codex_local_config, claude_local_config])
def test_without_the_harness_model_server_no_cli_agent_is_made(make, tmp_path: Path) -> None:
    with pytest.raises(NoModelServer, match="replay"):
        make("Avery", "a-model", {"workspaces": str(tmp_path), "instance": str(tmp_path)})
