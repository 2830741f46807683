"""How much a new driver writes: the driver seam's members, those without a default, and what each driver writes.

`python -m bench.seam` prints the figures of the working tree; `--rev REV`
reads the seam of a commit instead (for a before-and-after). The seam is the
driver and its API: the classes named ``...Driver`` or ``...Api`` (and the
leftovers protocol they once had beside them) in harness/products/base.py and
harness/products/api.py. A member "to write" is one a driver must supply: every
member of a protocol, an abstract method, an attribute declared without a value.
"""

from __future__ import annotations

import argparse
import ast
import re
import subprocess
from pathlib import Path

from pydantic import BaseModel

ROOT = Path(__file__).resolve().parents[1]
SEAM_FILES = ("harness/products/base.py", "harness/products/api.py")
DRIVERS = {
    "testbed": "harness/products/testbed/driver.py",
    "paperclip": "plugins/paperclip/everyday_paperclip/driver.py",
    "vibe-kanban": "plugins/vibe-kanban/everyday_vibe_kanban/driver.py",
    "example": "plugins/example/everyday_example/driver.py",
}
# A cast to a seam class: a capability discovered at the call site rather than declared.
SEAM_CAST = re.compile(r"\bcast\(\s*\w*(?:Api|Driver)\b")


class SeamCount(BaseModel):
    members: int
    to_write: int
    capability_casts: int
    written: dict[str, int]


def _source(path: str, rev: str | None) -> str | None:
    if rev is None:
        file = ROOT / path
        return file.read_text() if file.exists() else None
    shown = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=ROOT, capture_output=True, text=True, check=False)
    return shown.stdout if shown.returncode == 0 else None


def _is_seam(node: ast.ClassDef) -> bool:
    return node.name.endswith(("Api", "Driver")) or node.name == "KeepsThingsOutside"


def _members(node: ast.ClassDef) -> dict[str, bool]:
    """Each public member a class body defines, and whether a driver must write it."""
    protocol = any(isinstance(base, ast.Name) and base.id == "Protocol" for base in node.bases)
    found: dict[str, bool] = {}
    for item in node.body:
        if isinstance(item, ast.FunctionDef):
            abstract = any(isinstance(d, ast.Name) and d.id == "abstractmethod" for d in item.decorator_list)
            found[item.name] = protocol or abstract
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            found[item.target.id] = protocol or item.value is None
        elif isinstance(item, ast.Assign):
            found |= {t.id: protocol for t in item.targets if isinstance(t, ast.Name)}
    return {name: must for name, must in found.items() if not name.startswith("_")}


def seam_members(rev: str | None = None) -> dict[str, bool]:
    """Every member of the seam, by name, and whether a driver must write it."""
    members: dict[str, bool] = {}
    for path in SEAM_FILES:
        if (text := _source(path, rev)) is None:
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef) and _is_seam(node):
                for name, must in _members(node).items():
                    members[name] = members.get(name, False) or must
    return members


def written(path: str, seam: set[str], rev: str | None = None) -> int:
    """How many seam members the driver (and its API, when in the same file) writes."""
    text = _source(path, rev)
    if text is None:
        return 0
    classes = [n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.ClassDef) and n.name.endswith("Driver")]
    return len({name for node in classes for name in _members(node) if name in seam})


def capability_casts(rev: str | None = None) -> int:
    """``cast(<...Api|...Driver>, ...)`` calls in the harness and the plug-ins."""
    if rev is None:
        files = [p for folder in ("harness", "plugins") for p in (ROOT / folder).rglob("*.py")]
        return sum(len(SEAM_CAST.findall(p.read_text())) for p in files)
    listed = subprocess.run(
        ["git", "grep", "-c", "-P", SEAM_CAST.pattern, rev, "--", "harness", "plugins"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    return sum(int(line.rsplit(":", 1)[1]) for line in listed.splitlines() if line)


def count(rev: str | None = None) -> SeamCount:
    members = seam_members(rev)
    return SeamCount(
        members=len(members),
        to_write=sum(members.values()),
        capability_casts=capability_casts(rev),
        written={name: written(path, set(members), rev) for name, path in DRIVERS.items()},
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", help="a commit to read the seam of (default: the working tree)")
    figures = count(parser.parse_args().rev)
    print(f"seam members: {figures.members}, without a default (to write): {figures.to_write}")
    print(f"casts to a seam class at call sites: {figures.capability_casts}")
    for name, members in figures.written.items():
        print(f"driver {name} writes {members} seam members")


if __name__ == "__main__":
    main()
