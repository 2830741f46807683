"""``python -m harness.testbed serve --data DIR --port N``: start the controller."""

from __future__ import annotations

import argparse
import socket
from pathlib import Path

import uvicorn

from harness.agents.arguments import port_number, seconds

from .app import configure_logging, create_app
from .db import Database
from .defects import REGISTRY
from .live import LiveServer
from .sandbox import agent_socket
from .sandbox.containers import ContainerRunners, SandboxError
from .sandbox.image import RunnerImageError

GRACEFUL_SHUTDOWN_S = 3
"""How long a SIGTERM waits for requests in progress before the controller closes their connections."""


def defect_name(name: str) -> str:
    """A registered defect's name; anything else is refused in one short line (the registry is too long to list)."""
    if name not in REGISTRY:
        raise argparse.ArgumentTypeError(
            f"invalid choice: {name!r} (not one of the {len(REGISTRY)} defects in testbed/defects/)"
        )
    return name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.testbed", description="The reference agent-work product.")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="start the controller (web UI, API, scheduler)")
    serve.add_argument("--data", type=Path, required=True, help="data folder (SQLite, workspaces, deliveries, logs)")
    serve.add_argument("--port", type=port_number, default=8765)
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--pace", type=seconds, default=0.3, help="seconds per scripted agent step")
    serve.add_argument(
        "--model-upstream",
        default=None,
        help="model server the live agents' metering proxies forward to (a replay server); default: the real providers",
    )
    serve.add_argument("--agent-time-limit", type=seconds, default=600.0, help="wall-clock seconds per live agent run")
    serve.add_argument(
        "--issued-secrets",
        type=Path,
        default=None,
        metavar="FILE",
        help="for an evidence scan: append every run token minted to FILE (owner-only); never set in normal use",
    )
    serve.add_argument(
        "--defect",
        dest="defects",
        action="append",
        default=[],
        metavar="NAME",
        type=defect_name,
        help="calibration only: switch on a product defect (repeatable; see testbed/defects)",
    )
    serve.add_argument(
        "--sandbox",
        choices=("process", "container"),
        default="process",
        help="where each run's runner executes: a local process, or its own container through the Docker engine"
        " DOCKER_HOST names (testbed/sandbox)",
    )
    serve.add_argument(
        "--runner-image", default=None, help="container sandbox: the runner image (default: built from this code)"
    )
    args = parser.parse_args(argv)
    data_dir = args.data.resolve()
    if data_dir.exists() and not data_dir.is_dir():
        parser.error(f"--data {args.data} is a file, not a folder")
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        parser.error(f"--data {args.data}: {error.strerror}")
    configure_logging(data_dir)
    local_host = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    sandbox = None
    if args.sandbox == "container":
        try:
            sandbox = ContainerRunners(Database(data_dir / "testbed.sqlite3"), data_dir, args.runner_image)
        except (SandboxError, RunnerImageError) as error:
            parser.exit(2, f"python -m harness.testbed: {error}\n")
    app = create_app(
        data_dir,
        f"http://{local_host}:{args.port}",
        args.pace,
        defects=args.defects,
        model_upstream=args.model_upstream,
        agent_time_limit_s=args.agent_time_limit,
        issued_secrets=args.issued_secrets.resolve() if args.issued_secrets else None,
        sandbox=sandbox,
    )
    # A graceful stop lets requests in progress finish, but not for ever: an agent CLI's MCP client keeps
    # a stream open (Claude Code's listening GET), and uvicorn waits for every open response by default,
    # so a SIGTERM restart hung until the caller gave up. Runners retry whatever was cut.
    # Its task pages' live streams end first, or a stop would wait for them (testbed/live.py).
    config = uvicorn.Config(
        app, host=args.host, port=args.port, log_level="warning", timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S
    )
    server = LiveServer(config, app.state.controller.live)
    if sandbox is None:
        server.run()
        return 0
    # The sandboxes reach the controller only through its agent socket, served beside the TCP port.
    server.run(sockets=[socket.create_server((args.host, args.port)), agent_socket.bind(data_dir)])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
