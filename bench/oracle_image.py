"""`python -m bench.oracle_image`: the oracle image's local build, by each bootstrapper found, side by side.

Each installed bootstrapper (oracle.image.BOOTSTRAPPERS) builds the root
`python -m oracle image` would, and imports it under a temporary tag of its
own (never the tag grades use); the wall time of the build and of the
import are printed, with the packages each image holds, so a faster tool is
seen to give the same contents. The temporary tags are removed afterwards.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from oracle import image

BENCH_TAG = "everyday-evals-oracle:bench-{name}"


def packages(reference: str) -> set[str]:
    """`name=version` of every package installed in the image."""
    listed = subprocess.run(
        ["docker", "run", "--rm", "--network=none", reference, "dpkg-query", "-W", "-f=${Package}=${Version}\\n"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return set(listed.split())


def build(name: str, path: str, mirror: str | None) -> tuple[float, float, str]:
    """(build seconds, import seconds, tag) of one bootstrapper's root."""
    client = image.engine()
    tag = BENCH_TAG.format(name=name)
    with tempfile.TemporaryDirectory(prefix="everyday-oracle-bench-") as workdir:
        target = Path(workdir) / ("root.tar" if name == "mmdebstrap" else "root")
        started = time.monotonic()
        subprocess.run(image.bootstrap_command(name, path, target, mirror), capture_output=True, check=True)
        built = time.monotonic()
        if name == "mmdebstrap":
            image.import_tar(client, target, tag)
        else:
            for part in image._PRUNE:
                shutil.rmtree(target / part, ignore_errors=True)
            image.import_root(client, target, tag)
        return built - started, time.monotonic() - built, tag


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.oracle_image", description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=image.BOOTSTRAPPERS, help="build with this bootstrapper alone")
    args = parser.parse_args(argv)
    found = [(name, shutil.which(name)) for name in image.BOOTSTRAPPERS if args.only in (None, name)]
    mirror = image.debian_mirror()
    contents: dict[str, set[str]] = {}
    try:
        contents["the image grades use"] = packages(image.resolve(image.engine()).id)
    except (image.CannotGrade, subprocess.CalledProcessError):
        pass
    for name, path in found:
        if not path:
            print(f"{name}: not installed")
            continue
        build_s, import_s, tag = build(name, path, mirror)
        try:
            contents[name] = packages(tag)
        finally:
            subprocess.run(["docker", "rmi", "-f", tag], capture_output=True)
        print(f"{name}: root {build_s:.1f} s, import {import_s:.1f} s, {len(contents[name])} packages")
    names = list(contents)
    for index, first in enumerate(names):
        for second in names[index + 1 :]:
            print(
                f"{first} / {second}: only in the first {sorted(contents[first] - contents[second]) or 'none'},"
                f" only in the second {sorted(contents[second] - contents[first]) or 'none'}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
