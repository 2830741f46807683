"""Codex CLI (``@openai/codex``): its registry entry, and how it is launched against the metering proxy.

Measured with codex-cli 0.171.0:
- it ignores ``OPENAI_BASE_URL``; a custom provider in ``$CODEX_HOME/config.toml``
  (``wire_api = "responses"``, key read from ``env_key``) points it at the proxy;
- ``--disable plugins -c analytics.enabled=false`` keep it off outside hosts;
- ``--dangerously-bypass-approvals-and-sandbox``: the runner is the sandbox
  (codex's own sandbox needs namespaces a runner may not have);
- stdin must be closed, or ``exec`` waits for more input;
- with an unreachable API it retries for ever: the deadline is not optional;
- ``[mcp_servers.NAME] url = ...`` with ``bearer_token_env_var`` reaches a
  streamable HTTP MCP server;
- it sends its first model call beside the MCP servers' start, not after it:
  a server that is not up yet (a controller just restarted, under load) is
  simply missing from that call's tools, unless it is ``required``, which is
  waited for (see :data:`MCP_WAIT`);
- its command is a node script that execs the native program of its platform package: where there is no
  node (a sandbox), that program runs directly;
- ``exec resume SESSION PROMPT`` continues a session (it takes no ``-C``: the
  working folder is the process's); the session id is ``thread_id`` in ``--json``.
"""

from __future__ import annotations

import json
from typing import Any

from ..launch import LaunchRequest, LaunchSpec, base_env
from ..registry import AgentCli, LiveProfile, agent_cli

PROVIDER = "metered"
KEY_VARIABLE = "METERED_API_KEY"
MCP_TOKEN_VARIABLE = "TESTBED_MCP_TOKEN"

# How Codex must treat the product's tool server, whoever launches it (the testbed's runner here, Paperclip's
# codex_local through its extra arguments). Without ``required`` a slow start went unnoticed: the first model call
# offered none of the product's tools and the run failed on a missing tool, once on the testbed (a resumed session
# right after a controller restart) and once on Paperclip. A required server is waited for, up to the timeout, and
# one that never comes up ends the CLI with an error naming it.
MCP_WAIT = {"required": "true", "startup_timeout_sec": "60", "tool_timeout_sec": "300"}


def config_toml(request: LaunchRequest) -> str:
    return "\n".join(
        [
            f"model = {json.dumps(request.model)}",
            f'model_provider = "{PROVIDER}"',
            "",
            f"[model_providers.{PROVIDER}]",
            'name = "metering proxy"',
            f"base_url = {json.dumps(request.proxy_url.rstrip('/') + '/v1')}",
            f'env_key = "{KEY_VARIABLE}"',
            'wire_api = "responses"',
            "request_max_retries = 0",
            "stream_max_retries = 0",
            "",
            *mcp_table(request),
        ]
    )


def mcp_table(request: LaunchRequest) -> list[str]:
    """The product's tool server over streamable HTTP; the bearer token is read from the environment."""
    if request.mcp is None:
        return []
    return [
        f"[mcp_servers.{request.mcp.name}]",
        f"url = {json.dumps(request.mcp.url)}",
        f'bearer_token_env_var = "{MCP_TOKEN_VARIABLE}"',
        *(f"{key} = {value}" for key, value in MCP_WAIT.items()),
        "",
    ]


@agent_cli
class Codex(AgentCli):
    name = "codex"
    package = "@openai/codex"
    version = "0.171.0"
    binary = "codex"
    native = "@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"  # what bin/codex.js execs
    provider = "openai"
    # What its exec tool reports that differs between two runs of the same command (cassettes).
    volatile = (r"Chunk ID: \w+",)
    protocol = "responses"
    session_field = "thread_id"
    replay_model = "gpt-5-codex"
    live_profiles = (
        LiveProfile(
            name="runner-codex",
            model="gpt-5-codex",
            description="The Codex command-line agent (gpt-5-codex) through the metering proxy to the real provider.",
        ),
        # Same adapter, binary and credentials as runner-codex; only the model differs.
        LiveProfile(
            name="runner-codex-mini",
            model="gpt-5-mini",
            description="The Codex command-line agent with a smaller model (gpt-5-mini).",
        ),
    )

    def launch(self, request: LaunchRequest) -> LaunchSpec:
        """The argv, environment and ``config.toml`` of one turn (``exec``, or ``exec resume`` with a session)."""
        codex_home = request.home / ".codex"
        env = base_env(request.home) | {"CODEX_HOME": str(codex_home), KEY_VARIABLE: request.proxy_key}
        if request.mcp is not None:
            env[MCP_TOKEN_VARIABLE] = request.mcp.token
        options = [
            "--json",
            "--skip-git-repo-check",
            "--dangerously-bypass-approvals-and-sandbox",
            "--disable",
            "plugins",
            "-c",
            "analytics.enabled=false",
        ]
        if request.resume_session:
            argv = [str(request.cli.binary), "exec", "resume", *options, request.resume_session, request.prompt]
        else:
            argv = [str(request.cli.binary), "exec", *options, "-C", str(request.workspace), request.prompt]
        return LaunchSpec(
            argv=argv,
            env=env,
            cwd=request.workspace,
            files={codex_home / "config.toml": config_toml(request)},
            timeout_seconds=request.timeout_seconds,
        )

    def final_text(self, event: dict[str, Any]) -> str | None:
        item = event.get("item") or {}
        text = item.get("text")
        if event.get("type") == "item.completed" and item.get("type") == "agent_message" and isinstance(text, str):
            return text
        return None
