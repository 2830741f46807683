"""Point each editable install of this virtualenv at exactly its distribution's packages, with no import hook.

Run by the virtualenv's own Python after `pip install --config-settings
editable_mode=compat -e ...` (the Makefile's base step). Setuptools' compat
mode writes `__editable__.<name>-<version>.pth` holding the project's folder,
which would put everything in it on `sys.path` (the root's `tests`, `bench`,
`scripts`; the paperclip plug-in's `tests`). This rewrites each such `.pth` to
name a folder of its own under `<venv>/editable/<name>/` that holds one
symbolic link per top-level package the distribution declares (its
`top_level.txt`) and nothing else: the same names setuptools' default
(finder) mode exposes, as a plain path entry, so an interpreter's start runs
no finder module and imports nothing for it (the finder imported pathlib,
re, fnmatch and importlib.util into every process). A link names the package's
folder, so a module added to it later is importable without reinstalling.

Idempotent: a second run rewrites the same files. Distributions that are not
editable, or editable in another mode, are left as they are. Exit 0, or 1 with
one line per problem on stderr.
"""

from __future__ import annotations

import json
import os
import sys
import sysconfig
from importlib.metadata import Distribution, distributions
from pathlib import Path
from urllib.parse import unquote, urlsplit

LINKS = "editable"
"""The folder beside the virtualenv's site-packages tree (directly in the venv) that holds the link folders."""


def editable_project(dist: Distribution) -> Path | None:
    """The project folder of an editable install (from its direct_url.json), or None for any other install."""
    text = dist.read_text("direct_url.json")
    if not text:
        return None
    found = json.loads(text)
    if not found.get("dir_info", {}).get("editable"):
        return None
    return Path(unquote(urlsplit(found["url"]).path))


def compat_pth(dist: Distribution, site: Path) -> Path | None:
    """The `.pth` file setuptools' editable install wrote for `dist`, if it holds plain paths (compat mode)."""
    for entry in dist.files or []:
        if entry.name.startswith("__editable__.") and entry.name.endswith(".pth"):
            pth = site / entry.name
            lines = pth.read_text().splitlines() if pth.is_file() else ["import"]
            return None if any(line.startswith("import") for line in lines) else pth
    return None


def link(dist: Distribution, project: Path, pth: Path, links: Path) -> None:
    """Make `links/<name>/` hold a link to each top-level package of `dist`, and `pth` name that folder."""
    folder = links / dist.metadata["Name"]
    folder.mkdir(parents=True, exist_ok=True)
    wanted = {name for name in (dist.read_text("top_level.txt") or "").split() if (project / name).is_dir()}
    for stale in folder.iterdir():
        if stale.name not in wanted:
            stale.unlink()
    for name in wanted:
        target = folder / name
        if target.is_symlink() and os.readlink(target) == str(project / name):
            continue
        if target.is_symlink():
            target.unlink()
        target.symlink_to(project / name, target_is_directory=True)
    pth.write_text(f"{folder}\n")


def main() -> int:
    site = Path(sysconfig.get_paths()["purelib"])
    links = Path(sys.prefix) / LINKS
    problems: list[str] = []
    for dist in distributions(path=[str(site)]):
        project = editable_project(dist)
        pth = compat_pth(dist, site) if project is not None else None
        if project is None or pth is None:
            continue
        if not project.is_dir():
            problems.append(f"editable_paths: {dist.metadata['Name']}'s project folder {project} is gone")
            continue
        link(dist, project, pth, links)
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
