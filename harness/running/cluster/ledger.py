"""One cost ledger for a campaign across the cluster: a Ray actor every node asks before a paid cell starts.

``--max-cost-cents`` stops new paid cells once the campaign has spent that
much. On one machine the spend is read from the campaign's records; on a
cluster the records are still on their nodes while cells run, so each node
adds what its cells spent here as soon as they end, and reads the total
before the next paid cell starts. A cap reached through one node thus stops
new paid cells on every node. The product's own budgets (``--hard-stop-cents``)
need no ledger: each cell's product enforces them while it runs, on whichever
node.
"""

from __future__ import annotations

import ray


@ray.remote(num_cpus=0, max_restarts=0)
class CostLedger:
    """Real cents spent by the campaign: what it held when the run began, plus every cell that ended since."""

    def __init__(self, spent_cents: int) -> None:
        self._spent = spent_cents

    def add(self, cents: int) -> int:
        self._spent += cents
        return self._spent

    def spent(self) -> int:
        return self._spent
