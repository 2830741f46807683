"""How every benchmark starts and stops, as `harness run` does.

Benchmarks start products, browsers and containers. Killed (`kill`,
`timeout`) they used to end at once: a soak's testbed controller, in a
session of its own, ran on, with its data folder outside the labelled run
folders that the next `harness run` or `harness clean` sweeps. Ctrl-C ended
in a traceback.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from harness.running import interrupt
from harness.running.ownership import owned_run


def run_benchmark(main: Callable[[], int | None]) -> int:
    """Run ``main`` in a labelled run folder; Ctrl-C, `kill` or a closed terminal end it in one line, exit 130."""
    interrupt.install()
    try:
        with owned_run():
            return main() or 0
    except KeyboardInterrupt:
        print(f"bench: interrupted ({interrupt.stopped_by()})", file=sys.stderr)
        # What it started is ended and removed above. Exit now: the interpreter's own shutdown (joining a
        # benchmark's threads) could still meet the interrupt and report death by SIGINT instead of 130.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)
