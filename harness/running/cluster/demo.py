"""`make cluster-demo`: a two-node Ray cluster on this machine runs the free scripted cells with --engine ray.

Exit 0 only when every cell passed and each node played some: the closing
lines say which node played what.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

from harness.results.epochs import by_cell
from harness.running.cluster.local import local_cluster

SUITE = "everyday-workflows-scripted"


def main(argv: list[str]) -> int:
    from harness.core.settings import new_campaign_id
    from harness.running.campaign import campaign_attempts

    campaign = f"cluster-demo-{new_campaign_id()}"
    print("starting a two-node Ray cluster on this machine (one cell slot per node)", flush=True)
    with local_cluster(nodes=2) as cluster:
        run = ["run", "--suite", SUITE, "--engine", "ray", "--ray-address", cluster.address, "--campaign", campaign]
        status = subprocess.run([sys.executable, "-m", "harness.cli", *run, *argv], check=False).returncode
    records = [attempt.record for attempt in campaign_attempts(Path("results"), campaign) if attempt.record]
    ends = [cell_ends[-1] for cell_ends in by_cell(records).values()]
    per_node = Counter(end.provenance.node for end in ends)
    print("cells per node: " + ", ".join(f"{node}: {count}" for node, count in sorted(per_node.items(), key=str)))
    passed = bool(ends) and all(end.verdict.is_pass for end in ends)
    if status == 0 and passed and len(per_node) >= 2:
        print("cluster demo: every cell passed, and each node played some")
        return 0
    print("cluster demo: FAILED (see above)")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
