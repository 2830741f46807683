"""`python -m bench.oracle_image`: the oracle image's local build, timed, and proven reproducible.

Builds the pinned root (oracle.build) ROUNDS times in one run, each into a
tar of its own, and prints each build's wall time, its digest and whether it
is the pinned root byte for byte, then the import of the last one under a
temporary tag of its own (never the tag grades use), removed afterwards.
Two equal digests that are not the pinned one mean the archive moved on
(a Debian point release): the packages that changed are printed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from bench.arguments import count
from oracle import build, image, pinned

BENCH_TAG = "everyday-evals-oracle:bench-build"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.oracle_image", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=count, default=2, help="builds in this run (default 2)")
    args = parser.parse_args(argv)
    lock = pinned.pinned_root()
    with tempfile.TemporaryDirectory(prefix="everyday-oracle-bench-") as workdir:
        tar = Path(workdir) / "root.tar"
        for round_ in range(1, args.rounds + 1):
            tar = Path(workdir) / f"root-{round_}.tar"
            started = time.monotonic()
            build.build_root(tar, lock)
            digest = build.tar_digest(tar)
            same = (
                "the pinned root"
                if digest == lock.layer
                else f"NOT the pinned root: {pinned.changed_packages(build.tar_packages(tar), lock)}"
            )
            print(f"build {round_}: {time.monotonic() - started:.1f} s, {digest} ({same})")
        client = image.engine()
        started = time.monotonic()
        imported = build.import_tar(client, tar, BENCH_TAG)
        print(f"import: {time.monotonic() - started:.1f} s")
        client.remove_image(imported.id)
    return 0


if __name__ == "__main__":
    sys.exit(main())
