"""A real agent CLI on Paperclip: its own local adapter (``codex_local``, ``claude_local``) at the harness's model server.

Each function returns the ``adapterConfig`` Paperclip stores for an agent: our
pinned CLI as the command, the CLI lane pinned (``engine: "cli"``), the model
server as the provider with a dummy key that passes Paperclip's credential
gate, and our work tools as a stdio MCP server acting as the run through
Paperclip's agent API. No CLI agent on Paperclip may reach a real model API:
without the harness's model server (a replay profile) none is created. Why each
setting is needed, as measured on the pinned releases, is in
docs/paperclip/index.md ("What the adapters need").
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[3]
MCP_MODULE = "everyday_paperclip.agent.tool_server"
MCP_NAME = "everyday"  # the tool server's name in each CLI's config: its tools are mcp__everyday__deliver and so on
PROVIDER = "everyday_replay"
KEY_VARIABLE = "OPENAI_API_KEY"  # the variable Paperclip's credential gate looks for (codex_local)
CLAUDE_KEY_VARIABLE = "ANTHROPIC_API_KEY"  # the same gate for claude_local
DUMMY_KEY = "replay-needs-no-key"
RUN_VARIABLES = [
    "PAPERCLIP_API_URL",
    "PAPERCLIP_API_KEY",
    "PAPERCLIP_RUN_ID",
    "PAPERCLIP_AGENT_ID",
    "PAPERCLIP_COMPANY_ID",
]


class NoModelServer(ValueError):
    """A CLI agent was asked for where only a real provider could answer it."""


def agent_workspace(workspaces: Path, name: str) -> Path:
    """One working folder per CLI agent (``codex_local`` runs every issue of an agent in its ``cwd``)."""
    folder = workspaces / re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def model_upstream(cli: str, settings: dict[str, str]) -> str:
    """The harness's model server, or NoModelServer: no CLI agent here may reach a real model API."""
    upstream = settings.get("model_upstream", "")
    if not upstream:
        raise NoModelServer(f"{cli} on Paperclip runs only against the harness's model server (a replay profile)")
    return upstream


def tool_server_env(workspace: Path) -> dict[str, str]:
    """What our tool server needs besides Paperclip's run variables: the project, and the agent's folder."""
    return {"PYTHONPATH": str(PROJECT_ROOT), "EVERYDAY_WORKSPACE": str(workspace)}


def tool_server_args(settings: dict[str, str]) -> list[str]:
    return ["-m", MCP_MODULE, "--instance", settings.get("instance", "")]


def codex_local_config(name: str, model: str, settings: dict[str, str]) -> dict[str, Any]:
    """``adapterConfig`` for a codex agent whose model is the harness's replay server."""
    from harness.agents.clis.codex import MCP_WAIT
    from harness.agents.install import locate

    upstream = model_upstream("codex", settings)
    workspace = agent_workspace(Path(settings["workspaces"]), name)
    providers = {
        "providers": {
            PROVIDER: {
                "name": "model replay",
                "base_url": upstream.rstrip("/") + "/v1",
                "env_key": KEY_VARIABLE,
                "wire_api": "responses",
                "request_max_retries": 0,
                "stream_max_retries": 0,
            }
        },
        "model_provider": PROVIDER,
    }
    provider_args = ["-c", f"model_provider={json.dumps(PROVIDER)}"]
    for key, value in providers["providers"][PROVIDER].items():  # type: ignore[index]
        provider_args += ["-c", f"model_providers.{PROVIDER}.{key}={json.dumps(value)}"]
    tool_env = tool_server_env(workspace)
    tool_env_toml = "{" + ", ".join(f"{key} = {json.dumps(value)}" for key, value in tool_env.items()) + "}"
    return {
        # The CLI lane, named: left out, this release defaults to its ACP engine, falls back to the CLI on Node 20
        # ("Codex ACP default unavailable"), and its hot restart then treats the run as bound to the server's stdio
        # and drains it instead of adopting it (heartbeat.js: isServerStdioBoundHotRestartRun reads the config).
        "engine": "cli",
        "command": str(locate("codex").binary),
        "model": model,
        "cwd": str(workspace),
        "dangerouslyBypassApprovalsAndSandbox": True,  # the run is the sandbox, as on the testbed's runners
        "env": {
            "PAPERCLIP_CODEX_PROVIDERS": json.dumps(providers),
            KEY_VARIABLE: DUMMY_KEY,
            "EVERYDAY_ADAPTER": "codex",
            "EVERYDAY_MODEL": model,
        },
        "extraArgs": [
            "--skip-git-repo-check",
            "--disable",
            "plugins",
            "-c",
            "analytics.enabled=false",
            *provider_args,
            "-c",
            f"mcp_servers.everyday.command={json.dumps(sys.executable)}",
            "-c",
            f"mcp_servers.everyday.args={json.dumps(tool_server_args(settings))}",
            "-c",
            f"mcp_servers.everyday.env_vars={json.dumps(RUN_VARIABLES)}",
            "-c",
            f"mcp_servers.everyday.env={tool_env_toml}",
            *(arg for key, value in MCP_WAIT.items() for arg in ("-c", f"mcp_servers.everyday.{key}={value}")),
        ],
    }


def claude_local_config(name: str, model: str, settings: dict[str, str]) -> dict[str, Any]:
    """``adapterConfig`` for a Claude Code agent whose model is the harness's replay server."""
    from harness.agents.clis.claude import OFFLINE_ENV
    from harness.agents.install import locate

    upstream = model_upstream("claude", settings)
    workspace = agent_workspace(Path(settings["workspaces"]), name)
    # Beside the instance's data, never in the workspace: a delivery zips the workspace. It holds no secret (the
    # run's token reaches the tool server through the CLI's environment).
    config_path = Path(settings["instance"]) / "agent-config" / f"{workspace.name}-mcp.json"
    config_path.parent.mkdir(parents=True, exist_ok=True)
    server = {"type": "stdio", "command": sys.executable, "args": tool_server_args(settings)}
    config_path.write_text(json.dumps({"mcpServers": {MCP_NAME: server | {"env": tool_server_env(workspace)}}}))
    return {
        "engine": "cli",
        "command": str(locate("claude").binary),
        "model": model,
        "cwd": str(workspace),
        "dangerouslySkipPermissions": True,  # the run is the sandbox, as on the testbed's runners
        "env": {
            **OFFLINE_ENV,
            "ANTHROPIC_BASE_URL": upstream.rstrip("/"),
            CLAUDE_KEY_VARIABLE: DUMMY_KEY,
            "EVERYDAY_ADAPTER": "claude",
            "EVERYDAY_MODEL": model,
        },
        # As root, Paperclip passes a curated --allowedTools list instead of --dangerously-skip-permissions (Claude
        # Code refuses that as root), and the list has no MCP tool: every call of ours was "permission denied" and
        # the run still ended succeeded. Our server's tools are allowed by name; Paperclip's list stands.
        "extraArgs": ["--mcp-config", str(config_path), "--strict-mcp-config", "--allowedTools", f"mcp__{MCP_NAME}"],
    }
