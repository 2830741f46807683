"""``python -m harness.agents.metering --upstream URL --provider openai --client-key K``: a proxy in its own process.

The real key, if any, is read from ``$METERING_UPSTREAM_KEY`` (never an
argument: arguments are visible to every process). Each call's report is
printed as one JSON line on stdout, for whoever started the proxy.
"""

from __future__ import annotations

import argparse
import os
import sys

import uvicorn
from pydantic import ValidationError

from ..arguments import cents, port_number
from .proxy import CallReport, MeteringProxy, ProxyConfig


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m harness.agents.metering", description=__doc__)
    parser.add_argument("--upstream", required=True)
    parser.add_argument("--provider", choices=["openai", "anthropic"], required=True)
    parser.add_argument("--client-key", required=True)
    parser.add_argument("--port", type=port_number, default=0)
    parser.add_argument("--budget-cents", type=cents, default=None)
    parser.add_argument("--simulated", action="store_true")
    args = parser.parse_args(argv)
    try:
        config = ProxyConfig(
            upstream=args.upstream,
            provider=args.provider,
            client_key=args.client_key,
            budget_cents=args.budget_cents,
            simulated=args.simulated,
            upstream_key=os.environ.get("METERING_UPSTREAM_KEY"),
        )
    except ValidationError as error:
        parser.error(
            "; ".join(
                f"--{'-'.join(map(str, e['loc']))}: {e['msg'].removeprefix('Value error, ')}" for e in error.errors()
            )
        )

    def report(call: CallReport) -> None:
        sys.stdout.write(call.model_dump_json() + "\n")
        sys.stdout.flush()

    uvicorn.run(MeteringProxy(config, report).app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
