"""`harness merge`: bring results copied from several machines into one folder.

Shards of one campaign write disjoint packages (attempt ids carry a random
part), so merging is copying; what must never happen is one machine's
package silently replacing another's. Every conflict is found *before*
anything is copied, and then nothing is. Files present on both sides with
identical bytes are fine (the same shard copied twice); new files inside an
existing package (a review note written elsewhere) are added. Derived files
that every shard writes (``<campaign>/summary.json``) are skipped: the report
recomputes them from the packages; so is each shard's own ``pytest-output.txt``.
"""

from __future__ import annotations

import filecmp
import shutil
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel

DERIVED = ("summary.json", "pytest-output.txt")


class MergeConflict(Exception):
    """Different files at the same path; the message lists every one."""


class MergeResult(BaseModel):
    copied: int
    identical: int
    skipped: list[str]


def _files(source: Path) -> list[Path]:
    return sorted(path for path in source.rglob("*") if path.is_file())


def _derived(relative: Path) -> bool:
    return len(relative.parts) == 2 and relative.name in DERIVED


def merge_results(sources: Sequence[Path], into: Path) -> MergeResult:
    """Copy every file of SOURCES into INTO; raise MergeConflict, copying nothing, if any would overwrite different bytes."""
    plan: dict[Path, Path] = {}
    conflicts: list[str] = []
    identical, skipped = 0, []
    for source in sources:
        if not source.is_dir():
            raise MergeConflict(f"{source} is not a folder")
        for path in _files(source):
            relative = path.relative_to(source)
            if _derived(relative):
                skipped.append(str(path))
                continue
            target = into / relative
            earlier = plan.get(target)
            if earlier is not None:
                if not filecmp.cmp(earlier, path, shallow=False):
                    conflicts.append(f"{relative}: {earlier} and {path} differ")
                continue
            if target.exists():
                if filecmp.cmp(target, path, shallow=False):
                    identical += 1
                else:
                    conflicts.append(f"{relative}: {path} differs from the file already in {into}")
                continue
            plan[target] = path
    if conflicts:
        raise MergeConflict(f"refusing to merge, {len(conflicts)} conflict(s):\n  " + "\n  ".join(conflicts))
    for target, path in plan.items():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    return MergeResult(copied=len(plan), identical=identical, skipped=skipped)
