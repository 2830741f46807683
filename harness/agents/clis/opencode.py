"""OpenCode (``opencode-ai``): its registry entry, and how it is launched against the metering proxy.

Measured with opencode 1.18.33:
- an OpenAI-compatible provider (``@ai-sdk/openai-compatible``, bundled) in the
  file named by ``OPENCODE_CONFIG`` speaks Chat Completions to the proxy;
- the XDG folders under the private home hold its database, logs and caches;
- ``OPENCODE_DISABLE_MODELS_FETCH``, ``_AUTOUPDATE``, ``_LSP_DOWNLOAD`` and
  ``_SHARE`` keep it off outside hosts; ``_PROJECT_CONFIG`` and ``_CLAUDE_CODE``
  stop it reading config from the workspace or a Claude setup;
- ``run --auto`` approves its tools; ``--pure`` loads no external plugins;
- it asks for a session title first: a request without tools;
- ``mcp: {NAME: {type: remote, url, headers, timeout}}`` reaches a streamable HTTP MCP server
  (``timeout`` in ms bounds each tool call: it must outlast ``wait_for_task``);
- ``run --session SESSION`` continues a session kept in its data folder; the id
  is ``sessionID`` in the ``--format json`` events;
- its package installs its native binary from a postinstall script;
- at every start it npm-installs ``@opencode-ai/plugin`` (the plug-in authors' types) into each config folder
  that has no ``node_modules``, in the background: from the public registry, on a run that should reach no
  outside host, for about a sixth of a run's CPU (docs/measurements.md). ``--pure`` loads no plug-in, so the
  package is never used: the private config folder is laid out as an install that holds it already
  (``PLUGIN_ALREADY_INSTALLED``), and nothing is fetched.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..launch import LaunchRequest, LaunchSpec, base_env
from ..registry import AgentCli, LiveProfile, agent_cli

PROVIDER = "metered"
# A product tool may wait on a teammate for minutes (wait_for_task); OpenCode's default is 5 s per request.
MCP_TOOL_TIMEOUT_MS = 310_000
PLUGIN_PACKAGE = "@opencode-ai/plugin"


def plugin_already_installed(config_folder: Path) -> dict[Path, str]:
    """The files that make OpenCode's dependency check find its plug-in package installed in ``config_folder``.

    Its check installs when the folder has no ``node_modules``, or when its ``package-lock.json`` lacks a package
    it wants; an empty ``node_modules`` and a lock that names the package satisfy both. The package itself is not
    needed: ``--pure`` loads no plug-in.
    """
    dependencies = {"dependencies": {PLUGIN_PACKAGE: OpenCode.version}}
    return {
        config_folder / "package.json": json.dumps(dependencies),
        config_folder / "package-lock.json": json.dumps({"lockfileVersion": 3, "packages": {"": dependencies}}),
        config_folder / "node_modules" / ".package-lock.json": json.dumps({"lockfileVersion": 3, "packages": {}}),
    }


def config(request: LaunchRequest) -> dict:
    return {
        "provider": {
            PROVIDER: {
                "npm": "@ai-sdk/openai-compatible",
                "name": "metering proxy",
                "options": {
                    "baseURL": request.proxy_url.rstrip("/") + "/v1",
                    "apiKey": request.proxy_key,
                    "includeUsage": True,
                },
                "models": {request.model: {"name": request.model, "tool_call": True}},
            }
        },
        "model": f"{PROVIDER}/{request.model}",
        "small_model": f"{PROVIDER}/{request.model}",
        "autoupdate": False,
        "share": "disabled",
        **(
            {
                "mcp": {
                    request.mcp.name: {
                        "type": "remote",
                        "url": request.mcp.url,
                        "enabled": True,
                        "oauth": False,
                        "timeout": MCP_TOOL_TIMEOUT_MS,
                        "headers": {"Authorization": f"Bearer {request.mcp.token}"},
                    }
                }
            }
            if request.mcp
            else {}
        ),
    }


@agent_cli
class OpenCode(AgentCli):
    name = "opencode"
    package = "opencode-ai"
    version = "1.18.33"
    binary = "opencode"
    install_scripts = True
    provider = "openai"
    protocol = "chat"
    session_field = "sessionID"
    replay_model = "gpt-5-mini"
    live_profiles = (
        LiveProfile(
            name="runner-opencode",
            model="gpt-5-mini",
            description="OpenCode (gpt-5-mini over Chat Completions) through the metering proxy; delegation and hiring only.",
            only_cases=("delegate-feedback", "hire-reuse"),
        ),
    )

    def launch(self, request: LaunchRequest) -> LaunchSpec:
        """The argv, environment and ``opencode.json`` of one turn (``run``, with ``--session`` to continue one)."""
        config_path = request.home / "opencode.json"
        config_home = request.home / ".config"
        env = base_env(request.home) | {
            "OPENCODE_CONFIG": str(config_path),
            "XDG_CONFIG_HOME": str(config_home),
            "XDG_DATA_HOME": str(request.home / ".local" / "share"),
            "XDG_CACHE_HOME": str(request.home / ".cache"),
            "XDG_STATE_HOME": str(request.home / ".local" / "state"),
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
            "OPENCODE_DISABLE_SHARE": "1",
            "OPENCODE_DISABLE_PROJECT_CONFIG": "1",
            "OPENCODE_DISABLE_CLAUDE_CODE": "1",
        }
        argv = [
            str(request.cli.binary),
            "run",
            "--format",
            "json",
            "--pure",
            "--auto",
            "-m",
            f"{PROVIDER}/{request.model}",
        ]
        if request.resume_session:
            argv += ["--session", request.resume_session]
        argv.append(request.prompt)
        return LaunchSpec(
            argv=argv,
            env=env,
            cwd=request.workspace,
            files={config_path: json.dumps(config(request), indent=2)}
            | plugin_already_installed(config_home / "opencode"),
            timeout_seconds=request.timeout_seconds,
        )

    def final_text(self, event: dict[str, Any]) -> str | None:
        part = event.get("part") or {}
        return part["text"] if event.get("type") == "text" and isinstance(part.get("text"), str) else None
