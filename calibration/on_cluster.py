"""`python -m calibration --engine ray`: the story cells of every suite play on a Ray cluster.

The cluster at ``--ray-address`` (else $RAY_ADDRESS), or, with neither, a
two-node one started on this machine for the run. The oracle's own suite
grades ZIPs here, as it always does: only story cells travel.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from calibration.runner import CELL_WORKERS, play_on
from harness.running.selection import select


@contextmanager
def on_cluster(address: str | None) -> Iterator[int | None]:
    """Calibration's cells play on the cluster inside; yields an exit status instead when it cannot be used."""
    from harness.running.cluster.cells import NodesNotReady, RayCells
    from harness.running.cluster.engine import ClusterUnavailable
    from harness.running.cluster.local import local_cluster

    with ExitStack() as stack:
        if not (address or os.environ.get("RAY_ADDRESS")):
            print("calibration: starting a two-node Ray cluster on this machine", flush=True)
            address = stack.enter_context(local_cluster(nodes=2)).address
        try:
            cells = RayCells(address, select(all=True))
        except (ClusterUnavailable, NodesNotReady) as error:
            print(f"calibration: {error}", file=sys.stderr)
            yield 2
            return
        play_on(cells)
        try:
            yield None
        finally:
            play_on(CELL_WORKERS)
            cells.close()
