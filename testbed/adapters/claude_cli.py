"""Launching Claude Code (``@anthropic-ai/claude-code``) against the metering proxy.

Measured with Claude Code 2.1.332:
- ``ANTHROPIC_BASE_URL`` (the proxy root; it appends ``/v1/messages?beta=true``)
  and ``ANTHROPIC_API_KEY`` (the throwaway key) are honoured;
- ``CLAUDE_CONFIG_DIR`` isolates its config and sessions;
- ``CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`` and ``DISABLE_TELEMETRY=1``
  keep all traffic on loopback; ``CLAUDE_CODE_MAX_RETRIES=0`` stops its retry loop;
- as root, ``--dangerously-skip-permissions`` refuses to start unless ``IS_SANDBOX=1``;
- ``--resume SESSION`` continues a session kept in the config folder; the id is
  ``session_id`` in the stream-json output.
"""

from __future__ import annotations

from .cli_launch import LaunchRequest, LaunchSpec, base_env, first_json_field


def launch(request: LaunchRequest) -> LaunchSpec:
    env = base_env(request.home) | {
        "CLAUDE_CONFIG_DIR": str(request.home / ".claude"),
        "ANTHROPIC_BASE_URL": request.proxy_url.rstrip("/"),
        "ANTHROPIC_API_KEY": request.proxy_key,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_MAX_RETRIES": "0",
        "IS_SANDBOX": "1",
    }
    argv = [str(request.cli.binary), "-p", request.prompt, "--output-format", "stream-json", "--verbose",
            "--dangerously-skip-permissions", "--model", request.model]
    if request.resume_session:
        argv += ["--resume", request.resume_session]
    return LaunchSpec(argv=argv, env=env, cwd=request.workspace, timeout_seconds=request.timeout_seconds)


def session_id(stdout: str) -> str | None:
    return first_json_field(stdout, "session_id")
