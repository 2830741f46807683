"""Claude Code (``@anthropic-ai/claude-code``): its registry entry, and how it is launched against the metering proxy.

Measured with Claude Code 2.1.332:
- ``ANTHROPIC_BASE_URL`` (the proxy root; it appends ``/v1/messages?beta=true``)
  and ``ANTHROPIC_API_KEY`` (the throwaway key) are honoured;
- ``CLAUDE_CONFIG_DIR`` isolates its config and sessions;
- ``CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`` and ``DISABLE_TELEMETRY=1``
  keep all traffic on loopback; ``CLAUDE_CODE_MAX_RETRIES=0`` stops its retry loop;
- as root, ``--dangerously-skip-permissions`` refuses to start unless ``IS_SANDBOX=1``;
- ``ENABLE_TOOL_SEARCH=false`` lists MCP tools with the others (otherwise they
  hide behind a ToolSearch tool); ``MCP_TOOL_TIMEOUT`` (ms) bounds a tool call;
- ``--mcp-config FILE --strict-mcp-config`` gives it exactly the product's
  tool server (``type: http`` with an Authorization header);
- ``--resume SESSION`` continues a session kept in the config folder; the id is
  ``session_id`` in the stream-json output;
- its ``result`` line carries its final words (``result``) and its own cost
  figure (``total_cost_usd``: the session's running total, see
  :func:`harness.agents.cli_agent.reported_cost_of_run`);
- its postinstall links its native binary: npm must run its install scripts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..launch import LaunchRequest, LaunchSpec, base_env
from ..registry import AgentCli, LiveProfile, agent_cli

# What keeps Claude Code on loopback, non-interactive as root, and its MCP tools in view: every launcher uses it
# (the testbed's runner here, Paperclip's claude_local through its adapter env).
OFFLINE_ENV = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    "CLAUDE_CODE_MAX_RETRIES": "0",
    "IS_SANDBOX": "1",
    "ENABLE_TOOL_SEARCH": "false",  # MCP tools listed with the others, not deferred behind a search tool
    "MCP_TOOL_TIMEOUT": "310000",  # ms: a product tool may wait on a teammate for minutes (wait_for_task)
}


def mcp_config(request: LaunchRequest) -> dict:
    assert request.mcp is not None
    server = {"type": "http", "url": request.mcp.url, "headers": {"Authorization": f"Bearer {request.mcp.token}"}}
    return {"mcpServers": {request.mcp.name: server}}


@agent_cli
class Claude(AgentCli):
    name = "claude"
    package = "@anthropic-ai/claude-code"
    version = "2.1.332"
    binary = "claude"
    install_scripts = True
    provider = "anthropic"
    protocol = "messages"
    session_field = "session_id"
    replay_model = "claude-sonnet-4-5"
    live_profiles = (
        LiveProfile(
            name="runner-claude",
            model="claude-sonnet-4-5",
            description="Claude Code (claude-sonnet-4-5) through the metering proxy to the real provider.",
        ),
    )

    def launch(self, request: LaunchRequest) -> LaunchSpec:
        """The argv and environment of one turn (``-p``, with ``--resume`` to continue a session)."""
        env = (
            base_env(request.home)
            | {
                "CLAUDE_CONFIG_DIR": str(request.home / ".claude"),
                "ANTHROPIC_BASE_URL": request.proxy_url.rstrip("/"),
                "ANTHROPIC_API_KEY": request.proxy_key,
            }
            | OFFLINE_ENV
        )
        argv = [
            str(request.cli.binary),
            "-p",
            request.prompt,
            "--output-format",
            "stream-json",
            "--verbose",
            "--dangerously-skip-permissions",
            "--model",
            request.model,
        ]
        files: dict[Path, str] = {}
        if request.mcp is not None:
            # A file, not an argument: the token must not show in the process list.
            config_path = request.home / "mcp.json"
            files[config_path] = json.dumps(mcp_config(request))
            argv += ["--mcp-config", str(config_path), "--strict-mcp-config"]
        if request.resume_session:
            argv += ["--resume", request.resume_session]
        return LaunchSpec(
            argv=argv, env=env, cwd=request.workspace, files=files, timeout_seconds=request.timeout_seconds
        )

    def final_text(self, event: dict[str, Any]) -> str | None:
        result = event.get("result")
        return result if event.get("type") == "result" and isinstance(result, str) else None

    def reported_cost_usd(self, event: dict[str, Any]) -> float | None:
        cost = event.get("total_cost_usd")
        return float(cost) if event.get("type") == "result" and isinstance(cost, int | float) else None
