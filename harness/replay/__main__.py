"""``python -m harness.replay --script build --port 8790``: serve the replay on loopback until stopped."""

from __future__ import annotations

import argparse

import uvicorn

from .scripts import CONVERSATIONAL, SCRIPTS
from .server import create_app


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m harness.replay", description=__doc__)
    parser.add_argument("--script", choices=sorted([*SCRIPTS, *CONVERSATIONAL]), default="build")
    parser.add_argument("--port", type=int, default=8790)
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:  # uvicorn would end in a traceback
        parser.error(f"--port {args.port} is not a port (0 to 65535)")
    uvicorn.run(create_app(args.script), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
