"""Structure check on the extracted delivery: exactly one test_slugify.py (file names only, no code runs).

Anything else in the ZIP is ignored, so a delivery that also carries the
agent's own slugify.py cannot slip its implementation under the suite: the
collector copies the test module alone beside each implementation.
"""

from __future__ import annotations

from pathlib import Path

from oracle.checks import Check
from oracle.tasks.slugify_tests import checks as ids
from oracle.tasks.slugify_tests.checks import check
from oracle.tasks.slugify_tests.contract import TEST_MODULE

_IGNORED_PARTS = {"__MACOSX"}


def structure_checks(root: Path) -> tuple[list[Check], Path | None]:
    """The structure check and the folder holding the test module, or None when there is not exactly one."""
    found = [p for p in root.rglob(TEST_MODULE) if p.is_file() and not _IGNORED_PARTS & set(p.relative_to(root).parts)]
    if len(found) != 1:
        where = ", ".join(str(p.relative_to(root)) for p in found) or "nowhere"
        return [
            check(ids.STRUCTURE_TEST_MODULE, False, f"expected exactly one {TEST_MODULE}, found {len(found)}: {where}")
        ], None
    others = sum(1 for p in root.rglob("*") if p.is_file()) - 1
    ignored = f" ({others} other file(s) ignored)" if others else ""
    return [check(ids.STRUCTURE_TEST_MODULE, True, f"one test module at {found[0].relative_to(root)}{ignored}")], found[
        0
    ].parent
