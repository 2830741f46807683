"""``python -m harness.testbed.runner``: one run of one agent, in its own process group.

Spawned by the controller; from then on it talks to the controller only
through the public agent API with the token from ``TESTBED_RUN_TOKEN``. It
outlives controller restarts: its client retries until the controller is back.
Output goes to the log file the controller opened for it (DIR/logs/run-N.log).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

from harness.agents.adapters import SCRIPTED, adapter_for
from harness.agents.client import AgentClient, RunEnded
from harness.agents.metering.providers import OPERATOR_VARIABLES
from harness.agents.session import AgentSession

log = logging.getLogger("testbed.runner")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.testbed.runner")
    parser.add_argument("--controller", required=True)
    parser.add_argument("--run-id", type=int, required=True)
    parser.add_argument("--adapter", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--workspace", type=Path, required=True)
    parser.add_argument("--pace", type=float, default=0.3)
    parser.add_argument("--runner-instance-id", required=True)
    parser.add_argument(
        "--time-limit", type=float, default=600.0, help="wall-clock seconds a live agent may work in this run"
    )
    parser.add_argument(
        "--model-upstream", default=None, help="model server behind the metering proxy (the replay server)"
    )
    parser.add_argument(
        "--controller-socket", default=None, help="the controller's agent socket (a runner in a sandbox has no network)"
    )
    parser.add_argument(
        "--model-socket",
        default=None,
        help="the run's metering proxy on the host (a runner in a sandbox has no network)",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO, stream=sys.stdout, format="%(asctime)s %(process)d %(name)s %(levelname)s %(message)s"
    )
    token = os.environ.pop("TESTBED_RUN_TOKEN", "")
    provider_keys = {name: os.environ.pop(name) for name in OPERATOR_VARIABLES if name in os.environ}
    if not token:
        log.error("TESTBED_RUN_TOKEN is not set")
        return 2
    log.info(
        "run %s: runner %s pid %s adapter %s model %s",
        args.run_id,
        args.runner_instance_id,
        os.getpid(),
        args.adapter,
        args.model,
    )
    client = AgentClient(args.controller, args.run_id, token, socket_path=args.controller_socket)
    tools_at = args.controller
    if args.controller_socket and args.adapter != SCRIPTED:  # an agent CLI speaks http:// only: a loopback relay
        from harness.agents.loopback import UnixRelay  # uvicorn: only a CLI's run in a sandbox needs it

        tools_at = UnixRelay(args.controller_socket).start().url
    session = AgentSession(
        client=client,
        workspace=args.workspace,
        model=args.model,
        pace=args.pace,
        run_id=args.run_id,
        tool_server_url=tools_at.rstrip("/") + "/mcp/",  # where mcp_mount.PATH serves the product's tools
        token=token,
        model_upstream=args.model_upstream,
        model_socket=args.model_socket,
        provider_keys=provider_keys,
        time_limit_s=args.time_limit,
    )
    try:
        adapter_for(args.adapter).run(session)
    except RunEnded as ended:
        log.info("run %s ended by the controller: %s", args.run_id, ended)
        return 0
    except Exception as error:
        log.exception("agent failed")
        try:
            client.finish("failed", summary=str(error)[:2000], error_code="agent_error")
        except Exception:
            log.exception("could not report the failure")
        return 1
    log.info("run %s finished", args.run_id)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
