"""What an oracle image must be to grade: the pinned digest pulled from its registry, or the pinned root built here.

On a machine that reaches a container registry the pinned image is pulled
by its digest, which the registry's content addressing verifies. Where no
registry is reachable, `python -m oracle image` builds the root with
mmdebstrap from Debian packages instead. That build is reproducible: with
SOURCE_DATE_EPOCH set, the same mmdebstrap and the same package versions
write the same tar byte for byte, and the engine names an imported tar's
layer by that tar's sha256. So a local image verifies by digest too: its one
layer must be the pinned root's (`image.lock.json` beside this file, with
the package versions it was built from, so a refusal can say which package
the archive changed), and its configuration must add nothing that runs
before or around a grade's command (an entrypoint, a user, variables).

Read with json, not pydantic, and found with os.path, not pathlib: the
command line resolves its image before it imports either (oracle.sandbox).
"""

from __future__ import annotations

import json
import os
from typing import Any, NamedTuple

LOCK = os.path.join(os.path.dirname(__file__), "image.lock.json")
PINNED_IMAGE = "python@sha256:9d2e5553305c7c7b0097999bb17187c69b921ccd6bc9d40e4bb5ebe652c00285"
"""On a machine with a registry: the image pulled by this digest (the registry's content addressing verifies it)."""


class PinnedRoot(NamedTuple):
    """The locally built image, pinned: suite, build time, its layer's digest, its variables and its packages."""

    suite: str
    source_date_epoch: int
    layer: str
    env: list[str]
    packages: dict[str, str]


def pinned_root(path: str | os.PathLike[str] = LOCK) -> PinnedRoot:
    """The pinned root as `python -m oracle image --pin` wrote it."""
    with open(path, encoding="utf-8") as lock:
        data = json.load(lock)
    return PinnedRoot(**{field: data[field] for field in PinnedRoot._fields})


def problem(inspected: dict[str, Any], pinned: PinnedRoot) -> str | None:
    """Why an image (the engine's inspect document) is not one a grade may run in; None when it verifies.

    The pulled pinned image verifies by its repository digest. Any other
    image must hold exactly the pinned root's one layer and a configuration
    that adds nothing to a grade's command: the layer is what the build
    made, and a changed entrypoint, user, working folder or variable (an
    LD_PRELOAD, say) would run code of someone else's around the grade.
    """
    if PINNED_IMAGE.split("@")[1] in {digest.split("@")[-1] for digest in inspected.get("RepoDigests") or []}:
        return None
    layers = list((inspected.get("RootFS") or {}).get("Layers") or [])
    if layers != [pinned.layer]:
        shown = ", ".join(layer[:19] for layer in layers) or "none"
        return f"its layers ({shown}) are not the pinned root {pinned.layer[:19]}"
    config = inspected.get("Config") or {}
    changed = [
        name
        for name, value, expected in (
            ("Env", list(config.get("Env") or []), pinned.env),
            ("Entrypoint", config.get("Entrypoint") or None, None),
            ("User", config.get("User") or "", ""),
            ("WorkingDir", config.get("WorkingDir") or "", ""),
            ("OnBuild", config.get("OnBuild") or None, None),
        )
        if value != expected
    ]
    return f"its configuration adds to a grade's command ({', '.join(changed)})" if changed else None


def packages_in_status(status: str) -> dict[str, str]:
    """name -> version of every package a dpkg status file lists."""
    found: dict[str, str] = {}
    name = None
    for line in status.splitlines():
        if line.startswith("Package: "):
            name = line.split(None, 1)[1].strip()
        elif line.startswith("Version: ") and name:
            found[name] = line.split(None, 1)[1].strip()
    return found


def changed_packages(built: dict[str, str], pinned: PinnedRoot, shown: int = 4) -> str:
    """The packages a build got other than the pinned ones, as one short phrase (`name version (pinned v)`)."""
    names = sorted(set(built) | set(pinned.packages))
    differ = [
        f"{name} {built.get(name, 'absent')} (pinned {pinned.packages.get(name, 'absent')})"
        for name in names
        if built.get(name) != pinned.packages.get(name)
    ]
    if not differ:
        return "the same package versions (another mmdebstrap writes other bytes)"
    more = f" and {len(differ) - shown} more" if len(differ) > shown else ""
    return "; ".join(differ[:shown]) + more
