"""``python -m testbed.metering --upstream URL --provider openai --client-key K``: a proxy in its own process.

The real key, if any, is read from ``$METERING_UPSTREAM_KEY`` (never an
argument: arguments are visible to every process). Each call's report is
printed as one JSON line on stdout, for whoever started the proxy.
"""

from __future__ import annotations

import argparse
import os
import sys

import uvicorn

from .proxy import CallReport, MeteringProxy, ProxyConfig


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m testbed.metering", description=__doc__)
    parser.add_argument("--upstream", required=True)
    parser.add_argument("--provider", choices=["openai", "anthropic"], required=True)
    parser.add_argument("--client-key", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--budget-cents", type=float, default=None)
    parser.add_argument("--simulated", action="store_true")
    args = parser.parse_args(argv)
    config = ProxyConfig(
        upstream=args.upstream,
        provider=args.provider,
        client_key=args.client_key,
        budget_cents=args.budget_cents,
        simulated=args.simulated,
        upstream_key=os.environ.get("METERING_UPSTREAM_KEY"),
    )

    def report(call: CallReport) -> None:
        sys.stdout.write(call.model_dump_json() + "\n")
        sys.stdout.flush()

    uvicorn.run(MeteringProxy(config, report).app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
